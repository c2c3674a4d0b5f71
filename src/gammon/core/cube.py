"""The doubling cube (RULES.md §5) and the stakes a game is won at (§4, §6).

>>> cube = Cube()
>>> cube.may_double(0), cube.may_double(1)
(True, True)
>>> cube = cube.taken_by(1)
>>> cube, cube.may_double(0), cube.may_double(1)
(Cube(value=2, owner=1), False, True)

The stakes live here once, for the game, the engine's cube and resignation decisions and the
match files: :func:`win_level` (what a finished board is won at), :func:`counted_level` and
:func:`game_points` (what a level scores with the cube and the Jacoby rule) and
:func:`resigned_level` (the level a resignation's points stand for).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from gammon.core.position import CHECKERS, Position

MAX_CUBE: Final = 64
"""The cube's highest value: no double beyond it."""


class Level(IntEnum):
    """What a game is won at, as a multiple of the cube: also the level of a resign offer."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    def __str__(self) -> str:
        return self.name.lower()

    @property
    def needs_answer(self) -> bool:
        """Whether a resign offer at this level waits for the opponent's answer: a
        backgammon concedes all a game can be won at, so it is accepted by itself.

        >>> Level.GAMMON.needs_answer, Level.BACKGAMMON.needs_answer
        (True, False)
        """
        return self is not Level.BACKGAMMON


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube's value and owner: ``None`` while centred (either side may double)."""

    value: int = 1
    owner: int | None = None

    def __post_init__(self) -> None:
        if self.value not in _VALUES:
            raise ValueError(
                f"the cube shows a power of two from 1 to {MAX_CUBE}, got {self.value!r}"
            )
        if self.owner not in (None, 0, 1):
            raise ValueError(f"the cube's owner is player 0, 1 or None, got {self.owner!r}")
        if self.owner is None and self.value != 1:
            raise ValueError("a turned cube has an owner")

    @property
    def is_centred(self) -> bool:
        """Never turned in this game: either side may double."""
        return self.owner is None

    def may_double(self, player: int) -> bool:
        """Whether ``player`` holds the right to double (owner or centred) below the maximum."""
        return self.owner in (None, player) and self.value < MAX_CUBE

    def taken_by(self, player: int) -> Cube:
        """The cube after ``player`` takes a double: twice the value, owned by the taker."""
        return Cube(self.value * 2, player)

    def beavered_by(self, player: int) -> Cube:
        """The cube after ``player`` takes and at once redoubles, keeping it (a beaver)."""
        return Cube(self.value * 4, player)


_VALUES: Final = frozenset(2**k for k in range(7))


def win_level(finished: Position) -> Level:
    """What a game is won at (RULES.md §4), from the board seen by the winner, who has borne
    off all its checkers: a single if the loser has borne off a checker, else a gammon, a
    backgammon if the loser also has a checker on the bar or in the winner's home board.

    >>> win_level(Position.from_points({}, {1: 14}))
    <Level.SINGLE: 1>
    >>> win_level(Position.from_points({}, {1: 15}))
    <Level.GAMMON: 2>
    >>> win_level(Position.from_points({}, {1: 14, 19: 1}))  # their 19 is the winner's 6
    <Level.BACKGAMMON: 3>
    """
    board = finished.board
    if any(count > 0 for count in board):
        raise ValueError(f"the game is not won: the side on roll of {finished.id()} has "
                         f"{finished.borne_off()[0]} of {CHECKERS} checkers off")
    if finished.borne_off()[1] > 0:
        return Level.SINGLE
    # the loser's bar is index 0, the winner's home board points 1..6
    if any(board[index] < 0 for index in range(7)):
        return Level.BACKGAMMON
    return Level.GAMMON


def counted_level(level: Level, *, jacoby: bool, centred: bool) -> Level:
    """The level a game won at ``level`` scores: with the Jacoby rule (a money option) and
    the cube never turned, gammons and backgammons count as a single game.

    >>> counted_level(Level.GAMMON, jacoby=True, centred=True)
    <Level.SINGLE: 1>
    >>> counted_level(Level.GAMMON, jacoby=True, centred=False)
    <Level.GAMMON: 2>
    """
    return Level.SINGLE if jacoby and centred else Level(level)


def game_points(level: Level, cube: Cube, *, jacoby: bool = False) -> int:
    """The points a game won at ``level`` scores: the counted level times the cube.

    >>> game_points(Level.BACKGAMMON, Cube(4, 0)), game_points(Level.GAMMON, Cube(), jacoby=True)
    (12, 1)
    """
    return int(counted_level(level, jacoby=jacoby, centred=cube.is_centred)) * cube.value


def resigned_level(points: int, cube_value: int) -> Level | None:
    """The level a resignation won ``points`` at with the cube at ``cube_value`` (the way GNU
    Backgammon reads a resigned game's points: the cube, twice or three times it), or None
    when ``points`` is none of those.

    >>> resigned_level(4, 2), resigned_level(1, 1), resigned_level(12, 4), resigned_level(5, 2)
    (<Level.GAMMON: 2>, <Level.SINGLE: 1>, <Level.BACKGAMMON: 3>, None)
    """
    if cube_value < 1:
        raise ValueError(f"a cube value is at least 1, got {cube_value!r}")
    level, rest = divmod(points, cube_value)
    if rest or level not in (1, 2, 3):
        return None
    return Level(level)
