"""Puzzles from real blunders: the analysed decisions of played matches where the player
went wrong and the right answer is clear.

Pure: a puzzle is read from an :class:`~gammon.engine.analysis.Analysis` (its graded
alternatives: :attr:`CheckerDecision.alternatives
<gammon.engine.analysis.CheckerDecision.alternatives>` and :attr:`CubeRecord.options
<gammon.engine.analysis.CubeRecord.options>`), nothing is evaluated again. A decision
becomes a puzzle when

* the answer given in the match lost at least :data:`MIN_ERROR` (valued as the analysis
  grades it: at the decision's score and cube, EMG), and
* the best answer beats the second-best by at least :data:`CLEAR_MARGIN`, both graded at
  the analysis's deepest grade of that decision: for a checker play its ``graded_by`` (the
  analysis's ply, or the rollouts of a rechecked error, which roll out the runner-up too);
  for a cube decision the analysis's ply (the cube is not rolled out).

Each puzzle carries its position (GNU Backgammon Position ID), the dice or the cube
question, its context as a Match ID with the player to answer numbered 0 (:func:`canonical`),
the best answer and the alternatives with their equities, the error made, and its themes:
each a rule of this module on the position and context (:data:`THEMES`). Puzzles with the
same :attr:`Puzzle.key` (same question, position and context) are one, with every
:class:`Source` where it was met.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

from gammon.core.position import Position
from gammon.engine.analysis import ERROR, Analysis, CheckerDecision, CubeRecord
from gammon.formats.match_id import MatchKey

MIN_ERROR = 0.050
"""The least equity (EMG, at the decision's score and cube) the answer given in the match
must have lost for the decision to become a puzzle: above the analysis's ``ERROR`` mark
(0.040), so every puzzle was a real error, most of them blunders."""

CLEAR_MARGIN = ERROR
"""The least margin (EMG) of the best answer over the second-best, both at the decision's
deepest grade (:mod:`gammon.engine.puzzles`): 0.040, the analysis's ``ERROR`` — choosing
the runner-up would itself be marked an error, so a puzzle has one clear answer and
never asks to split hairs the engine cannot split."""

Kind: TypeAlias = Literal["checker", "double", "take"]
"""What a puzzle asks: a checker play for ``dice``, whether to double (``double``, ``no
double``), or how to answer a double (``take``, ``drop``, ``beaver``)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer to a puzzle (a play in the project's notation, or a cube action) and its
    equity for the player to answer, at the puzzle's grade."""

    text: str
    equity: float


@dataclass(frozen=True, slots=True)
class Source:
    """Where a puzzle was met: the decision of a match's analysis (``player`` of the
    match, numbered as the analysis numbers them) and the answer given there."""

    game: int
    move_number: int
    player: int
    played: str
    error: float


@dataclass(frozen=True, slots=True)
class Puzzle:
    kind: Kind
    position_id: str
    """The position as the analysis names it, seen from the side on roll (for a double
    pending, the doubler: as GNU Backgammon writes it with the Match ID)."""
    match_id: str
    """The context (:func:`canonical`): length, score, cube and its owner, Crawford, the
    dice; the player to answer is player 0."""
    dice: str
    """The roll, high die first (``"31"``), or '' for a cube question."""
    answers: tuple[Answer, ...]
    """The graded answers, best first: the first is the puzzle's answer."""
    error: float
    """The most any of its sources lost."""
    graded_by: str
    """The grade of the answers: ``"2-ply"``, ``"rollout 1296 games, 7 plies"``."""
    plies: int
    """The analysis's ply (the grade of an answer not among ``answers``)."""
    themes: tuple[str, ...]
    sources: tuple[Source, ...]

    @property
    def best(self) -> str:
        return self.answers[0].text

    @property
    def margin(self) -> float:
        """The best answer's lead over the second-best."""
        return self.answers[0].equity - self.answers[1].equity

    @property
    def key(self) -> str:
        """What makes two puzzles one: the question, the position and the context."""
        return f"{self.kind} {self.position_id} {self.match_id}"


# -- the context ---------------------------------------------------------------------------


def canonical(match_id: str) -> MatchKey:
    """The decision's Match ID with the player to answer (its ``turn``) as player 0, and
    the dice high first: the same decision at the same score met by either player of any
    match is one key.

    >>> canonical(MatchKey(match_length=5, score=(1, 3), turn=1, dice_owner=1, cube=2,
    ...                    cube_owner=0, dice=(1, 3)).id()).score
    (3, 1)
    """
    key = MatchKey.from_id(match_id)
    dice = None if key.dice is None else (max(key.dice), min(key.dice))
    if key.turn == 0:
        return replace(key, dice=dice)
    return replace(key, dice=dice, turn=0, dice_owner=1 - key.dice_owner,
                   cube_owner=None if key.cube_owner is None else 1 - key.cube_owner,
                   score=(key.score[1], key.score[0]))


# -- themes: each a rule on the position and context ----------------------------------------


@dataclass(frozen=True, slots=True)
class Spot:
    """What the theme rules read: the position seen by the player to answer, the context
    (:func:`canonical`: that player is 0), the question, and how many checker plays the game
    had before it."""

    position: Position
    key: MatchKey
    kind: Kind
    plays_before: int


def _held(position: Position, point: int) -> bool:
    return position.checkers(point) >= 2


def opening(spot: Spot) -> bool:
    """Early in the game: fewer than four checker plays before it."""
    return spot.plays_before < 4


def race(spot: Spot) -> bool:
    """No contact: every checker of each side is past the other's."""
    return spot.position.is_race()


def bear_off(spot: Spot) -> bool:
    """A race in which a side has every checker in its home board or off."""
    p = spot.position
    return p.is_race() and (p.is_bearing_off() or p.swap().is_bearing_off())


def back_game(spot: Spot) -> bool:
    """The player holds two or more points (two or more checkers each) in the opponent's
    home board, with contact."""
    p = spot.position
    return not p.is_race() and sum(_held(p, point) for point in range(19, 25)) >= 2


def holding(spot: Spot) -> bool:
    """An anchor on the opponent's bar, 5 or 4 point (the player's 18, 20, 21), with
    contact, not a back game."""
    p = spot.position
    return (not p.is_race() and not back_game(spot)
            and any(_held(p, point) for point in (18, 20, 21)))


def _traps(position: Position) -> bool:
    """The side on roll holds four or more consecutive points with an opposing checker
    behind them (on a lower point of its numbering, or on the bar)."""
    run = 0
    for point in range(1, 25):
        run = run + 1 if _held(position, point) else 0
        start = point - run + 1
        if run >= 4 and any(position.opponent_checkers(k) for k in range(start)):
            return True
    return False


def priming(spot: Spot) -> bool:
    """A prime of four or more points, of either side, with an opposing checker behind
    it."""
    return _traps(spot.position) or _traps(spot.position.swap())


def _attacks(position: Position) -> bool:
    """The side on roll has an opposing checker on the bar and three or more home-board
    points closed."""
    return position.on_bar()[1] >= 1 and sum(_held(position, q) for q in range(1, 7)) >= 3


def blitz(spot: Spot) -> bool:
    """A side attacks: the other has a checker on the bar against three or more closed
    home-board points."""
    return _attacks(spot.position) or _attacks(spot.position.swap())


def cube_action(spot: Spot) -> bool:
    """The question is whether to double."""
    return spot.kind == "double"


def take_point(spot: Spot) -> bool:
    """The question is how to answer a double."""
    return spot.kind == "take"


def dmp(spot: Spot) -> bool:
    """Double match point: both players one point from winning the match."""
    key = spot.key
    return key.match_length > 0 and key.score == (key.match_length - 1,) * 2


def crawford(spot: Spot) -> bool:
    """The Crawford game."""
    return spot.key.crawford


def _saves(position: Position) -> bool:
    """The side on roll must save the gammon: it has borne off none and has a checker
    outside its home board while the opponent bears off (every checker home or off)."""
    return (position.borne_off()[0] == 0 and not position.is_bearing_off()
            and position.swap().is_bearing_off())


def gammon_save(spot: Spot) -> bool:
    """The player must save the gammon: none borne off, a checker outside the home board,
    and the opponent bearing off."""
    return _saves(spot.position)


def gammon_go(spot: Spot) -> bool:
    """The player goes for the gammon: bearing off while the opponent has borne off none
    and still has a checker outside its home board."""
    return _saves(spot.position.swap())


THEMES: dict[str, Callable[[Spot], bool]] = {
    "opening": opening, "race": race, "bear-off": bear_off, "back-game": back_game,
    "holding": holding, "priming": priming, "blitz": blitz, "cube-action": cube_action,
    "take-point": take_point, "dmp": dmp, "crawford": crawford, "gammon-go": gammon_go,
    "gammon-save": gammon_save,
}
"""Every theme, by its name, and its rule."""


def themes_of(spot: Spot) -> tuple[str, ...]:
    """The themes whose rule holds, in :data:`THEMES`'s order."""
    return tuple(name for name, rule in THEMES.items() if rule(spot))


# -- extraction ----------------------------------------------------------------------------


def _from_checker(d: CheckerDecision, plies: int) -> Puzzle | None:
    if d.forced or d.loss < MIN_ERROR or len(d.alternatives) < 2 or not d.match_id:
        return None
    answers = tuple(Answer(text, equity) for text, equity in d.alternatives)
    if answers[0].text != d.best or answers[0].equity - answers[1].equity < CLEAR_MARGIN:
        return None
    key = canonical(d.match_id)
    position = Position.from_id(d.position_id)
    spot = Spot(position, key, "checker", d.move_number - 1)
    return Puzzle("checker", d.position_id, key.id(), d.roll if d.roll[0] >= d.roll[1]
                  else d.roll[::-1], answers, d.loss, d.graded_by, plies, themes_of(spot),
                  (Source(d.game, d.move_number, d.player, d.played, d.loss),))


def _from_cube(c: CubeRecord, plies: int) -> Puzzle | None:
    if c.loss < MIN_ERROR or len(c.options) < 2 or not c.match_id:
        return None
    answers = tuple(Answer(text, equity) for text, equity in c.options)
    if answers[0].equity - answers[1].equity < CLEAR_MARGIN:
        return None
    kind: Kind = "take" if c.chosen in ("take", "drop", "beaver") else "double"
    key = canonical(c.match_id)
    position = Position.from_id(c.position_id)  # the side on roll's: the doubler's
    spot = Spot(position if kind == "double" else position.swap(), key, kind, c.move_number)
    return Puzzle(kind, c.position_id, key.id(), "", answers, c.loss, f"{plies}-ply", plies,
                  themes_of(spot), (Source(c.game, c.move_number, c.player, c.chosen, c.loss),))


def puzzles_of(analysis: Analysis) -> list[Puzzle]:
    """The puzzles of a match's analysis, in the match's order; a position met twice at the
    same context is one puzzle with both sources."""
    found: dict[str, Puzzle] = {}
    made = ([_from_checker(d, analysis.plies) for d in analysis.decisions]
            + [_from_cube(c, analysis.plies) for c in analysis.cube])
    for puzzle in made:
        if puzzle is None:
            continue
        seen = found.get(puzzle.key)
        found[puzzle.key] = puzzle if seen is None else merge(seen, puzzle)
    return list(found.values())


def merge(first: Puzzle, other: Puzzle) -> Puzzle:
    """One puzzle met again (the same :attr:`Puzzle.key`): the first one's answers, every
    source, the larger error."""
    if first.key != other.key:
        raise ValueError(f"not the same puzzle: {first.key} and {other.key}")
    return replace(first, sources=first.sources + other.sources,
                   error=max(first.error, other.error))
