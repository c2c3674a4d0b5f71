"""The one-sided bear-off database: exact roll distributions for every home-board position.

A *one-sided* position is how one side's checkers lie on its six home points: 0 to 15
checkers over points 1..6, C(21, 6) = 54,264 positions including the empty one. For each
the database holds two distributions over the number of rolls (turns) still needed:

* ``rolls`` — to bear off every checker, playing each roll to minimise the expected number
  of rolls to finish (the standard one-sided criterion, as GNU Backgammon uses);
* ``first_off`` — to bear off the first checker, playing each roll to minimise the expected
  number of rolls until one is off. It matters only while a side has all 15 on the board
  (a side that has borne off nothing is gammoned if the other finishes first); positions
  with fewer than 15 already have one off and need 0 rolls.

Both are computed here by dynamic programming from the empty position up, over the
project's own legal-play generator (:mod:`gammon.core._movegen`), so the bear-off rules
exist once. The tables are built on first use (a few seconds) and cached as a compressed
``.npz`` in ``$GAMMON_CACHE_DIR`` (default ``~/.cache/gammon``), with the format version in
the file name.

Two one-sided distributions give the exact cubeless outcome of a pure bear-off race (both
sides entirely in their home boards), on the usual assumption that each side plays its own
checkers without regard to the other's (and, as in GNU Backgammon, that a side with all
15 on the board saving a gammon gets its first checker off as fast as it can):

>>> from gammon.core.position import Position
>>> race = Position.from_points({6: 1}, {1: 1})  # our 6-point against their ace point
>>> [round(float(p), 4) for p in bearoff_probabilities(race)]
[0.75, 0.0, 0.0, 0.0, 0.0]

Positions are indexed by a perfect hash, the combinatorial number system over the stars
and bars of 15 checkers in 7 bins (points 1..6 and off): the six bar positions
``b_i = c_1 + ... + c_i + (i - 1)`` form a 6-subset of 0..20, ranked as ``sum C(b_i, i)``.

>>> position_index([0, 0, 0, 0, 0, 0]), position_index([15, 0, 0, 0, 0, 0])
(0, 54263)
>>> position_counts(position_index([3, 0, 2, 0, 0, 1]))
(3, 0, 2, 0, 0, 1)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Final, Generic, TypeVar

import numba as nb
import numpy as np
import numpy.typing as npt

from gammon.core import _movegen
from gammon.core.position import Position

VERSION: Final = 1
"""Format version of the cached file: bump it when the tables change, and they are rebuilt."""
POINTS: Final = 6
"""Home-board points a one-sided position covers."""
MAX_CHECKERS: Final = 15
POSITIONS: Final = comb(MAX_CHECKERS + POINTS, POINTS)
"""One-sided positions, the empty one included: C(21, 6) = 54,264."""
MAX_ROLLS: Final = 32
"""Length of each stored distribution: ``P(n rolls)`` for ``n = 0 .. MAX_ROLLS - 1``.

