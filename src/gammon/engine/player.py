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
from dataclasses import FrozenInstanceError, dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import ClassVar

import numba as nb
import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import Play, _legal_plays_and_boards
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
        return cls(*p[:OUTPUTS].tolist())

    @property
    def equity(self) -> float:
        return (2 * self.win - 1 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon,
                self.lose_backgammon)


class RankedPlay:
    """A legal play with its evaluation for the side that makes it, at ``ply``.

    Immutable, compared and hashed by ``(play, probabilities, ply)``. Those that
    :meth:`Engine.rank_plays` makes read their probabilities from the search's array when
    first asked.
    """

    # For ranked plays the engine made, _probabilities is None until first read.
    __slots__ = ("_play", "_ply", "_probabilities", "_row", "_rows")
    __match_args__: ClassVar[tuple[str, str, str]] = ("play", "probabilities", "ply")

    _play: Play
    _ply: int
    _probabilities: Probabilities | None
    _rows: np.ndarray | None
    _row: int

    def __init__(self, play: Play, probabilities: Probabilities, ply: int) -> None:
        self._play = play
        self._probabilities = probabilities
        self._ply = ply
        self._rows = None
        self._row = 0

    @property
    def play(self) -> Play:
        return self._play

    @play.setter
    def play(self, value: object) -> None:
        raise FrozenInstanceError("cannot assign to field 'play'")

    @property
    def probabilities(self) -> Probabilities:
        probabilities = self._probabilities
        if probabilities is None:
            assert self._rows is not None
            probabilities = Probabilities.from_array(self._rows[self._row])
            self._probabilities = probabilities
        return probabilities

    @probabilities.setter
    def probabilities(self, value: object) -> None:
        raise FrozenInstanceError("cannot assign to field 'probabilities'")

    @property
    def ply(self) -> int:
        return self._ply

    @ply.setter
    def ply(self, value: object) -> None:
        raise FrozenInstanceError("cannot assign to field 'ply'")

    @property
    def equity(self) -> float:
        return self.probabilities.equity

    def __repr__(self) -> str:
        return (f"RankedPlay(play={self.play!r}, probabilities={self.probabilities!r}, "
                f"ply={self.ply!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RankedPlay) or other.__class__ is not self.__class__:
            return NotImplemented
        return ((self.play, self.probabilities, self.ply)
                == (other.play, other.probabilities, other.ply))

    def __hash__(self) -> int:
        return hash((self.play, self.probabilities, self.ply))

    def __reduce__(self) -> tuple[type[RankedPlay], tuple[Play, Probabilities, int]]:
        return (RankedPlay, (self.play, self.probabilities, self.ply))


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
        keep, margin = _filter_arrays(move_filter or _DEFAULT_FILTER)
        # The plays' boards straight from the generator: no Position is built to evaluate.
        plays, boards = _legal_plays_and_boards(position, roll)
        count = len(plays)
        probs = np.empty((count, OUTPUTS), dtype=np.float64)
        depth = np.empty(count, dtype=np.int64)
        levels = self._levels()
        search.rank_plays(boards, count, plies, keep, margin, self._arrays, levels[1],
                          levels[2], probs, depth)
        # Built without __init__: each reads its probabilities from ``probs`` when asked.
        new = object.__new__
        plies_reached = depth.tolist()
        ranked = []
        for i in _best_first(probs, depth).tolist():
            entry = new(RankedPlay)
            entry._play = plays[i]
            entry._ply = plies_reached[i]
            entry._probabilities = None
            entry._rows = probs
            entry._row = i
            ranked.append(entry)
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
