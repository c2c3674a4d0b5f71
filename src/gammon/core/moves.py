"""Legal plays (RULES.md §3) as Python values, over the compiled generator.

>>> from gammon.core.position import Position
>>> from gammon.core.dice import Roll
>>> plays = legal_plays(Position.initial(), Roll(3, 1))
>>> len(plays), str(plays[0])
(16, '24/23 24/21')
>>> [str(p) for p in plays if str(p) == '8/5 6/5']
['8/5 6/5']

The generator's results stay in its arrays: a :class:`Play` reads its moves and position
from them the first time they are asked for, so a caller that looks at a few plays (an
engine choosing one) pays for those alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, ClassVar, Generic, NoReturn, TypeVar, overload

import numpy as np
import numpy.typing as npt

from gammon.core import _movegen, _steps
from gammon.core.dice import InvalidDiceError, Roll
from gammon.core.position import BAR, Position


class IllegalPlayError(ValueError):
    """A play, or a step of one, that the rules do not allow for this position and roll."""


@dataclass(frozen=True, slots=True)
class Move:
    """One checker moved by one die: ``source`` 25 is the bar, ``destination`` 0 is off."""

    source: int
    destination: int
    hit: bool = False

    def __str__(self) -> str:
        source = "bar" if self.source == BAR else str(self.source)
        target = "off" if self.destination == 0 else str(self.destination)
        return f"{source}/{target}{'*' if self.hit else ''}"


# Moves are values: the generator's (source, destination, hit) triples map to shared ones,
# indexed _MOVES[source][destination][hit].
_MOVES: list[list[list[Move]]] = [
    [[Move(source, destination, bool(hit)) for hit in (0, 1)] for destination in range(source)]
    for source in range(BAR + 1)
]


class _Generated:
    """One call's plays as the generator gave them (copied out of its reusable buffers),
    converted to Python values only as plays are read: a row at a time for the first, then
    all rows at once (which is cheaper per row) once a second play is read."""

    __slots__ = ("_board_rows", "_boards_read", "_move_rows", "_moves_read", "boards", "moves")

    def __init__(self, boards: npt.NDArray[np.int8], moves: npt.NDArray[np.int8]) -> None:
        self.boards = boards
        self.moves = moves
        self._board_rows: list[list[int]] | None = None
        self._move_rows: list[list[list[int]]] | None = None
        self._boards_read = False
        self._moves_read = False

    def position(self, index: int) -> Position:
        rows = self._board_rows
        if rows is None:
            if not self._boards_read:
                self._boards_read = True
                return Position._trusted(self.boards[index].tolist())
            rows = self._board_rows = self.boards.tolist()
        return Position._trusted(rows[index])

    def play_moves(self, index: int) -> tuple[Move, ...]:
        rows = self._move_rows
        if rows is None:
            if not self._moves_read:
                self._moves_read = True
                return _to_moves(self.moves[index].tolist())
            rows = self._move_rows = self.moves.tolist()
        return _to_moves(rows[index])


def _to_moves(row: list[list[int]]) -> tuple[Move, ...]:
    table = _MOVES
    return tuple([table[source][destination][hit] for source, destination, hit in row
                  if source != _movegen.NO_MOVE])


Value = TypeVar("Value")


class FrozenField(Generic[Value]):
    """A field of an immutable class with slots (a :class:`Play`, an engine's ranked play)
    that reads like a frozen dataclass's: kept in the slot of its name with a leading
    underscore (``moves`` in ``_moves``), refusing assignment with
    :class:`~dataclasses.FrozenInstanceError`. Made from a function (``@FrozenField``), the
    field is filled by it the first time it is read while the slot holds None, so that a
    value made in bulk reads its fields only when asked."""

    def __init__(self, fill: Callable[[Any], Value] | None = None) -> None:
        self._fill = fill
        self.__doc__ = None if fill is None else fill.__doc__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._name = name
        self._slot = "_" + name

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> FrozenField[Value]: ...
    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> Value: ...

    def __get__(self, instance: object, owner: type[Any] | None = None) -> Any:
        if instance is None:
            return self
        value = getattr(instance, self._slot)
        if value is None and self._fill is not None:
            value = self._fill(instance)
            setattr(instance, self._slot, value)
        return value

    def __set__(self, instance: object, value: object) -> NoReturn:
        raise FrozenInstanceError(f"cannot assign to field {self._name!r}")


class Play:
    """A whole legal play: its moves in the order played and the position it leads to.

    ``position`` is seen from the side that moved; ``next_position`` (its ``swap()``) is
    the position the opponent then has on roll. A play with no moves is the forced pass of
    a roll that cannot be played. Immutable, compared and hashed by ``(moves, position)``.
    """

    # For plays the generator made, _moves and _position are None until first read.
    __slots__ = ("_generated", "_index", "_moves", "_position")
    __match_args__: ClassVar[tuple[str, str]] = ("moves", "position")

    _generated: _Generated | None
    _index: int
    _moves: tuple[Move, ...] | None
    _position: Position | None

    def __init__(self, moves: tuple[Move, ...], position: Position) -> None:
        self._generated = None
        self._index = 0
        self._moves = moves
        self._position = position

    @classmethod
    def _from_generator(cls, generated: _Generated, count: int) -> tuple[Play, ...]:
        """The plays of rows ``0..count - 1`` of ``generated``, read when first asked."""
        plays = []
        new = object.__new__
        for index in range(count):
            play = new(cls)
            play._generated = generated
            play._index = index
            play._moves = None
            play._position = None
            plays.append(play)
        return tuple(plays)

    @FrozenField
    def moves(self) -> tuple[Move, ...]:
        """The moves in the order played."""
        assert self._generated is not None
        return self._generated.play_moves(self._index)

    @FrozenField
    def position(self) -> Position:
        """The position the play leads to, seen from the side that moved."""
        assert self._generated is not None
        return self._generated.position(self._index)

    @property
    def next_position(self) -> Position:
        """The position the play leaves, seen from the opponent, who is on roll next
        (``position.swap()``; the Position ID GNU Backgammon shows after a move)."""
        return self.position.swap()

    def notation(self) -> str:
        """Canonical GNU Backgammon-style notation, e.g. ``'24/18 13/11*'``."""
        from gammon.core.notation import format_play

        return format_play(self.moves)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Play(moves={self.moves!r}, position={self.position!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play) or other.__class__ is not self.__class__:
            return NotImplemented
        return (self.moves, self.position) == (other.moves, other.position)

    def __hash__(self) -> int:
        return hash((self.moves, self.position))

    def __reduce__(self) -> tuple[type[Play], tuple[tuple[Move, ...], Position]]:
        return (Play, (self.moves, self.position))


_scratch = threading.local()


def _buffers() -> tuple[np.ndarray, ...]:
    buffers = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _movegen.new_scratch()
        _scratch.buffers = buffers
    return buffers


# The dice arrays of the 36 rolls, built once: the generator only reads them.
_ROLL_DICE: dict[tuple[int, int], npt.NDArray[np.int64]] = {
    (die1, die2): np.array(Roll(die1, die2).moves(), dtype=np.int64)
    for die1 in range(1, 7) for die2 in range(1, 7)
}


def _check_dice(dice: Sequence[int]) -> tuple[int, ...]:
    values = tuple(dice)
    if not 1 <= len(values) <= 4:
        raise InvalidDiceError(f"between 1 and 4 dice remain in a turn, got {len(values)}")
    for die in values:
        if isinstance(die, bool) or not isinstance(die, int | np.integer) or not 1 <= die <= 6:
            raise InvalidDiceError(f"a die shows 1 to 6, got {die!r}")
    if len(set(values)) > 1 and len(values) != 2:
        raise InvalidDiceError(
            f"dice left in a turn are two different numbers or all equal: {values}"
        )
    return values


def _generate(position: Position,
              dice: npt.NDArray[np.int64]) -> tuple[tuple[Play, ...], npt.NDArray[np.int8]]:
    """The plays of ``position`` with checked ``dice``, and their boards (``int8[n, 26]``,
    row ``i`` the board of play ``i``: the engine evaluates these without building any
    Position)."""
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__}")
    boards, moves, keys, table, state, line = _buffers()
    count = _movegen.generate(position.array(), dice, boards, moves, keys, table, state, line)
    generated = _Generated(boards[:count].copy(), moves[:count].copy())
    return Play._from_generator(generated, count), generated.boards


def plays_with(position: Position, dice: Sequence[int]) -> tuple[Play, ...]:
    """Every distinct legal play of ``position`` with the dice still to play.

    ``dice`` are the moves left: ``(6, 1)`` or ``(3, 3, 3, 3)`` for a fresh roll, fewer
    values in the middle of a turn. Never empty: with no legal move, the one play is the
    pass (no moves, same position).
    """
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__}")
    return _generate(position, np.array(_check_dice(dice), dtype=np.int64))[0]


def _boards_of(plays: tuple[Play, ...]) -> npt.NDArray[np.int8]:
    """The boards of ``plays`` as one array (int8[n, 26]): the generator's own when they
    are its plays of one call, in its order (as :func:`legal_plays` gives them)."""
    generated = plays[0]._generated if plays else None
    if generated is not None and len(generated.boards) == len(plays) and all(
            play._generated is generated and play._index == index
            for index, play in enumerate(plays)):
        return generated.boards
    return np.array([play.position.board for play in plays], dtype=np.int8).reshape(-1, 26)


def legal_plays(position: Position, roll: Roll) -> tuple[Play, ...]:
    """Every distinct legal play of ``position`` for ``roll`` (RULES.md §3)."""
    return _legal_plays_and_boards(position, roll)[0]


def _legal_plays_and_boards(
        position: Position, roll: Roll) -> tuple[tuple[Play, ...], npt.NDArray[np.int8]]:
    """:func:`legal_plays` with the plays' boards as one array (see :func:`_generate`)."""
    if not isinstance(roll, Roll):
        raise TypeError(f"expected a Roll, got {type(roll).__name__}")
    return _generate(position, _ROLL_DICE[roll.die1, roll.die2])


# -- steps: one checker, one die ----------------------------------------------------------


def single_steps(position: Position, die: int) -> dict[int, Play]:
    """The one-checker moves ``die`` allows in ``position``, by source point (25 the bar),
    each as a play of that one move (whether the rest of the roll can follow is not asked).

    >>> sorted(single_steps(Position.initial(), 5))  # 24/19 and 6/1 are blocked
    [8, 13]
    """
    return {play.moves[0].source: play for play in plays_with(position, (die,)) if play.moves}


def step_die(position: Position, source: int, destination: int,
             dice: Sequence[int]) -> int | None:
    """The die of ``dice`` that moves one checker from ``source`` to ``destination`` (25 the
    bar, 0 off) in ``position``, or None when none does. A checker travels its die exactly,
    except that it bears off with a higher die when no checker stands further back; where
    several dice bear it off, the lowest is used (the higher ones stay free for the rest).

    >>> home = Position.from_points({4: 1, 2: 1}, {1: 15})
    >>> step_die(home, 4, 0, (6, 5)), step_die(home, 4, 1, (6, 3)), step_die(home, 4, 2, (6, 5))
    (5, 3, None)
    """
    walked = play_steps(position, [(source, destination)], dice)
    return None if walked is None else walked[0][1]


def play_steps(position: Position, steps: Sequence[tuple[int, int]],
               dice: Sequence[int]) -> tuple[tuple[Move, int, Position], ...] | None:
    """Single-checker ``steps`` (source, destination) played in order from ``position`` with
    ``dice``: for each, the move (hits marked), the die it uses (:func:`step_die`) and the
    position after it; None when a step cannot be played with the dice left. Whether the
    steps make a legal play of the whole roll is not asked (compare with :func:`legal_plays`).

    >>> [(str(move), die) for move, die, _ in play_steps(Position.initial(), [(8, 5), (6, 5)],
    ...                                                  (3, 1))]
    [('8/5', 3), ('6/5', 1)]
    """
    pairs = [(int(source), int(destination)) for source, destination in steps]
    values = [_check_die(die) for die in dice]
    if not pairs:
        return ()
    walked, used, after = _steps.walk(position.array(), np.array(pairs, dtype=np.int64),
                                      np.array(values, dtype=np.int64))
    if walked < len(pairs):
        return None
    return tuple((_MOVES[source][destination][hit], die, Position._trusted(board))
                 for (source, destination), (die, hit), board
                 in zip(pairs, used.tolist(), after.tolist(), strict=True))


def _check_die(die: int) -> int:
    if isinstance(die, bool) or not isinstance(die, int | np.integer) or not 1 <= die <= 6:
        raise InvalidDiceError(f"a die shows 1 to 6, got {die!r}")
    return int(die)
