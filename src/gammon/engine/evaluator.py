"""What the rest of the system asks of an engine: the :class:`Evaluator` protocol and the
values it answers with.

The bot at the table (:class:`~gammon.engine.matchbot.MatchBot`), the cube functions
(:mod:`gammon.engine.cube`) and the match analysis (:mod:`gammon.engine.analysis`) take any
:class:`Evaluator`: the neural :class:`~gammon.engine.player.Engine`, or a stand-in with
the two methods (a fixed table in a test, another program's evaluations). Ranking the
plays of a roll and choosing one at a bot level are built on it here:

>>> from gammon.core.dice import Roll
>>> class Racer:
...     '''The side on roll's chance grows with its lead in the pip count.'''
...     def evaluate(self, position, *, plies=0):
...         mine, theirs = position.pips()
...         return Probabilities(min(max(0.5 + (theirs - mine) / 100, 0.0), 1.0), 0, 0, 0, 0)
...     def evaluate_batch(self, positions, *, plies=0):
...         return [self.evaluate(p, plies=plies) for p in positions]
>>> isinstance(Racer(), Evaluator)
True
>>> best = rank_plays(Racer(), Position.initial(), Roll(6, 5))[0]
>>> str(best.play), round(best.equity, 2)
('24/13', 0.22)
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import FrozenField, Play, legal_plays
from gammon.core.position import Position
from gammon.engine.cube import DEFAULT_EFFICIENCY, CubeEfficiency, CubeInfo, play_equity


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
        return cls(*p[:5].tolist())

    @property
    def equity(self) -> float:
        return (2 * self.win - 1 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon,
                self.lose_backgammon)

    def inverted(self) -> Probabilities:
        """The same chances seen from the other side."""
        return Probabilities(1 - self.win, self.lose_gammon, self.lose_backgammon,
                             self.win_gammon, self.win_backgammon)


@runtime_checkable
class Evaluator(Protocol):
    """Cubeless probabilities of positions for the side on roll, before it rolls.

    A position the side on roll has already lost (the opponent has borne off all 15) is
    valued at its result. ``plies`` is the search depth as GNU Backgammon counts it; an
    evaluator without a search may ignore it.
    """

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities: ...

    def evaluate_batch(self, positions: Sequence[Position], *,
                       plies: int = 0) -> list[Probabilities]: ...


class RankedPlay:
    """A legal play with its evaluation for the side that makes it, at ``ply``.

    ``equity`` is the cubeless money equity of the probabilities, unless the play was
    ranked at a context (a match score, a cube): then the cubeful value there
    (:func:`gammon.engine.cube.play_equity`, normalised to the cube).

    Immutable, compared and hashed by ``(play, probabilities, ply)``. Those that
    :meth:`Engine.rank_plays <gammon.engine.player.Engine.rank_plays>` makes read their
    probabilities from the search's array when first asked.
    """

    # For ranked plays the engine made, _probabilities is None until first read.
    __slots__ = ("_equity", "_play", "_ply", "_probabilities", "_row", "_rows")
    __match_args__: ClassVar[tuple[str, str, str]] = ("play", "probabilities", "ply")

    _play: Play
    _ply: int
    _probabilities: Probabilities | None
    _rows: np.ndarray | None
    _row: int
    _equity: float | None

    def __init__(self, play: Play, probabilities: Probabilities, ply: int,
                 equity: float | None = None) -> None:
        self._play = play
        self._probabilities = probabilities
        self._ply = ply
        self._rows = None
        self._row = 0
        self._equity = equity

    @classmethod
    def _from_rows(cls, play: Play, ply: int, rows: np.ndarray, row: int,
                   equity: float | None = None) -> RankedPlay:
        """A ranked play whose probabilities are ``rows[row]``, read when first asked
        (built without ``__init__``: the engine makes many that are never read)."""
        entry = object.__new__(cls)
        entry._play = play
        entry._ply = ply
        entry._probabilities = None
        entry._rows = rows
        entry._row = row
        entry._equity = equity
        return entry

    play: FrozenField[Play] = FrozenField()
    ply: FrozenField[int] = FrozenField()

    @FrozenField
    def probabilities(self) -> Probabilities:
        assert self._rows is not None
        return Probabilities.from_array(self._rows[self._row])

    @property
    def equity(self) -> float:
        if self._equity is not None:
            return self._equity
        return self.probabilities.equity

    def at(self, context: CubeInfo,
           efficiency: CubeEfficiency = DEFAULT_EFFICIENCY) -> RankedPlay:
        """The same play valued at ``context`` (the mover's view before the play)."""
        probabilities = self.probabilities
        return RankedPlay(self._play, probabilities, self._ply,
                          play_equity(probabilities, context, self._play.next_position,
                                      efficiency=efficiency))

    def __repr__(self) -> str:
        extra = "" if self._equity is None else f", equity={self._equity!r}"
        return (f"RankedPlay(play={self.play!r}, probabilities={self.probabilities!r}, "
                f"ply={self.ply!r}{extra})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RankedPlay) or other.__class__ is not self.__class__:
            return NotImplemented
        return ((self.play, self.probabilities, self.ply)
                == (other.play, other.probabilities, other.ply))

    def __hash__(self) -> int:
        return hash((self.play, self.probabilities, self.ply))

    def __reduce__(self) -> tuple[type[RankedPlay],
                                  tuple[Play, Probabilities, int, float | None]]:
        return (RankedPlay, (self.play, self.probabilities, self.ply, self._equity))


@dataclass(frozen=True, slots=True)
class BotLevel:
    """A bot's playing level: search depth and Gaussian noise (in equity) added to each
    candidate's evaluation before choosing, as established engines weaken their play."""

    name: str
    plies: int
    noise: float


LEVELS: dict[str, BotLevel] = {
    level.name: level
    for level in (
        BotLevel("beginner", 0, 0.08),
        BotLevel("casual", 0, 0.04),
        BotLevel("intermediate", 0, 0.015),
        BotLevel("expert", 0, 0.0),
        BotLevel("world-class", 2, 0.0),
    )
}
"""The five named levels, weakest first."""


def bot_level(level: BotLevel | str) -> BotLevel:
    """A level, or the named one of :data:`LEVELS`."""
    if isinstance(level, BotLevel):
        return level
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    return LEVELS[level]


def rank_plays(evaluator: Evaluator, position: Position, roll: Roll, *,
               plies: int = 0, context: CubeInfo | None = None) -> list[RankedPlay]:
    """Every legal play of ``roll``, best first, valued for the side on roll.

    An evaluator with a ``rank_plays`` method of its own ranks them (the
    :class:`~gammon.engine.player.Engine`'s compiled search, with its move filter); any
    other is asked, in one batch, for the position each play leaves with the opponent on
    roll. Ties keep the generator's order.

    ``context`` is where the decision is (the match score, the cube, as the side on roll
    sees them): the plays are then ranked by their cubeful value there
    (:meth:`RankedPlay.at`); without one, by cubeless money equity.
    """
    own = getattr(evaluator, "rank_plays", None)
    if own is not None and context is not None and _takes_context(type(evaluator)):
        # the search itself at the score: its move filter and each side's plays inside
        at_score: list[RankedPlay] = own(position, roll, plies=plies, context=context)
        return at_score
    if own is not None:
        ranked: list[RankedPlay] = own(position, roll, plies=plies)
    else:
        plays = legal_plays(position, roll)
        theirs = evaluator.evaluate_batch([play.next_position for play in plays], plies=plies)
        if len(theirs) != len(plays):
            raise ValueError(f"evaluate_batch answered {len(theirs)} positions of {len(plays)}")
        ranked = [RankedPlay(play, p.inverted(), plies)
                  for play, p in zip(plays, theirs, strict=True)]
        ranked.sort(key=lambda r: -r.equity)
    if context is not None:
        ranked = rank_at(ranked, context)
    return ranked


@lru_cache(maxsize=64)
def _takes_context(kind: type) -> bool:
    """Whether ``kind``'s own ``rank_plays`` searches at a score (takes ``context``)."""
    return "context" in inspect.signature(kind.rank_plays).parameters  # type: ignore[attr-defined]


def rank_at(ranked: Sequence[RankedPlay], context: CubeInfo,
            efficiency: CubeEfficiency = DEFAULT_EFFICIENCY) -> list[RankedPlay]:
    """``ranked`` valued at ``context`` and ordered again: deepest ply first, then the
    value at the context (ties keep the order given)."""
    valued = [r.at(context, efficiency) for r in ranked]
    valued.sort(key=lambda r: (-r.ply, -r.equity))
    return valued


def choose(evaluator: Evaluator, position: Position, roll: Roll,
           level: BotLevel | str = "expert", rng: random.Random | None = None, *,
           context: CubeInfo | None = None) -> Play:
    """The play a bot of ``level`` makes: the best at the level's depth (at ``context``,
    as :func:`rank_plays` ranks) after its noise (drawn from ``rng``) is added to each
    candidate's equity."""
    level = bot_level(level)
    ranked = rank_plays(evaluator, position, roll, plies=level.plies, context=context)
    if level.noise <= 0 or len(ranked) == 1:
        return ranked[0].play
    rng = rng or random.Random()
    top = ranked[0].ply
    noisy = [(r.equity + rng.gauss(0.0, level.noise), i)
             for i, r in enumerate(ranked) if r.ply == top or level.plies == 0]
    return ranked[max(noisy)[1]].play