No position needs more than 30 rolls (the slowest, 15 checkers on the 6-point rolling
2-1 every time), so nothing is cut off; the build checks it.
"""
OUTCOMES: Final = 5
"""Probabilities returned for a race: win, win gammon, win backgammon, lose gammon, lose
backgammon (gammons include backgammons, as in GNU Backgammon)."""

CACHE_ENV: Final = "GAMMON_CACHE_DIR"
_FILE_NAME: Final = f"bearoff-onesided-v{VERSION}.npz"

# Working width of the DP: wider than MAX_ROLLS so the build can prove the tail is empty.
_WORK_ROLLS: Final = 48

# C(n, k) for n <= 20, k <= 6; zero where k > n, which the ranking relies on.
_BINOM: Final = np.array(
    [[comb(n, k) for k in range(POINTS + 1)] for n in range(MAX_CHECKERS + POINTS)],
    dtype=np.int64,
)

# The 21 distinct rolls: dice to play (doubles four times, padded with 0) and weight /36.
_ROLL_DICE: Final = np.zeros((21, 4), dtype=np.int64)
_ROLL_COUNT: Final = np.zeros(21, dtype=np.int64)
_ROLL_WEIGHT: Final = np.zeros(21, dtype=np.float64)
for _i, (_d1, _d2) in enumerate((a, b) for a in range(1, 7) for b in range(a, 7)):
    if _d1 == _d2:
        _ROLL_DICE[_i] = _d1
        _ROLL_COUNT[_i] = 4
        _ROLL_WEIGHT[_i] = 1.0 / 36.0
    else:
        _ROLL_DICE[_i, :2] = (_d2, _d1)
        _ROLL_COUNT[_i] = 2
        _ROLL_WEIGHT[_i] = 2.0 / 36.0
del _i, _d1, _d2

_jit = nb.njit(cache=True, nogil=True)


class NotBearoffError(ValueError):
    """A position that is not a pure bear-off race (see :func:`is_bearoff`)."""


# -- the perfect hash ---------------------------------------------------------------------


@_jit
def index_from_counts(counts: np.ndarray) -> int:
    """Index ``0 .. POSITIONS - 1`` of the checker counts on points 1..6 (unchecked)."""
    rank = 0
    bar = -1
    for i in range(POINTS):
        bar += counts[i] + 1
        rank += _BINOM[bar, i + 1]
    return rank


@_jit
def side_index(board: np.ndarray, side: int) -> int:
    """Index of one side's home board on a 26-slot board: ``side`` 0 is the side on roll
    (points 1..6), 1 the opponent (points 24..19, counts negative). Unchecked."""
    rank = 0
    bar = -1
    for i in range(POINTS):
        count = board[1 + i] if side == 0 else -board[24 - i]
        bar += count + 1
        rank += _BINOM[bar, i + 1]
    return rank


@_jit
def _unrank(index: int, counts: np.ndarray) -> int:
    """Fill ``counts`` (6 values) with the position of ``index``; returns the total."""
    rest = index
    upper = MAX_CHECKERS + POINTS - 1
    bars = np.empty(POINTS, dtype=np.int64)
    for k in range(POINTS, 0, -1):
        b = upper
        while _BINOM[b, k] > rest:
            b -= 1
        bars[k - 1] = b
        rest -= _BINOM[b, k]
        upper = b - 1
    counts[0] = bars[0]
    for i in range(1, POINTS):
        counts[i] = bars[i] - bars[i - 1] - 1
    return int(bars[POINTS - 1] - (POINTS - 1))


def _check_counts(counts: Sequence[int] | npt.ArrayLike) -> npt.NDArray[np.int64]:
    values = np.asarray(counts, dtype=np.int64)
    if values.shape != (POINTS,):
        raise ValueError(f"a one-sided position is {POINTS} counts, got shape {values.shape}")
    if (values < 0).any() or values.sum() > MAX_CHECKERS:
        raise ValueError(
            f"counts must be >= 0 and total at most {MAX_CHECKERS}, got {values.tolist()}"
        )
    return values


def position_index(counts: Sequence[int] | npt.ArrayLike) -> int:
    """The index of the checker counts on points 1..6 (``counts[0]`` is the 1-point)."""
    return int(index_from_counts(_check_counts(counts)))


def position_counts(index: int) -> tuple[int, ...]:
    """The checker counts on points 1..6 of a position index (inverse of
    :func:`position_index`)."""
    if not 0 <= index < POSITIONS:
        raise ValueError(f"a position index is 0..{POSITIONS - 1}, got {index}")
    counts = np.empty(POINTS, dtype=np.int64)
    _unrank(index, counts)
    return tuple(int(c) for c in counts)


# -- the dynamic programme ----------------------------------------------------------------


@_jit
def _best_play(boards: np.ndarray, count: int, means: np.ndarray) -> int:
    """Index of the resulting position with the lowest mean in ``means`` (first on ties)."""
    best = -1
    best_mean = np.inf
    for j in range(count):
        k = side_index(boards[j], 0)
        if means[k] < best_mean:
            best_mean = means[k]
            best = k
    return best


@_jit
def _convolve(out: np.ndarray, row: int, source: np.ndarray, best: int, weight: float) -> None:
    """``out[row, n + 1] += weight * source[best, n]``: one roll spent, then ``best``'s
    distribution; the last bucket keeps whatever would fall past it."""
    width = out.shape[1]
    for n in range(width - 2):
        out[row, n + 1] += weight * source[best, n]
    out[row, width - 1] += weight * (source[best, width - 2] + source[best, width - 1])


@_jit
def _build_tables(order: np.ndarray, dice_table: np.ndarray, dice_count: np.ndarray,
                  weights: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Both distributions for every position, visited in ``order`` (increasing pips).

    Every bear-off roll moves at least one pip, so each successor comes earlier in the
    order and is final when it is read. Flat loops over preallocated buffers: one scratch
    for the generator, one board, no allocation per roll beyond the dice view.
    """
    rolls = np.zeros((order.shape[0], width), dtype=np.float64)
    first = np.zeros((order.shape[0], width), dtype=np.float64)
    means = np.zeros(order.shape[0], dtype=np.float64)
    first_means = np.zeros(order.shape[0], dtype=np.float64)
    boards, moves, keys, table, state, line = _movegen.new_scratch()
    board = np.zeros(26, dtype=np.int8)
    counts = np.empty(POINTS, dtype=np.int64)
    for idx in order:
        total = _unrank(idx, counts)
        if total == 0:
            rolls[idx, 0] = 1.0
        if total < MAX_CHECKERS:
            first[idx, 0] = 1.0  # a checker is already off
        if total == 0:
            continue
        for p in range(POINTS):
            board[1 + p] = counts[p]
        for r in range(dice_table.shape[0]):
            dice = dice_table[r, :dice_count[r]]
            n = _movegen.generate(board, dice, boards, moves, keys, table, state, line)
            best = _best_play(boards, n, means)
            _convolve(rolls, idx, rolls, best, weights[r])
            if total == MAX_CHECKERS:
                best = _best_play(boards, n, first_means)
                _convolve(first, idx, first, best, weights[r])
        mean = 0.0
        first_mean = 0.0
        for k in range(width):
            mean += k * rolls[idx, k]
            first_mean += k * first[idx, k]
        means[idx] = mean
        first_means[idx] = first_mean
    return rolls, first


