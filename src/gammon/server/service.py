"""The authoritative match service: every match lives in a :class:`Room`, owned by a
:class:`Hub` (one per server process).

The client proposes, the server decides: a client message becomes a core action
(:func:`~gammon.server.protocol.message_action`), the pure core state machine
(:meth:`Match.apply <gammon.core.match.Match.apply>`) accepts or refuses it, the accepted
action is **stored before anything is sent** (:meth:`Repository.append
<gammon.server.db.Repository.append>`), and only then do the room's state and version move
and the events go out. A refused action changes nothing.

Rebuilding: a room is rebuilt from the database by replaying its stored actions through the
same :func:`_advance` the live path uses — dice, clock times and all are in the stored
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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Protocol, cast

from gammon.core import actions as A
from gammon.core.clock import (
    Clock,
    ClockSettings,
    DelayReserve,
    DelayReservePerPoint,
    GameAndMoveClock,
)
from gammon.core.dice import Roll
from gammon.core.errors import IllegalActionError, NotYourTurnError
from gammon.core.events import Event, GameStarted
from gammon.core.game import Game
from gammon.core.match import Match, Phase, Rules
from gammon.server import bots, protocol
from gammon.server.db import Repository, Row, SeqConflict, User
from gammon.server.fairness import FairDice, commitment, new_seed
from gammon.server.protocol import ChatLine, StateMessage, UpdateMessage
from gammon.server.ratings import new_ratings
from gammon.server.settings import Settings
from gammon.views import (
    ClockKind,
    ClockView,
    EventView,
    GameView,
    InfoView,
    ReachView,
    ResultView,
    SeatView,
    clock_paused_view,
    clock_view,
    config_view,
    event_view,
    game_view,
    info_view,
    reach_view,
    result_view,
    rules_view,
    seat_view,
)

log = logging.getLogger(__name__)

CLOCKS = ("none", "italian", "italian_per_point", "polish")
PAUSE = "clock_pause"
"""The kind of a stored record that is not a core action: server downtime credited to the
running clock, ``{"t": "clock_pause", "seconds": S}`` (see :meth:`Hub.start`)."""


def clock_settings(name: str, scale: float = 1.0) -> ClockSettings:
    """The seeds' time controls; ``scale`` shrinks every duration (a test knob,
    ``GAMMON_CLOCK_SCALE``; 1 in play)."""
    if name == "italian":
        return DelayReserve(delay=15 * scale, initial_reserve=20 * scale, max_bonus=5 * scale,
                            reserve_cap=120 * scale, low_reserve=10 * scale)
    if name == "italian_per_point":
        return DelayReservePerPoint(delay=15 * scale, reserve_per_point=120 * scale,
                                    reserve_cap_per_point=120 * scale, max_bonus=5 * scale,
                                    low_reserve=10 * scale)
    if name == "polish":
        return GameAndMoveClock(game_time=300 * scale, move_time=30 * scale,
                                low_time=10 * scale)
    raise ValueError(f"unknown clock {name!r}")


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


# -- match configuration ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What the creator chose (stored as JSON in ``matches.config``)."""

    kind: str = "match"  # 'single' | 'money' | 'match'
    length: int = 1
    cube: bool = True
    clock: str = "none"  # 'none' | 'italian' | 'italian_per_point' | 'polish'
    bot: int | None = None
    jacoby: bool = False
    beavers: bool = False
    winner_rolls_anew: bool = False
    private: bool = False
    clock_scale: float = 1.0

    def to_json(self) -> str:
        return json.dumps(config_view(self))

    @classmethod
    def from_json(cls, text: str) -> MatchConfig:
        return cls(**json.loads(text))

    @property
    def points(self) -> int:
        """The core's match length: 0 for money, 1 for a single game."""
        return {"money": 0, "single": 1}.get(self.kind, self.length)


def rules_for(config: MatchConfig, options: tuple[dict[str, Any], dict[str, Any]]) -> Rules:
    """The core rules of a match, with each player's own confirm / auto-roll options."""
    return Rules(
        length=config.points,
        cube=config.cube and config.kind != "single",
        jacoby=config.jacoby and config.kind == "money",
        beavers=config.beavers and config.kind == "money",
        winner_rolls_anew=config.winner_rolls_anew,
        confirm_turn=(bool(options[0].get("confirm_turn")), bool(options[1].get("confirm_turn"))),
        auto_roll=(bool(options[0].get("auto_roll")), bool(options[1].get("auto_roll"))),
    )


def rules_json(rules: Rules) -> str:
    return json.dumps(rules_view(rules))


