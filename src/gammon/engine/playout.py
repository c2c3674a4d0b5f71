"""Dice and the starting position for the compiled game loops (numba's own RNG)."""

from __future__ import annotations

import numba as nb
import numpy as np

from gammon.core.position import Position

MAX_PLIES = 2000  # far beyond any real game; guards against an endless loop

INITIAL = Position.initial().array()
"""The starting board (the core's :meth:`Position.initial`) as the kernels' int8 array."""

_jit = nb.njit(cache=True, nogil=True)


@_jit
def roll() -> tuple[int, int]:
    return np.random.randint(1, 7), np.random.randint(1, 7)


@_jit
def opening_roll() -> tuple[int, int]:
    """The opening: dice are rolled until they differ (RULES.md §2); the side that moves
    first plays them (the compiled games seat it as player 0, which the core's
    :func:`~gammon.core.dice.deciding_throw` gives by the higher die)."""
    while True:
        d1, d2 = roll()
        if d1 != d2:
            return d1, d2


@_jit
def noisy_choice(equities: np.ndarray, count: int, noise: float) -> int:
    """The index of the best of ``equities[:count]`` after a Gaussian error of standard
    deviation ``noise`` is added to each: the varied choices of noisy self-play."""
    chosen = 0
    best_value = -1e9
    for i in range(count):
        value = equities[i] + noise * np.random.standard_normal()
        if value > best_value:
            best_value = value
            chosen = i
    return chosen
