"""Rollouts: a position played out many times by the networks at 0-ply.

:meth:`Engine.rollout <gammon.engine.player.Engine.rollout>` and ``gammon rollout`` both run
:func:`rollout`, so one seed gives one result through either. The games go in chunks of
:data:`CHUNK`; chunk ``k`` of a rollout seeded ``S`` has seed ``S * 100_000 + k`` (and its
game ``g`` draws its dice from ``(S * 100_000 + k) * 1_000_003 + g``), so a longer rollout
with the same seed extends a shorter one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gammon.core.position import Position
from gammon.engine import search
from gammon.engine.evaluate import MONEY_WEIGHTS, KernelArrays
from gammon.engine.evaluator import Probabilities
from gammon.engine.network import Arrays

CHUNK = 216
"""Games per chunk: the progress callback is called after each."""


@dataclass(frozen=True, eq=False)
class RolloutResult:
    """The games of a rollout of ``position`` (the side on roll about to roll)."""

    position: Position
    truncate: int
    """Plies each game was played before the networks judged it (0: to the end)."""
    seed: int
    games: np.ndarray
    """``float64[n, 5]``: each game's result (or, truncated, its evaluation) for the side
    on roll, as :class:`Probabilities` orders them."""

    @property
    def count(self) -> int:
        """How many games were played."""
        return int(self.games.shape[0])

    @property
    def mean(self) -> Probabilities:
        return Probabilities.from_array(self.games.mean(axis=0))

    @property
    def standard_error(self) -> Probabilities:
        """Each probability's standard error of the mean (0 for fewer than 2 games)."""
        return Probabilities.from_array(_standard_errors(self.games))

    @property
    def equities(self) -> np.ndarray:
        """Each game's cubeless equity (``float64[n]``)."""
        w, wg, wbg, lg, lbg = self.games.T
        return np.asarray(2 * w - 1 + wg - lg + wbg - lbg, dtype=np.float64)

    @property
    def equity(self) -> float:
        """The mean cubeless equity."""
        return float(self.equities.mean())

    @property
    def equity_standard_error(self) -> float:
        return float(_standard_errors(self.equities[:, None])[0])


def _standard_errors(columns: np.ndarray) -> np.ndarray:
    games = columns.shape[0]
    if games < 2:
        return np.zeros(columns.shape[1], dtype=np.float64)
    return np.asarray(columns.std(axis=0, ddof=1) / math.sqrt(games), dtype=np.float64)


def rollout(position: Position, games: int, *, truncate: int, seed: int, nets: KernelArrays,
            level: Arrays, progress: Callable[[RolloutResult], None] | None = None,
            weights: tuple[np.ndarray, np.ndarray] = (MONEY_WEIGHTS, MONEY_WEIGHTS),
            pruned: bool = False) -> RolloutResult:
    """Roll ``position`` out ``games`` times with the kernel arrays ``nets`` and the move
    generator buffers ``level``; ``progress`` gets the result so far after each chunk.
    ``weights``: how the side on roll and its opponent choose their plays (at a score:
    :func:`gammon.engine.cube.filter_weights` of each side's view; money by default);
    ``pruned``: only the pruning network's best few plays fully evaluated."""
    if position.winner() is not None:
        raise ValueError(f"the game is over in {position.id()}: nothing to roll out")
    if games < 2:
        raise ValueError(f"a rollout needs at least 2 games, got {games}")
    if truncate < 0:
        raise ValueError(f"truncate is a number of plies (0: none), got {truncate}")
    if seed < 0:
        raise ValueError(f"the seed is a number from 0 up, got {seed}")
    board = position.array()
    parts: list[np.ndarray] = []
    done = 0
    for chunk in range(math.ceil(games / CHUNK)):
        size = min(CHUNK, games - done)
        parts.append(search.rollout_weighted(board, size, truncate, seed * 100_000 + chunk,
                                             nets, level, pruned, *weights))
        done += size
        if progress is not None:
            progress(RolloutResult(position, truncate, seed, np.concatenate(parts)))
    return RolloutResult(position, truncate, seed, np.concatenate(parts))
