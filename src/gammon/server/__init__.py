"""The game server: the only part of gammon that knows HTTP, WebSockets and SQL.

Flat modules, one concept each (see ``docs/server.md`` and ``PROTOCOL.md``):

* :mod:`~gammon.server.settings` — settings from the environment / ``.env``.
* :mod:`~gammon.server.db` — tables, the Alembic-migrated schema, the repository.
* :mod:`~gammon.server.protocol` — the one parser of client messages into a typed union,
  and the JSON form of actions, events and match state.
* :mod:`~gammon.server.fairness` — provably fair dice (commit, reveal, verify).
* :mod:`~gammon.server.service` — the authoritative match service: rooms, clocks, bots.
* :mod:`~gammon.server.pubsub` — the bus between server processes (in-process or Redis).
* :mod:`~gammon.server.ratings`, :mod:`~gammon.server.bots` (the engine's bot).
  ``.mat`` files come from :mod:`gammon.formats.mat`, the project's one writer.
* :mod:`~gammon.server.app` — the ASGI app factory (FastAPI), HTTP API and WebSocket.
* :mod:`~gammon.server.cli` — ``gammon serve`` and ``gammon verify``.
"""
