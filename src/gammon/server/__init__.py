"""The game server: the only part of gammon that knows HTTP, WebSockets and SQL.

One module per part, each importing only the parts below it (``docs/architecture.md``,
``docs/server.md``, ``PROTOCOL.md``): app > routes > accounts | lobby | play > hub > rooms.

* :mod:`~gammon.server.settings` — settings from the environment / ``.env``.
* :mod:`~gammon.server.db` — tables, the Alembic-migrated schema, the repository.
* :mod:`~gammon.server.protocol` — the one parser of client messages into a typed union,
  and the JSON form of actions, events and match state.
* :mod:`~gammon.server.fairness` — provably fair dice (commit, reveal, verify).
* :mod:`~gammon.server.rooms` — the room state machine (pure): plan, commit, replay.
* :mod:`~gammon.server.hub` — the rooms a process holds: loading, the one transition
  (stored, then committed and sent), the bus, subscriptions, heartbeats.
* :mod:`~gammon.server.lobby` — create, join, cancel, rematch, private matches.
* :mod:`~gammon.server.play` — players' actions, clocks' flag timers, bots, chat.
* :mod:`~gammon.server.accounts` — accounts and sessions;
  :mod:`~gammon.server.limits` — rate limits.
* :mod:`~gammon.server.pubsub` — the bus between server processes (in-process or Redis).
* :mod:`~gammon.server.ratings`, :mod:`~gammon.server.bots` (the engine's bot).
  ``.mat`` files come from :mod:`gammon.formats.mat`, the project's one writer.
* :mod:`~gammon.server.routes` — the HTTP API (routers with typed dependencies) and the
  WebSocket; :mod:`~gammon.server.app` — the ASGI app factory (FastAPI) that wires them.
* :mod:`~gammon.server.cli` — ``gammon serve`` and ``gammon verify``.
"""
