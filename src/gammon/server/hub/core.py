"""The hub: the rooms this process holds (one :class:`Hub` per server process), kept in
step with the stored log and with the other processes — the parts joined, and the one way a
room changes (:meth:`Hub.transition`).

The client proposes, the server decides: a client message becomes a core action
(:func:`~gammon.server.protocol.message_action`), the pure room state machine
(:mod:`gammon.server.rooms`, the core's :meth:`Match.apply
<gammon.core.match.Match.apply>`) accepts or refuses it, the accepted action is **stored
before anything is sent** (:meth:`Repository.append_many
<gammon.server.db.Repository.append_many>`), and only then do the room's state and version
move and the events go out. A refused action changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import assert_never

from gammon.server import protocol
from gammon.server.bus_messages import (
    ActionStored,
    BusMessage,
    ChallengesChanged,
    Forward,
    LobbyChanged,
    OptionsChanged,
    Resync,
    Seated,
    SeeksChanged,
)
from gammon.server.db import Repository, SeqConflict
from gammon.server.hub import fanout
from gammon.server.hub.finishing import finish
from gammon.server.hub.heartbeats import Heartbeats
from gammon.server.hub.link import BusLink, carried_events
from gammon.server.hub.live import Connection, LiveRoom, Proposal, ServiceError
from gammon.server.hub.registry import Registry
from gammon.server.observer import Observer
from gammon.server.pubsub import Bus
from gammon.server.rooms import PAUSE, stored_row
from gammon.server.settings import Settings

log = logging.getLogger(__name__)

STOP_TIMEOUT = 5.0
"""Seconds :meth:`Hub.stop` waits for its cancelled background tasks."""


class Hub:
    """Every room this process holds (:class:`~gammon.server.hub.registry.Registry`), the
    sockets subscribed to them (:mod:`~gammon.server.hub.fanout`), the bus
    (:class:`~gammon.server.hub.link.BusLink`), the heartbeats
    (:class:`~gammon.server.hub.heartbeats.Heartbeats`) and the transitions."""

    def __init__(self, settings: Settings, repo: Repository, bus: Bus,
                 observer: Observer | None = None) -> None:
        self.settings = settings
        self.repo = repo
        self.link = BusLink(bus)
        self.registry = Registry(repo, resume=self._finish_pending,
                                 loaded=lambda room: self.after_change(room, local=True))
        self.heartbeats = Heartbeats(repo, self.link.origin, settings.heartbeat_interval)
        self.observer = observer or Observer()
        """What the hub and play report (the metrics: :class:`gammon.server.ops.Ops`)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._in_play = (0, float("-inf"))  # (the count, when it was counted)
        self.closed = False
        self.on_change: Callable[[LiveRoom, bool], None] = lambda room, local: None
        """Called after a room changed, with the room and whether this process changed it
        (:meth:`after_change`; :class:`gammon.server.play.Play` sets it)."""
        self.finish_listeners: list[Callable[[str], None]] = []
        """Each called with a match's id when it ends in this process: the analysis worker
        queues its analysis (:mod:`gammon.server.analysis_worker`), the tournaments'
        scheduler makes a pass (:mod:`gammon.server.tournaments.scheduler`)."""
        self.lobby_watchers: set[Connection] = set()
        """The sockets that asked for the lobby's open games (``subscribe_lobby``)."""
        self.subscriptions: dict[Connection, dict[str, None]] = {}
        """Each socket's matches, oldest subscribed first (:meth:`subscribe`)."""
        self.on_lobby: Callable[[], None] = lambda: None
        """Called when another process says the open games changed
        (:class:`gammon.server.lobby.Lobby` sets it)."""
        self.on_challenges: Callable[[list[int]], None] = lambda users: None
        """Called with the players whose challenges another process says changed
        (:class:`gammon.server.lobby.Lobby` sets it)."""
        self.on_seeks: Callable[[list[int], str | None], None] = lambda users, match: None
        """Called with the players whose places in Play now's pools another process says
        changed, and the match they were paired into if so
        (:class:`gammon.server.matchmaking.Matchmaker` sets it)."""

    @property
    def rooms(self) -> dict[str, LiveRoom]:
        return self.registry.rooms

    @property
    def bus(self) -> Bus:
        return self.link.bus

    @bus.setter
    def bus(self, bus: Bus) -> None:
        self.link.bus = bus

    @property
    def origin(self) -> str:
        return self.link.origin

    # -- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every playing match, crediting the server's downtime to running clocks.

        At start-up, before this process writes its own heartbeat, the latest heartbeat of
        any process is when the server was last known to be up: each playing match with a
        running clock gets a ``clock_pause`` record in its log of ``resumed - max(last
        heartbeat, the match's last action)`` seconds, ``resumed`` being when the match has
        been loaded and replayed (nothing when negative, when no heartbeat was ever
        written, or when the flag had already fallen while the server was up). The record
        is replayed like any action, so later restarts give the same credit again and
        processes catch up with it.
        """
        await self.link.start(self._receive)
        # this process may have died between a commit and its publish: the others catch up
        await self.publish(Resync())
        alive = await self.repo.last_heartbeat()
        for match_id in await self.repo.playing_ids():
            room = await self.room(match_id)  # pending steps made, timer set, bot scheduled
            if room is not None and alive is not None:
                # up to now: loading and replaying (a compiled kernel's first use may take
                # seconds) is downtime too
                await self._credit_downtime(room, alive, time.time())
        await self.heartbeats.beat()
        self.spawn(self.heartbeats.run())

    async def _credit_downtime(self, room: LiveRoom, alive: float, now: float) -> None:
        """Append the ``clock_pause`` record of a restart to a match with a running clock."""
        async with room.lock:
            clock = room.clock
            if clock is None or clock.running is None or room.match is None \
                    or room.match.is_over:
                return
            up = max(alive, room.last_at)
            if clock.expired(max(up, clock.last)) is not None:
                return  # the flag fell while the server was still up
            seconds = now - up
            if seconds <= 0:
                return
            at = max(now, room.last_at)
            record = {"t": PAUSE, "seconds": seconds}
            try:
                await self.repo.append(room.id, room.seq + 1, PAUSE, json.dumps(record), at)
            except SeqConflict:  # another process moved the match meanwhile: it was up
                room.outbox += await self.registry.catch_up(room)
            else:
                room.outbox += room.pause(seconds, at)
                await self.publish(ActionStored(match=room.id, seq=room.seq))
            finally:
                self.flush(room)
            self.after_change(room, local=False)  # the flag falls that much later

    async def stop(self) -> None:
        self.closed = True
        for room in self.rooms.values():
            if room.timer is not None:
                room.timer.cancel()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:  # bounded: a task that swallowed its cancellation must not hang the stop
            _, pending = await asyncio.wait(tasks, timeout=STOP_TIMEOUT)
            for task in pending:
                log.error("a background task did not stop when cancelled: %r", task)
        await self.heartbeats.beat()  # the server is known to be up until now
        await self.link.close()

    def spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        """Run ``coroutine`` in the background (cancelled at :meth:`stop`; a failure is
        logged)."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # -- the rooms (gammon.server.hub.registry) ------------------------------------------

    async def room(self, match_id: str) -> LiveRoom | None:
        """The room of a match, loaded and replayed from the database on first use.

        A loaded match resumes: the automatic actions its log stops before are made
        (:meth:`_finish_pending`), its flag timer is set, and a bot on turn is scheduled.
        """
        return await self.registry.room(match_id)

    async def _finish_pending(self, room: LiveRoom) -> None:
        """Make the automatic actions a loaded log stops before (a log of an older
        version, which stored them in transactions of their own, or of a process that died
        in between). Another process doing the same at once is caught by the action
        numbers: the loser catches up and finds nothing left to do."""
        if not room.pending_automatic():
            return
        async with room.lock:
            try:
                await self.transition(room, None, time.time())
            finally:
                self.flush(room)

    async def seats_taken(self, room: LiveRoom) -> None:
        """Catch up with a join (caller holds the room lock)."""
        await self.registry.seats_taken(room)

    def maybe_evict(self, room: LiveRoom) -> None:
        self.registry.maybe_evict(room)

    def position_ids(self, room: LiveRoom) -> frozenset[str]:
        return self.registry.position_ids(room)

    def in_play(self, *, at_most_old: float = 0.1) -> int:
        """How many matches in play this process holds, counted again when the last count
        is more than ``at_most_old`` seconds old (the admission asks at every create and
        join; the metric, at each scrape, wants it now)."""
        now = time.monotonic()
        if now - self._in_play[1] >= at_most_old:
            self._in_play = (sum(1 for room in self.rooms.values()
                                 if room.status == "playing"), now)
        return self._in_play[0]

    def full(self) -> bool:
        """Whether this process holds as many matches in play as it takes
        (``shed_matches_in_play``): new ones wait (docs/server.md, *Moves first*)."""
        cap = self.settings.shed_matches_in_play
        return self.settings.shed_load and cap > 0 and self.in_play() >= cap

    def _resync_lobby(self) -> None:
        """Tell the lobby's watchers again what lost messages would have told them: the
        open games, each one's challenges and place in Play now, read from the database."""
        self.on_lobby()
        users = sorted({conn.user.id for conn in self.lobby_watchers})
        if users:
            self.on_challenges(users)
            self.on_seeks(users, None)

    async def _resync_all(self) -> None:
        for room in list(self.rooms.values()):
            async with room.lock:
                await self.registry.resync(room)
            self.after_change(room, local=False)

    # -- the bus (gammon.server.hub.link) ------------------------------------------------

    async def publish(self, message: BusMessage) -> None:
        """Tell the other processes (a failure is counted and logged: the log is the truth,
        and other processes catch up on next use)."""
        try:
            await self.link.publish(message)
        except Exception:
            self.observer.bus_failed()
            log.exception("bus publish failed")

    async def _receive(self, message: BusMessage) -> None:
        """Another process's message."""
        match message:
            case Resync():  # a process (re)started, or this one's bus lost messages
                self.spawn(self._resync_all())
                self._resync_lobby()
            case LobbyChanged():
                self.on_lobby()
            case ChallengesChanged(users=users):
                self.on_challenges(list(users))
            case SeeksChanged(users=users, match=match):
                self.on_seeks(list(users), match)
            case OptionsChanged(user=user):
                self.spawn(self.options_changed(user))
            case ActionStored() | Seated():
                room = self.rooms.get(message.match)
                if room is None:
                    return
                async with room.lock:
                    if isinstance(message, Seated):
                        await self.registry.seats_taken(room)
                        events = []
                    else:
                        carried = carried_events(room, message)
                        events = await self.registry.catch_up(room) if carried is None \
                            else carried
                if events:
                    fanout.broadcast_update(room, events)
                self.after_change(room, local=False)
            case Forward():
                self._forward(message)
            case _:
                assert_never(message)

    def _forward(self, message: Forward) -> None:
        """A chat line, rematch offer or analysis progress: to the room's sockets."""
        room = self.rooms.get(message.match)
        if room is not None:
            fanout.send_all(room, message.payload, chat=message.kind == "chat")

    # -- sockets (gammon.server.hub.fanout) ----------------------------------------------

    def send_all(self, room: LiveRoom, message: protocol.ServerMessage, *,
                 chat: bool = False) -> None:
        fanout.send_all(room, message, chat=chat)

    def flush(self, room: LiveRoom) -> None:
        """Send the events of the actions just stored (caller holds the lock)."""
        fanout.flush(room)

    async def subscribe(self, conn: Connection, match_id: str, since: int | None) -> None:
        """Watch a match (players and spectators); ``since`` resyncs from a version."""
        room = await self.room(match_id)
        if room is None:
            raise ServiceError("not_found", f"no match {match_id}")
        mine = self.subscriptions.setdefault(conn, {})
        if match_id not in mine and len(mine) >= self.settings.ws_subscriptions:
            self._drop_a_finished_one(conn, mine)
        version = room.version
        # From the log: another process may have died unannounced. A room at work (a bot's
        # turn, an action, a catch-up) is not waited for: its worker sends the socket what
        # it stores, as events on the state greeted. Except an open room: a seat taken
        # elsewhere may be under way, and its greeting would have no game to play from.
        if room.match is None or not room.lock.locked():
            async with room.lock:
                await self.registry.resync(room)
        room.subscribers.add(conn)
        mine[match_id] = None
        fanout.greet(room, conn, since)
        if room.version != version:
            self.after_change(room, local=False)

    def _drop_a_finished_one(self, conn: Connection, mine: dict[str, None]) -> None:
        """Make room for one more subscription of a socket at its bound
        (``ws_subscriptions``): the oldest to a match over (nothing more will be played
        there) is let go; with none over, the subscribe is refused. A finished room is held
        in memory while any socket watches it, and a client that never unsubscribes
        (the web client does when a match's page is left) would hold every match it ever
        played or watched for as long as its socket lives."""
        for match_id in mine:
            room = self.rooms.get(match_id)
            if room is None or room.status in ("finished", "cancelled"):
                self.unsubscribe(conn, match_id)
                return
        raise ServiceError("too_many_subscriptions",
                           f"this socket watches {len(mine)} matches in play: "
                           "unsubscribe from one first")

    def unsubscribe(self, conn: Connection, match_id: str) -> None:
        mine = self.subscriptions.get(conn)
        if mine is not None:
            mine.pop(match_id, None)
        room = self.rooms.get(match_id)
        if room is not None:
            room.subscribers.discard(conn)
            self.maybe_evict(room)

    def disconnect(self, conn: Connection) -> None:
        self.lobby_watchers.discard(conn)
        for match_id in self.subscriptions.pop(conn, {}):
            room = self.rooms.get(match_id)
            if room is not None:
                room.subscribers.discard(conn)
                self.maybe_evict(room)

    # -- changes -------------------------------------------------------------------------

    def after_change(self, room: LiveRoom, *, local: bool) -> None:
        """A room changed — by this process (``local``) or another, or it was loaded: tell
        :attr:`on_change` (play sets the flag timer and moves a bot on turn:
        :meth:`gammon.server.play.Play.changed`)."""
        if not self.closed:
            self.on_change(room, local)

    async def options_changed(self, user_id: int) -> None:
        """A player's options changed (here or, said by the bus, in another process): the
        rooms this process holds where they play take them, and what they have the server
        do now is done at once — a roll for auto-roll switched on before rolling, the end of
        a complete play for confirming switched off (:meth:`Room.automatic_action
        <gammon.server.rooms.Room.automatic_action>`). Two processes doing it at once are
        kept apart by the action numbers."""
        for room in list(self.rooms.values()):
            if user_id not in room.players or room.match is None or room.match.is_over:
                continue
            async with room.lock:
                room.users.update(await self.repo.users([user_id]))
                seq = room.seq
                try:
                    await self.transition(room, None, time.time())
                finally:
                    self.flush(room)
            self.after_change(room, local=room.seq != seq)

    async def transition(self, room: LiveRoom, propose: Proposal | None, at: float) -> None:
        """One atomic transition (caller holds the lock): the action ``propose`` makes of
        the room's state at clock time ``at`` — None for only the server's automatic
        actions — and every automatic action it leads to (the next game's opening,
        auto-rolls) are stored in one transaction, then committed and queued for
        broadcast. A crash stores all of them or none.

        Raises the core's :class:`IllegalActionError` (nothing changes). When another
        process stored these action numbers first, catch up and propose again.
        """
        for attempt in range(3):
            assert room.match is not None
            action = propose(room) if propose is not None else None
            steps = room.plan(action, max(at, room.last_at), time.time())
            if not steps:
                return
            end = steps[-1].match
            ended = ratings = None
            if end.is_over and end.result is not None:
                ended, ratings = await finish(self.repo, room, end)
            rows = [stored_row(s) for s in steps]
            first = room.seq + 1
            try:
                await self.repo.append_many(room.id, first, rows, ended, ratings or ())
            except SeqConflict:
                if attempt == 2:
                    raise
                room.outbox += await self.registry.catch_up(room)
                if room.match is None:
                    raise ServiceError("not_started", "the match has not started") from None
                continue
            for step in steps:
                room.outbox += room.commit(step)
            if ended is not None:
                room.result = json.loads(ended.result)
                if ratings:
                    await self.registry.load_users(room)
                for listener in self.finish_listeners:
                    listener(room.id)
            # the committed rows travel with the message: a process holding the match at
            # action first - 1 applies them without reading the log (link.carried_events)
            await self.publish(ActionStored(match=room.id, seq=room.seq, first=first,
                                            rows=tuple(rows), ended=ended is not None))
            return



