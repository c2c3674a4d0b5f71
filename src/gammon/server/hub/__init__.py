"""The hub: the rooms this process holds (one :class:`Hub` per server process), kept in
step with the stored log and with the other processes. The lobby
(:mod:`gammon.server.lobby`) and play (:mod:`gammon.server.play`) act through it.

Its parts, one job each:

* :mod:`~gammon.server.hub.core` — :class:`Hub`: the parts joined, the life cycle
  (resuming every playing match, crediting a restart's downtime to running clocks), and
  the one way a room changes (:meth:`Hub.transition`);
* :mod:`~gammon.server.hub.registry` — the rooms held: loaded and replayed from the log on
  first use, caught up with other processes' actions, let go when done;
* :mod:`~gammon.server.hub.link` — the bus link: typed messages out and in;
* :mod:`~gammon.server.hub.fanout` — a room's messages to its subscribed sockets;
* :mod:`~gammon.server.hub.finishing` — a match's end: its result and the rating changes;
* :mod:`~gammon.server.hub.heartbeats` — the heartbeats that measure a restart's downtime;
* :mod:`~gammon.server.hub.live` — what they share: the live room, a socket, a refusal.
"""

from gammon.server.hub.core import Hub
from gammon.server.hub.live import Connection, LiveRoom, Proposal, ServiceError

__all__ = ["Connection", "Hub", "LiveRoom", "Proposal", "ServiceError"]
