"""The cubeful value of cubeless chances, compiled: Janowski's interpolation between the dead
and the live cube, for money and at a match score (:mod:`gammon.engine.cube` explains the
method and holds the decisions built on it; the arithmetic lives here once).

Compiled with numba because checker play at the score values every play of a roll this way:
in Python it cost some 100 µs a play, twenty times the network's evaluation.

Chances come as *outcomes*: the seven numbers ``win, win_single, win_gammon (not
backgammon), win_backgammon, lose_single, lose_gammon (not backgammon), lose_backgammon``.
A match score comes as a table of match winning chances after each result the cube can
produce (:func:`after_table`), from both sides' views, so that the kernels never meet the
match equity table's Python objects.
"""

from __future__ import annotations

from functools import lru_cache

import numba as nb
import numpy as np

from gammon.core.cube import MAX_CUBE
from gammon.engine.met import MatchScore

_jit = nb.njit(cache=True, nogil=True)

EPSILON = 1e-7
LEVELS = 8
"""Cube levels in an :func:`after_table`: 1 to 128 (a 64-cube taken and its gammons)."""
_MAX_LEVEL = MAX_CUBE.bit_length() - 1  # 64 is level 6


@lru_cache(maxsize=4096)
def after_table(score: MatchScore) -> np.ndarray:
    """``table[side, level, m - 1, won]``: the match winning chance of ``side`` (0: the
    score's "me", 1: the opponent) once a game is over and that side has won (``won`` 1)
    or lost (0) ``m`` times ``2 ** level`` points."""
    table = np.empty((2, LEVELS, 3, 2), dtype=np.float64)
    for side, view in enumerate((score, score.swap())):
        for level in range(LEVELS):
            for m in (1, 2, 3):
                points = m << level
                table[side, level, m - 1, 0] = view.after(points, i_win=False)
                table[side, level, m - 1, 1] = view.after(points, i_win=True)
    table.setflags(write=False)
    return table


@_jit
def outcomes_of(p: np.ndarray, out: np.ndarray) -> None:
    """The outcomes of cubeless chances ``p`` (win, win gammon, win backgammon, lose
    gammon, lose backgammon; each unconditional), each held inside what the others allow."""
    win = min(1.0, max(0.0, p[0]))
    wg = min(win, max(0.0, p[1]))
    wbg = min(wg, max(0.0, p[2]))
    lg = min(1.0 - win, max(0.0, p[3]))
    lbg = min(lg, max(0.0, p[4]))
    out[0] = win
    out[1] = win - wg
    out[2] = wg - wbg
    out[3] = wbg
    out[4] = 1.0 - win - lg
    out[5] = lg - lbg
    out[6] = lbg


@_jit
def invert_outcomes(o: np.ndarray, out: np.ndarray) -> None:
    """The same outcomes seen from the other side."""
    out[0] = 1.0 - o[0]
    out[1] = o[4]
    out[2] = o[5]
    out[3] = o[6]
    out[4] = o[1]
    out[5] = o[2]
    out[6] = o[3]


@_jit
def money_value(o: np.ndarray, jacoby: bool, mine: bool, theirs: bool, x: float) -> float:
    """Cubeful money equity of the side on roll in units of the present cube: ``jacoby``
    when gammons count single (the Jacoby rule, cube centred), ``mine``/``theirs`` whether
    each side may double."""
    gammon_factor = 0.0 if jacoby else 1.0
    dead: float = (o[1] - o[4] + (1.0 + gammon_factor) * (o[2] - o[5])
            + (1.0 + 2.0 * gammon_factor) * (o[3] - o[6]))
    p: float = o[0]
    if not (mine or theirs) or p <= EPSILON or p >= 1.0 - EPSILON:
        return dead
    w = (o[1] + 2.0 * o[2] + 3.0 * o[3]) / p
    lose = (o[4] + 2.0 * o[5] + 3.0 * o[6]) / (1.0 - p)
    take_point = (lose - 0.5) / (w + lose + 0.5)
    cash_point = (lose + 1.0) / (w + lose + 0.5)
    live: float
    if mine and theirs:
        if p < take_point:
            live = -1.0 if jacoby else -lose + (lose - 1.0) * p / take_point
        elif p < cash_point:
            live = -1.0 + 2.0 * (p - take_point) / (cash_point - take_point)
        else:
            live = 1.0 if jacoby else 1.0 + (w - 1.0) * (p - cash_point) / (1.0 - cash_point)
    elif mine:
        if p < cash_point:
            live = -lose + (1.0 + lose) * p / cash_point
        else:
            live = 1.0 + (w - 1.0) * (p - cash_point) / (1.0 - cash_point)
    elif p < take_point:
        live = -lose + (lose - 1.0) * p / take_point
    else:
        live = -1.0 + (w + 1.0) * (p - take_point) / (1.0 - take_point)
    return x * live + (1.0 - x) * dead


