"""Neural-net inputs for a position, seen from the side on roll (compiled with numba).

For each side, from that side's own view (the opponent's point ``p`` is our ``25 - p``):

* per point 1..24, four units in Tesauro's style with a separate blot unit:
  ``n == 1``, ``n == 2``, ``n >= 3``, ``(n - 3) / 2`` above three — 96 inputs;
* the bar (``n / 2``) and the checkers borne off (``n / 15``);
* hand-made features in the manner of GNU Backgammon's: pip count, blots, points made in
  the home board, the longest prime, checkers back in the opponent's home board, how many
  of the six points in front of the rearmost checker the opponent holds, and the share
  of the 36 rolls that hit one of this side's blots (direct or with both dice).

The side on roll's inputs come first, then the opponent's: ``INPUTS`` in all.
"""

from __future__ import annotations

import numba as nb
import numpy as np

POINT_UNITS = 4
HAND_FEATURES = 7
SIDE_INPUTS = 24 * POINT_UNITS + 2 + HAND_FEATURES
INPUTS = 2 * SIDE_INPUTS

_jit = nb.njit(cache=True, nogil=True)


@_jit
def _side_counts(board: np.ndarray, side: int, counts: np.ndarray) -> None:
    """``counts[0..25]``: side's checkers on its own points 1..24, bar at 25, [0] unused."""
    counts[0] = 0
    if side == 0:
        for p in range(1, 26):
            counts[p] = board[p] if board[p] > 0 else 0
    else:
        for p in range(1, 25):
            v = board[25 - p]
            counts[p] = -v if v < 0 else 0
        counts[25] = -board[0]


@_jit
def _both_sides(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The :func:`_side_counts` of the side on roll, then of its opponent."""
    mine = np.empty(26, dtype=np.int64)
    theirs = np.empty(26, dtype=np.int64)
    _side_counts(board, 0, mine)
    _side_counts(board, 1, theirs)
    return mine, theirs


@_jit
def _encode_points(counts: np.ndarray, out: np.ndarray, offset: int) -> None:
    """The four units of each of the side's points 1..24 (see the module doc), from
    ``offset``."""
    for p in range(1, 25):
        n = counts[p]
        base = offset + (p - 1) * POINT_UNITS
        out[base] = 1.0 if n == 1 else 0.0
        out[base + 1] = 1.0 if n == 2 else 0.0
        out[base + 2] = 1.0 if n >= 3 else 0.0
        out[base + 3] = (n - 3) / 2.0 if n > 3 else 0.0


@_jit
def _rearmost(counts: np.ndarray) -> int:
    """The side's rearmost point holding a checker (25: the bar), 0 when none is left."""
    for p in range(25, 0, -1):
        if counts[p] > 0:
            return p
    return 0


@_jit
def _shot_fraction(mine: np.ndarray, theirs: np.ndarray) -> float:
    """Share of the 36 rolls with which the opponent can hit one of our blots.

    ``theirs`` is in the opponent's own numbering; their checker on their point q sits on
    our point 25 - q and hits a blot on our point b by moving ``q - (25 - b)`` pips.
    A rough count, as a feature should be cheap: combination shots ignore whether the
    intermediate points are blocked, and checkers on the bar are treated like any other.
    """
    distances = np.zeros(25, dtype=np.bool_)
    anyblot = False
    for b in range(1, 25):
        if mine[b] != 1:
            continue
        anyblot = True
        for q in range(1, 26):
            if theirs[q] == 0:
                continue
            d = q - (25 - b)
            if 1 <= d <= 24:
                distances[d] = True
    if not anyblot:
        return 0.0
    hits = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            direct = distances[d1] or distances[d2]
            combined = distances[d1 + d2] or (
                d1 == d2 and (distances[3 * d1] or (4 * d1 <= 24 and distances[4 * d1]))
            )
            if direct or combined:
                hits += 1
    return hits / 36.0


@_jit
def _encode_side(mine: np.ndarray, theirs: np.ndarray, out: np.ndarray, offset: int) -> None:
    _encode_points(mine, out, offset)
    on_board = 0
    pips = 0
    blots = 0
    for p in range(1, 25):
        n = mine[p]
        on_board += n
        pips += n * p
        if n == 1:
            blots += 1
    bar = mine[25]
    on_board += bar
    pips += 25 * bar
    base = offset + 24 * POINT_UNITS
    out[base] = bar / 2.0
    out[base + 1] = (15 - on_board) / 15.0

    home_points = 0
    for p in range(1, 7):
        if mine[p] >= 2:
            home_points += 1
    prime = 0
    run = 0
    for p in range(1, 25):
        if mine[p] >= 2:
            run += 1
            if run > prime:
                prime = run
        else:
            run = 0
    back = bar
    for p in range(19, 25):
        back += mine[p]
    rear = _rearmost(mine)
    blocked = 0
    for p in range(rear - 1, max(rear - 7, 0), -1):
        # our point p is the opponent's point 25 - p
        if theirs[25 - p] >= 2:
            blocked += 1

    h = base + 2
    out[h] = pips / 100.0
    out[h + 1] = blots / 5.0
    out[h + 2] = home_points / 6.0
    out[h + 3] = prime / 6.0
    out[h + 4] = back / 5.0
    out[h + 5] = blocked / 6.0
    out[h + 6] = _shot_fraction(mine, theirs)


@_jit
def encode(board: np.ndarray, out: np.ndarray) -> None:
    """Write the ``INPUTS`` inputs of ``board`` (side on roll first) into ``out``."""
    mine, theirs = _both_sides(board)
    _encode_side(mine, theirs, out, 0)
    _encode_side(theirs, mine, out, SIDE_INPUTS)


@_jit
def encode_batch(boards: np.ndarray) -> np.ndarray:
    """Inputs for every row of an ``int8[N, 26]`` array of boards."""
    n = boards.shape[0]
    out = np.empty((n, INPUTS), dtype=np.float32)
    for i in range(n):
        encode(boards[i], out[i])
    return out


@_jit
def is_race(board: np.ndarray) -> bool:
    """No contact: the side on roll's rearmost checker is past the opponent's rearmost."""
    mine_back = _rearmost(board)
    theirs_back = 26
    for p in range(0, 25):
        if board[p] < 0:
            theirs_back = p
            break
    return mine_back < theirs_back
