"""Self-play TD(0) training of the contact and race networks (``gammon train``).

Each game is played by the networks against themselves at 0-ply. Before every roll, the
position's evaluation is moved toward the evaluation of the play then chosen (the
temporal difference, Tesauro's TD-Gammon with lambda = 0), and at the end of the game
toward the exact result. The whole game loop is numba-compiled.

Training runs in chunks of games; chunk ``k`` draws its dice from ``seed * 1_000_003 + k``,
so a run is reproducible and resumes exactly from a checkpoint (saved every
``checkpoint_every`` games, atomically). The learning rate falls linearly from
``alpha_start`` to ``alpha_end`` over ``games`` games.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from gammon.core import _movegen
from gammon.engine.arena import NEURAL, PUBEVAL, duplicate_match
from gammon.engine.evaluate import (
    KernelArrays,
    choose_play,
    kernel_arrays,
    network_for,
    new_scratch,
)
from gammon.engine.network import (
    BASIC,
    FEATURE_SET_NAMES,
    MAX_INPUTS,
    OUTPUTS,
    NetworkPair,
    forward,
)
from gammon.engine.playout import INITIAL, MAX_PLIES, end_turn, roll_plays

_jit = nb.njit(cache=True, nogil=True)


@_jit
def _td_step(inputs: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
             b2: np.ndarray, hidden: np.ndarray, out: np.ndarray, delta_hidden: np.ndarray,
             target: np.ndarray, alpha: float) -> float:
    """One gradient step of the squared error between ``out`` (just computed by
    :func:`forward` for ``inputs``) and ``target``; returns the error before the step."""
    delta_out = np.empty(OUTPUTS, dtype=np.float64)
    error = 0.0
    for k in range(OUTPUTS):
        diff = out[k] - target[k]
        error += diff * diff
        delta_out[k] = diff * out[k] * (1.0 - out[k])
    backpropagate(inputs, w1, b1, w2, b2, hidden, delta_out, delta_hidden, alpha)
    return error


@_jit
def backpropagate(inputs: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                  b2: np.ndarray, hidden: np.ndarray, delta_out: np.ndarray,
                  delta_hidden: np.ndarray, alpha: float) -> None:
    """Move the weights by ``-alpha`` times the gradient, given the loss's gradient with
    respect to each output's pre-activation (``delta_out``) and the hidden activations."""
    units = b1.shape[0]
    for j in range(units):
        back = 0.0
        for k in range(OUTPUTS):
            back += w2[j, k] * delta_out[k]
        delta_hidden[j] = back * hidden[j] * (1.0 - hidden[j])
    for j in range(units):
        h = hidden[j]
        for k in range(OUTPUTS):
            w2[j, k] -= alpha * h * delta_out[k]
    for k in range(OUTPUTS):
        b2[k] -= alpha * delta_out[k]
    for i in range(w1.shape[0]):
        x = inputs[i]
        if x != 0.0:
            for j in range(units):
                w1[i, j] -= alpha * x * delta_hidden[j]
    for j in range(units):
        b1[j] -= alpha * delta_hidden[j]


