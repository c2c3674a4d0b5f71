"""N-ply search with move filters, and truncated rollouts (numba).

Plies are counted as GNU Backgammon counts them. A candidate play is judged by the
position it leaves, with the opponent on roll:

* 0-ply: the network's evaluation of that position;
* 1-ply: the average, over the opponent's 21 rolls, of the position after the opponent's
  best reply (chosen at 0-ply);
* 2-ply: the same, one roll deeper: after each reply, the average over our 21 rolls of our
  best play (chosen at 0-ply).

The best replies inside the search are chosen at 0-ply among the few plays that the
networks' pruning network rates best, when they have one
(:func:`gammon.engine.evaluate.choose_play_pruned`), by cubeless money equity or, at a
match score, by each side's own weights of the five outcomes (the ``*_weighted``
functions: a gammon counts for what the score makes it worth to the side choosing).

At the root a *move filter* keeps the few best candidates of each shallower ply before the
next, more expensive, ply looks at them: ``keep[n]`` candidates at most, and only those
within ``margin[n]`` of the best equity at ply ``n``.

Each depth has its own move-generator buffers (``levels``), since generating the replies
of a position must not overwrite the candidates still being examined above it. A search
meets many positions more than once (a quarter of them at 2-ply): its scratch buffers carry
a cache of evaluations (:func:`gammon.engine.evaluate.new_scratch`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gammon.core import _movegen
from gammon.engine.evaluate import (
    MONEY_WEIGHTS,
    KernelArrays,
    choose_play_pruned,
    choose_play_weighted,
    evaluate_after,
    evaluate_position,
    judge_plays,
    lost_result,
    new_scratch,
    play_score,
    swap_board,
    terminal_result,
)
from gammon.engine.network import OUTPUTS, Arrays, equity, invert, make_consistent
from gammon.engine.playout import MAX_PLIES, end_turn, roll_plays

_jit = nb.njit(cache=True, nogil=True)
MAX_PLY = 2

# The 21 distinct rolls and their weights out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS], dtype=np.float64) / 36.0


def new_levels() -> list[Arrays]:
    """Move-generator buffers for the root and each ply below it."""
    return [_movegen.new_scratch() for _ in range(MAX_PLY + 1)]


@_jit
def _generate(board: np.ndarray, d1: int, d2: int, level: Arrays) -> int:
    dice = _movegen.roll_dice(d1, d2)
    return _movegen.generate(board, dice, level[0], level[1], level[2], level[3], level[4],
                             level[5])


@_jit
def _one_ply(board: np.ndarray, mine: np.ndarray, nets: KernelArrays, scratch: Arrays,
             level: Arrays, out: np.ndarray) -> None:
    """Side on roll's probabilities: the average over its 21 rolls of its best play, chosen
    by :func:`play_score` with ``mine``, its weights."""
    best_probs = np.empty(OUTPUTS, dtype=np.float64)
    for k in range(OUTPUTS):
        out[k] = 0.0
    for r in range(ROLLS.shape[0]):
        count = _generate(board, ROLLS[r, 0], ROLLS[r, 1], level)
        choose_play_pruned(level[0], count, nets, scratch, best_probs, mine)
        for k in range(OUTPUTS):
            out[k] += ROLL_WEIGHTS[r] * best_probs[k]


@_jit
def _two_ply(board: np.ndarray, mine: np.ndarray, theirs: np.ndarray, nets: KernelArrays,
             scratch: Arrays, level1: Arrays, level2: Arrays, out: np.ndarray) -> None:
    """As :func:`_one_ply`, but each best play (chosen at 0-ply) is then valued at 1-ply,
    where the other side chooses by ``theirs``."""
    best_probs = np.empty(OUTPUTS, dtype=np.float64)
    deeper = np.empty(OUTPUTS, dtype=np.float64)
    swapped = np.empty(26, dtype=np.int8)
    for k in range(OUTPUTS):
        out[k] = 0.0
    for r in range(ROLLS.shape[0]):
        count = _generate(board, ROLLS[r, 0], ROLLS[r, 1], level1)
        best = choose_play_pruned(level1[0], count, nets, scratch, best_probs, mine)
        after = level1[0][best]
        if not terminal_result(after, best_probs):
            swap_board(after, swapped)
            _one_ply(swapped, theirs, nets, scratch, level2, deeper)
            invert(deeper, best_probs)
        for k in range(OUTPUTS):
            out[k] += ROLL_WEIGHTS[r] * best_probs[k]


@_jit
def position_value(board: np.ndarray, plies: int, nets: KernelArrays, scratch: Arrays,
                   level1: Arrays, level2: Arrays, out: np.ndarray) -> None:
    """Probabilities for the side on roll of ``board`` (before it rolls) at ``plies``
    (0, 1 or 2), every play inside chosen by cubeless money equity."""
    position_value_weighted(board, plies, MONEY_WEIGHTS, MONEY_WEIGHTS, nets, scratch, level1,
                            level2, out)


@_jit
def position_value_weighted(board: np.ndarray, plies: int, mine: np.ndarray,
                            theirs: np.ndarray, nets: KernelArrays, scratch: Arrays,
                            level1: Arrays, level2: Arrays, out: np.ndarray) -> None:
    """:func:`position_value` with the plays inside chosen at a score: by the side on
    roll's weights ``mine`` and its opponent's ``theirs`` (:func:`play_score`). Written
    without recursion: numba cannot cache recursive functions."""
    if plies <= 0 or lost_result(board, out):
        evaluate_position(board, nets, scratch, out)
        return
    if plies == 1:
        _one_ply(board, mine, nets, scratch, level1, out)
    else:
        _two_ply(board, mine, theirs, nets, scratch, level1, level2, out)
    make_consistent(out)  # sums of 21 weighted rolls can stray by rounding


@_jit
def play_value(after: np.ndarray, plies: int, nets: KernelArrays, scratch: Arrays, level1: Arrays,
               level2: Arrays, out: np.ndarray) -> None:
    """Probabilities for the side that just moved, from the board after its play."""
    play_value_weighted(after, plies, MONEY_WEIGHTS, MONEY_WEIGHTS, nets, scratch, level1,
                        level2, out)


@_jit
def play_value_weighted(after: np.ndarray, plies: int, mover: np.ndarray, opponent: np.ndarray,
                        nets: KernelArrays, scratch: Arrays, level1: Arrays, level2: Arrays,
                        out: np.ndarray) -> None:
    """:func:`play_value` with the plays inside chosen by the mover's weights ``mover`` and
    the opponent's ``opponent``."""
    if plies == 0 or terminal_result(after, out):
        evaluate_after(after, nets, scratch, out)
        return
    swapped = np.empty(26, dtype=np.int8)
    theirs = np.empty(OUTPUTS, dtype=np.float64)
    swap_board(after, swapped)
    position_value_weighted(swapped, plies, opponent, mover, nets, scratch, level1, level2,
                            theirs)
    invert(theirs, out)