@_jit
def _weighted(table: np.ndarray, side: int, level: int, won: int, gammon: float,
              backgammon: float) -> float:
    """MWC of ``side`` winning (or losing) at ``2 ** level``, gammons and backgammons
    weighted by their shares."""
    value: float = ((1.0 - gammon - backgammon) * table[side, level, 0, won]
                    + gammon * table[side, level, 1, won]
                    + backgammon * table[side, level, 2, won])
    return value


@_jit
def _clamp(point: float) -> float:
    return min(1.0, max(EPSILON, point))


@_jit
def cash_point(table: np.ndarray, aways: np.ndarray, side: int, level: int,
               win_g: float, win_bg: float, lose_g: float, lose_bg: float) -> float:
    """Live-cube cash point of ``side`` doubling from ``2 ** level``: the winning chance at
    which the taker is indifferent between taking and passing. ``win_*``/``lose_*`` are
    the gammon and backgammon shares of the doubler's wins and losses; ``aways`` the points
    each side needs.

    Each level's cash point comes from the taker's at the next cube level up, until the
    taker's cube is dead (his single win at the doubled cube wins the match, or the cube
    would pass 64): the recursion is walked up, then back down."""
    factors = np.empty(LEVELS, dtype=np.float64)
    depth = 0
    value = 1.0
    while True:
        double_pass = table[side, level, 0, 1]
        doubled = level + 1
        double_take_win = _weighted(table, side, doubled, 1, win_g, win_bg)
        if aways[1 - side] <= (1 << doubled) or doubled + 1 > _MAX_LEVEL:
            double_take_lose = _weighted(table, side, doubled, 0, lose_g, lose_bg)
            if double_take_lose != double_take_win:
                value = _clamp((double_take_lose - double_pass)
                               / (double_take_lose - double_take_win))
            break
        redouble_pass = table[side, doubled, 0, 0]
        if redouble_pass == double_take_win:
            break
        factors[depth] = (double_pass - double_take_win) / (redouble_pass - double_take_win)
        depth += 1
        side = 1 - side
        level = doubled
        win_g, win_bg, lose_g, lose_bg = lose_g, lose_bg, win_g, win_bg
    for k in range(depth - 1, -1, -1):
        value = _clamp(1.0 - value * factors[k])
    return value


