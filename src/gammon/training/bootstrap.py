"""Bootstrap training: teach the 0-ply networks what 1-ply search says (``gammon train
--stage bootstrap``).

After self-play TD training, a network's 0-ply evaluation is improved by fitting it to its
own 1-ply evaluations — the average over the 21 rolls of the best play — of positions met
in play: the search's lookahead is distilled into the static evaluation, the way
GNU Backgammon's nets were refined on deeper evaluations. One *round* is:

1. play ``games`` self-play games at 0-ply, choosing with Gaussian noise (``noise`` in
   equity) so that the positions are varied, and keep every position met (before its roll);
2. evaluate each at 1-ply with the current networks (pure bear-offs are exact already and
   are left out);
3. fit the networks to those targets with stochastic gradient descent for ``epochs``.

Every random choice is seeded from ``seed`` and the round number, so rounds are
reproducible, and each round ends with a checkpoint (resumable).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from gammon.core import _movegen
from gammon.engine import search
from gammon.engine.bearoff import is_bearoff_board
from gammon.engine.evaluate import (
    KernelArrays,
    kernel_arrays,
    network_for,
    new_scratch,
)
from gammon.engine.network import MAX_INPUTS, OUTPUTS, NetworkPair, equity, forward
from gammon.engine.playout import INITIAL, MAX_PLIES, end_turn, roll_plays
from gammon.training.td import _td_step, pubeval_score

_jit = nb.njit(cache=True, nogil=True)


@_jit
def sample_positions(nets: KernelArrays, games: int, noise: float, seed: int) -> np.ndarray:
    """Positions (side on roll, before rolling) from noisy 0-ply self-play games."""
    np.random.seed(seed)
    gen = _movegen.new_scratch()
    scratch = new_scratch()
    probs = np.empty(OUTPUTS, dtype=np.float64)
    result = np.empty(OUTPUTS, dtype=np.float64)
    capacity = games * 64
    out = np.empty((capacity, 26), dtype=np.int8)
    n = 0
    board = np.empty(26, dtype=np.int8)
    for _ in range(games):
        board[:] = INITIAL
        for ply in range(MAX_PLIES):
            if n == capacity:
                grown = np.empty((capacity * 2, 26), dtype=np.int8)
                grown[:n] = out[:n]
                out = grown
                capacity *= 2
            out[n] = board
            n += 1
            count = roll_plays(board, ply == 0, gen)
            best = 0
            best_value = -1e9
            for i in range(count):
                search.play_value(gen[0][i], 0, nets, scratch, gen, gen, probs)
                value = equity(probs) + noise * np.random.standard_normal()
                if value > best_value:
                    best_value = value
                    best = i
            if end_turn(gen[0][best], board, result):
                break
    return out[:n].copy()


@_jit
def ply1_targets(boards: np.ndarray, nets: KernelArrays) -> np.ndarray:
    """1-ply probabilities of each board for its side on roll."""
    scratch = new_scratch()
    level = _movegen.new_scratch()
    out = np.empty((boards.shape[0], OUTPUTS), dtype=np.float64)
    for i in range(boards.shape[0]):
        search.position_value(boards[i], 1, nets, scratch, level, level, out[i])
    return out


@_jit
def fit(nets: KernelArrays, boards: np.ndarray, targets: np.ndarray, epochs: int, alpha: float,
        seed: int) -> float:
    """SGD of each board's class's network toward ``targets``;
    returns the mean squared error of the last epoch."""
    np.random.seed(seed)
    inputs = np.empty(MAX_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    delta_hidden = np.empty(512, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    n = boards.shape[0]
    order = np.arange(n)
    error = 0.0
    for _ in range(epochs):
        np.random.shuffle(order)
        error = 0.0
        for i in order:
            board = boards[i]
            w1, b1, w2, b2 = network_for(board, nets, inputs)
            forward(inputs, w1, b1, w2, b2, hidden, out)
            error += _td_step(inputs, w1, b1, w2, b2, hidden, out, delta_hidden, targets[i],
                              alpha)
    return float(error / max(n, 1))


@_jit
def _not_bearoff(boards: np.ndarray) -> np.ndarray:
    keep = np.empty(boards.shape[0], dtype=np.bool_)
    for i in range(boards.shape[0]):
        keep[i] = not is_bearoff_board(boards[i])
    return keep


@dataclass
class BootstrapRun:
    """Settings of a bootstrap run; with the seed they determine the weights exactly."""

    rounds: int = 5
    games: int = 2_000
    noise: float = 0.05
    epochs: int = 4
    alpha: float = 0.01
    seed: int = 1
    benchmark_pairs: int = 500


def bootstrap(start: Path, path: Path, run: BootstrapRun,
              log: Callable[[str], None] = print) -> NetworkPair:
    """Run ``run.rounds`` rounds from the networks in ``start`` into ``path`` (resumed if
    it exists)."""
    if path.exists():
        nets = NetworkPair.load(path)
        with np.load(path) as data:
            done = int(data["meta_rounds_done"])
        log(f"resuming {path} after round {done}")
    else:
        nets = NetworkPair.load(start)
        done = 0
        log(f"bootstrapping from {start}")
    arrays = kernel_arrays(nets)
    for round_number in range(done + 1, run.rounds + 1):
        began = time.perf_counter()
        seed = run.seed * 1_000_003 + round_number
        boards = sample_positions(arrays, run.games, run.noise, seed)
        boards = boards[_not_bearoff(boards)]
        sampled = time.perf_counter()
        targets = ply1_targets(boards, arrays)
        evaluated = time.perf_counter()
        error = fit(arrays, boards, targets, run.epochs, run.alpha, seed)
        log(f"round {round_number}/{run.rounds}: {len(boards):,} positions "
            f"(sampled {sampled - began:.0f} s, 1-ply targets {evaluated - sampled:.0f} s, "
            f"fit {time.perf_counter() - evaluated:.0f} s), mse {error / OUTPUTS:.5f}")
        nets.save(path, rounds_done=round_number, seed=run.seed, games=run.games,
                  noise=run.noise, epochs=run.epochs, alpha=run.alpha, start=str(start))
        if run.benchmark_pairs:
            mean, half = pubeval_score(nets, run.benchmark_pairs, seed=999)
            log(f"  vs pubeval ({2 * run.benchmark_pairs} games): {mean:+.3f} ± {half:.3f} ppg")
    return nets