def _pip_order() -> npt.NDArray[np.int64]:
    """All position indices by increasing pip count."""
    pips = np.empty(POSITIONS, dtype=np.int64)
    counts = np.empty(POINTS, dtype=np.int64)
    weights = np.arange(1, POINTS + 1)
    for i in range(POSITIONS):
        _unrank(i, counts)
        pips[i] = int(counts @ weights)
    return np.argsort(pips, kind="stable").astype(np.int64)


def compute_tables() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Compute ``(rolls, first_off)``, each ``float32[POSITIONS, MAX_ROLLS]``; no I/O."""
    rolls, first = _build_tables(_pip_order(), _ROLL_DICE, _ROLL_COUNT, _ROLL_WEIGHT,
                                 _WORK_ROLLS)
    for name, table in (("rolls", rolls), ("first_off", first)):
        tail = float(table[:, MAX_ROLLS:].sum(axis=1).max())
        if tail > 0.0:  # pragma: no cover - a guard on MAX_ROLLS, not a reachable state
            raise RuntimeError(f"{name} needs more than {MAX_ROLLS} rolls (tail {tail})")
    return (rolls[:, :MAX_ROLLS].astype(np.float32),
            first[:, :MAX_ROLLS].astype(np.float32))


# -- two-sided races ----------------------------------------------------------------------


@_jit
def _tails(dist: np.ndarray, row: int, out: np.ndarray) -> None:
    """``out[n] = P(N >= n)`` for ``n = 0 .. width``, summed from the end (no cancellation)."""
    width = dist.shape[1]
    out[width] = 0.0
    for n in range(width - 1, -1, -1):
        out[n] = out[n + 1] + dist[row, n]


@_jit
def _race(board: np.ndarray, rolls: np.ndarray, first: np.ndarray, out: np.ndarray,
          tail_a: np.ndarray, tail_b: np.ndarray) -> None:
    """Cubeless outcome of a bear-off race, the side on roll to move, into ``out[0:5]``.

    The side on roll (``me``) rolls first, so it wins when it needs no more rolls than the
    opponent: ``P(win) = sum_n P_me(n) P_opp(>= n)``. It wins a gammon when the opponent
    still has 15 on the board and has not got its first checker off by then; it loses one
    when it has 15 on the board and the opponent finishes at roll ``m`` before its own
    first checker is off: ``sum_m P_opp(m) P_first_me(>= m + 1)``. No backgammons: every
    checker is home.
    """
    width = rolls.shape[1]
    me = side_index(board, 0)
    opp = side_index(board, 1)
    mine = 0
    theirs = 0
    for p in range(1, POINTS + 1):
        mine += board[p]
        theirs -= board[25 - p]
    _tails(rolls, opp, tail_a)
    win = 0.0
    for n in range(width):
        win += rolls[me, n] * tail_a[n]
    win_gammon = 0.0
    if theirs == MAX_CHECKERS:
        _tails(first, opp, tail_b)
        for n in range(width):
            win_gammon += rolls[me, n] * tail_b[n]
    lose_gammon = 0.0
    if mine == MAX_CHECKERS:
        _tails(first, me, tail_b)
        for m in range(width):
            lose_gammon += rolls[opp, m] * tail_b[m + 1]
    out[0] = win
    out[1] = win_gammon
    out[2] = 0.0
    out[3] = lose_gammon
    out[4] = 0.0


@_jit
def is_bearoff_board(board: np.ndarray) -> bool:
    """Compiled :func:`is_bearoff`: no checker on a bar or outside its home board."""
    if board[0] != 0 or board[25] != 0:
        return False
    for p in range(7, 25):
        if board[p] > 0:
            return False
    for p in range(1, 19):  # noqa: SIM110 - numba compiles loops, not all() over generators
        if board[p] < 0:
            return False
    return True


@_jit
def race_probabilities(board: np.ndarray, rolls: np.ndarray, first: np.ndarray,
                       out: np.ndarray, tails: np.ndarray) -> None:
    """Compiled single-board :func:`bearoff_probabilities` (unchecked; ``tails`` is
    ``float64[2, width + 1]`` scratch)."""
    _race(board, rolls, first, out, tails[0], tails[1])


@_jit
def _own_index(board: np.ndarray, side: int, stuck: bool) -> tuple[int, int]:
    """Index in the tables of ``side``'s checkers in its own home board (the other side's
    checkers there left out), or with ``stuck`` of its checkers in the *other* side's home
    board read as a bear-off position (a checker ``d`` pips from leaving that board on
    point ``d``); and how many checkers that is. ``side`` 0 is the side on roll."""
    rank = 0
    bar = -1
    count = 0
    for d in range(1, POINTS + 1):
        if side == 0:
            here = board[18 + d] if stuck else board[d]
        else:
            here = -board[7 - d] if stuck else -board[25 - d]
        if here < 0:
            here = 0
        count += here
        bar += here + 1
        rank += _BINOM[bar, d]
    return rank, count


@_jit
def race_backgammons(board: np.ndarray, rolls: np.ndarray, out: np.ndarray,
                     tail: np.ndarray) -> None:
    """The backgammon chances of a race (no contact, the side on roll first), written over
    ``out[WIN_BACKGAMMON]`` and ``out[LOSE_BACKGAMMON]``: a side that has borne off none is
    backgammoned when the other finishes before its last checker leaves the other's home
    board. With none left there, it cannot be; with some, the other side is all home
    (no contact: its checkers are all beyond them), so its rolls to finish are exact from
    the tables, and so are the rolls to get the stuck checkers out, read as a bear-off of
    them (getting out is never slower than that bear-off and only rarely faster: a larger
    die may take any checker out, where a bear-off must move the highest). A side that has
    borne off is left alone (it cannot be gammoned at all). ``tail`` is
    ``float64[width + 1]`` scratch.
    """
    _backgammon_chance(board, rolls, tail, 0, out)  # ours: LOSE_BACKGAMMON
    _backgammon_chance(board, rolls, tail, 1, out)  # theirs: WIN_BACKGAMMON


@_jit
def _backgammon_chance(board: np.ndarray, rolls: np.ndarray, tail: np.ndarray, trailer: int,
                       out: np.ndarray) -> None:
    """:func:`race_backgammons` for ``trailer`` (0: the side on roll) as the side that may be
    backgammoned."""
    index = 4 if trailer == 0 else 2
    stuck, count = _own_index(board, trailer, True)
    if count == 0:
        out[index] = 0.0
        return
    if checkers_on_board(board)[trailer] < MAX_CHECKERS:
        return  # it has borne off: no gammon at all
    leader = _own_index(board, 1 - trailer, False)[0]
    _tails(rolls, stuck, tail)
    # The leader finishes at its m-th roll; by then a trailer on roll has had m rolls (it
    # is caught if it needs more: tail[m + 1]), a trailer not on roll m - 1 (tail[m]).
    lag = 1 if trailer == 0 else 0
    chance = 0.0
    for m in range(rolls.shape[1]):
        chance += rolls[leader, m] * tail[m + lag]
    out[index] = chance


@_jit
def checkers_on_board(board: np.ndarray) -> tuple[int, int]:
    """How many checkers the side on roll and the opponent have left on the board (bar
    included): fewer than 15 means that side has borne off."""
    mine = 0
    theirs = 0
    for p in range(26):
        if board[p] > 0:
            mine += board[p]
        elif board[p] < 0:
            theirs -= board[p]
    return mine, theirs


@_jit
def race_probabilities_batch(boards: np.ndarray, rolls: np.ndarray,
                             first: np.ndarray) -> np.ndarray:
    """:func:`bearoff_probabilities` for ``int8[N, 26]`` boards, over the raw tables
    (:attr:`BearoffDatabase.rolls`, :attr:`BearoffDatabase.first_off`). Unchecked: every
    board must pass :func:`is_bearoff`. Returns ``float64[N, 5]``."""
    n = boards.shape[0]
    out = np.empty((n, OUTCOMES), dtype=np.float64)
    tail_a = np.empty(rolls.shape[1] + 1, dtype=np.float64)
    tail_b = np.empty(rolls.shape[1] + 1, dtype=np.float64)
    for i in range(n):
        _race(boards[i], rolls, first, out[i], tail_a, tail_b)
    return out


def _as_boards(boards: Position | Sequence[int] | npt.ArrayLike) -> npt.NDArray[np.int8]:
    """One board or many as ``int8[N, 26]``."""
    if isinstance(boards, Position):
        return boards.array()[None, :]
    array = np.asarray(boards)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != 26:
        raise ValueError(f"boards are 26 signed counts, got shape {np.shape(boards)}")
    return np.ascontiguousarray(array, dtype=np.int8)


def _bearoff_mask(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]:
    """Row-wise :func:`is_bearoff` (vectorised numpy)."""
    bars_empty = (boards[:, 0] == 0) & (boards[:, 25] == 0)
    own_outside = (boards[:, 7:26] > 0).any(axis=1)
    their_outside = (boards[:, 0:19] < 0).any(axis=1)
    mine = np.where(boards > 0, boards, 0).sum(axis=1)
    theirs = -np.where(boards < 0, boards, 0).sum(axis=1)
    # The kernels index the tables unchecked: more than 15 a side must not get through.
    counts_ok = (mine <= MAX_CHECKERS) & (theirs <= MAX_CHECKERS)
    mask: npt.NDArray[np.bool_] = bars_empty & ~own_outside & ~their_outside & counts_ok
    return mask


def is_bearoff(board: Position | Sequence[int] | npt.ArrayLike) -> bool:
    """Whether both sides have every remaining checker in their own home board and none on
    the bar — the side on roll on points 1..6, the opponent on 19..24 — a pure race in
    which both bear off. (A side with none left has already won; the probabilities then
    say so.)

    >>> is_bearoff(Position.from_points({1: 3, 6: 2}, {2: 15}))
    True
    >>> is_bearoff(Position.initial())
    False
    """
    return bool(_bearoff_mask(_as_boards(board))[0])


# -- the database -------------------------------------------------------------------------


def cache_path(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the cached tables live: ``cache_dir``, else ``$GAMMON_CACHE_DIR``, else
    ``~/.cache/gammon``; the file name carries :data:`VERSION`."""
    if cache_dir is None:
        cache_dir = os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "gammon"
    return Path(cache_dir) / _FILE_NAME


