"""The room: one match's state machine, pure — no I/O, no event loop, no clock reads.

A :class:`Room` holds a match's configuration, seats and core state (the core's
:class:`~gammon.core.match.Match` and :class:`~gammon.core.clock.Clock`), its version (the
events so far) and the views of them. Three operations move it, and they are the only
ones: :meth:`Room.plan` makes the steps of one transition — a proposed action and every
action the server makes by itself after it (the opening of each game, an auto-roll) —
without changing the room; :meth:`Room.commit` takes one planned step once it is stored;
:meth:`Room.replay` applies a stored record (an action or a ``clock_pause``). Live play and
the replay of a stored log go through the same :func:`advance` (the core's
:meth:`Match.apply <gammon.core.match.Match.apply>` plus the clock), so a room rebuilt from
its log is exactly the room that wrote it: dice, clock times and all are in the log.

Storing, locking, the bus and the sockets are the hub's (:mod:`gammon.server.hub`); the
tests run a room with none of them (``tests/server/test_rooms.py``).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol, Self

from gammon.core import actions as A
from gammon.core.clock import (
    Clock,
    ClockSettings,
    DelayReserve,
    DelayReservePerPoint,
    GameAndMoveClock,
)
from gammon.core.events import Event, GameStarted
from gammon.core.game import Game
from gammon.core.match import Match, Phase, Rules
from gammon.server import protocol
from gammon.server.fairness import FairDice
from gammon.server.protocol import ChatLine, StateMessage, UpdateMessage
from gammon.server.records import MatchRow, Row
from gammon.views import (
    ClockKind,
    ClockView,
    EventView,
    GameView,
    InfoView,
    MatchConfig,
    Player,
    ResultView,
    SeatView,
    bot_account_level,
    clock_paused_view,
    clock_view,
    event_view,
    game_view,
    info_view,
    moves_view,
    rules_view,
    seat_view,
)


class Seated(Player, Protocol):
    """A user in a seat, as a room sees one (:class:`gammon.server.db.User` is one)."""

    @property
    def is_bot(self) -> bool: ...
    @property
    def options(self) -> dict[str, object]: ...


PAUSE = "clock_pause"
"""The kind of a stored record that is not a core action: server downtime credited to the
running clock, ``{"t": "clock_pause", "seconds": S}`` (see :meth:`gammon.server.hub.Hub.start`)."""


def clock_settings(name: ClockKind, scale: float = 1.0) -> ClockSettings:
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


# -- match configuration ----------------------------------------------------------------


def rules_for(config: MatchConfig) -> Rules:
    """The core rules of a match. Every turn waits for a confirmation and no side rolls by
    itself in the core: the room confirms and rolls for a player by their options of the
    moment (:meth:`Room.automatic_action`), so a change of options mid-match applies from
    the next action and the stored log replays the same whatever the options were."""
    return Rules(
        length=config.points,
        cube=config.cube and config.kind != "single",
        jacoby=config.jacoby_rule,
        beavers=config.beavers_rule,
        winner_rolls_anew=config.winner_rolls_anew,
        confirm_turn=(True, True),
        auto_roll=(False, False),
    )


def rules_json(rules: Rules) -> str:
    return json.dumps(rules_view(rules))


def rules_from_json(text: str) -> Rules:
    data = json.loads(text)
    data["confirm_turn"] = tuple(data["confirm_turn"])
    data["auto_roll"] = tuple(data["auto_roll"])
    return Rules(**data)


def runner(match: Match) -> int | None:
    """The side who must act now (whose clock runs), or None: the core's
    :attr:`Match.to_act <gammon.core.match.Match.to_act>`."""
    return match.to_act


def reach(game: Game) -> dict[int, dict[int, list[int]]]:
    """The core's :meth:`Game.reach <gammon.core.game.Game.reach>` as JSON-ready lists: for
    each checker that may move now, every point it can reach with the dice to send as steps.

    >>> from gammon.core.actions import RollDice
    >>> from gammon.core.dice import Roll
    >>> from gammon.core.position import Position
    >>> game, _ = Game.from_position(Position.initial()).apply(RollDice(0, Roll(6, 5)))
    >>> reach(game)[24]  # 24/19 is blocked, so 24/13 goes by the 6 first
    {18: [6], 13: [6, 5]}
    """
    return {source: {point: list(dice) for point, dice in found.items()}
            for source, found in game.reach().items()}


def _clock_key(match: Match) -> tuple[Any, ...]:
    return (match.number, match.phase, runner(match), match.game.turn)


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a transition and the state it leads to."""

    action: A.Action
    match: Match
    clock: Clock | None
    events: tuple[Event, ...]
    at: float


def advance(before: Match, clock: Clock | None, action: A.Action, at: float) -> Step:
    """The state after ``action`` at clock time ``at`` (pure)."""
    after, events = before.apply(action)
    if clock is not None and _clock_key(before) != _clock_key(after):
        if clock.running is not None:
            clock = clock.end_action(clock.running, at)
        if clock.loser is None:
            if any(isinstance(e, GameStarted) and e.number > 1 for e in events):
                clock = clock.new_game()
            side = runner(after)
            if side is not None:
                clock = clock.start_action(side, at)
    return Step(action, after, clock, events, at)


def stored_row(step: Step) -> Row:
    """The record of ``step`` in the action log."""
    record = protocol.action_json(step.action)
    return record["t"], json.dumps(record), step.at


