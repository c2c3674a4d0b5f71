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
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import Play, legal_plays
from gammon.core.position import Position
from gammon.engine import evaluate, search
from gammon.engine.network import OUTPUTS, NetworkPair

WEIGHTS_FILE = "gammon.npz"


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Cubeless probabilities for one side: win, win gammon, win backgammon, lose gammon,
    lose backgammon (each unconditional), and the cubeless money equity."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def from_array(cls, p: np.ndarray) -> Probabilities:
        return cls(*(float(x) for x in p[:OUTPUTS]))

    @property
    def equity(self) -> float:
        return (2 * self.win - 1 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon,
                self.lose_backgammon)


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """A legal play with its evaluation for the side that makes it, at ``ply``."""

    play: Play
    probabilities: Probabilities
    ply: int

    @property
    def equity(self) -> float:
        return self.probabilities.equity


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """How many candidates survive each ply (at most ``keep``, within ``margin`` equity)."""

    keep: tuple[int, ...] = (8, 2)
    margin: tuple[float, ...] = (0.16, 0.04)


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength: search depth and Gaussian noise (in equity) added to each
    candidate's evaluation before choosing, as established engines weaken their play."""

    name: str
    plies: int
    noise: float


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 0, 0.08),
        Level("casual", 0, 0.04),
        Level("intermediate", 0, 0.015),
        Level("expert", 0, 0.0),
        Level("world-class", 2, 0.0),
    )
}
"""The five named strengths, weakest first."""


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

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities:
        """The side on roll's probabilities before it rolls."""
        _check_plies(plies)
        out = np.empty(OUTPUTS, dtype=np.float64)
        levels = self._levels()
        search.position_value(position.array(), plies, self._arrays, evaluate.new_scratch(),
                              levels[1], levels[2], out)
        return Probabilities.from_array(out)

    def rank_plays(self, position: Position, roll: Roll, *, plies: int = 0,
                   move_filter: MoveFilter | None = None) -> list[RankedPlay]:
        """Every legal play, best first, evaluated for the side on roll.

        Candidates dropped by the move filter keep their shallower evaluation and are
        listed after those evaluated deeper.
        """
        _check_plies(plies)
        move_filter = move_filter or MoveFilter()
        plays = legal_plays(position, roll)
        boards = np.stack([p.position.array() for p in plays])
        probs = np.empty((len(plays), OUTPUTS), dtype=np.float64)
        depth = np.empty(len(plays), dtype=np.int64)
        levels = self._levels()
        search.rank_plays(boards, len(plays), plies, np.array(move_filter.keep, dtype=np.int64),
                          np.array(move_filter.margin, dtype=np.float64), self._arrays,
                          levels[1], levels[2], probs, depth)
        ranked = [RankedPlay(play, Probabilities.from_array(probs[i]), int(depth[i]))
                  for i, play in enumerate(plays)]
        ranked.sort(key=lambda r: (-r.ply, -r.equity))
        return ranked

    def choose(self, position: Position, roll: Roll, level: Level | str = "expert",
               rng: random.Random | None = None) -> Play:
        """The play the engine makes at ``level`` (noise drawn from ``rng``)."""
        if isinstance(level, str):
            if level not in LEVELS:
                raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
            level = LEVELS[level]
        ranked = self.rank_plays(position, roll, plies=level.plies)
        if level.noise <= 0 or len(ranked) == 1:
            return ranked[0].play
        rng = rng or random.Random()
        top = ranked[0].ply
        noisy = [(r.equity + rng.gauss(0.0, level.noise), i)
                 for i, r in enumerate(ranked) if r.ply == top or level.plies == 0]
        return ranked[max(noisy)[1]].play

    def rollout(self, position: Position, *, games: int = 1296, truncate: int = 0,
                seed: int = 1) -> tuple[Probabilities, Probabilities]:
        """Truncated rollout (0-ply play) of ``position`` before its side rolls.

        Returns the mean probabilities and their standard errors.
        """
        if games < 2:
            raise ValueError("a rollout needs at least 2 games")
        if truncate < 0:
            raise ValueError("truncate is a number of plies, 0 for none")
        results = search.rollout(position.array(), games, truncate, seed, self._arrays,
                                 self._levels()[1])
        mean = results.mean(axis=0)
        error = results.std(axis=0, ddof=1) / np.sqrt(games)
        return Probabilities.from_array(mean), Probabilities.from_array(error)


def _check_plies(plies: int) -> None:
    if not 0 <= plies <= search.MAX_PLY:
        raise ValueError(f"plies must be 0 to {search.MAX_PLY}, got {plies}")


@cache
def _shipped_engine() -> Engine:
    with resources.as_file(resources.files("gammon.engine") / "weights" / WEIGHTS_FILE) as path:
        return Engine(NetworkPair.load(path))