def rules_from_json(text: str) -> Rules:
    data = json.loads(text)
    data["confirm_turn"] = tuple(data["confirm_turn"])
    data["auto_roll"] = tuple(data["auto_roll"])
    return Rules(**data)


def _runner(match: Match) -> int | None:
    """The side who must act now (whose clock runs), or None."""
    if match.is_over:
        return None
    game = match.game
    if game.phase in (Phase.BEFORE_ROLL, Phase.MOVING):
        return game.turn
    if game.phase in (Phase.CUBE_OFFERED, Phase.RESIGN_OFFERED):
        return game.opponent
    return None


def reach(game: Game) -> dict[int, dict[int, list[int]]]:
    """The core's :meth:`Game.reach <gammon.core.game.Game.reach>` as JSON-ready lists: for
    each checker that may move now, every point it can reach with the dice to send as steps.

    >>> from gammon.core.actions import RollDice
    >>> from gammon.core.position import Position
    >>> game, _ = Game.from_position(Position.initial()).apply(RollDice(0, Roll(6, 5)))
    >>> reach(game)[24]  # 24/19 is blocked, so 24/13 goes by the 6 first
    {18: [6], 13: [6, 5]}
    """
    return {source: {point: list(dice) for point, dice in found.items()}
            for source, found in game.reach().items()}


def _clock_key(match: Match) -> tuple[Any, ...]:
    return (match.number, match.phase, _runner(match), match.game.turn)


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a transition and the state it leads to."""

    action: A.Action
    match: Match
    clock: Clock | None
    events: tuple[Event, ...]
    at: float


def _advance(before: Match, clock: Clock | None, action: A.Action, at: float) -> Step:
    """The state after ``action`` at clock time ``at`` (pure)."""
    after, events = before.apply(action)
    if clock is not None and _clock_key(before) != _clock_key(after):
        if clock.running is not None:
            clock = clock.end_action(clock.running, at)
        if clock.loser is None:
            if any(isinstance(e, GameStarted) and e.number > 1 for e in events):
                clock = clock.new_game()
            runner = _runner(after)
            if runner is not None:
                clock = clock.start_action(runner, at)
    return Step(action, after, clock, events, at)


Proposal = Callable[["Room"], "A.Action | None"]
"""What a transition proposes, made from the room's state (again after catching up)."""


def _as_decided(action: A.Action, seq: int) -> Proposal:
    """``action``, decided for the state after action ``seq``; after catching up with
    another process's move, nothing (the bot decides anew)."""
    return lambda room: action if room.seq == seq else None


def _expired(room: Room) -> A.Action | None:
    """A time-out if the running clock has expired by the room's latest action time or
    now."""
    clock = room.clock
    side = None if clock is None else clock.expired(max(time.time(), room.last_at))
    return None if side is None else A.Timeout(side)


def _row(step: Step) -> Row:
    record = protocol.action_json(step.action)
    return record["t"], json.dumps(record), step.at


# -- a room ------------------------------------------------------------------------------


