"""One game of backgammon as a pure state machine (RULES.md §2–§6).

A :class:`Game` is an immutable state; :meth:`Game.apply` takes an action (see
:mod:`gammon.core.actions`) and returns the new state and the events it caused (see
:mod:`gammon.core.events`), or raises an :class:`~gammon.core.errors.IllegalActionError`
and changes nothing. Players are the absolute sides ``0`` and ``1``; the state keeps the
board from the view of the side whose turn it is (:attr:`Game.position`) and gives it from
either side with :meth:`Game.board`. Dice come in with the actions, never from inside.

>>> from gammon.core.actions import MoveChecker, RollDice, RollOpening
>>> from gammon.core.dice import OpeningRoll, Roll
>>> game = Game.new()
>>> game, events = game.apply(RollOpening(OpeningRoll(first=1, roll=Roll(3, 1), throws=((1, 3),))))
>>> game.turn, game.phase, game.dice_left
(1, <Phase.MOVING: 'moving'>, (3, 1))
>>> game, _ = game.apply(MoveChecker(1, 8, 3))
>>> game, events = game.apply(MoveChecker(1, 6, 1))
>>> events[-1].player, [str(move) for move in events[-1].moves]
(1, ['8/5', '6/5'])
>>> game.turn, game.phase
(0, <Phase.BEFORE_ROLL: 'before_roll'>)

Decisions where the rules leave room (RULES.md §2–§6 and seed 000):

* **The opening** is one :class:`~gammon.core.actions.RollOpening` action carrying the single
  dice thrown and the roll the winner plays; with ``winner_rolls_anew`` that roll is the
  winner's fresh roll, so the cube cannot be turned before the first move.
* **Step play**: a step is legal iff some legal full play of the turn can still be completed
  after it, so the maximum-dice and higher-die rules hold step by step; the turn ends as soon
  as no die is left or none can be played (or, with ``confirm_turn``, on
  :class:`~gammon.core.actions.ConfirmPlay`). A whole :class:`~gammon.core.actions.PlayMove`
  is only accepted before any step of the turn, and ends the turn at once.
* **Resigning** is allowed on turn, before rolling or while moving (seed 000: "quando arriva il
  suo turno"; GNU Backgammon allows both). After a refusal only a higher offer may be made in
  that turn; a backgammon offer is accepted by itself; the floor resets when the turn passes.
  An accepted resignation scores ``level × cube``, except that with the Jacoby rule and a
  centred cube it scores a single game, as gammons do under that rule (GNU Backgammon 1.07
  scores the offered level even then; gammon applies the Jacoby rule consistently).
* **Abandon and timeout** lose the game in progress at the cube's value (single, the value
  before the double if one is pending); a :class:`~gammon.core.match.Match` then ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

import numpy as np

from gammon.core import _movegen, _steps
from gammon.core.actions import (
    Abandon,
    AcceptResign,
    Action,
    Beaver,
    ConfirmPlay,
    Drop,
    MoveChecker,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    RollDice,
    RollOpening,
    Take,
    Timeout,
    UndoStep,
)
from gammon.core.cube import MAX_CUBE, Cube, Level, game_points, win_level
from gammon.core.dice import DiceSource, OpeningRoll, Roll, first_to_move
from gammon.core.errors import (
    CubeNotAvailableError,
    GameOverError,
    IllegalActionError,
    IllegalMoveError,
    NotYourTurnError,
    ResignationError,
    WrongPhaseError,
)
from gammon.core.events import (
    CheckerMoved,
    CubeBeavered,
    CubeDropped,
    CubeOffered,
    CubeTaken,
    DiceRolled,
    EndKind,
    Event,
    GameEnded,
    NoLegalMove,
    OpeningRolled,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    StepUndone,
    TurnEnded,
)
from gammon.core.moves import (
    _MOVES,
    IllegalPlayError,
    Move,
    Play,
    _boards_of,
    _buffers,
    legal_plays,
    play_steps,
    plays_with,
    single_steps,
)
from gammon.core.notation import NotationError, parse_play
from gammon.core.position import BAR, CHECKERS, Position


class Phase(StrEnum):
    """Where a game (or match) stands."""

    OPENING = "opening"
    """Waiting for the opening roll."""
    BEFORE_ROLL = "before_roll"
    """The side on turn may double, resign or roll."""
    MOVING = "moving"
    """The side on turn has rolled and is moving."""
    CUBE_OFFERED = "cube_offered"
    """The opponent of the side on turn must take or drop (or beaver)."""
    RESIGN_OFFERED = "resign_offered"
    """The opponent of the side on turn must accept or refuse the resign offer."""
    GAME_OVER = "game_over"
    """The game has ended; in a match, the next game waits for its opening roll."""
    MATCH_OVER = "match_over"
    """The match has ended (only a :class:`~gammon.core.match.Match` is in this phase)."""


def player_to_act(phase: Phase, turn: int) -> int | None:
    """Who must act now in ``phase`` when it is ``turn``'s turn: the side on turn rolls
    (or doubles, or resigns) and moves; its opponent answers its double or resign offer.
    Nobody acts at the opening (the dice decide who moves first) or once the game is over.

    >>> player_to_act(Phase.BEFORE_ROLL, 0), player_to_act(Phase.CUBE_OFFERED, 0)
    (0, 1)
    >>> player_to_act(Phase.OPENING, 0) is None
    True
    """
    if turn not in (0, 1):
        raise ValueError(f"a player is 0 or 1, got {turn!r}")
    match phase:
        case Phase.BEFORE_ROLL | Phase.MOVING:
            return turn
        case Phase.CUBE_OFFERED | Phase.RESIGN_OFFERED:
            return 1 - turn
        case Phase.OPENING | Phase.GAME_OVER | Phase.MATCH_OVER:
            return None
    raise ValueError(f"not a phase: {phase!r}")


@dataclass(frozen=True, slots=True)
class Rules:
    """How a game or match is played.

    ``length`` is the match length in points, ``0`` for a money session. ``cube`` off plays
    without the cube (the Hungarian "traditional" single game). ``jacoby`` and ``beavers``
    are money-session options, off by default. ``confirm_turn`` (click the dice to end the
    turn) and ``auto_roll`` (which gives up the cube) are each player's own options.
    """

    length: int = 0
    cube: bool = True
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    winner_rolls_anew: bool = False
    confirm_turn: tuple[bool, bool] = (False, False)
    auto_roll: tuple[bool, bool] = (False, False)

    def __post_init__(self) -> None:
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length < 0:
            raise ValueError(f"a match length is a whole number of points (0 for money), "
                             f"got {self.length!r}")
        if self.length and self.jacoby:
            raise ValueError("the Jacoby rule is a money-session option (length 0)")
        if self.length and self.beavers:
            raise ValueError("beavers are a money-session option (length 0)")
        for name in ("confirm_turn", "auto_roll"):
            value = getattr(self, name)
            if not (isinstance(value, tuple) and len(value) == 2
                    and all(isinstance(v, bool) for v in value)):
                raise ValueError(f"{name} is one flag per player, like (False, True): {value!r}")

    @property
    def is_money(self) -> bool:
        """A money session (no match length)."""
        return self.length == 0


@dataclass(frozen=True, slots=True)
class Step:
    """One step played this turn: ``move`` by ``die``, from the position ``before`` it."""

    move: Move
    die: int
    before: Position


@dataclass(frozen=True, slots=True)
class ResignOffer:
    player: int
    level: Level


_NATURAL: dict[Level, EndKind] = {
    Level.SINGLE: EndKind.SINGLE,
    Level.GAMMON: EndKind.GAMMON,
    Level.BACKGAMMON: EndKind.BACKGAMMON,
}


@dataclass(frozen=True, slots=True)
class Game:
    """The state of one game. Build it with :meth:`new` or :meth:`from_position`.

    ``position`` is seen from ``turn``, the side whose turn it is (mid-turn, after the steps
    played so far). ``plays`` are the legal full plays of this turn's roll from the turn's
    start; ``steps`` the steps played so far. ``refused`` is the highest resign offer refused
    this turn. ``result`` is set once the game is over.
    """

    rules: Rules = field(default_factory=Rules)
    crawford: bool = False
    phase: Phase = Phase.OPENING
    turn: int = 0
    position: Position = field(default_factory=Position.initial)
    cube: Cube = field(default_factory=Cube)
    roll: Roll | None = None
    plays: tuple[Play, ...] = field(default=(), repr=False)
    steps: tuple[Step, ...] = ()
    resign_offer: ResignOffer | None = None
    refused: Level | None = None
    result: GameEnded | None = None

    # -- constructors ---------------------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules | None = None, *, crawford: bool = False) -> Game:
        """A game waiting for its opening roll (``crawford`` marks the Crawford game)."""
        return cls(rules=rules or Rules(), crawford=crawford)

    @classmethod
    def from_position(
        cls,
        position: Position,
        turn: int = 0,
        *,
        rules: Rules | None = None,
        cube: Cube | None = None,
        crawford: bool = False,
    ) -> Game:
        """A game in progress: ``turn`` is about to roll ``position`` (seen from ``turn``)."""
        if turn not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {turn!r}")
        if position.winner() is not None:
            raise ValueError("a side has already borne off all its checkers")
        game = cls(rules=rules or Rules(), crawford=crawford, phase=Phase.BEFORE_ROLL,
                   turn=turn, position=position, cube=cube or Cube())
        if game.cube != Cube() and game._cube_off_reason() is not None:
            raise ValueError(f"the cube cannot be turned: {game._cube_off_reason()}")
        return game

    # -- questions ------------------------------------------------------------------------

    @property
    def opponent(self) -> int:
        """The side whose turn it is not."""
        return 1 - self.turn

    @property
    def to_act(self) -> int | None:
        """The side who must act now (:func:`player_to_act`), None at the opening and once
        the game is over."""
        return player_to_act(self.phase, self.turn)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def winner(self) -> int | None:
        return None if self.result is None else self.result.winner

    @property
    def cube_enabled(self) -> bool:
        """Whether this game is played with the cube at all (RULES.md §5)."""
        return self._cube_off_reason() is None

    @property
    def dice_left(self) -> tuple[int, ...]:
        """The dice still to play this turn (empty before the roll)."""
        if self.roll is None:
            return ()
        return _without(self.roll.moves(), [s.die for s in self.steps])

    @property
    def start_position(self) -> Position:
        """The position at the start of this turn, seen from ``turn``."""
        return self.steps[0].before if self.steps else self.position

    def board(self, player: int) -> Position:
        """The current board seen from ``player``."""
        return self.position if player == self.turn else self.position.swap()

    def can_roll(self, player: int) -> bool:
        return self.phase is Phase.BEFORE_ROLL and player == self.turn

    def can_double(self, player: int) -> bool:
        """Whether ``player`` may offer the cube now."""
        return self.double_refusal(player) is None

    def double_refusal(self, player: int) -> str | None:
        """Why ``player`` may not double now (``None`` if they may)."""
        if self.phase is Phase.MOVING and player == self.turn:
            return "the cube is offered only before rolling"
        if self.phase is not Phase.BEFORE_ROLL:
            return self._phase_reason()
        if player != self.turn:
            return f"it is player {self.turn}'s turn"
        reason = self._cube_off_reason()
        if reason is not None:
            return reason
        if self.rules.auto_roll[player]:
            return "a player using auto-roll cannot offer the cube"
        if self.cube.owner == 1 - player:
            return f"player {1 - player} owns the cube"
        if self.cube.value >= MAX_CUBE:
            return f"the cube is at its maximum, {MAX_CUBE}"
        return None

    def can_take(self, player: int) -> bool:
        return self.phase is Phase.CUBE_OFFERED and player == self.opponent

    def can_beaver(self, player: int) -> bool:
        return self.can_take(player) and self._beaver_refusal() is None

    def can_resign(self, player: int, level: Level) -> bool:
        """Whether ``player`` may offer to resign at ``level`` now."""
        return (
            self.phase in (Phase.BEFORE_ROLL, Phase.MOVING)
            and player == self.turn
            and (self.refused is None or level > self.refused)
        )

    def is_play_complete(self) -> bool:
        """Whether the steps played form a legal full play: no die left, or none playable."""
        if self.phase is not Phase.MOVING:
            return False
        dice = self.dice_left
        if not dice:
            return True
        # plays_with(position, dice)[0].moves is empty, asked of the generator's arrays
        boards, moves, keys, table, state, line = _buffers()
        _movegen.generate(self.position.array(), np.array(dice, dtype=np.int64), boards, moves,
                          keys, table, state, line)
        return bool(moves[0, 0, 0] == _movegen.NO_MOVE)

    def legal_steps(self) -> dict[int, dict[int, Move]]:
        """For each checker that may move now (by source, 25 the bar): the dice it may use and
        the move each makes. Empty unless moving."""
        return self.legal_steps_and_reach(reach=False)[0]

    def reach(self) -> dict[int, dict[int, tuple[int, ...]]]:
        """For each checker that may move now (by source, 25 the bar): every point (0 = off)
        that same checker can reach step by step with the dice left while a legal full play
        stays possible, with the dice of the steps in order (the fewest where several
        sequences lead there). Empty unless moving.

        >>> from gammon.core.actions import RollDice
        >>> game, _ = Game.from_position(Position.initial()).apply(RollDice(0, Roll(6, 5)))
        >>> game.reach()[24]  # 24/19 is blocked, so 24/13 goes by the 6 first
        {18: (6,), 13: (6, 5)}
        """
        return self.legal_steps_and_reach()[1]

    def legal_steps_and_reach(self, reach: bool = True) -> tuple[
            dict[int, dict[int, Move]], dict[int, dict[int, tuple[int, ...]]]]:
        """:meth:`legal_steps` and (unless ``reach`` is false: empty) :meth:`reach` from one
        search: a step is legal iff the rest of the dice can still complete one of the
        turn's :attr:`plays` after it, and the reach of each checker follows its legal steps
        with the same checks (the compiled search of :mod:`gammon.core._steps`)."""
        if self.phase is not Phase.MOVING:
            return {}, {}
        found_steps, found_reach = _steps.steps_and_reach(
            self.position.array(), np.array(self.dice_left, dtype=np.int64),
            _boards_of(self.plays), reach, *_buffers())
        steps: dict[int, dict[int, Move]] = {}
        for source, die, destination, hit in found_steps.tolist():
            steps.setdefault(source, {})[die] = _MOVES[source][destination][hit]
        out: dict[int, dict[int, tuple[int, ...]]] = {source: {} for source in steps} \
            if reach else {}
        for source, point, count, *dice in found_reach.tolist():
            out[source][point] = tuple(dice[:count])
        return steps, out

    def remaining_plays(self) -> tuple[Play, ...]:
        """The legal full plays of this turn that the steps played so far still lead to."""
        if self.phase is not Phase.MOVING:
            return ()
        dice = self.dice_left
        reachable = (
            {p.position for p in plays_with(self.position, dice)} if dice else {self.position}
        )
        return tuple(p for p in self.plays if p.position in reachable)

    def legal_actions(self) -> tuple[Action, ...]:
        """Every action that is legal now, except those that carry dice (the opening and
        rolls: see :attr:`phase`), whole plays (see :meth:`remaining_plays`), and abandon and
        timeout (always possible until the game ends)."""
        actions: list[Action] = []
        turn = self.turn
        if self.phase is Phase.BEFORE_ROLL and self.can_double(turn):
            actions.append(OfferDouble(turn))
        if self.phase is Phase.MOVING:
            actions.extend(
                MoveChecker(turn, source, die)
                for source, moves in self.legal_steps().items()
                for die in moves
            )
            if self.steps:
                actions.append(UndoStep(turn))
            if self.is_play_complete():
                actions.append(ConfirmPlay(turn))
        actions.extend(OfferResign(turn, level) for level in Level if self.can_resign(turn, level))
        if self.phase is Phase.CUBE_OFFERED:
            actions += [Take(self.opponent), Drop(self.opponent)]
            if self.can_beaver(self.opponent):
                actions.append(Beaver(self.opponent))
        if self.phase is Phase.RESIGN_OFFERED:
            actions += [AcceptResign(self.opponent), RejectResign(self.opponent)]
        return tuple(actions)

    def opening_action(self, source: DiceSource) -> RollOpening:
        """Throw this game's opening with ``source`` (honouring ``winner_rolls_anew``)."""
        return RollOpening.from_source(source, winner_rolls_anew=self.rules.winner_rolls_anew)

    def roll_action(self, source: DiceSource) -> RollDice:
        """The side on turn rolls two dice from ``source``."""
        return RollDice.from_source(self.turn, source)

    # -- the transition -------------------------------------------------------------------

    def apply(self, action: Action) -> tuple[Game, tuple[Event, ...]]:
        """The state after ``action`` and the events it caused, in order.

        Raises :class:`~gammon.core.errors.IllegalActionError` (a ``ValueError``; illegal
        moves are also :class:`~gammon.core.moves.IllegalPlayError`) and changes nothing
        when the rules do not allow ``action`` here.
        """
        if self.phase is Phase.GAME_OVER:
            assert self.result is not None
            raise GameOverError(
                f"the game is over: player {self.result.winner} won {self.result.points} "
                f"point{'s' if self.result.points != 1 else ''}"
            )
        events: list[Event] = []
        state = self._dispatch(action, events)
        return state, tuple(events)

    def _dispatch(self, action: Action, events: list[Event]) -> Game:
        match action:
            case RollOpening():
                return self._opening(action.opening, events)
            case RollDice():
                self._require(action.player, "roll", Phase.BEFORE_ROLL)
                if not isinstance(action.roll, Roll):
                    raise IllegalActionError(f"a roll is a Roll, got {action.roll!r}")
                events.append(DiceRolled(action.player, action.roll))
                return self._start_moving(action.roll, events)
            case MoveChecker():
                return self._step(action.player, action.source, action.die, events)
            case UndoStep():
                return self._undo(action.player, events)
            case ConfirmPlay():
                self._require(action.player, "end the turn", Phase.MOVING)
                if not self.is_play_complete():
                    raise IllegalMoveError(
                        f"player {action.player} cannot end the turn: the play is not finished, "
                        f"{_dice_text(self.dice_left)} can still be played"
                    )
                return self._end_turn(events)
            case PlayMove():
                return self._whole_play(action.player, action.play, events)
            case OfferDouble():
                return self._offer_double(action.player, events)
            case Take():
                self._require_answer(action.player, "take", Phase.CUBE_OFFERED)
                cube = self.cube.taken_by(action.player)
                events.append(CubeTaken(action.player, cube.value))
                return replace(self, phase=Phase.BEFORE_ROLL, cube=cube)
            case Beaver():
                self._require_answer(action.player, "beaver", Phase.CUBE_OFFERED)
                reason = self._beaver_refusal()
                if reason is not None:
                    raise CubeNotAvailableError(f"player {action.player} cannot beaver: {reason}")
                cube = self.cube.beavered_by(action.player)
                events.append(CubeBeavered(action.player, cube.value))
                return replace(self, phase=Phase.BEFORE_ROLL, cube=cube)
            case Drop():
                self._require_answer(action.player, "drop", Phase.CUBE_OFFERED)
                events.append(CubeDropped(action.player, self.cube.value))
                return self._finish(self.turn, EndKind.DROP, Level.SINGLE, events)
            case OfferResign():
                return self._offer_resign(action.player, action.level, events)
            case AcceptResign():
                self._require_answer(action.player, "accept a resignation", Phase.RESIGN_OFFERED)
                assert self.resign_offer is not None
                level = self.resign_offer.level
                events.append(ResignAccepted(action.player, level))
                return self._finish(action.player, EndKind.RESIGN, level, events)
            case RejectResign():
                self._require_answer(action.player, "refuse a resignation", Phase.RESIGN_OFFERED)
                assert self.resign_offer is not None
                level = self.resign_offer.level
                events.append(ResignRejected(action.player, level))
                return replace(self, phase=self._play_phase(), resign_offer=None, refused=level)
            case Abandon():
                return self._finish(1 - action.player, EndKind.ABANDON, Level.SINGLE, events)
            case Timeout():
                return self._finish(1 - action.player, EndKind.TIMEOUT, Level.SINGLE, events)
            case _:
                raise TypeError(f"not a game action: {action!r}")

    # -- checks ---------------------------------------------------------------------------

    def _phase_reason(self) -> str:
        match self.phase:
            case Phase.OPENING:
                return "the game starts with the opening roll"
            case Phase.BEFORE_ROLL:
                return f"player {self.turn} has not rolled yet"
            case Phase.MOVING:
                return f"player {self.turn} has rolled and is moving"
            case Phase.CUBE_OFFERED:
                return f"player {self.opponent} must first take or drop the cube"
            case Phase.RESIGN_OFFERED:
                return f"player {self.opponent} must first answer the resign offer"
            case _:
                return "the game is over"

    def _require(self, player: int, what: str, *phases: Phase) -> None:
        """``player`` must be on turn, in one of ``phases``."""
        if self.phase in (Phase.BEFORE_ROLL, Phase.MOVING) and player != self.turn:
            raise NotYourTurnError(
                f"player {player} cannot {what}: it is player {self.turn}'s turn"
            )
        if self.phase not in phases:
            raise WrongPhaseError(f"player {player} cannot {what}: {self._phase_reason()}")

    def _require_answer(self, player: int, what: str, phase: Phase) -> None:
        """``player`` must be the one answering an offer of ``phase``."""
        if self.phase is not phase:
            raise WrongPhaseError(f"player {player} cannot {what}: {self._phase_reason()}")
        if player != self.opponent:
            raise NotYourTurnError(
                f"player {player} cannot {what}: the offer is their own, "
                f"player {self.opponent} answers it"
            )

    def _cube_off_reason(self) -> str | None:
        if not self.rules.cube:
            return "this game is played without the cube"
        if self.rules.length == 1:
            return "a 1-point match has no cube"
        if self.crawford:
            return "the Crawford game has no cube"
        return None

    def _beaver_refusal(self) -> str | None:
        if not (self.rules.is_money and self.rules.beavers):
            return "beavers are not allowed in this game"
        if self.cube.value * 4 > MAX_CUBE:
            return f"the cube would pass its maximum, {MAX_CUBE}"
        return None

    def _play_phase(self) -> Phase:
        """The phase play resumes in after an offer is answered."""
        return Phase.BEFORE_ROLL if self.roll is None else Phase.MOVING

    # -- transitions ----------------------------------------------------------------------

    def _opening(self, opening: OpeningRoll, events: list[Event]) -> Game:
        if self.phase is not Phase.OPENING:
            raise WrongPhaseError("the opening roll starts a game: this one has started")
        if not isinstance(opening, OpeningRoll):
            raise IllegalActionError(f"an opening is an OpeningRoll, got {opening!r}")
        throws = opening.throws
        if not throws or any(
            len(t) != 2 or any(isinstance(d, bool) or d not in range(1, 7) for d in t)
            for t in throws
        ):
            raise IllegalActionError(f"opening throws are pairs of dice 1-6, got {throws!r}")
        if any(a != b for a, b in throws[:-1]) or throws[-1][0] == throws[-1][1]:
            raise IllegalActionError(f"only ties are thrown again at the opening: {throws!r}")
        mine, theirs = throws[-1]
        first = first_to_move((mine, theirs))
        if opening.first != first:
            raise IllegalActionError(
                f"the higher die moves first: player {first} won the opening {mine}-{theirs}"
            )
        roll = opening.roll
        if not isinstance(roll, Roll):
            raise IllegalActionError(f"a roll is a Roll, got {roll!r}")
        if not self.rules.winner_rolls_anew and sorted((roll.die1, roll.die2)) != sorted(
            (mine, theirs)
        ):
            raise IllegalActionError(
                f"the opening winner plays the two opening dice {mine}-{theirs}, not {roll}"
            )
        events += [OpeningRolled(first, throws, roll), DiceRolled(first, roll)]
        state = replace(self, turn=first, position=self.board(first))
        return state._start_moving(roll, events)

    def _start_moving(self, roll: Roll, events: list[Event]) -> Game:
        plays = legal_plays(self.position, roll)
        state = replace(self, phase=Phase.MOVING, roll=roll, plays=plays, steps=())
        if not plays[0].moves:
            events.append(NoLegalMove(self.turn, roll))
            return state._end_turn(events)
        return state

    def _step(self, player: int, source: int, die: int, events: list[Event]) -> Game:
        self._require(player, "move", Phase.MOVING)
        dice = self.dice_left
        if self.is_play_complete():
            raise IllegalMoveError(
                f"player {player} cannot move: the play is complete, end the turn or undo a step"
            )
        if die not in dice:
            raise IllegalMoveError(
                f"player {player} cannot move {die}: the dice left are {_dice_text(dice)}"
            )
        play = single_steps(self.position, die).get(source)
        if play is None:
            raise IllegalMoveError(
                f"player {player} cannot move {_point(source)} by {die}: "
                f"{_why_not(self.position, source, die)}"
            )
        move = play.moves[0]
        if die not in self.legal_steps().get(source, {}):
            raise IllegalMoveError(
                f"player {player} cannot play {move}: it leaves no legal way to finish the "
                f"turn, and as much of the roll as possible must be played (both dice if "
                f"possible, else the higher one)"
            )
        events.append(CheckerMoved(player, move, die))
        state = replace(
            self, position=play.position, steps=(*self.steps, Step(move, die, self.position))
        )
        if state.is_play_complete() and not self.rules.confirm_turn[player]:
            return state._end_turn(events)
        return state

    def _undo(self, player: int, events: list[Event]) -> Game:
        self._require(player, "undo", Phase.MOVING)
        if not self.steps:
            raise IllegalMoveError(f"player {player} has no step to undo this turn")
        last = self.steps[-1]
        events.append(StepUndone(player, last.move, last.die))
        return replace(self, position=last.before, steps=self.steps[:-1])

    def _whole_play(self, player: int, play: Play | str, events: list[Event]) -> Game:
        self._require(player, "play", Phase.MOVING)
        if self.steps:
            raise IllegalMoveError(
                f"player {player} cannot send a whole play after playing steps this turn: "
                f"undo them first, or go on step by step"
            )
        assert self.roll is not None
        if isinstance(play, str):
            try:
                chosen = parse_play(self.position, self.roll, play, plays=self.plays)
            except (IllegalPlayError, NotationError) as error:
                raise IllegalMoveError(f"player {player} cannot play {play!r}: {error}") from error
        elif isinstance(play, Play):
            found = [p for p in self.plays if p.position == play.position]
            if not found:
                raise IllegalMoveError(
                    f"player {player} cannot play {play}: not a legal play for {self.roll}"
                )
            chosen = found[0]
        else:
            raise IllegalActionError(f"a play is a Play or notation text, got {play!r}")
        walked = play_steps(self.position, [(m.source, m.destination) for m in chosen.moves],
                            self.roll.moves())
        assert walked is not None, "a legal play is played one die a step"
        position = self.position
        steps: list[Step] = []
        for move, die, after in walked:
            steps.append(Step(move, die, position))
            events.append(CheckerMoved(player, move, die))
            position = after
        return replace(self, position=position, steps=tuple(steps))._end_turn(events)

    def _end_turn(self, events: list[Event]) -> Game:
        events.append(TurnEnded(self.turn, tuple(s.move for s in self.steps)))
        if self.position.borne_off()[0] == CHECKERS:
            return self._finish(self.turn, None, None, events)
        return replace(
            self,
            phase=Phase.BEFORE_ROLL,
            turn=self.opponent,
            position=self.position.swap(),
            roll=None,
            plays=(),
            steps=(),
            resign_offer=None,
            refused=None,
        )

    def _offer_double(self, player: int, events: list[Event]) -> Game:
        if player == self.turn and self.phase is Phase.MOVING:
            raise WrongPhaseError(f"player {player} cannot double: "
                                  f"the cube is offered only before rolling")
        self._require(player, "double", Phase.BEFORE_ROLL)
        reason = self.double_refusal(player)
        if reason is not None:
            raise CubeNotAvailableError(f"player {player} cannot double: {reason}")
        events.append(CubeOffered(player, self.cube.value * 2))
        return replace(self, phase=Phase.CUBE_OFFERED)

    def _offer_resign(self, player: int, level: Level, events: list[Event]) -> Game:
        self._require(player, "resign", Phase.BEFORE_ROLL, Phase.MOVING)
        if self.refused is not None and level <= self.refused:
            raise ResignationError(
                f"player {player} cannot offer {level}: a {self.refused} offer was refused "
                f"this turn, only a higher offer may be made"
            )
        events.append(ResignOffered(player, level))
        if not level.needs_answer:
            events.append(ResignAccepted(1 - player, level))
            return self._finish(1 - player, EndKind.RESIGN, level, events)
        return replace(self, phase=Phase.RESIGN_OFFERED, resign_offer=ResignOffer(player, level))

    def _finish(
        self, winner: int, kind: EndKind | None, level: Level | None, events: list[Event]
    ) -> Game:
        """End the game for ``winner``; ``kind`` None scores the board (RULES.md §4)."""
        if kind is None or level is None:
            level = win_level(self.board(winner))
            kind = _NATURAL[level]
        points = game_points(level, self.cube, jacoby=self.rules.jacoby)
        result = GameEnded(winner, points, kind, level, self.cube.value)
        events.append(result)
        return replace(self, phase=Phase.GAME_OVER, resign_offer=None, result=result)


# -- helpers ------------------------------------------------------------------------------


def _without(dice: Sequence[int], used: Sequence[int]) -> tuple[int, ...]:
    left = list(dice)
    for die in used:
        left.remove(die)
    return tuple(left)


def _point(source: int) -> str:
    return "the bar" if source == BAR else f"point {source}"


def _dice_text(dice: Sequence[int]) -> str:
    return ", ".join(str(d) for d in dice) if dice else "none"


def _why_not(position: Position, source: int, die: int) -> str:
    if not 1 <= source <= BAR or position.checkers(source) == 0:
        return f"there is no checker of theirs on {_point(source)}"
    if position.on_bar()[0] and source != BAR:
        return "checkers on the bar must enter first"
    target = source - die
    if target >= 1 and position.opponent_checkers(target) >= 2:
        return f"point {target} is blocked"
    if target <= 0 and not position.is_bearing_off():
        return "bearing off needs all 15 checkers in the home board"
    if target < 0:
        return "a checker on a higher point must move first"
    return "the move is not legal"