@dataclass(frozen=True, slots=True, eq=False)
class BearoffDatabase:
    """The one-sided tables, indexed by :func:`position_index` (see the module doc).

    ``rolls`` and ``first_off`` are ``float32[POSITIONS, MAX_ROLLS]``: row ``i``, column
    ``n`` is the probability that position ``i`` needs exactly ``n`` rolls to bear off all
    its checkers, respectively its first. ``means`` holds the expected rolls to finish.
    The arrays are read-only and can be passed to numba kernels as they are.
    """

    rolls: npt.NDArray[np.float32]
    first_off: npt.NDArray[np.float32]
    means: npt.NDArray[np.float64]

    @classmethod
    def from_tables(cls, rolls: npt.NDArray[np.float32],
                    first_off: npt.NDArray[np.float32]) -> BearoffDatabase:
        """Wrap computed or loaded tables (checked for shape)."""
        shape = (POSITIONS, MAX_ROLLS)
        if rolls.shape != shape or first_off.shape != shape:
            raise ValueError(f"bear-off tables must have shape {shape}")
        rolls = np.ascontiguousarray(rolls, dtype=np.float32)
        first_off = np.ascontiguousarray(first_off, dtype=np.float32)
        means = rolls.astype(np.float64) @ np.arange(MAX_ROLLS, dtype=np.float64)
        for array in (rolls, first_off, means):
            array.flags.writeable = False
        return cls(rolls, first_off, means)

    @classmethod
    def compute(cls) -> BearoffDatabase:
        """Build the tables in memory, without touching the cache."""
        return cls.from_tables(*compute_tables())

    @classmethod
    def load(cls, cache_dir: str | os.PathLike[str] | None = None) -> BearoffDatabase:
        """The database, once per process and cache file: read from the cache, or built
        and written there first (see :func:`build_database`). If the cache cannot be
        written the tables are still returned, built in memory."""
        return _CACHE.load(cache_path(cache_dir), cls.compute)

    def rolls_to_finish(self, counts: Sequence[int] | npt.ArrayLike) -> npt.NDArray[np.float32]:
        """``P(n rolls to bear off all)`` for ``n = 0 .. MAX_ROLLS - 1`` (a read-only row).

        ``counts`` are the checkers on points 1..6, the 1-point first.
        """
        row: npt.NDArray[np.float32] = self.rolls[position_index(counts)]
        return row

    def rolls_to_first_off(
        self, counts: Sequence[int] | npt.ArrayLike
    ) -> npt.NDArray[np.float32]:
        """``P(n rolls to bear off the first checker)``; 0 rolls unless all 15 are on."""
        row: npt.NDArray[np.float32] = self.first_off[position_index(counts)]
        return row

    def mean_rolls(self, counts: Sequence[int] | npt.ArrayLike) -> float:
        """Expected number of rolls to bear off all the checkers of ``counts``."""
        return float(self.means[position_index(counts)])

    def probabilities(
        self, board: Position | Sequence[int] | npt.ArrayLike
    ) -> npt.NDArray[np.float64]:
        """See :func:`bearoff_probabilities`."""
        row: npt.NDArray[np.float64] = self.probabilities_batch(_as_boards(board))[0]
        return row

    def probabilities_batch(self, boards: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """See :func:`bearoff_probabilities_batch`."""
        array = _as_boards(boards)
        bad = np.flatnonzero(~_bearoff_mask(array))
        if bad.size:
            raise NotBearoffError(
                f"not a bear-off race (row {int(bad[0])}): {array[bad[0]].tolist()}"
            )
        result: npt.NDArray[np.float64] = race_probabilities_batch(
            array, self.rolls, self.first_off
        )
        return result


Tables = TypeVar("Tables")


class TableCache(Generic[Tables]):
    """Tables kept once per process and cache file: read from the file, or computed and
    written there first (:meth:`load`). ``read`` returns None for a file that is missing
    or not whole; ``write`` puts the tables in the file."""

    def __init__(self, read: Callable[[Path], Tables | None],
                 write: Callable[[Path, Tables], None]) -> None:
        self.read = read
        self.write = write
        self.lock = threading.Lock()
        self.loaded: dict[Path, Tables] = {}

    def load(self, path: Path, compute: Callable[[], Tables]) -> Tables:
        """The tables of the cache file ``path``; if it cannot be written they are still
        returned, computed in memory."""
        with self.lock:
            tables = self.loaded.get(path)
            if tables is None:
                tables = self.read(path)
                if tables is None:
                    tables = compute()
                    # A read-only cache only costs a rebuild next time.
                    with contextlib.suppress(OSError):
                        self.write(path, tables)
                self.loaded[path] = tables
            return tables


def _read(path: Path) -> BearoffDatabase | None:
    """The cached database at ``path``, or None if it is missing or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if int(data["version"]) != VERSION:
                return None
            return BearoffDatabase.from_tables(data["rolls"], data["first_off"])
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError):
        return None


def _write(path: Path, database: BearoffDatabase) -> None:
    """Write atomically: a temporary file in the same directory, then ``os.replace``, so
    a reader never sees half a file and two builders at once both leave a whole one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez_compressed(handle, version=np.int64(VERSION), rolls=database.rolls,
                                first_off=database.first_off)
        os.chmod(temp, 0o644)  # mkstemp makes it private; the cache is for every user
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


_CACHE = TableCache(_read, _write)


def build_database(cache_dir: str | os.PathLike[str] | None = None, *,
                   force: bool = False) -> Path:
    """Build the database now and write it to the cache (if it is not there already, or
    always with ``force``); returns the file's path. Errors writing it are raised."""
    path = cache_path(cache_dir)
    with _CACHE.lock:
        database = None if force else _read(path)
        if database is None:
            database = BearoffDatabase.compute()
            _write(path, database)
        _CACHE.loaded[path] = database
    return path


def bearoff_probabilities(
    board: Position | Sequence[int] | npt.ArrayLike,
    database: BearoffDatabase | None = None,
) -> npt.NDArray[np.float64]:
    """Exact cubeless ``[win, win gammon, win backgammon, lose gammon, lose backgammon]``
    for the side on roll, about to roll, in a position where :func:`is_bearoff` holds
    (else :class:`NotBearoffError`). Uses :meth:`BearoffDatabase.load` unless given one."""
    return (BearoffDatabase.load() if database is None else database).probabilities(board)


def bearoff_probabilities_batch(
    boards: npt.ArrayLike, database: BearoffDatabase | None = None
) -> npt.NDArray[np.float64]:
    """:func:`bearoff_probabilities` for each row of an ``int8[N, 26]`` array:
    ``float64[N, 5]``, computed in one compiled loop."""
    return (BearoffDatabase.load() if database is None else database).probabilities_batch(boards)


def _main() -> None:  # pragma: no cover - ``python -m gammon.engine.bearoff``: build, time
    start = time.perf_counter()
    path = build_database(force=True)
    seconds = time.perf_counter() - start
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB in {seconds:.1f} s")


if __name__ == "__main__":  # pragma: no cover
    _main()