@_jit
def train_games(nets: KernelArrays, games: int, seed: int, alpha: float) -> np.ndarray:
    """Play and learn from ``games`` self-play games; returns [plies, squared error sum]."""
    np.random.seed(seed)
    gen = _movegen.new_scratch()
    scratch = new_scratch()
    inputs = np.empty(MAX_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    delta_hidden = np.empty(512, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    target = np.empty(OUTPUTS, dtype=np.float64)
    board = np.empty(26, dtype=np.int8)
    stats = np.zeros(2, dtype=np.float64)
    for _ in range(games):
        board[:] = INITIAL
        for ply in range(MAX_PLIES):
            count = roll_plays(board, ply == 0, gen)
            best = choose_play(gen[0], count, nets, scratch, target)
            # The value before the roll moves toward the value of the play chosen.
            w1, b1, w2, b2 = network_for(board, nets, inputs)
            forward(inputs, w1, b1, w2, b2, hidden, out)
            stats[1] += _td_step(inputs, w1, b1, w2, b2, hidden, out, delta_hidden, target,
                                 alpha)
            stats[0] += 1
            if end_turn(gen[0][best], board, target):
                break
    return stats


@dataclass
class TrainingRun:
    """Settings of one training run; with the seed they determine the weights exactly."""

    games: int = 300_000
    seed: int = 1
    alpha_start: float = 0.1
    alpha_end: float = 0.02
    chunk: int = 500
    checkpoint_every: int = 5_000
    benchmark_every: int = 25_000
    benchmark_pairs: int = 500
    contact_hidden: int = 128
    race_hidden: int = 64
    crashed_hidden: int = 64
    feature_set: int = BASIC

    def alpha(self, done: int) -> float:
        share = min(done / max(self.games, 1), 1.0)
        return self.alpha_start + (self.alpha_end - self.alpha_start) * share


def pubeval_score(nets: NetworkPair, pairs: int, seed: int) -> tuple[float, float]:
    """Mean points per game against pubeval with duplicate dice, and its 95% half-width."""
    arrays = kernel_arrays(nets)
    results = duplicate_match(NEURAL, PUBEVAL, arrays, arrays, pairs, seed)
    per_pair = results.mean(axis=1)
    mean = float(per_pair.mean())
    half_width = 1.96 * float(per_pair.std(ddof=1)) / np.sqrt(len(per_pair))
    return mean, half_width


@contextmanager
def sole_writer(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` for the block, so that a long job started
    twice on the same checkpoint (or shard directory) refuses to run instead of
    interleaving its writes with the first one's."""
    lock_path = path.parent / f"{path.name}.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(f"{path} is being written by another process "
                             f"(it holds {lock_path})") from None
        yield


def train(path: Path, run: TrainingRun, *, log: object = print) -> NetworkPair:
    """Train into the checkpoint at ``path`` (resuming it when it exists)."""
    with sole_writer(path):
        return _train(path, run, log=log)


def _train(path: Path, run: TrainingRun, *, log: object) -> NetworkPair:
    say = log if callable(log) else print
    if path.exists():
        nets = NetworkPair.load(path)
        with np.load(path) as data:
            done = int(data["meta_games_done"])
            saved_seed = int(data["meta_seed"])
        if saved_seed != run.seed:
            raise ValueError(f"{path} was trained with seed {saved_seed}, not {run.seed}")
        if nets.feature_set != run.feature_set:
            raise ValueError(f"{path} has the {FEATURE_SET_NAMES[nets.feature_set]} feature "
                             f"set, not {FEATURE_SET_NAMES[run.feature_set]}")
        say(f"resuming {path} at {done:,} games")
    else:
        nets = NetworkPair.random(contact_hidden=run.contact_hidden,
                                  race_hidden=run.race_hidden,
                                  crashed_hidden=run.crashed_hidden,
                                  feature_set=run.feature_set, seed=run.seed)
        done = 0
        sizes = ", ".join(f"{kind} {net.hidden}" for kind, net in nets.networks().items())
        say(f"new networks ({FEATURE_SET_NAMES[run.feature_set]} inputs), hidden units: "
            f"{sizes}")
    arrays = kernel_arrays(nets)  # the kernel updates the weight arrays in place
    started = time.perf_counter()
    since_start = 0
    while done < run.games:
        chunk_index = done // run.chunk
        size = min(run.chunk, run.games - done)
        alpha = run.alpha(done)
        stats = train_games(arrays, size, run.seed * 1_000_003 + chunk_index, alpha)
        done += size
        since_start += size
        rate = since_start / (time.perf_counter() - started)
        say(f"games {done:,}/{run.games:,}  {rate:,.0f} games/s  alpha {alpha:.4f}  "
            f"plies/game {stats[0] / size:.1f}  td error {stats[1] / max(stats[0], 1):.4f}")
        if done % run.checkpoint_every == 0 or done == run.games:
            nets.save(path, games_done=done, seed=run.seed, alpha_start=run.alpha_start,
                      alpha_end=run.alpha_end, games=run.games, chunk=run.chunk)
        if run.benchmark_every and (done % run.benchmark_every == 0 or done == run.games):
            mean, half = pubeval_score(nets, run.benchmark_pairs, seed=999)
            say(f"  vs pubeval ({2 * run.benchmark_pairs} games): {mean:+.3f} ± {half:.3f} ppg")
    return nets