@_jit
def rank_plays(boards: np.ndarray, count: int, plies: int, keep: np.ndarray,
               margin: np.ndarray, nets: KernelArrays, scratch: Arrays, level1: Arrays,
               level2: Arrays, probs: np.ndarray, depth: np.ndarray) -> None:
    """Evaluate ``boards[:count]`` (candidate plays) with the move filter.

    Every candidate gets a 0-ply evaluation; survivors of the filter at ply n are
    evaluated at ply n + 1, up to ``plies``; a 0-ply ranking ends with the judge's word on
    its best few (:func:`~gammon.engine.evaluate.judge_plays`, when ``nets`` has a judge).
    ``probs[i]`` holds candidate i's deepest evaluation and ``depth[i]`` the ply it
    reached. ``scratch`` is best made once for many searches with ``nets``, with an
    evaluation cache (``new_scratch(SEARCH_CACHE_ENTRIES)``): a 2-ply search meets a
    quarter of its positions more than once. The filter compares
    cubeless money equities (:func:`rank_plays_weighted` with :data:`MONEY_WEIGHTS`).
    """
    rank_plays_weighted(boards, count, plies, keep, margin, MONEY_WEIGHTS, MONEY_WEIGHTS, nets,
                        scratch, level1, level2, probs, depth)


