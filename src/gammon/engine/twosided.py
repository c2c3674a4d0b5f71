"""The two-sided bear-off database: exact races of up to six checkers a side, and their cube.

When both sides have all their remaining checkers in their home boards, at most
:data:`SIDE_CHECKERS` each, the race is small enough to solve exactly. For every pair of
one-sided positions (the side on roll's and its opponent's, ``C(12, 6) = 924`` each, the
empty one included) the database holds, for the side on roll before it rolls:

* ``win`` — its chance of winning with best play by both sides (each play chosen for the
  most winning chances, not for the fewest rolls as the one-sided database assumes;
  :mod:`gammon.engine.bearoff`);
* ``no_double[cube]`` — its cubeful money equity, normalised to the cube's value, if it
  does not double now, with best cube and checker play by both sides ever after, for
  ``cube`` 0 centred, 1 its own, 2 its opponent's (no Jacoby rule, no beavers: with nine or
  more checkers off on each side no gammon is possible, so the Jacoby rule changes nothing).

Its equity with the cube is then ``max(ND, min(DT, 1))`` where it may double, ``DT = 2 x
no_double[2]`` (the double taken, the opponent owns the cube and it rolls at once) and ``1``
the double passed. Both are computed here by dynamic programming over the pairs in order
of their total pip count (every play lowers it), over the project's own legal-play
generator (:mod:`gammon.core._movegen`), so the rules exist once. The tables are built on
first use (a few seconds) and cached as a compressed ``.npz`` beside the one-sided
database (``$GAMMON_CACHE_DIR``), the format version in the file name.

>>> from gammon.core.position import Position
>>> last_roll = Position.from_points({6: 1}, {1: 1})  # 27 of 36 rolls bear our checker off
>>> round(win_probability(last_roll), 4)
0.75
>>> [round(x, 4) for x in money_cube(last_roll, "centred")]  # no double, double/take, pass
[0.5, 1.0, 1.0]
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import Final, Literal

import numba as nb
import numpy as np
import numpy.typing as npt

from gammon.core import _movegen
from gammon.core.position import Position
from gammon.engine import bearoff

VERSION: Final = 1
SIDE_CHECKERS: Final = 6
"""The most checkers a side may have left for its race to be in the database."""
SIDES: Final = comb(SIDE_CHECKERS + bearoff.POINTS, bearoff.POINTS)
"""One-sided positions of 0 to 6 checkers on the six home points: 924."""
CENTRED, MINE, THEIRS = 0, 1, 2
"""Cube states, seen from the side on roll."""
_SWAP: Final = np.array([CENTRED, THEIRS, MINE], dtype=np.int64)
"""The same cube seen by the other side."""
_FILE_NAME: Final = f"bearoff-twosided{SIDE_CHECKERS}-v{VERSION}.npz"
Cube = Literal["centred", "mine", "theirs"]
_STATES: Final[dict[str, int]] = {"centred": CENTRED, "mine": MINE, "theirs": THEIRS}

_jit = nb.njit(cache=True, nogil=True)


@lru_cache(maxsize=1)
def _sides() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The one-sided positions of at most six checkers by increasing pips: their
    :func:`bearoff.position_index`, their pips, and the map from that index to their
    place here (-1 for a position of more checkers)."""
    totals, all_pips = _checkers_and_pips(bearoff.POSITIONS)
    small = np.flatnonzero(totals <= SIDE_CHECKERS)
    index = small[np.argsort(all_pips[small], kind="stable")].astype(np.int64)
    pips = all_pips[index]
    place = np.full(bearoff.POSITIONS, -1, dtype=np.int64)
    place[index] = np.arange(len(index))
    return index, pips, place


