"""The authoritative match service: every match lives in a :class:`Room`, owned by a
:class:`Hub` (one per server process).

The client proposes, the server decides: a client message becomes a core action
(:func:`~gammon.server.protocol.message_action`), the pure core state machine
(:meth:`Match.apply <gammon.core.match.Match.apply>`) accepts or refuses it, the accepted
action is **stored before anything is sent** (:meth:`Repository.append
<gammon.server.db.Repository.append>`), and only then do the room's state and version move
and the events go out. A refused action changes nothing.

Rebuilding: a room is rebuilt from the database by replaying its stored actions through the
same :func:`~gammon.server.rooms.advance` the live path uses — dice, clock times and all are in the stored
actions, so the replay is exact. That is how a restarted server resumes every match and how
a process catches up with actions another process appended (the bus says which match moved).

Server-made actions: the opening roll of every game (as soon as both seats are taken, and
after each game), rolls for a player with the auto-roll option, timeouts when a clock runs
out (a timer set at the flag time plus the lag allowance), and the bot's actions (computed
off the event loop with ``asyncio.to_thread``: the engine's
:func:`~gammon.server.bots.decide` makes every decision of the bot — doubles, takes, drops,
beavers, resignations and their answers, and the checker play).

Clocks (RULES.md §7): the core's :class:`~gammon.core.clock.Clock`, with wall-clock seconds
(``time.time()``, shared by processes on one host or NTP-synchronised hosts). One timed
*action* is a stretch in which the same player must act in the same phase: rolling (or
doubling), moving (every step of one turn together), answering a cube or resign offer. Lag
compensation: an action by a player is timed at ``received - min(lag, lag_cap)``, where
``lag`` is half the round trip the server measured on that player's socket (ping/pong), never
earlier than the action's start. The clock time of each action is stored with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Protocol

from gammon.core import actions as A
from gammon.core.dice import Roll
from gammon.core.errors import IllegalActionError, NotYourTurnError
from gammon.core.match import Match, Phase
from gammon.server import bots, protocol
from gammon.server.db import Repository, Row, SeqConflict, User
from gammon.server.fairness import commitment, new_seed
from gammon.server.ratings import new_ratings
from gammon.server.rooms import (
    CLOCKS,
    PAUSE,
    MatchConfig,
    Room,
    clock_settings,
    reach,
    rules_for,
    rules_from_json,
    rules_json,
    runner,
    stored_row,
)
from gammon.server.settings import Settings
from gammon.views import EventView, result_view

log = logging.getLogger(__name__)
__all__ = ["CLOCKS", "PAUSE", "Hub", "LiveRoom", "MatchConfig", "Room", "ServiceError",
           "clock_settings", "reach", "rules_for", "rules_from_json", "rules_json"]


class ServiceError(Exception):
    """A request the service refuses; ``code`` and ``message`` go back to the client."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Connection(Protocol):
    """A client socket as the service sees it."""

    user: User
    lag: float
    muted: set[str]

    def send_text(self, text: str) -> None: ...


Proposal = Callable[["LiveRoom"], "A.Action | None"]
"""What a transition proposes, made from the room's state (again after catching up)."""


def _as_decided(action: A.Action, seq: int) -> Proposal:
    """``action``, decided for the state after action ``seq``; after catching up with
    another process's move, nothing (the bot decides anew)."""
    return lambda room: action if room.seq == seq else None


