"""The hub: the rooms this process holds (one :class:`Hub` per server process), kept in
step with the stored log and with the other processes.

It owns loading (a room is rebuilt from its stored log on first use, and resumes: pending
automatic actions made, the flag timer set, a bot on turn scheduled), the one way a room
changes (:meth:`Hub.transition`), the bus between processes, the sockets subscribed to each
room, and the heartbeats that measure a restart's downtime. The lobby
(:mod:`gammon.server.lobby`) and play (:mod:`gammon.server.play`) act through it.

The client proposes, the server decides: a client message becomes a core action
(:func:`~gammon.server.protocol.message_action`), the pure room state machine
(:mod:`gammon.server.rooms`, the core's :meth:`Match.apply
<gammon.core.match.Match.apply>`) accepts or refuses it, the accepted action is **stored
before anything is sent** (:meth:`Repository.append_many
<gammon.server.db.Repository.append_many>`), and only then do the room's state and version
move and the events go out. A refused action changes nothing.

Rebuilding: a room is rebuilt from the database by replaying its stored actions through the
same :func:`~gammon.server.rooms.advance` the live path uses — dice, clock times and all are
in the stored actions, so the replay is exact. That is how a restarted server resumes every
match and how a process catches up with actions another process appended (the bus says
which match moved, and carries the committed rows).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from gammon.core import actions as A
from gammon.core.match import Match
from gammon.server import jsontext, protocol
from gammon.server.bus_messages import (
    ActionStored,
    BadBusMessage,
    BusMessage,
    ChallengesChanged,
    LobbyChanged,
    OptionsChanged,
    Resync,
    RoomMessage,
    Seated,
)
from gammon.server.bus_messages import dump as dump_message
from gammon.server.bus_messages import parse as parse_message
from gammon.server.db import Repository, SeqConflict, User
from gammon.server.observer import Observer
from gammon.server.pubsub import Bus
from gammon.server.ratings import new_ratings
from gammon.server.records import Finish, RatingChange
from gammon.server.rooms import PAUSE, Room, stored_row
from gammon.server.settings import Settings
from gammon.views import EventView, result_view

log = logging.getLogger(__name__)

class ServiceError(Exception):
    """A request the service refuses; ``code`` (a stable reason code, PROTOCOL.md) and
    ``message`` go back to the client: as an ``error`` message on the socket, as
    ``{"detail": {"code", "message"}}`` over HTTP with the code's status."""

    def __init__(self, code: protocol.RefusalCode, message: str,
                 reason: protocol.IllegalReason | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        """With ``illegal``: which rule refused (:func:`protocol.illegal_reason`)."""


class Connection(Protocol):
    """A client socket as the service sees it."""

    user: User
    lag: float
    muted: set[str]

    def send_text(self, text: str) -> None: ...


Proposal = Callable[["LiveRoom"], "A.Action | None"]
"""What a transition proposes, made from the room's state (again after catching up)."""


@dataclass
class LiveRoom(Room):
    """A room held by this process: the pure :class:`~gammon.server.rooms.Room` and what
    serving it takes — the lock its transitions hold, its flag timer, the sockets
    subscribed to it, and the events stored but not yet sent."""

    subscribers: set[Any] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    outbox: list[EventView] = field(default_factory=list)


# -- the hub ---------------------------------------------------------------------------


class Hub:
    """Every room this process holds, the sockets subscribed to them, and the bus."""

    def __init__(self, settings: Settings, repo: Repository, bus: Bus,
                 observer: Observer | None = None) -> None:
        self.settings = settings
        self.repo = repo
        self.bus = bus
        self.observer = observer or Observer()
        """What the hub and play report (the metrics: :class:`gammon.server.ops.Ops`)."""
        self.origin = uuid.uuid4().hex
        self.rooms: dict[str, LiveRoom] = {}
        self._loading: dict[str, asyncio.Future[LiveRoom | None]] = {}
        self._position_ids: dict[str, tuple[int, frozenset[str]]] = {}
        """Match id -> (the room's action number, :meth:`position_ids` at that number)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = False
        self.on_change: Callable[[LiveRoom, bool], None] = lambda room, local: None
        """Called after a room changed, with the room and whether this process changed it
        (:meth:`after_change`; :class:`gammon.server.play.Play` sets it)."""
        self.on_finish: Callable[[str], None] | None = None
        """Called with a match's id when it ends in this process (the analysis worker
        queues its analysis: :mod:`gammon.server.analysis_worker`)."""
        self.lobby_watchers: set[Connection] = set()
        """The sockets that asked for the lobby's open games (``subscribe_lobby``)."""
        self.on_lobby: Callable[[], None] = lambda: None
        """Called when another process says the open games changed
        (:class:`gammon.server.lobby.Lobby` sets it)."""
        self.on_challenges: Callable[[list[int]], None] = lambda users: None
        """Called with the players whose challenges another process says changed
        (:class:`gammon.server.lobby.Lobby` sets it)."""

    # -- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every playing match, crediting the server's downtime to running clocks.

        Every process writes its time to the database every ``heartbeat_interval`` seconds
        and at a clean shutdown. At start-up, before this process writes its own, the
        latest heartbeat of any process is when the server was last known to be up: each
        playing match with a running clock gets a ``clock_pause`` record in its log of
        ``resumed - max(last heartbeat, the match's last action)`` seconds, ``resumed``
        being when the match has been loaded and replayed (nothing when
        negative, when no heartbeat was ever written, or when the flag had already fallen
        while the server was up). The record is replayed like any action, so later
        restarts give the same credit again and processes catch up with it.
        """
        await self.bus.start(self._on_bus)
        # this process may have died between a commit and its publish: the others catch up
        await self.publish(Resync())
        alive = await self.repo.last_heartbeat()
        for match_id in await self.repo.playing_ids():
            room = await self.room(match_id)  # pending steps made, timer set, bot scheduled
            if room is not None and alive is not None:
                # up to now: loading and replaying (a compiled kernel's first use may take
                # seconds) is downtime too
                await self._credit_downtime(room, alive, time.time())
        await self._beat()
        self.spawn(self._heartbeats())

    async def _beat(self) -> None:
        try:
            await self.repo.heartbeat(self.origin, time.time())
        except Exception:  # the next beat tries again
            log.exception("heartbeat failed")

    async def _heartbeats(self) -> None:
        while True:
            await asyncio.sleep(self.settings.heartbeat_interval)
            await self._beat()

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
                room.outbox += await self._catch_up(room)
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
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._beat()  # the server is known to be up until now
        await self.bus.close()

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # -- loading rooms -------------------------------------------------------------------

    async def room(self, match_id: str) -> LiveRoom | None:
        """The room of a match, loaded and replayed from the database on first use.

        A loaded match resumes: the automatic actions its log stops before are made
        (:meth:`_finish_pending`), its flag timer is set, and a bot on turn is scheduled.
        """
        room = self.rooms.get(match_id)
        if room is not None:
            return room
        pending = self._loading.get(match_id)
        if pending is not None:
            return await pending
        future: asyncio.Future[LiveRoom | None] = asyncio.get_running_loop().create_future()
        self._loading[match_id] = future
        try:
            room = await self._load(match_id)
            if room is not None:
                await self._finish_pending(room)
                self.rooms[match_id] = room
            future.set_result(room)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it re-raised
            raise
        finally:
            del self._loading[match_id]
        if room is not None and room.status == "playing":
            self.after_change(room, local=True)
        return room

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

    async def _load(self, match_id: str) -> LiveRoom | None:
        row, actions = await self.repo.match_with_actions(match_id)
        if row is None or row.status == "cancelled":
            return None
        room = LiveRoom.from_row(row)
        await self._load_users(room)
        for action in actions:
            room.replay(json.loads(action.action), action.at)
        return room

    async def _load_users(self, room: LiveRoom) -> None:
        ids = [p for p in room.players if p is not None]
        room.users.update(await self.repo.users(ids))

    async def _catch_up(self, room: LiveRoom) -> list[EventView]:
        """Apply the actions other processes appended (caller holds the room lock)."""
        row, actions = await self.repo.match_with_actions(room.id, after=room.seq)
        if row is None:
            return []
        if room.players != [row.player0, row.player1] or room.status != row.status:
            room.refresh(row)
            await self._load_users(room)
        events: list[EventView] = []
        for action in actions:
            if action.seq == room.seq + 1:
                events += room.replay(json.loads(action.action), action.at)
        return events

    async def seats_taken(self, room: LiveRoom) -> None:
        """Catch up with a join (caller holds the room lock): watchers of the open match get
        the state with both seats, then the opening as an update."""
        if room.match is None:
            row = await self.repo.match(room.id)
            if row is not None:
                room.refresh(row)
                await self._load_users(room)
            self._broadcast_state(room)
        room.outbox += await self._catch_up(room)
        self.flush(room)

    async def _resync(self, room: LiveRoom) -> None:
        """Catch up with the log, whatever was announced (caller holds the room lock): a
        process that dies between its commit and its publish announces nothing, and this
        room would serve a stale state until the next action here."""
        if room.match is None:
            row = await self.repo.match(room.id)
            if row is not None and row.rules:  # seated elsewhere
                await self.seats_taken(room)
            return
        room.outbox += await self._catch_up(room)
        self.flush(room)

    async def _resync_all(self) -> None:
        for room in list(self.rooms.values()):
            async with room.lock:
                await self._resync(room)
            self.after_change(room, local=False)

    # -- the bus -------------------------------------------------------------------------

    async def publish(self, message: BusMessage) -> None:
        """Tell the other processes (the message goes out as from this process)."""
        data = dump_message(message)
        data["origin"] = self.origin
        try:
            await self.bus.publish(data)
        except Exception:  # the log is the truth; other processes catch up on next use
            self.observer.bus_failed()
            log.exception("bus publish failed")

    async def _on_bus(self, data: dict[str, object]) -> None:
        try:
            message = parse_message(data)
        except BadBusMessage as error:  # dropped: a bus message never stops the hub
            log.warning("bus message dropped: %s", error)
            return
        if message.origin == self.origin:
            return
        match message:
            case Resync():  # a process (re)started
                self.spawn(self._resync_all())
            case LobbyChanged():
                self.on_lobby()
            case ChallengesChanged(users=users):
                self.on_challenges(list(users))
            case OptionsChanged(user=user):
                self.spawn(self.options_changed(user))
            case ActionStored() | Seated():
                room = self.rooms.get(message.match)
                if room is None:
                    return
                async with room.lock:
                    if isinstance(message, Seated):
                        await self.seats_taken(room)
                        events = []
                    else:
                        found = self._apply_rows(room, message)
                        events = await self._catch_up(room) if found is None else found
                if events:
                    self._broadcast_update(room, events)
                self.after_change(room, local=False)
            case _:
                self._forward(message)

    def _forward(self, message: RoomMessage) -> None:
        """A chat line, rematch offer or analysis progress: to the room's sockets."""
        room = self.rooms.get(message.match)
        if room is not None:
            self.send_all(room, message.payload, chat=message.kind == "chat")

    @staticmethod
    def _apply_rows(room: LiveRoom, message: ActionStored) -> list[EventView] | None:
        """The events of the committed actions a bus message carries (caller holds the
        lock), or None when they cannot stand in for the log: none carried, the match
        ended (its result and ratings are in the database), or a gap before them (a
        message not yet handled, or lost); the caller then catches up from the log."""
        rows, first = message.rows, message.first
        if (rows is None or first is None or message.ended
                or room.match is None or room.status != "playing"
                or not first <= room.seq + 1 <= first + len(rows)):
            return None
        events: list[EventView] = []
        for n, (_kind, action, at) in enumerate(rows):
            if first + n == room.seq + 1:
                events += room.replay(jsontext.loads(action), float(at))
        return events

    # -- sending -------------------------------------------------------------------------

    def send_all(self, room: LiveRoom, message: protocol.ServerMessage, *,
                 chat: bool = False) -> None:
        text = jsontext.dumps(message)
        for conn in list(room.subscribers):
            if chat and room.id in conn.muted and message.get("seat") != room.seat_of(
                    conn.user.id):
                continue
            conn.send_text(text)

    def _broadcast_update(self, room: LiveRoom, events: list[EventView]) -> None:
        """One ``update`` to every subscriber, written once per kind of viewer: the player
        on turn (with ``legal`` and ``reach`` while moving) and everyone else."""
        now = time.time()
        texts: dict[bool, str] = {}
        for conn in list(room.subscribers):
            on_turn = room.on_turn(conn.user.id)
            text = texts.get(on_turn)
            if text is None:
                text = texts[on_turn] = jsontext.dumps(
                    room.update_message(events, now, on_turn=on_turn))
            conn.send_text(text)

    def _broadcast_state(self, room: LiveRoom) -> None:
        now = time.time()
        for conn in list(room.subscribers):
            conn.send_text(jsontext.dumps(room.state_message(conn.user.id, now)))

    # -- subscriptions -----------------------------------------------------------------

    async def subscribe(self, conn: Connection, match_id: str, since: int | None) -> None:
        """Watch a match (players and spectators); ``since`` resyncs from a version."""
        room = await self.room(match_id)
        if room is None:
            raise ServiceError("not_found", f"no match {match_id}")
        version = room.version
        if not room.lock.locked():  # (a room at work: its worker catches up if need be)
            async with room.lock:  # from the log: another process may have died unannounced
                await self._resync(room)
        room.subscribers.add(conn)
        now = time.time()
        if since is not None and since <= room.version:
            conn.send_text(jsontext.dumps(room.update_message(
                room.events[since:], now, on_turn=room.on_turn(conn.user.id))))
        else:
            conn.send_text(jsontext.dumps(room.state_message(conn.user.id, now)))
        if room.version != version:
            self.after_change(room, local=False)

    def unsubscribe(self, conn: Connection, match_id: str) -> None:
        room = self.rooms.get(match_id)
        if room is not None:
            room.subscribers.discard(conn)
            self.maybe_evict(room)

    def disconnect(self, conn: Connection) -> None:
        self.lobby_watchers.discard(conn)
        for room in list(self.rooms.values()):
            if conn in room.subscribers:
                room.subscribers.discard(conn)
                self.maybe_evict(room)

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

    def maybe_evict(self, room: LiveRoom) -> None:
        if room.status in ("finished", "cancelled") and not room.subscribers:
            if room.timer is not None:
                room.timer.cancel()
            self.rooms.pop(room.id, None)
            self._position_ids.pop(room.id, None)

    def position_ids(self, room: LiveRoom) -> frozenset[str]:
        """The Position IDs of the game in play in ``room`` — both sides' views, at the
        start of the turn and now — or none once its match is over; computed once per
        action number (the engine API asks about every live rated match at each request)."""
        cached = self._position_ids.get(room.id)
        if cached is not None and cached[0] == room.seq:
            return cached[1]
        ids: frozenset[str] = frozenset()
        if room.match is not None and not room.match.is_over:
            game = room.match.game
            ids = frozenset(view.id() for position in (game.position, game.start_position)
                            for view in (position, position.swap()))
        self._position_ids[room.id] = (room.seq, ids)
        return ids

    # -- transitions ---------------------------------------------------------------

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
            finish = ratings = None
            if end.is_over and end.result is not None:
                finish, ratings = await self._finish(room, end)
            rows = [stored_row(s) for s in steps]
            first = room.seq + 1
            try:
                await self.repo.append_many(room.id, first, rows, finish, ratings or ())
            except SeqConflict:
                if attempt == 2:
                    raise
                room.outbox += await self._catch_up(room)
                if room.match is None:
                    raise ServiceError("not_started", "the match has not started") from None
                continue
            for step in steps:
                room.outbox += room.commit(step)
            if finish is not None:
                room.result = json.loads(finish.result)
                if ratings:
                    await self._load_users(room)
                if self.on_finish is not None:
                    self.on_finish(room.id)
            # the committed rows travel with the message: a process holding the match at
            # action first - 1 applies them without reading the log (_on_bus)
            await self.publish(ActionStored(match=room.id, seq=room.seq, first=first,
                                            rows=tuple(rows), ended=finish is not None))
            return

    def flush(self, room: LiveRoom) -> None:
        """Send the events of the actions just stored, as one update (caller holds the lock;
        an action and the server's own actions that follow it go out together)."""
        if room.outbox:
            events, room.outbox = room.outbox, []
            self._broadcast_update(room, events)

    async def _finish(self, room: LiveRoom, match: Match
                      ) -> tuple[Finish, list[RatingChange]]:
        assert match.result is not None
        result = result_view(match)
        finish = Finish(match.result.winner, json.dumps(result))
        ratings: list[RatingChange] = []
        if room.rated:
            ids = [p for p in room.players if p is not None]
            current = await self.repo.users(ids)
            winner = current[room.players[match.result.winner]]  # type: ignore[index]
            loser = current[room.players[1 - match.result.winner]]  # type: ignore[index]
            length = room.config.points
            up, down = new_ratings(winner.rating, winner.experience, loser.rating,
                                   loser.experience, length)
            ratings = [RatingChange(winner.id, winner.rating, up, length),
                       RatingChange(loser.id, loser.rating, down, length)]
        return finish, ratings