@_jit
def match_value(o: np.ndarray, table: np.ndarray, aways: np.ndarray, level: int, mine: bool,
                theirs: bool, x: float) -> float:
    """Cubeful match winning chance of the side on roll (side 0 of ``table``) with the cube
    at ``2 ** level``; ``mine``/``theirs``: whether each side can use the cube (may double
    and its cube is not dead)."""
    dead: float = (o[1] * table[0, level, 0, 1] + o[2] * table[0, level, 1, 1]
            + o[3] * table[0, level, 2, 1] + o[4] * table[0, level, 0, 0]
            + o[5] * table[0, level, 1, 0] + o[6] * table[0, level, 2, 0])
    p: float = o[0]
    if not (mine or theirs) or p <= EPSILON or p >= 1.0 - EPSILON:
        return dead
    if aways[0] == 2 and aways[1] == 2:
        # the first double makes it double match point: holding the cube has no live value
        return dead
    win_g, win_bg = (o[2] / p, o[3] / p) if p > 0 else (0.0, 0.0)
    q = 1.0 - p
    lose_g, lose_bg = (o[5] / q, o[6] / q) if q > 0 else (0.0, 0.0)
    cash = table[0, level, 0, 1]
    opp_cash = table[0, level, 0, 0]
    win = _weighted(table, 0, level, 1, win_g, win_bg)
    lose = _weighted(table, 0, level, 0, lose_g, lose_bg)
    live: float
    my_cash_point = 1.0
    opp_too_good = 0.0
    if mine:
        my_cash_point = cash_point(table, aways, 0, level, win_g, win_bg, lose_g, lose_bg)
    if theirs:
        opp_too_good = 1.0 - cash_point(table, aways, 1, level, lose_g, lose_bg, win_g, win_bg)
    if mine and theirs:
        if p <= opp_too_good:
            live = lose + (opp_cash - lose) * p / opp_too_good
        elif p < my_cash_point:
            live = opp_cash + (cash - opp_cash) * (p - opp_too_good) / (my_cash_point
                                                                         - opp_too_good)
        elif my_cash_point < 1.0:
            live = cash + (win - cash) * (p - my_cash_point) / (1.0 - my_cash_point)
        else:
            live = win
    elif mine:
        if p < my_cash_point:
            live = lose + (cash - lose) * p / my_cash_point
        elif my_cash_point < 1.0:
            live = cash + (win - cash) * (p - my_cash_point) / (1.0 - my_cash_point)
        else:
            live = win
    elif p <= opp_too_good:
        live = lose + (opp_cash - lose) * p / opp_too_good
    else:
        live = opp_cash + (win - opp_cash) * (p - opp_too_good) / (1.0 - opp_too_good)
    return x * live + (1.0 - x) * dead


@_jit
def play_values(probs: np.ndarray, x: np.ndarray, money: bool, jacoby: bool, mine: bool,
                theirs: bool, table: np.ndarray, aways: np.ndarray, level: int,
                win: float, lose: float, out: np.ndarray) -> None:
    """The cubeful value of each play for the side that made it (``probs[i]``: its cubeless
    chances after play ``i``; ``x[i]``: the cube efficiency there), the opponent on roll.
    The cube arguments are the *opponent's* view (it is on roll): ``money`` with
    ``jacoby``, or the match ``table``/``aways``/``level``; ``mine``/``theirs`` whether the
    opponent / the mover can use the cube. Match values come out normalised to the cube
    for the mover, through its ``win``/``lose`` match winning chances at the cube."""
    mover = np.empty(7, dtype=np.float64)
    theirs_o = np.empty(7, dtype=np.float64)
    for i in range(probs.shape[0]):
        outcomes_of(probs[i], mover)
        invert_outcomes(mover, theirs_o)
        if money:
            out[i] = -money_value(theirs_o, jacoby, mine, theirs, x[i])
        else:
            mwc = 1.0 - match_value(theirs_o, table, aways, level, mine, theirs, x[i])
            out[i] = 2.0 * (mwc - lose) / (win - lose) - 1.0


@_jit
def board_efficiencies(boards: np.ndarray, count: int, contact: float, race_base: float,
                       race_per_pip: float, race_min: float, race_max: float, bearoff: float,
                       out: np.ndarray) -> None:
    """The cube efficiency of the position each play leaves (``boards[i]``: the mover's view
    after play ``i``, ``Position.array()``'s layout; the opponent on roll there), by its
    class as :meth:`gammon.engine.cube.CubeEfficiency.of` sorts them (``contact`` for every
    contact position)."""
    for i in range(count):
        b = boards[i]
        my_back = 0
        their_back = 26
        pips = 0
        mover_home = True
        opponent_home = True
        for point in range(26):
            c = b[point]
            if c > 0:
                my_back = point
                if point >= 7:
                    mover_home = False
            elif c < 0:
                if point < their_back:
                    their_back = point
                pips += -c * (25 - point)
                if point < 19:
                    opponent_home = False
        if my_back >= their_back:
            out[i] = contact
        elif mover_home and opponent_home:
            out[i] = bearoff
        else:
            out[i] = min(race_max, max(race_min, race_base + race_per_pip * pips))
