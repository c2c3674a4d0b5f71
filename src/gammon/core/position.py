"""The backgammon position: where the 30 checkers are, seen from the side on roll.

A :class:`Position` is an immutable value of 26 signed counts, the layout wildbg uses:

* index ``1..24`` — the points, numbered from the side on roll's own view (its home board
  is ``1..6``, it moves from 24 toward 1). Positive counts are the side on roll's checkers,
  negative counts the opponent's.
* index ``25`` — the bar of the side on roll (``>= 0``). Entering with a die ``d`` lands on
  point ``25 - d``, in the opponent's home board.
* index ``0`` — the bar of the opponent, stored negative (``<= 0``).

Checkers not on the board are borne off: ``15 - checkers on the board``. :meth:`Position.swap`
gives the same board seen from the other side (``new[i] == -old[25 - i]``).

The GNU Backgammon Position ID (14 characters, an 80-bit key in base64) is the canonical
name of a position, the way FEN is in chess, so its codec lives here with the value:

>>> Position.initial().id()
'4HPwATDgc/ABMA'
>>> Position.from_id('4HPwATDgc/ABMA') == Position.initial()
True
>>> Position.initial().pips()
(167, 167)
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

CHECKERS: Final = 15
"""Checkers per side."""
BAR: Final = 25
"""Index of the bar of the side on roll."""
OPPONENT_BAR: Final = 0
"""Index of the bar of the opponent (counts stored negative)."""
SLOTS: Final = 26

_INITIAL: Final = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)

_ID_LENGTH: Final = 14
_KEY_BYTES: Final = 10
_KEY_BITS: Final = 80
_RUNS: Final = tuple("1" * count + "0" for count in range(CHECKERS + 1))
"""One slot of a Position ID's key, least significant bit first: a 1-bit per checker, then a
0-bit."""


class InvalidPositionError(ValueError):
    """A board or Position ID that does not describe a legal backgammon position."""


class Position:
    """An immutable backgammon position, seen from the side on roll.

    Build one with :meth:`initial`, :meth:`from_id` or :meth:`from_board`; every
    constructor checks the position: at most 15 checkers a side, bars with the right sign.
    """

    __slots__ = ("_board", "_hash")

    _board: tuple[int, ...]
    _hash: int

    def __init__(self, board: Iterable[int]) -> None:
        cells = tuple(int(c) for c in board)
        _check_board(cells)
        object.__setattr__(self, "_board", cells)
        object.__setattr__(self, "_hash", hash(cells))

    # -- constructors ---------------------------------------------------------------------

    @classmethod
    def initial(cls) -> Position:
        """The starting position (2 on the 24-point, 5 on 13, 3 on 8, 5 on 6, both sides)."""
        return cls(_INITIAL)

    @classmethod
    def _trusted(cls, board: Iterable[int]) -> Position:
        """A position from a board the generator produced: already known to be valid (and
        made of Python ints)."""
        position = cls.__new__(cls)
        cells = tuple(board)
        object.__setattr__(position, "_board", cells)
        object.__setattr__(position, "_hash", hash(cells))
        return position

    @classmethod
    def from_board(cls, board: Iterable[int]) -> Position:
        """A position from 26 signed counts in the layout described in the module doc."""
        return cls(board)

    @classmethod
    def from_points(
        cls,
        player: dict[int, int],
        opponent: dict[int, int],
    ) -> Position:
        """A position from ``{point: count}`` for each side, each numbered from its own view.

        Point ``25`` is that side's bar. Example: a lone checker each on the 1-points
        (each side's ace point is the other's 24-point):

        >>> aces = Position.from_points({1: 1}, {1: 1})
        >>> aces.board[1], aces.board[24]
        (1, -1)
        """
        board = [0] * SLOTS
        for point, count in player.items():
            _check_point_count(point, count)
            board[point] += count
        for point, count in opponent.items():
            _check_point_count(point, count)
            index = OPPONENT_BAR if point == BAR else BAR - point
            if board[index] > 0:
                raise InvalidPositionError(f"both sides have checkers on point {point}")
            board[index] -= count
        return cls(board)

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (14 characters of base64)."""
        if not isinstance(position_id, str):
            raise InvalidPositionError(
                f"Position ID must be a string, not {type(position_id).__name__}"
            )
        text = position_id.strip()
        if len(text) != _ID_LENGTH:
            raise InvalidPositionError(
                f"Position ID must be {_ID_LENGTH} characters, got {len(text)}: {text!r}"
            )
        try:
            key = base64.b64decode(text + "==", validate=True)
        except (binascii.Error, ValueError):
            raise InvalidPositionError(f"Position ID is not base64: {text!r}") from None
        bits = int.from_bytes(key, "little")
        # Two runs of 25 slots: for each point 1..24 and then the bar, as many 1-bits as
        # checkers followed by a 0-bit. The first run is the opponent, the second the side on
        # roll (GNU Backgammon's anBoard[0] and anBoard[1]; its manual words this loosely, but
        # the published `4HPwATDgc/ABUA` with 6-6 having no legal play settles it).
        counts: list[list[int]] = [[], []]
        position = 0
        for side in (0, 1):
            while len(counts[side]) < BAR:
                run = 0
                while position < _KEY_BITS and (bits >> position) & 1:
                    run += 1
                    position += 1
                if position >= _KEY_BITS:
                    raise InvalidPositionError(f"Position ID encodes too many checkers: {text!r}")
                position += 1  # the 0-bit that ends this slot
                counts[side].append(run)
        if bits >> position:
            raise InvalidPositionError(f"Position ID has stray bits after the board: {text!r}")
        opponent, player = counts
        board = [0] * SLOTS
        for slot in range(BAR):
            board[slot + 1] += player[slot]
        for slot in range(BAR):
            index = OPPONENT_BAR if slot == BAR - 1 else BAR - 1 - slot
            if board[index] > 0 and opponent[slot] > 0:
                raise InvalidPositionError(
                    f"Position ID puts both sides on point {slot + 1}: {text!r}"
                )
            board[index] -= opponent[slot]
        decoded = cls(board)
        if decoded.id() != text:  # e.g. set padding bits: the same board, spelled wrongly
            raise InvalidPositionError(f"Position ID is not in canonical form: {text!r}")
        return decoded

    # -- the standard IDs -----------------------------------------------------------------

    def id(self) -> str:
        """The GNU Backgammon Position ID."""
        # the key's bits from the lowest: the opponent's points 1..24 and bar, then ours,
        # each as many 1-bits as checkers and a 0-bit; written as text and read as a number
        b = self._board
        runs = _RUNS
        bits = "".join([runs[-b[i]] if b[i] < 0 else "0" for i in range(BAR - 1, -1, -1)]
                       + [runs[b[i]] if b[i] > 0 else "0" for i in range(1, BAR + 1)])
        key = int(bits[::-1], 2).to_bytes(_KEY_BYTES, "little")
        return base64.b64encode(key).decode("ascii")[:_ID_LENGTH]

    # -- views ----------------------------------------------------------------------------

    @property
    def board(self) -> tuple[int, ...]:
        """The 26 signed counts (see the module doc)."""
        return self._board

    def array(self) -> npt.NDArray[np.int8]:
        """The board as a fresh ``int8`` array of 26 — the form the fast kernels take."""
        return np.array(self._board, dtype=np.int8)

    def swap(self) -> Position:
        """The same board seen from the other side."""
        b = self._board
        return Position._trusted(-b[BAR - i] for i in range(SLOTS))

    def checkers(self, point: int) -> int:
        """Checkers of the side on roll on ``point`` (1..24, or 25 for its bar)."""
        return max(self._board[point], 0)

    def opponent_checkers(self, point: int) -> int:
        """Checkers of the opponent on ``point`` numbered from the side on roll (0 = its bar)."""
        return max(-self._board[point], 0)

    def on_bar(self) -> tuple[int, int]:
        """Checkers on the bar: (side on roll, opponent)."""
        return self._board[BAR], -self._board[OPPONENT_BAR]

    def borne_off(self) -> tuple[int, int]:
        """Checkers borne off: (side on roll, opponent)."""
        mine = sum(c for c in self._board if c > 0)
        theirs = -sum(c for c in self._board if c < 0)
        return CHECKERS - mine, CHECKERS - theirs

    def pips(self) -> tuple[int, int]:
        """Pip counts: (side on roll, opponent). A checker on the bar counts 25."""
        b = self._board
        mine = sum(b[i] * i for i in range(1, SLOTS) if b[i] > 0)
        theirs = sum(-b[i] * (BAR - i) for i in range(SLOTS - 1) if b[i] < 0)
        return mine, theirs

    def is_race(self) -> bool:
        """No contact left: every checker of the side on roll is past every opposing one."""
        b = self._board
        my_back = max((i for i in range(1, SLOTS) if b[i] > 0), default=0)
        their_back = min((i for i in range(SLOTS - 1) if b[i] < 0), default=SLOTS)
        return my_back < their_back

    def is_bearing_off(self) -> bool:
        """All the side on roll's checkers are in its home board (points 1..6) or off."""
        return all(c <= 0 for c in self._board[7:])

    def winner(self) -> int | None:
        """``0`` if the side on roll has borne off all 15, ``1`` if the opponent has, else None."""
        off_me, off_them = self.borne_off()
        if off_me == CHECKERS:
            return 0
        if off_them == CHECKERS:
            return 1
        return None

    # -- value protocol -------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._board == other._board

    def __hash__(self) -> int:
        return self._hash

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __repr__(self) -> str:
        return f"Position.from_id({self.id()!r})"

    def __reduce__(self) -> tuple[type[Position], tuple[tuple[int, ...]]]:
        return (Position, (self._board,))


def _check_point_count(point: int, count: int) -> None:
    if not 1 <= point <= BAR:
        raise InvalidPositionError(f"point must be 1..24 or 25 (the bar), got {point}")
    if count < 0:
        raise InvalidPositionError(f"checker count must not be negative, got {count} on {point}")


def _check_board(board: Sequence[int]) -> None:
    if len(board) != SLOTS:
        raise InvalidPositionError(f"a board has {SLOTS} slots, got {len(board)}")
    if board[BAR] < 0:
        raise InvalidPositionError("the bar of the side on roll (index 25) cannot be negative")
    if board[OPPONENT_BAR] > 0:
        raise InvalidPositionError("the opponent's bar (index 0) holds a negative count")
    mine = sum(c for c in board if c > 0)
    theirs = -sum(c for c in board if c < 0)
    if mine > CHECKERS or theirs > CHECKERS:
        raise InvalidPositionError(
            f"a side has at most {CHECKERS} checkers, got {mine} and {theirs}"
        )
