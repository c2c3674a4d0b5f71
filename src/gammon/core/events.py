"""What happened: the events an action causes, in order, as small frozen values.

A server forwards them to clients and stores them; a client can replay a game from them.
``player`` is always the absolute side (``0`` or ``1``) who acted; moves are written from
that player's own view (their 24-point down to their 1-point, 25 the bar, 0 off).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.moves import Move


class EndKind(StrEnum):
    """How a game ended."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    DROP = "drop"
    RESIGN = "resign"
    ABANDON = "abandon"
    TIMEOUT = "timeout"


class MatchEndReason(StrEnum):
    """How a match or money session ended."""

    POINTS = "points"
    ABANDON = "abandon"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Game ``number`` of a match (from 1) starts; ``crawford`` marks the Crawford game."""

    number: int
    crawford: bool


@dataclass(frozen=True, slots=True)
class OpeningRolled:
    """The opening: the single dice thrown (``(player 0, player 1)``, ties first), who moves
    first, and the roll they play."""

    first: int
    throws: tuple[tuple[int, int], ...]
    roll: Roll


@dataclass(frozen=True, slots=True)
class DiceRolled:
    player: int
    roll: Roll


@dataclass(frozen=True, slots=True)
class CheckerMoved:
    """One checker moved by ``die``."""

    player: int
    move: Move
    die: int


@dataclass(frozen=True, slots=True)
class StepUndone:
    """The last step (``move`` by ``die``) was taken back."""

    player: int
    move: Move
    die: int


@dataclass(frozen=True, slots=True)
class NoLegalMove:
    """The roll cannot be played: the turn passes by itself."""

    player: int
    roll: Roll


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """``player``'s turn is over, having played ``moves`` (empty for a pass)."""

    player: int
    moves: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class CubeOffered:
    """``player`` doubles: the cube would go to ``value``."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class CubeTaken:
    """``player`` took: the cube is at ``value`` and ``player`` owns it."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class CubeBeavered:
    """``player`` took and redoubled at once: the cube is at ``value``, still ``player``'s."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class CubeDropped:
    """``player`` refused the double and loses the game at ``value``, the cube before it."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class ResignOffered:
    player: int
    level: Level


@dataclass(frozen=True, slots=True)
class ResignAccepted:
    """``player`` accepted the opponent's offer (a backgammon offer is accepted by itself)."""

    player: int
    level: Level


@dataclass(frozen=True, slots=True)
class ResignRejected:
    player: int
    level: Level


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: ``winner`` scores ``points``. It is also the game's result.

    ``level`` is what the game was won at (a resign offer's level; single for a drop, an
    abandon or a timeout), ``cube`` the cube value that multiplies it (the value before the
    double for a drop). ``points == level × cube``, except that with the Jacoby rule a
    gammon or backgammon with the cube never turned counts single.
    """

    winner: int
    points: int
    kind: EndKind
    level: Level
    cube: int


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The match (or money session) is over: ``winner`` won it, for ``reason``."""

    winner: int
    reason: MatchEndReason
    score: tuple[int, int]


Event: TypeAlias = (
    GameStarted
    | OpeningRolled
    | DiceRolled
    | CheckerMoved
    | StepUndone
    | NoLegalMove
    | TurnEnded
    | CubeOffered
    | CubeTaken
    | CubeBeavered
    | CubeDropped
    | ResignOffered
    | ResignAccepted
    | ResignRejected
    | GameEnded
    | MatchEnded
)
"""Every event a game or match emits."""
