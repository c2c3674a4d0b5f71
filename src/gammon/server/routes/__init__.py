"""The HTTP routes and the WebSocket, one router per part of the server: ``accounts``
(sign-up, sign-in, sessions, options), ``lobby`` (open games, create, join, cancel,
rematch, a match's state), ``history`` (exports, fairness, players' history and ratings,
leaderboard, dice statistics), ``engine`` (hint, eval) and ``socket`` (``/ws``). Each
route names the services it needs as typed dependencies (:mod:`.deps`)."""