@dataclass
class Room:
    """One match in this process: its configuration, state, version and subscribers."""

    id: str
    config: MatchConfig
    status: str
    players: list[int | None]
    server_seed: str
    seed_hash: str
    client_seeds: list[str]
    private: bool
    rated: bool
    reserved_for: int | None
    rematch_of: str | None
    users: dict[int, User] = field(default_factory=dict)
    rules: Rules | None = None
    match: Match | None = None
    clock: Clock | None = None
    seq: int = 0
    dice_count: int = 0
    last_at: float = 0.0
    events: list[EventView] = field(default_factory=list)
    subscribers: set[Any] = field(default_factory=set)
    chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=50))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    result: ResultView | None = None
    outbox: list[EventView] = field(default_factory=list)
    _reach: tuple[Game, ReachView] | None = None

    @classmethod
    def from_row(cls, row: Any) -> Room:
        room = cls(
            id=row.id, config=MatchConfig.from_json(row.config), status=row.status,
            players=[row.player0, row.player1], server_seed=row.server_seed,
            seed_hash=row.seed_hash, client_seeds=[row.client_seed0, row.client_seed1],
            private=bool(row.private), rated=bool(row.rated), reserved_for=row.reserved_for,
            rematch_of=row.rematch_of,
        )
        room.refresh(row)
        return room

    def refresh(self, row: Any) -> None:
        """Take the row's seats and status (after a join, here or in another process)."""
        self.status = row.status
        self.players = [row.player0, row.player1]
        self.client_seeds = [row.client_seed0, row.client_seed1]
        self.rated = bool(row.rated)
        if row.rules and self.match is None:
            self.rules = rules_from_json(row.rules)
            self.match = Match.new(self.rules)
            if self.config.clock != "none":
                self.clock = Clock.start(
                    clock_settings(self.config.clock, self.config.clock_scale),
                    match_length=self.config.points or 1)
        if row.result:
            self.result = json.loads(row.result)

    @property
    def version(self) -> int:
        return len(self.events)

    def seat_of(self, user_id: int) -> int | None:
        for seat, player in enumerate(self.players):
            if player == user_id:
                return seat
        return None

    def is_bot(self, seat: int) -> bool:
        player = self.players[seat]
        return player is not None and player in self.users and self.users[player].is_bot

    def dice(self) -> FairDice:
        return FairDice(self.server_seed, self.client_seeds)

    # -- the one transition, for live play and replay alike --------------------------------

    def automatic_action(self, match: Match, dice_count: int) -> A.Action | None:
        """The action the server makes by itself in ``match`` (the opening of every game,
        a roll for a player with the auto-roll option), or None: a player must act."""
        if match.is_over:
            return None
        game = match.game
        if match.phase in (Phase.OPENING, Phase.GAME_OVER):
            return match.opening_action(self.dice().source(dice_count))
        if (match.phase is Phase.BEFORE_ROLL and match.rules.auto_roll[game.turn]
                and not self.is_bot(game.turn)):
            return game.roll_action(self.dice().source(dice_count))
        return None

    def pending_automatic(self) -> bool:
        """Whether the stored log stops before an automatic action (a log written by an
        older version or by a process that died between commits)."""
        return self.match is not None and \
            self.automatic_action(self.match, self.dice_count) is not None

    def plan(self, action: A.Action | None, at: float, now: float) -> list[Step]:
        """One transition (pure: ``self`` is unchanged): ``action`` at clock time ``at``,
        then every automatic action it leads to, at ``now`` (or ``at`` if later). With
        ``action`` None, only the automatic actions pending now. Raises the core's
        :class:`IllegalActionError` when ``action`` is refused."""
        assert self.match is not None
        steps: list[Step] = []
        match, clock, dice = self.match, self.clock, self.dice_count
        while True:
            if action is None:
                action = self.automatic_action(match, dice)
                if action is None:
                    return steps
                at = max(at, now)
            step = _advance(match, clock, action, at)
            steps.append(step)
            match, clock = step.match, step.clock
            dice += isinstance(action, A.RollOpening | A.RollDice)
            action = None

    def _commit(self, step: Step) -> list[EventView]:
        match = step.match
        self.match, self.clock = match, step.clock
        self.seq += 1
        self.last_at = step.at
        if isinstance(step.action, A.RollOpening | A.RollDice):
            self.dice_count += 1
        out = []
        for event in step.events:
            data = event_view(event, v=len(self.events) + 1)
            self.events.append(data)
            out.append(data)
        if match.is_over:
            self.status = "finished"
        return out

    def pause(self, seconds: float, at: float) -> list[EventView]:
        """Credit ``seconds`` of server downtime to the running action (a stored
        ``clock_pause`` record, live or replayed): its start moves that much later
        (:meth:`Clock.paused`). One ``clock_paused`` event, even with no clock running."""
        clock = self.clock
        player = None
        if clock is not None and clock.running is not None:
            player = clock.running
            self.clock = clock.paused(seconds)
        self.seq += 1
        self.last_at = max(self.last_at, at)
        data = clock_paused_view(player, seconds, v=len(self.events) + 1)
        self.events.append(data)
        return [data]

    def replay(self, record: dict[str, Any], at: float) -> list[EventView]:
        """Apply one stored action (the log is trusted: the core accepted it once)."""
        if record.get("t") == PAUSE:
            return self.pause(float(record["seconds"]), at)
        assert self.match is not None
        return self._commit(_advance(self.match, self.clock, protocol.action_from_json(record),
                                     at))

    # -- views (gammon.views: the shapes; here: which of the room's values go in) ----------

    def clock_json(self, now: float) -> ClockView | None:
        clock = self.clock
        return None if clock is None else clock_view(clock, cast(ClockKind, self.config.clock),
                                                     now)

    def _reach_of(self, game: Game) -> ReachView:
        """The reach of the game on turn, computed once per game state."""
        if self._reach is None or self._reach[0] is not game:
            self._reach = (game, reach_view(game))
        return self._reach[1]

    def game_json(self) -> GameView | None:
        return None if self.match is None else game_view(self.match, self._reach_of)

    def seats_json(self) -> list[SeatView | None]:
        return [seat_view(self.users.get(player) if player is not None else None)
                for player in self.players]

    def info_json(self) -> InfoView:
        return info_view(
            id=self.id, status=self.status, config=self.config, private=self.private,
            rated=self.rated, seats=self.seats_json(), seed_hash=self.seed_hash,
            client_seeds=self.client_seeds, server_seed=self.server_seed,
            rematch_of=self.rematch_of, result=self.result)

    def state_message(self, viewer: int | None, now: float) -> StateMessage:
        seat = None if viewer is None else self.seat_of(viewer)
        return {"type": "state", "match": self.id, "v": self.version, "you": seat,
                "info": self.info_json(), "game": self.game_json(),
                "clock": self.clock_json(now), "chat": list(self.chat)}

    def update_message(self, events: list[EventView], now: float) -> UpdateMessage:
        return {"type": "update", "match": self.id, "v": self.version, "events": events,
                "game": self.game_json(), "clock": self.clock_json(now)}


