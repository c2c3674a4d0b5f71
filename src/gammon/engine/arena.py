"""Games between players at full speed (numba): self-play and benchmarks.

A *player kind* is an int: ``NEURAL`` (the networks at 0-ply), ``NEURAL_1PLY`` and
``NEURAL_2PLY`` (the networks with search and the default move filter), ``PUBEVAL``
(Tesauro's evaluator) or ``RANDOM`` (a uniformly random legal play; it draws from the dice
stream, so games with it are not duplicates). Games are cubeless money games;
a game's dice come from ``np.random`` seeded with the game's seed, so the same seed gives
the same dice in the same order whoever plays — the basis of duplicate-dice matches.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gammon.core import _movegen
from gammon.engine import pubeval, search
from gammon.engine.evaluate import SEARCH_CACHE_ENTRIES, KernelArrays, choose_play, new_scratch
from gammon.engine.network import OUTPUTS, Arrays
from gammon.engine.playout import INITIAL, MAX_PLIES, end_turn, roll_plays

NEURAL, PUBEVAL, RANDOM, NEURAL_1PLY, NEURAL_2PLY = 0, 1, 2, 3, 4

_jit = nb.njit(cache=True, nogil=True)


@_jit
def _points(result: np.ndarray) -> int:
    """Points won by the side whose terminal result this is: 1, 2 or 3 (cubeless: the
    core's :func:`~gammon.core.cube.win_level`; ``tests/engine/test_kernel_rules.py``)."""
    if result[2] > 0.5:
        return 3
    if result[1] > 0.5:
        return 2
    return 1


@_jit
def play_game(kinds: np.ndarray, nets0: KernelArrays, nets1: KernelArrays, scratch0: Arrays,
              scratch1: Arrays, seed: int) -> int:
    """One game; ``kinds[0]`` (with networks ``nets0`` and evaluation buffers ``scratch0``)
    moves first. Returns player 0's points (negative if it lost)."""
    np.random.seed(seed)
    gen = _movegen.new_scratch()
    probs = np.empty(OUTPUTS, dtype=np.float64)
    result = np.empty(OUTPUTS, dtype=np.float64)
    board = INITIAL.copy()
    levels1 = _movegen.new_scratch()
    levels2 = _movegen.new_scratch()
    ranked = np.empty((_movegen.CAPACITY, OUTPUTS), dtype=np.float64)
    depth = np.empty(_movegen.CAPACITY, dtype=np.int64)
    keep = np.array([8, 2], dtype=np.int64)
    margin = np.array([0.16, 0.04], dtype=np.float64)
    turn = 0
    for ply in range(MAX_PLIES):
        count = roll_plays(board, ply == 0, gen)
        kind = kinds[turn]
        if kind == NEURAL:
            best = choose_play(gen[0], count, nets0 if turn == 0 else nets1, scratch0, probs)
        elif kind >= NEURAL_1PLY:
            search.rank_plays(gen[0], count, kind - NEURAL_1PLY + 1, keep, margin,
                              nets0 if turn == 0 else nets1, scratch0 if turn == 0 else scratch1,
                              levels1, levels2, ranked, depth)
            best = search.best_ranked(ranked, depth, count)
        elif kind == PUBEVAL:
            best = pubeval.choose(board, gen[0], count)
        else:
            best = np.random.randint(0, count)
        if end_turn(gen[0][best], board, result):
            points = _points(result)
            return points if turn == 0 else -points
        turn = 1 - turn
    return 0


@_jit
def duplicate_match(kind: int, opponent: int, nets: KernelArrays, opponent_nets: KernelArrays,
                    pairs: int, seed: int) -> np.ndarray:
    """``pairs`` pairs of games with duplicate dice: each seed played from both seats.

    Returns ``float64[pairs, 2]``: the first player's points in the game where it moved
    first and in the game where the opponent moved first.
    """
    out = np.empty((pairs, 2), dtype=np.float64)
    kinds = np.empty(2, dtype=np.int64)
    # each side's networks with their own evaluation cache, when a side searches
    scratch = new_scratch(SEARCH_CACHE_ENTRIES if kind >= NEURAL_1PLY else 0)
    opponent_scratch = new_scratch(SEARCH_CACHE_ENTRIES if opponent >= NEURAL_1PLY else 0)
    for i in range(pairs):
        game_seed = seed * 1_000_003 + i
        kinds[0] = kind
        kinds[1] = opponent
        out[i, 0] = play_game(kinds, nets, opponent_nets, scratch, opponent_scratch, game_seed)
        kinds[0] = opponent
        kinds[1] = kind
        out[i, 1] = -play_game(kinds, opponent_nets, nets, opponent_scratch, scratch,
                               game_seed)
    return out
