"""Minibatch Adam for the fit stage (``gammon train --stage fit --optimiser adam``).

The fit's default optimiser is per-position SGD in the engine's own kernels (a position's
inputs encoded, its network moved, the next position). Its held-out error stopped
moving at any step size, while the networks stay about 0.022 (relative equity) away from
what their labeller expects (``gammon bench label_noise``). This fits one class's
network to the same loss (the cross-entropy plus ``rank_weight`` times each candidate's
squared equity error relative to its decision's mean) with minibatches of whole decisions
and Adam (Kingma and Ba, 2015), its step decaying to zero along a cosine over the fit.
Each position's inputs are encoded once, so an epoch is a few dense matrix products.

Why no library: the network is two dense sigmoid layers, and numpy's BLAS multiplies
them as fast as a deep-learning framework would on this CPU; PyTorch would add 700 MB
of dependency for no speed. The hidden units use the exact sigmoid here; the engine
evaluates them from a table within 1.3e-6 of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gammon.engine.expert import CONTACT_INPUTS, RACE_INPUTS, encode_contact, encode_race
from gammon.engine.network import EQUITY_WEIGHTS, Network, _jit

BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8


@_jit
def encode_rows(boards: np.ndarray, race: bool) -> np.ndarray:
    """Each board's inputs (side on roll first) for the race network, else for the contact
    and crashed networks, as float32 rows."""
    width = RACE_INPUTS if race else CONTACT_INPUTS
    out = np.zeros((len(boards), width), dtype=np.float32)
    for i in range(len(boards)):
        if race:
            encode_race(boards[i], out[i])
        else:
            encode_contact(boards[i], out[i])
    return out


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # overflow-free, float32 in and out


@dataclass
class AdamState:
    """Adam's moments for each of a network's four arrays, and the steps taken."""

    first: list[np.ndarray]
    second: list[np.ndarray]
    steps: int = 0  # Adam's t

    @classmethod
    def zeros(cls, net: Network) -> AdamState:
        return cls([np.zeros_like(a) for a in net.arrays()],
                   [np.zeros_like(a) for a in net.arrays()])

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        arrays = {f"{prefix}_first{k}": a for k, a in enumerate(self.first)}
        arrays |= {f"{prefix}_second{k}": a for k, a in enumerate(self.second)}
        arrays[f"{prefix}_steps"] = np.asarray(self.steps, dtype=np.int64)
        return arrays

    @classmethod
    def load(cls, data: np.lib.npyio.NpzFile, prefix: str) -> AdamState:
        return cls([data[f"{prefix}_first{k}"] for k in range(4)],
                   [data[f"{prefix}_second{k}"] for k in range(4)],
                   int(data[f"{prefix}_steps"]))


@dataclass
class ClassFit:
    """One class's network and its training rows: inputs encoded once, labels, and the
    rows' decisions (rows ``starts[g]`` to ``starts[g + 1]`` are decision ``g``'s)."""

    net: Network
    inputs: np.ndarray
    labels: np.ndarray
    starts: np.ndarray
    state: AdamState = field(init=False)

    def __post_init__(self) -> None:
        self.state = AdamState.zeros(self.net)

    def batches(self, rng: np.random.Generator, rows: int) -> list[np.ndarray]:
        """The decisions in a shuffled order, cut into batches of about ``rows`` rows
        (a decision never split): each batch as its decisions' numbers."""
        order = rng.permutation(len(self.starts) - 1)
        ends = np.cumsum(np.diff(self.starts)[order])
        cuts = np.searchsorted(ends, np.arange(rows, ends[-1] if len(ends) else 0, rows),
                               side="left") + 1
        return [part for part in np.split(order, cuts) if len(part)]

    def rows_of(self, decisions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``decisions``, in their order, and each decision's row count."""
        firsts, sizes = self.starts[decisions], np.diff(self.starts)[decisions]
        before = np.cumsum(sizes) - sizes
        return np.repeat(firsts - before, sizes) + np.arange(sizes.sum()), sizes

    def gradients(self, decisions: np.ndarray, rank_weight: float
                  ) -> tuple[float, tuple[np.ndarray, ...]]:
        """The mean cross-entropy of the rows of ``decisions`` and, for each of the
        network's arrays, the gradient of the loss: per row the cross-entropy plus
        ``rank_weight`` times its squared equity error relative to its decision's mean,
        averaged over the rows."""
        rows, sizes = self.rows_of(decisions)
        x, target = self.inputs[rows], self.labels[rows]
        w1, b1, w2, b2 = self.net.arrays()
        hidden = _sigmoid(x @ w1 + b1)
        out = _sigmoid(hidden @ w2 + b2)
        clipped = np.clip(out, 1e-7, 1 - 1e-7)
        loss = -np.sum(target * np.log(clipped) + (1 - target) * np.log(1 - clipped))
        delta = out - target  # the cross-entropy's gradient at the outputs' sums
        if rank_weight:
            miss = delta @ EQUITY_WEIGHTS
            group = np.repeat(np.arange(len(sizes)), sizes)
            relative = miss - (np.bincount(group, miss, len(sizes)) / sizes)[group]
            delta += (2.0 * rank_weight * relative)[:, None] * EQUITY_WEIGHTS * out * (1 - out)
        delta /= len(rows)
        delta_hidden = (delta @ w2.T) * hidden * (1 - hidden)
        return float(loss) / len(rows), (x.T @ delta_hidden, delta_hidden.sum(axis=0),
                                         hidden.T @ delta, delta.sum(axis=0))

    def step(self, decisions: np.ndarray, learning_rate: float, rank_weight: float) -> float:
        """One Adam step on the rows of ``decisions``; returns their mean cross-entropy
        before it."""
        loss, gradients = self.gradients(decisions, rank_weight)
        state = self.state
        state.steps += 1
        correction = math.sqrt(1 - BETA2 ** state.steps) / (1 - BETA1 ** state.steps)
        for weights, gradient, first, second in zip(self.net.arrays(), gradients,
                                                    state.first, state.second, strict=True):
            first *= BETA1
            first += (1 - BETA1) * gradient
            second *= BETA2
            second += (1 - BETA2) * gradient * gradient
            # in place: the kernels read these same arrays
            weights -= (learning_rate * correction * first
                        / (np.sqrt(second) + EPSILON)).astype(weights.dtype)
        return loss

    def epoch(self, rng: np.random.Generator, rows: int, rate_at: Callable[[int], float],
              rank_weight: float) -> float:
        """One pass over every decision; ``rate_at(step)`` the learning rate of each
        step. Returns the mean cross-entropy met."""
        total = 0.0
        batches = self.batches(rng, rows)
        for decisions in batches:
            total += self.step(decisions, rate_at(self.state.steps), rank_weight)
        return total / max(len(batches), 1)


def cosine_rate(peak: float, total_steps: int, warmup: int = 200) -> Callable[[int], float]:
    """The learning rate of step ``s``: up linearly over ``warmup`` steps, then down to 0
    along a cosine by ``total_steps``."""
    def rate(step: int) -> float:
        if step < warmup:
            return peak * (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, total_steps - warmup))
        return peak * 0.5 * (1.0 + math.cos(math.pi * progress))
    return rate