def _expired(room: LiveRoom) -> A.Action | None:
    """A time-out if the running clock has expired by the room's latest action time or
    now."""
    clock = room.clock
    side = None if clock is None else clock.expired(max(time.time(), room.last_at))
    return None if side is None else A.Timeout(side)


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

    def __init__(self, settings: Settings, repo: Repository, bus: Any) -> None:
        self.settings = settings
        self.repo = repo
        self.bus = bus
        self.origin = uuid.uuid4().hex
        self.rooms: dict[str, LiveRoom] = {}
        self._loading: dict[str, asyncio.Future[LiveRoom | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self.on_finish: Callable[[str], None] | None = None
        """Called with a match's id when it ends in this process (the analysis worker
        queues its analysis: :mod:`gammon.server.analysis_worker`)."""

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
        await self._publish({"kind": "resync"})
        alive = await self.repo.last_heartbeat()
        for match_id in await self.repo.playing_ids():
            room = await self.room(match_id)  # pending steps made, timer set, bot scheduled
            if room is not None and alive is not None:
                # up to now: loading and replaying (a compiled kernel's first use may take
                # seconds) is downtime too
                await self._credit_downtime(room, alive, time.time())
        await self._beat()
        self._spawn(self._heartbeats())

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
                await self._publish({"kind": "action", "match": room.id, "seq": room.seq})
            finally:
                self._flush(room)
            self._arm_timer(room)  # the flag falls that much later

    async def stop(self) -> None:
        self._closed = True
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

    def _spawn(self, coroutine: Any) -> None:
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
            self._after_change(room, local=True)
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
                await self._transition(room, None, time.time())
            finally:
                self._flush(room)

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

    async def _seats_taken(self, room: LiveRoom) -> None:
        """Catch up with a join (caller holds the room lock): watchers of the open match get
        the state with both seats, then the opening as an update."""
        if room.match is None:
            row = await self.repo.match(room.id)
            if row is not None:
                room.refresh(row)
                await self._load_users(room)
            self._broadcast_state(room)
        room.outbox += await self._catch_up(room)
        self._flush(room)

    async def _resync(self, room: LiveRoom) -> None:
        """Catch up with the log, whatever was announced (caller holds the room lock): a
        process that dies between its commit and its publish announces nothing, and this
        room would serve a stale state until the next action here."""
        if room.match is None:
            row = await self.repo.match(room.id)
            if row is not None and row.rules:  # seated elsewhere
                await self._seats_taken(room)
            return
        room.outbox += await self._catch_up(room)
        self._flush(room)

    async def _resync_all(self) -> None:
        for room in list(self.rooms.values()):
            async with room.lock:
                await self._resync(room)
            self._after_change(room, local=False)

    # -- the bus -------------------------------------------------------------------------

    async def _publish(self, message: dict[str, Any]) -> None:
        message["origin"] = self.origin
        try:
            await self.bus.publish(message)
        except Exception:  # the log is the truth; other processes catch up on next use
            log.exception("bus publish failed")

    async def _on_bus(self, message: dict[str, Any]) -> None:
        if message.get("origin") == self.origin:
            return
        if message.get("kind") == "resync":  # a process (re)started
            self._spawn(self._resync_all())
            return
        room = self.rooms.get(message.get("match", ""))
        if room is None:
            return
        kind = message.get("kind")
        if kind == "action":
            async with room.lock:
                events = self._apply_rows(room, message)
                if events is None:
                    events = await self._catch_up(room)
            if events:
                self._broadcast_update(room, events)
            self._after_change(room, local=False)
        elif kind == "seated":
            async with room.lock:
                await self._seats_taken(room)
            self._after_change(room, local=False)
        elif kind in ("chat", "rematch", "analysis"):
            self._send_all(room, message["payload"], chat=kind == "chat")

    @staticmethod
    def _apply_rows(room: LiveRoom, message: dict[str, Any]) -> list[EventView] | None:
        """The events of the committed actions a bus message carries (caller holds the
        lock), or None when they cannot stand in for the log: none carried, the match
        ended (its result and ratings are in the database), or a gap before them (a
        message not yet handled, or lost); the caller then catches up from the log."""
        rows, first = message.get("rows"), message.get("first")
        if (not isinstance(rows, list) or not isinstance(first, int) or message.get("ended")
                or room.match is None or room.status != "playing"
                or not first <= room.seq + 1 <= first + len(rows)):
            return None
        events: list[EventView] = []
        for n, (_kind, action, at) in enumerate(rows):
            if first + n == room.seq + 1:
                events += room.replay(json.loads(action), float(at))
        return events

    # -- sending -------------------------------------------------------------------------

    def _send_all(self, room: LiveRoom, message: protocol.ServerMessage | dict[str, Any], *,
                  chat: bool = False) -> None:
        text = json.dumps(message)
        for conn in list(room.subscribers):
            if chat and room.id in conn.muted and message.get("seat") != room.seat_of(
                    conn.user.id):
                continue
            conn.send_text(text)

    def _broadcast_update(self, room: LiveRoom, events: list[EventView]) -> None:
        self._send_all(room, room.update_message(events, time.time()))

    def _broadcast_state(self, room: LiveRoom) -> None:
        now = time.time()
        for conn in list(room.subscribers):
            conn.send_text(json.dumps(room.state_message(conn.user.id, now)))

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
            conn.send_text(json.dumps(room.update_message(room.events[since:], now)))
        else:
            conn.send_text(json.dumps(room.state_message(conn.user.id, now)))
        if room.version != version:
            self._after_change(room, local=False)

    def unsubscribe(self, conn: Connection, match_id: str) -> None:
        room = self.rooms.get(match_id)
        if room is not None:
            room.subscribers.discard(conn)
            self._maybe_evict(room)

    def disconnect(self, conn: Connection) -> None:
        for room in list(self.rooms.values()):
            if conn in room.subscribers:
                room.subscribers.discard(conn)
                self._maybe_evict(room)

    def _maybe_evict(self, room: LiveRoom) -> None:
        if room.status in ("finished", "cancelled") and not room.subscribers:
            if room.timer is not None:
                room.timer.cancel()
            self.rooms.pop(room.id, None)

    # -- the lobby -----------------------------------------------------------------------

    async def create(self, user: User, config: MatchConfig, *, client_seed: str = "",
                     reserved_for: int | None = None, rematch_of: str | None = None
                     ) -> LiveRoom:
        """A new match: open for a second player, or against a bot (started at once)."""
        if config.bot is None and await self.repo.count_open(user.id) >= \
                self.settings.max_open_games:
            raise ServiceError("too_many_games",
                               f"at most {self.settings.max_open_games} open games per player")
        match_id = secrets.token_urlsafe(12)
        seed = new_seed()
        values: dict[str, Any] = {
            "id": match_id, "status": "open", "config": config.to_json(), "player0": user.id,
            "private": config.private or reserved_for is not None, "rated": False,
            "server_seed": seed, "seed_hash": commitment(seed), "client_seed0": client_seed,
            "client_seed1": "", "reserved_for": reserved_for, "rematch_of": rematch_of,
        }
        first: list[Row] = []
        if config.bot is not None:
            bot = await self.bot_user(config.bot)
            values.update(player1=bot.id, status="playing",
                          rules=rules_json(rules_for(config, (user.options, {}))))
            first = self._opening_rows(values, [user, bot])
        await self.repo.create_match(values, first)  # with its opening: one transaction
        room = await self.room(match_id)  # a bot on turn is scheduled
        assert room is not None
        return room

    @staticmethod
    def _opening_rows(values: dict[str, Any], players: list[User]) -> list[Row]:
        """The stored actions that start a match whose row will hold ``values``."""
        room = Room.from_row(SimpleNamespace(**{"result": None, **values}))
        room.users = {player.id: player for player in players}
        now = time.time()
        return [stored_row(step) for step in room.plan(None, now, now)]

    async def bot_user(self, level: int) -> User:
        name = f"bot-{level}"
        found = await self.repo.user_by_name(name)
        if found is not None:
            return found[0]
        try:
            return await self.repo.create_user(name, "bot")
        except Exception:  # created meanwhile by another request
            found = await self.repo.user_by_name(name)
            assert found is not None
            return found[0]

    async def join(self, user: User, match_id: str, client_seed: str = "") -> LiveRoom:
        row = await self.repo.match(match_id)
        if row is None or row.status == "cancelled":
            raise ServiceError("not_found", f"no match {match_id}")
        if row.status != "open":
            raise ServiceError("not_open", "this match has started")
        if row.player0 == user.id:
            raise ServiceError("own_game", "you cannot join your own game")
        if row.reserved_for is not None and row.reserved_for != user.id:
            raise ServiceError("reserved", "this game is reserved for another player")
        creator = await self.repo.user(row.player0)
        assert creator is not None
        config = MatchConfig.from_json(row.config)
        rules = rules_for(config, (creator.options, user.options))
        rated = config.points >= 1 and creator.kind == "user" and user.kind == "user"
        seated = {**row._asdict(), "player1": user.id, "client_seed1": client_seed,
                  "status": "playing", "rules": rules_json(rules), "rated": rated}
        opening = self._opening_rows(seated, [creator, user])
        if not await self.repo.seat(match_id, user.id, client_seed, seated["rules"], rated,
                                    opening):  # the seat and the opening: one transaction
            raise ServiceError("not_open", "someone else took the seat")
        room = await self.room(match_id)
        assert room is not None
        async with room.lock:
            await self._seats_taken(room)
        await self._publish({"kind": "seated", "match": match_id})
        self._after_change(room, local=True)
        return room

    async def cancel(self, user: User, match_id: str) -> None:
        if not await self.repo.cancel(match_id, user.id):
            raise ServiceError("not_found", "no open game of yours with that id")
        room = self.rooms.pop(match_id, None)
        if room is not None:
            room.status = "cancelled"
            self._send_all(room, protocol.cancelled_message(match_id))

    async def rematch(self, user: User, match_id: str) -> LiveRoom:
        room = await self.room(match_id)
        if room is None:
            raise ServiceError("not_found", f"no match {match_id}")
        seat = room.seat_of(user.id)
        if seat is None:
            raise ServiceError("not_a_player", "only the players may ask for a rematch")
        if room.status != "finished":
            raise ServiceError("not_finished", "the match is not over")
        opponent = room.players[1 - seat]
        new = await self.create(
            user, room.config, reserved_for=None if room.config.bot is not None else opponent,
            rematch_of=match_id)
        payload = protocol.rematch_message(match_id, new.id, user.name)
        self._send_all(room, payload)
        await self._publish({"kind": "rematch", "match": match_id, "payload": payload})
        return new

    # -- playing -------------------------------------------------------------------------

    async def act(self, conn: Connection, message: protocol.ActionMessage,
                  received: float) -> None:
        """A player's proposed action: accepted, stored, broadcast — or refused, unchanged."""
        room = await self.room(message.match)
        if room is None:
            raise ServiceError("not_found", f"no match {message.match}")
        seat = room.seat_of(conn.user.id)
        if seat is None:
            raise ServiceError("not_a_player", "you do not hold a seat in this match")
        async with room.lock:
            try:
                await self._act(room, conn, seat, message, received)
            finally:
                self._flush(room)
        self._after_change(room, local=True)

    async def _act(self, room: LiveRoom, conn: Connection, seat: int,
                   message: protocol.ActionMessage,
                   received: float) -> None:
        if room.match is None:
            raise ServiceError("not_started", "the match has not started")
        if message.v is not None and message.v != room.version:
            raise ServiceError("stale", f"the match is at version {room.version}")
        lag = min(conn.lag, self.settings.lag_cap)
        clock = room.clock
        at = max(room.last_at, received - lag)
        if clock is not None and clock.running is not None:
            at = max(at, clock.since or 0.0)
            side = clock.expired(at)
            if side is not None:
                await self._transition(room, _expired, at)
                raise ServiceError("time_out", f"player {side} ran out of time")

        def proposed(room: LiveRoom) -> A.Action:
            assert room.match is not None
            if message.type != "roll":
                return protocol.message_action(message, seat)
            if not room.match.game.can_roll(seat):
                room.match.apply(A.RollDice(seat, Roll(1, 2)))  # the precise refusal
                raise ServiceError("illegal", "you cannot roll now")
            return room.match.game.roll_action(room.dice().source(room.dice_count))

        try:
            await self._transition(room, proposed, at)
        except NotYourTurnError as error:
            raise ServiceError("not_your_turn", str(error)) from None
        except IllegalActionError as error:
            raise ServiceError("illegal", str(error)) from None

    async def _transition(self, room: LiveRoom, propose: Proposal | None, at: float) -> None:
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
                room.result = json.loads(finish["result"])
                if ratings:
                    await self._load_users(room)
                if self.on_finish is not None:
                    self.on_finish(room.id)
            # the committed rows travel with the message: a process holding the match at
            # action first - 1 applies them without reading the log (_on_bus)
            await self._publish({"kind": "action", "match": room.id, "seq": room.seq,
                                 "first": first, "rows": rows, "ended": finish is not None})
            return

    def _flush(self, room: LiveRoom) -> None:
        """Send the events of the actions just stored, as one update (caller holds the lock;
        an action and the server's own actions that follow it go out together)."""
        if room.outbox:
            events, room.outbox = room.outbox, []
            self._broadcast_update(room, events)

    async def _finish(self, room: LiveRoom, match: Match
                      ) -> tuple[dict[str, Any], list[tuple[int, float, float, int]]]:
        assert match.result is not None
        result = result_view(match)
        finish = {"winner": match.result.winner, "result": json.dumps(result)}
        ratings: list[tuple[int, float, float, int]] = []
        if room.rated:
            ids = [p for p in room.players if p is not None]
            current = await self.repo.users(ids)
            winner = current[room.players[match.result.winner]]  # type: ignore[index]
            loser = current[room.players[1 - match.result.winner]]  # type: ignore[index]
            length = room.config.points
            up, down = new_ratings(winner.rating, winner.experience, loser.rating,
                                   loser.experience, length)
            ratings = [(winner.id, winner.rating, up, length),
                       (loser.id, loser.rating, down, length)]
        return finish, ratings

    async def timeout_check(self, room: LiveRoom) -> None:
        async with room.lock:
            room.timer = None
            clock = room.clock
            now = max(time.time(), room.last_at)
            if clock is None or room.match is None or room.match.is_over:
                return
            side = clock.expired(now)
            if side is None:
                return
            try:
                await self._transition(room, _expired, now)
            except IllegalActionError:
                return
            finally:
                self._flush(room)
        self._after_change(room, local=True)

    def _arm_timer(self, room: LiveRoom) -> None:
        """(Re)set the timer that checks the running clock when its flag should fall."""
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        if self._closed or room.match is None or room.match.is_over:
            return
        flag = room.clock.flag_time() if room.clock is not None else None
        if flag is not None:
            delay = max(0.0, flag + self.settings.lag_cap - time.time())
            room.timer = asyncio.get_running_loop().call_later(
                delay, lambda: self._spawn(self.timeout_check(room)))

    def _after_change(self, room: LiveRoom, *, local: bool) -> None:
        """Set the flag timer, and let a bot act if it is its turn (only in the process that
        made the change, or loaded the match, so two processes seldom both move a bot; when
        they do, the action numbers let one of them through)."""
        if self._closed:
            return
        self._arm_timer(room)
        match = room.match
        if match is None or match.is_over:
            self._maybe_evict(room)
            return
        side = runner(match)
        if local and side is not None and room.is_bot(side):
            self._spawn(self._bot_turn(room))

    async def _bot_turn(self, room: LiveRoom) -> None:
        if self.settings.bot_delay:
            await asyncio.sleep(self.settings.bot_delay)
        async with room.lock:
            for _ in range(8):
                match = room.match
                if match is None or match.is_over:
                    break
                side = runner(match)
                if side is None or not room.is_bot(side):
                    break
                level = room.config.bot or 1
                decided = await asyncio.to_thread(bots.decide, match, side, level)
                action: A.Action
                if decided is not None:
                    action = decided
                elif match.phase is Phase.BEFORE_ROLL:
                    action = match.game.roll_action(room.dice().source(room.dice_count))
                else:
                    break
                try:
                    await self._transition(room, _as_decided(action, room.seq), time.time())
                finally:
                    self._flush(room)
        self._after_change(room, local=False)

    # -- chat ----------------------------------------------------------------------------

    async def chat(self, conn: Connection, match_id: str, text: str) -> None:
        room = await self.room(match_id)
        if room is None:
            raise ServiceError("not_found", f"no match {match_id}")
        seat = room.seat_of(conn.user.id)
        if seat is None:
            raise ServiceError("not_a_player", "only the players chat in a match")
        payload = protocol.chat_line(match_id, seat, conn.user.name, text, time.time())
        room.chat.append(payload)
        self._send_all(room, payload, chat=True)
        await self._publish({"kind": "chat", "match": match_id, "payload": payload})

