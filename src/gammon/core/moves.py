"""Legal plays (RULES.md §3) as Python values, over the compiled generator.

>>> from gammon.core.position import Position
>>> from gammon.core.dice import Roll
>>> plays = legal_plays(Position.initial(), Roll(3, 1))
>>> len(plays), str(plays[0])
(16, '24/23 24/21')
>>> [str(p) for p in plays if str(p) == '8/5 6/5']
['8/5 6/5']
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gammon.core import _movegen
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


@dataclass(frozen=True, slots=True)
class Play:
    """A whole legal play: its moves in the order played and the position it leads to.

    ``position`` is seen from the side that moved; ``position.swap()`` is the position the
    opponent then has on roll. A play with no moves is the forced pass of a roll that
    cannot be played.
    """

    moves: tuple[Move, ...]
    position: Position

    def notation(self) -> str:
        """Canonical GNU Backgammon-style notation, e.g. ``'24/18 13/11*'``."""
        from gammon.core.notation import format_play

        return format_play(self.moves)

    def __str__(self) -> str:
        return self.notation()


_scratch = threading.local()


def _buffers() -> tuple[np.ndarray, ...]:
    buffers = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _movegen.new_scratch()
        _scratch.buffers = buffers
    return buffers


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


def plays_with(position: Position, dice: Sequence[int]) -> tuple[Play, ...]:
    """Every distinct legal play of ``position`` with the dice still to play.

    ``dice`` are the moves left: ``(6, 1)`` or ``(3, 3, 3, 3)`` for a fresh roll, fewer
    values in the middle of a turn. Never empty: with no legal move, the one play is the
    pass (no moves, same position).
    """
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__}")
    values = np.array(_check_dice(dice), dtype=np.int64)
    boards, moves, keys, table, state, line = _buffers()
    count = _movegen.generate(position.array(), values, boards, moves, keys, table, state, line)
    # tolist() converts in C: far cheaper than indexing numpy scalars one by one
    return tuple(
        Play(tuple(Move(m[0], m[1], bool(m[2])) for m in play_moves if m[0] != _movegen.NO_MOVE),
             Position._trusted(board))
        for board, play_moves in zip(boards[:count].tolist(), moves[:count].tolist(),
                                     strict=True)
    )


def legal_plays(position: Position, roll: Roll) -> tuple[Play, ...]:
    """Every distinct legal play of ``position`` for ``roll`` (RULES.md §3)."""
    if not isinstance(roll, Roll):
        raise TypeError(f"expected a Roll, got {type(roll).__name__}")
    return plays_with(position, roll.moves())