# -- the hub ---------------------------------------------------------------------------


class Hub:
    """Every room this process holds, the sockets subscribed to them, and the bus."""

    def __init__(self, settings: Settings, repo: Repository, bus: Any) -> None:
        self.settings = settings
        self.repo = repo
        self.bus = bus
        self.origin = uuid.uuid4().hex
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
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

    async def _credit_downtime(self, room: Room, alive: float, now: float) -> None:
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

    async def room(self, match_id: str) -> Room | None:
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
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
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

    async def _finish_pending(self, room: Room) -> None:
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

    async def _load(self, match_id: str) -> Room | None:
        row, actions = await self.repo.match_with_actions(match_id)
        if row is None or row.status == "cancelled":
            return None
        room = Room.from_row(row)
        await self._load_users(room)
        for action in actions:
            room.replay(json.loads(action.action), action.at)
        return room

    async def _load_users(self, room: Room) -> None:
        ids = [p for p in room.players if p is not None]
        room.users.update(await self.repo.users(ids))

    async def _catch_up(self, room: Room) -> list[EventView]:
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

    async def _seats_taken(self, room: Room) -> None:
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

    async def _resync(self, room: Room) -> None:
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
    def _apply_rows(room: Room, message: dict[str, Any]) -> list[EventView] | None:
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

    def _send_all(self, room: Room, message: protocol.ServerMessage | dict[str, Any], *,
                  chat: bool = False) -> None:
        text = json.dumps(message)
        for conn in list(room.subscribers):
            if chat and room.id in conn.muted and message.get("seat") != room.seat_of(
                    conn.user.id):
                continue
            conn.send_text(text)

    def _broadcast_update(self, room: Room, events: list[EventView]) -> None:
        self._send_all(room, room.update_message(events, time.time()))

    def _broadcast_state(self, room: Room) -> None:
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

    def _maybe_evict(self, room: Room) -> None:
        if room.status in ("finished", "cancelled") and not room.subscribers:
            if room.timer is not None:
                room.timer.cancel()
            self.rooms.pop(room.id, None)

    # -- the lobby -----------------------------------------------------------------------

    async def create(self, user: User, config: MatchConfig, *, client_seed: str = "",
                     reserved_for: int | None = None, rematch_of: str | None = None
                     ) -> Room:
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
        return [_row(step) for step in room.plan(None, now, now)]

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

    async def join(self, user: User, match_id: str, client_seed: str = "") -> Room:
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

    async def rematch(self, user: User, match_id: str) -> Room:
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

    async def _act(self, room: Room, conn: Connection, seat: int,
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

        def proposed(room: Room) -> A.Action:
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

    async def _transition(self, room: Room, propose: Proposal | None, at: float) -> None:
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
            rows = [_row(s) for s in steps]
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
                room.outbox += room._commit(step)
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

    def _flush(self, room: Room) -> None:
        """Send the events of the actions just stored, as one update (caller holds the lock;
        an action and the server's own actions that follow it go out together)."""
        if room.outbox:
            events, room.outbox = room.outbox, []
            self._broadcast_update(room, events)

    async def _finish(self, room: Room, match: Match
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

    async def timeout_check(self, room: Room) -> None:
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

    def _arm_timer(self, room: Room) -> None:
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

    def _after_change(self, room: Room, *, local: bool) -> None:
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
        runner = _runner(match)
        if local and runner is not None and room.is_bot(runner):
            self._spawn(self._bot_turn(room))

    async def _bot_turn(self, room: Room) -> None:
        if self.settings.bot_delay:
            await asyncio.sleep(self.settings.bot_delay)
        async with room.lock:
            for _ in range(8):
                match = room.match
                if match is None or match.is_over:
                    break
                runner = _runner(match)
                if runner is None or not room.is_bot(runner):
                    break
                level = room.config.bot or 1
                decided = await asyncio.to_thread(bots.decide, match, runner, level)
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

