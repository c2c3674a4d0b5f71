"""The computer player: evaluation, ranked plays, playing levels and rollouts.

:class:`Engine` wraps the compiled evaluator and search for the rest of the system (the
CLI, the server, analysis). It works with core values (:class:`Position`, :class:`Roll`,
:class:`Play`); the numba kernels below it work with board arrays.

>>> from gammon.core.dice import Roll
>>> engine = Engine.load()
>>> ranked = engine.rank_plays(Position.initial(), Roll(3, 1))
>>> str(ranked[0].play)
'8/5 6/5'
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

import numba as nb
import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import Play, _legal_plays_and_boards
from gammon.core.position import Position
from gammon.engine import evaluate, search
from gammon.engine.cube import DEFAULT_EFFICIENCY, CubeInfo, filter_weights, play_equities
from gammon.engine.evaluator import (
    LEVELS,
    BotLevel,
    Probabilities,
    RankedPlay,
    choose,
)
from gammon.engine.network import OUTPUTS, NetworkPair
from gammon.engine.rollout import RolloutResult, rollout

__all__ = ["LEVELS", "BotLevel", "Engine", "MoveFilter", "Probabilities", "RankedPlay",
           "RolloutResult"]

WEIGHTS_FILE = "gammon.npz"


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """How many candidates survive each ply (at most ``keep``, within ``margin`` equity)."""

    keep: tuple[int, ...] = (8, 2)
    margin: tuple[float, ...] = (0.16, 0.04)


class Engine:
    """The neural evaluator with its search. Thread-safe: each thread gets its own buffers."""

    def __init__(self, nets: NetworkPair) -> None:
        self.nets = nets
        self._arrays = evaluate.kernel_arrays(nets)
        self._local = threading.local()

    @classmethod
    def load(cls, path: str | Path | None = None) -> Engine:
        """The shipped networks, or the weights file at ``path``."""
        if path is None:
            return _shipped_engine()
        return cls(NetworkPair.load(path))

    def _levels(self) -> list[tuple[np.ndarray, ...]]:
        levels = getattr(self._local, "levels", None)
        if levels is None:
            levels = search.new_levels()
            self._local.levels = levels
        return levels

    def _scratch(self) -> tuple[np.ndarray, ...]:
        """This thread's evaluation buffers, with a cache kept from one search to the next
        (the networks never change)."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = evaluate.new_scratch(evaluate.SEARCH_CACHE_ENTRIES)
            self._local.scratch = scratch
        return scratch

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities:
        """The side on roll's probabilities before it rolls."""
        _check_plies(plies)
        out = np.empty(OUTPUTS, dtype=np.float64)
        levels = self._levels()
        search.position_value(position.array(), plies, self._arrays, self._scratch(),
                              levels[1], levels[2], out)
        return Probabilities.from_array(out)

    def evaluate_batch(self, positions: Sequence[Position], *,
                       plies: int = 0) -> list[Probabilities]:
        """:meth:`evaluate` of each position, with one set of buffers."""
        _check_plies(plies)
        out = np.empty((len(positions), OUTPUTS), dtype=np.float64)
        levels = self._levels()
        scratch = self._scratch()
        for i, position in enumerate(positions):
            search.position_value(position.array(), plies, self._arrays, scratch, levels[1],
                                  levels[2], out[i])
        return [Probabilities.from_array(row) for row in out]

    def rank_plays(self, position: Position, roll: Roll, *, plies: int = 0,
                   move_filter: MoveFilter | None = None,
                   context: CubeInfo | None = None) -> list[RankedPlay]:
        """Every legal play, best first, evaluated for the side on roll; with ``context``
        (the score and cube as the side on roll sees them) ranked by their cubeful value
        there (:func:`gammon.engine.cube.play_equity`), else by cubeless money equity.

        Candidates dropped by the move filter keep their shallower evaluation and are
        listed after those evaluated deeper.
        """
        _check_plies(plies)
        keep, margin = _filter_arrays(move_filter or _DEFAULT_FILTER)
        # The plays' boards straight from the generator: no Position is built to evaluate.
        plays, boards = _legal_plays_and_boards(position, roll)
        count = len(plays)
        probs = np.empty((count, OUTPUTS), dtype=np.float64)
        depth = np.empty(count, dtype=np.int64)
        levels = self._levels()
        # at a score the filter, and each side's plays inside the search, price gammons as
        # the score does
        if context is None:
            mine = theirs = evaluate.MONEY_WEIGHTS
        else:
            mine, theirs = filter_weights(context), filter_weights(context.swap())
        search.rank_plays_weighted(boards, count, plies, keep, margin, mine, theirs,
                                   self._arrays, self._scratch(), levels[1], levels[2], probs,
                                   depth)
        # Each reads its probabilities from ``probs`` when asked.
        from_rows = RankedPlay._from_rows
        plies_reached = depth.tolist()
        if context is None:
            return [from_rows(plays[i], plies_reached[i], probs, i)
                    for i in _best_first(probs, depth).tolist()]
        values = play_equities(probs, context, DEFAULT_EFFICIENCY.of_boards(boards, count))
        order = np.lexsort((-values, -depth))  # deepest first, then the value at the score
        return [from_rows(plays[i], plies_reached[i], probs, i, float(values[i]))
                for i in order.tolist()]

    def judge_play(self, after: Position) -> Probabilities | None:
        """The judge's probabilities of a play for the side that made it (``after``: the
        position it leaves, still from the mover's side, as :attr:`Play.position`), as a
        0-ply ranking gives them to the best few plays; None when the networks have no
        judge or the play leaves no contact position."""
        out = np.empty(OUTPUTS, dtype=np.float64)
        if not evaluate.judge_after(after.array(), self._arrays, self._scratch(), out):
            return None
        return Probabilities.from_array(out)

    def choose(self, position: Position, roll: Roll, level: BotLevel | str = "expert",
               rng: random.Random | None = None, *, context: CubeInfo | None = None) -> Play:
        """The play the engine makes at ``level`` (noise drawn from ``rng``), at
        ``context`` when given."""
        return choose(self, position, roll, level, rng, context=context)

    def rollout(self, position: Position, *, games: int = 1296, truncate: int = 0,
                seed: int = 1, progress: Callable[[RolloutResult], None] | None = None,
                context: CubeInfo | None = None, pruned: bool = False) -> RolloutResult:
        """Roll ``position`` out (the side on roll about to roll) ``games`` times at 0-ply,
        each game to the end or for ``truncate`` plies; ``progress`` gets the result so far
        after each chunk of games. Seeded as ``gammon rollout`` (:mod:`gammon.engine.rollout`).
        With ``context`` (the side on roll's view of the score and cube) each side plays as
        it would at that score; ``pruned`` evaluates only the pruning network's best few
        plays fully (about 2.4 times faster). The results stay cubeless probabilities.
        """
        weights = ((evaluate.MONEY_WEIGHTS, evaluate.MONEY_WEIGHTS) if context is None
                   else (filter_weights(context), filter_weights(context.swap())))
        return rollout(position, games, truncate=truncate, seed=seed, nets=self._arrays,
                       level=self._levels()[1], progress=progress, weights=weights,
                       pruned=pruned)


