"""Dice and the starting position for the compiled game loops (numba's own RNG)."""

from __future__ import annotations

import numba as nb
import numpy as np

MAX_PLIES = 2000  # far beyond any real game; guards against an endless loop

INITIAL = np.array([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0,
                    2, 0], dtype=np.int8)

_jit = nb.njit(cache=True, nogil=True)


@_jit
def roll() -> tuple[int, int]:
    return np.random.randint(1, 7), np.random.randint(1, 7)


@_jit
def opening_roll() -> tuple[int, int]:
    """The opening: dice are rolled until they differ (RULES.md §2)."""
    while True:
        d1, d2 = roll()
        if d1 != d2:
            return d1, d2