@_jit
def rank_plays_weighted(boards: np.ndarray, count: int, plies: int, keep: np.ndarray,
                        margin: np.ndarray, weights: np.ndarray, opponent: np.ndarray,
                        nets: KernelArrays, scratch: Arrays, level1: Arrays, level2: Arrays,
                        probs: np.ndarray, depth: np.ndarray) -> None:
    """:func:`rank_plays` at a match score: the move filter compares the mover's
    :func:`play_score` with ``weights`` (the cubeless value of the plays at the score,
    gammons priced as the score prices them: :func:`gammon.engine.cube.filter_weights`),
    and inside the search each side chooses its plays by its own weights (``opponent``:
    the opponent's). Empty weights compare money equity."""
    alive = np.ones(count, dtype=np.bool_)
    for i in range(count):
        play_value(boards[i], 0, nets, scratch, level1, level2, probs[i])
        depth[i] = 0
    if plies == 0:
        judge_plays(boards, count, nets, scratch, probs, weights)
    for ply in range(1, plies + 1):
        # filter on the ply just done
        equities = np.full(count, -1e9)
        for i in range(count):
            if alive[i]:
                equities[i] = play_score(probs[i], weights)
        order = np.argsort(-equities)
        best = equities[order[0]]
        kept = 0
        for rank in range(count):
            i = order[rank]
            if alive[i] and kept < keep[ply - 1] and equities[i] >= best - margin[ply - 1]:
                kept += 1
            else:
                alive[i] = False
        if kept <= 1 and ply > 1:
            break  # a single survivor needs no deeper look
        for i in range(count):
            if alive[i]:
                play_value_weighted(boards[i], ply, weights, opponent, nets, scratch, level1,
                                    level2, probs[i])
                depth[i] = ply


@_jit
def best_ranked(probs: np.ndarray, depth: np.ndarray, count: int) -> int:
    """The best candidate after :func:`rank_plays`: deepest ply first, then equity."""
    best = 0
    for i in range(1, count):
        if depth[i] > depth[best] or (depth[i] == depth[best]
                                      and equity(probs[i]) > equity(probs[best])):
            best = i
    return best


@_jit
def rollout(board: np.ndarray, games: int, truncate: int, seed: int, nets: KernelArrays,
            level: Arrays, pruned: bool = False) -> np.ndarray:
    """Truncated rollout of ``board`` (side on roll, before rolling), 0-ply play.

    Each game is played for ``truncate`` plies (0: to the end) and then scored by the
    network. Game ``g`` draws its dice from ``seed * 1_000_003 + g``. Returns
    ``float64[games, 5]``, each row the side on roll's result or estimate. ``pruned``
    chooses the plays as the search's inner plies do (:func:`choose_play_pruned`: the
    pruning network's best few get the full evaluation), about 2.4 times faster.
    """
    return rollout_weighted(board, games, truncate, seed, nets, level, pruned, MONEY_WEIGHTS,
                            MONEY_WEIGHTS)


@_jit
def rollout_weighted(board: np.ndarray, games: int, truncate: int, seed: int,
                     nets: KernelArrays, level: Arrays, pruned: bool, mine: np.ndarray,
                     theirs: np.ndarray) -> np.ndarray:
    """:func:`rollout` at a score: the side on roll of ``board`` chooses its plays by its
    weights ``mine`` (:func:`play_score`), the other side by ``theirs``."""
    scratch = new_scratch()
    probs = np.empty(OUTPUTS, dtype=np.float64)
    result = np.empty(OUTPUTS, dtype=np.float64)
    out = np.empty((games, OUTPUTS), dtype=np.float64)
    current = np.empty(26, dtype=np.int8)
    limit = truncate if truncate > 0 else MAX_PLIES
    for g in range(games):
        np.random.seed(seed * 1_000_003 + g)
        current[:] = board
        side = 0  # 0 while the original side is on roll
        finished = False
        for _ in range(limit):
            count = roll_plays(current, False, level)
            weights = mine if side == 0 else theirs
            if pruned:
                best = choose_play_pruned(level[0], count, nets, scratch, probs, weights)
            else:
                best = choose_play_weighted(level[0], count, nets, scratch, probs, weights)
            if end_turn(level[0][best], current, result):
                finished = True
                break
            side = 1 - side
        if finished:
            # ``result`` is for the side that made the last play
            if side == 0:
                out[g] = result
            else:
                invert(result, out[g])
        else:
            evaluate_position(current, nets, scratch, probs)
            if side == 0:
                out[g] = probs
            else:
                invert(probs, out[g])
    return out