@_jit
def _checkers_and_pips(positions: int) -> tuple[np.ndarray, np.ndarray]:
    """The checkers and the pip count of every one-sided position."""
    totals = np.empty(positions, dtype=np.int64)
    pips = np.empty(positions, dtype=np.int64)
    counts = np.empty(bearoff.POINTS, dtype=np.int64)
    for a in range(positions):
        totals[a] = bearoff._unrank(a, counts)
        pips[a] = 0
        for p in range(bearoff.POINTS):
            pips[a] += (p + 1) * counts[p]
    return totals, pips


@_jit
def _successors(index: np.ndarray, place: np.ndarray, dice_table: np.ndarray,
                dice_count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``succ[a, r, :n[a, r]]``: the one-sided positions (places) roll ``r`` can leave
    of position ``a``, by the core's generator (each distinct resulting position once)."""
    sides = index.shape[0]
    width = 64
    succ = np.full((sides, dice_table.shape[0], width), -1, dtype=np.int64)
    count = np.zeros((sides, dice_table.shape[0]), dtype=np.int64)
    boards, moves, keys, table, state, line = _movegen.new_scratch()
    board = np.zeros(26, dtype=np.int8)
    counts = np.empty(bearoff.POINTS, dtype=np.int64)
    for a in range(sides):
        bearoff._unrank(index[a], counts)
        for p in range(bearoff.POINTS):
            board[1 + p] = counts[p]
        for r in range(dice_table.shape[0]):
            n = _movegen.generate(board, dice_table[r, :dice_count[r]], boards, moves, keys,
                                  table, state, line)
            for j in range(n):
                s = place[bearoff.side_index(boards[j], 0)]
                seen = False
                for k in range(count[a, r]):
                    seen = seen or succ[a, r, k] == s
                if not seen:
                    succ[a, r, count[a, r]] = s
                    count[a, r] += 1
    return succ, count


@_jit
def _solve(order: np.ndarray, succ: np.ndarray, count: np.ndarray, weights: np.ndarray,
           swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``win[a, b]`` and ``no_double[cube, a, b]`` for the side on roll with ``a`` against
    ``b``, the pairs visited in ``order`` (increasing total pips: each play's successor
    pair comes earlier). Place 0 is the empty position: a side that reaches it has won."""
    sides = succ.shape[0]
    win = np.zeros((sides, sides), dtype=np.float64)
    nd = np.zeros((3, sides, sides), dtype=np.float64)
    equity = np.zeros((3, sides, sides), dtype=np.float64)
    best_eq = np.empty(3, dtype=np.float64)
    values = np.empty(3, dtype=np.float64)
    for pair in order:
        a, b = pair // sides, pair % sides
        if a == 0 or b == 0:
            continue  # the game is over: nobody is on roll
        w = 0.0
        values[:] = 0.0
        for r in range(weights.shape[0]):
            best = 0.0
            best_eq[:] = -np.inf
            for k in range(count[a, r]):
                s = succ[a, r, k]
                if s == 0:
                    best = 1.0
                    best_eq[:] = 1.0
                    break
                best = max(best, 1.0 - win[b, s])
                for cube in range(3):
                    best_eq[cube] = max(best_eq[cube], -equity[swap[cube], b, s])
            w += weights[r] * best
            for cube in range(3):
                values[cube] += weights[r] * best_eq[cube]
        win[a, b] = w
        double = min(2.0 * values[THEIRS], 1.0)
        for cube in range(3):
            nd[cube, a, b] = values[cube]
            equity[cube, a, b] = values[cube] if cube == THEIRS else max(values[cube], double)
    return win, nd


@dataclass(frozen=True, slots=True, eq=False)
class TwoSidedDatabase:
    """The tables (see the module doc), indexed by the places of :func:`_sides`."""

    win: npt.NDArray[np.float32]
    no_double: npt.NDArray[np.float32]
    place: npt.NDArray[np.int64]

    @classmethod
    def compute(cls) -> TwoSidedDatabase:
        index, pips, place = _sides()
        succ, count = _successors(index, place, bearoff._ROLL_DICE, bearoff._ROLL_COUNT)
        totals = (pips[:, None] + pips[None, :]).ravel()
        order = np.argsort(totals, kind="stable").astype(np.int64)
        win, nd = _solve(order, succ, count, bearoff._ROLL_WEIGHT, _SWAP)
        return cls._wrap(win.astype(np.float32), nd.astype(np.float32), place)

    @classmethod
    def _wrap(cls, win: npt.NDArray[np.float32], nd: npt.NDArray[np.float32],
              place: npt.NDArray[np.int64]) -> TwoSidedDatabase:
        if win.shape != (SIDES, SIDES) or nd.shape != (3, SIDES, SIDES):
            raise ValueError("two-sided bear-off tables of the wrong shape")
        for array in (win, nd, place):
            array.flags.writeable = False
        return cls(win, nd, place)

    @classmethod
    def load(cls, cache_dir: str | os.PathLike[str] | None = None) -> TwoSidedDatabase:
        """The database, once per process: read from the cache, or built and written."""
        return _CACHE.load(bearoff.cache_path(cache_dir).with_name(_FILE_NAME), cls.compute)


def _read(path: Path) -> TwoSidedDatabase | None:
    try:
        with np.load(path) as data:
            return TwoSidedDatabase._wrap(data["win"], data["no_double"], _sides()[2])
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None


def _write(path: Path, database: TwoSidedDatabase) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as tmp:
        np.savez_compressed(tmp, win=database.win, no_double=database.no_double)
    os.replace(tmp.name, path)


_CACHE = bearoff.TableCache(_read, _write)


def _places(position: Position) -> tuple[int, int] | None:
    """The places of both sides' home boards, or None when the position is not in the
    database (contact, a checker outside its home board, more than six a side). Reads no
    table: a position outside the database never loads it."""
    board = np.asarray(position.board, dtype=np.int8)
    if not bearoff.is_bearoff_board(board):
        return None
    place = _sides()[2]
    a, b = int(place[bearoff.side_index(board, 0)]), int(place[bearoff.side_index(board, 1)])
    if a <= 0 or b <= 0:  # more than six (or none: the game is over)
        return None
    return a, b


@dataclass(frozen=True, slots=True)
class Entry:
    """What the database holds for a position: the side on roll's winning chance and its
    no-double equities by cube state (see the module doc)."""

    win: float
    no_double: tuple[float, float, float]

    def money_cube(self, cube: Cube) -> tuple[float, float, float]:
        """No double, double/take, double/pass, normalised to the cube (``cube``: who owns
        it, as the side on roll sees it; the double equities are what a double would be
        worth were it allowed)."""
        return self.no_double[_STATES[cube]], 2.0 * self.no_double[THEIRS], 1.0


def lookup(position: Position) -> Entry | None:
    """The database's entry for ``position``, or None when it is not a race of six
    checkers or fewer a side in the home boards."""
    places = _places(position)
    if places is None:
        return None
    database = TwoSidedDatabase.load()
    nd = database.no_double[:, places[0], places[1]]
    return Entry(float(database.win[places]), (float(nd[0]), float(nd[1]), float(nd[2])))


def in_database(position: Position) -> bool:
    """Whether ``position`` is a race of both sides' home boards, six checkers or fewer
    each."""
    return _places(position) is not None


def _entry(position: Position) -> Entry:
    entry = lookup(position)
    if entry is None:
        raise bearoff.NotBearoffError(f"{position.id()} is not a race of six checkers or "
                                      f"fewer a side in the home boards")
    return entry


def win_probability(position: Position) -> float:
    """The side on roll's exact chance of winning the race, before it rolls."""
    return _entry(position).win


def money_cube(position: Position, cube: Cube) -> tuple[float, float, float]:
    """The side on roll's exact money equities (:meth:`Entry.money_cube`)."""
    return _entry(position).money_cube(cube)