_DEFAULT_FILTER = MoveFilter()


@lru_cache(maxsize=64)
def _filter_arrays(move_filter: MoveFilter) -> tuple[np.ndarray, np.ndarray]:
    """A move filter as the search kernel takes it (the kernel only reads these)."""
    return (np.array(move_filter.keep, dtype=np.int64),
            np.array(move_filter.margin, dtype=np.float64))


@nb.njit(cache=True, nogil=True)
def _best_first(probs: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Indices of the ranked plays, deepest ply first, then highest equity; ties keep the
    generator's order (a stable sort on ``(-ply, -equity)``, the equity as
    :attr:`Probabilities.equity` computes it)."""
    count = probs.shape[0]
    negated = np.empty(count, dtype=np.float64)
    for i in range(count):
        p = probs[i]
        negated[i] = -(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])
    by_equity = np.argsort(negated, kind="mergesort")
    order = np.empty(count, dtype=np.int64)
    placed = 0
    for ply in range(depth.max(), -1, -1):
        for i in by_equity:
            if depth[i] == ply:
                order[placed] = i
                placed += 1
    return order


def _check_plies(plies: int) -> None:
    if not 0 <= plies <= search.MAX_PLY:
        raise ValueError(f"plies must be 0 to {search.MAX_PLY}, got {plies}")


@cache
def _shipped_engine() -> Engine:
    with resources.as_file(resources.files("gammon.engine") / "weights" / WEIGHTS_FILE) as path:
        return Engine(NetworkPair.load(path))