# -- a room ------------------------------------------------------------------------------


@dataclass
class Room:
    """One match: its configuration, seats, state and version, and the views of them."""

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
    users: dict[int, Seated] = field(default_factory=dict)
    rules: Rules | None = None
    match: Match | None = None
    clock: Clock | None = None
    seq: int = 0
    dice_count: int = 0
    last_at: float = 0.0
    events: list[EventView] = field(default_factory=list)
    chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=50))
    result: ResultView | None = None
    _views: tuple[Match, GameView, GameView | None] | None = None
    """The game views of the current state (the match object): for everyone, and with the
    moves for the player on turn (made when first asked for)."""

    @classmethod
    def from_row(cls, row: MatchRow) -> Self:
        room = cls(
            id=row.id, config=row.config, status=row.status,
            players=[row.player0, row.player1], server_seed=row.server_seed,
            seed_hash=row.seed_hash, client_seeds=[row.client_seed0, row.client_seed1],
            private=bool(row.private), rated=bool(row.rated), reserved_for=row.reserved_for,
            rematch_of=row.rematch_of,
        )
        room.refresh(row)
        return room

    def refresh(self, row: MatchRow) -> None:
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

    def bot_level(self, seat: int) -> int:
        """The level the server's bot in ``seat`` plays at: its account's own, so that each
        bot of a tournament's match (which chose no level) plays at its own; else the
        level the match chose, else 1."""
        player = self.players[seat]
        user = self.users.get(player) if player is not None else None
        level = None if user is None else bot_account_level(user.name)
        return level or self.config.bot or 1

    def dice(self) -> FairDice:
        return FairDice(self.server_seed, self.client_seeds)

    # -- the one transition, for live play and replay alike --------------------------------

    def option(self, seat: int, name: str) -> bool:
        """A seated player's option of the moment (:class:`gammon.server.protocol.Options`:
        ``confirm_turn``, ``auto_roll``); off for a bot and an empty seat."""
        player = self.players[seat]
        user = None if player is None else self.users.get(player)
        return user is not None and not user.is_bot and bool(user.options.get(name))

    def automatic_action(self, match: Match, dice_count: int) -> A.Action | None:
        """The action the server makes by itself in ``match``, or None: a player must act.
        The opening of every game; a roll for a player with the auto-roll option; the end
        of a complete play for a player without the confirm option (or in a match begun
        before the rules left confirming to the room: the core ends those turns itself)."""
        if match.is_over:
            return None
        game = match.game
        if match.phase in (Phase.OPENING, Phase.GAME_OVER):
            return match.opening_action(self.dice().source(dice_count))
        if match.phase is Phase.BEFORE_ROLL and self.option(game.turn, "auto_roll"):
            return game.roll_action(self.dice().source(dice_count))
        if (match.phase is Phase.MOVING and game.steps
                and not self.option(game.turn, "confirm_turn") and game.is_play_complete()):
            return A.ConfirmPlay(game.turn)
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
                if not isinstance(action, A.ConfirmPlay):  # a confirm ends the player's step
                    at = max(at, now)
            step = advance(match, clock, action, at)
            steps.append(step)
            match, clock = step.match, step.clock
            dice += isinstance(action, A.RollOpening | A.RollDice)
            action = None

    def commit(self, step: Step) -> list[EventView]:
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
        return self.commit(advance(self.match, self.clock, protocol.action_from_json(record),
                                     at))

    # -- views (gammon.views: the shapes; here: which of the room's values go in) ----------

    def clock_json(self, now: float) -> ClockView | None:
        clock = self.clock
        return None if clock is None else clock_view(clock, self.config.clock, now)

    def on_turn(self, user_id: int | None) -> bool:
        """Whether ``user_id`` is the player on turn while moving: the one viewer whose game
        view carries ``legal`` and ``reach`` (:class:`~gammon.views.MovesView`)."""
        match = self.match
        return (match is not None and match.phase is Phase.MOVING and user_id is not None
                and self.players[match.game.turn] == user_id)

    def game_json(self, on_turn: bool = False) -> GameView | None:
        """The game view, built once per state and shared by every message and socket (do
        not change it): with ``legal`` and ``reach`` only ``on_turn`` (:meth:`on_turn`)."""
        match = self.match
        if match is None:
            return None
        if self._views is None or self._views[0] is not match:
            self._views = (match, game_view(match, None), None)
        _, shared, full = self._views
        if not on_turn or match.phase is not Phase.MOVING:
            return shared
        if full is None:
            moves = moves_view(match.game)
            full = {**shared, "legal": moves["legal"], "reach": moves["reach"]}
            self._views = (match, shared, full)
        return full

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
                "info": self.info_json(), "game": self.game_json(self.on_turn(viewer)),
                "clock": self.clock_json(now), "chat": list(self.chat)}

    def update_message(self, events: list[EventView], now: float, *,
                       on_turn: bool = False) -> UpdateMessage:
        """An ``update`` of ``events``; ``on_turn``: for the player on turn
        (:meth:`game_json`). The update that holds ``match_ended`` carries the ``info``
        too: the result, the revealed seed and the ratings after the match."""
        message: UpdateMessage = {
            "type": "update", "match": self.id, "v": self.version, "events": events,
            "game": self.game_json(on_turn), "clock": self.clock_json(now)}
        if events and any(event["type"] == "match_ended" for event in events):
            message["info"] = self.info_json()
        return message
