"""The compiled game loops' turn: dice (numba's own RNG), the legal plays, the end of a turn.

Every self-play loop (the arena's games, rollouts, TD training, the bootstrap, label and
pruning-data games) plays a turn the same way: :func:`roll_plays` rolls and generates the
plays' boards, the loop chooses one by its own rule, and :func:`end_turn` either scores the
game or hands the board to the opponent.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gammon.core import _movegen
from gammon.core.position import Position
from gammon.engine.evaluate import swap_board, terminal_result
from gammon.engine.network import Arrays

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
def roll_plays(board: np.ndarray, opening: bool, gen: Arrays) -> int:
    """Roll for the side on roll of ``board`` (the opening roll when ``opening``) and write
    the boards of its legal plays into ``gen[0]`` (move-generator buffers,
    :func:`gammon.core._movegen.new_scratch`); returns how many there are."""
    d1, d2 = opening_roll() if opening else roll()
    dice = _movegen.roll_dice(d1, d2)
    return _movegen.generate(board, dice, gen[0], gen[1], gen[2], gen[3], gen[4], gen[5])


@_jit
def end_turn(after: np.ndarray, board: np.ndarray, result: np.ndarray) -> bool:
    """The end of a turn whose chosen play leaves ``after`` (the mover's view): True, with
    the mover's result in ``result``, when it wins the game; otherwise ``board`` becomes
    ``after`` seen by the opponent, who is on roll next."""
    if terminal_result(after, result):
        return True
    swap_board(after, board)
    return False


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
