"""Match equity: a player's chance of winning the match from a score, and what a game's
result is worth at that score.

The numbers are the **Kazaross-XG2** table (Neil Kazaross, 2011: XG rollouts to 9 points, GNU
Backgammon rollouts to 15, extended to 25), as shipped with GNU Backgammon; they live, with
their credit, in :mod:`gammon.engine.data.kazaross_xg2`. Scores are given as points *away*
(points still needed to win), seen from one player, "me", against "the opponent".

>>> match_winning_chance(2, 4)
0.6687
>>> match_winning_chance(4, 2)
0.3313
>>> match_winning_chance(1, 2)                       # the Crawford game, leader 1-away
0.67736
>>> match_winning_chance(2, 1, post_crawford=True)   # after it, the trailer 2-away
0.48803

**Crawford.** Before the Crawford game the table's 1-away row and column hold the values of
the Crawford game itself, so a score where one side is 1-away is taken as the Crawford game
unless ``post_crawford`` says it has been played (1-away/1-away is always post-Crawford). A
game's result is valued as GNU Backgammon's ``getME`` does: from a game before the Crawford
game, a side reaching 1-away starts the Crawford game (pre-Crawford table); from the Crawford
game or later, the post-Crawford table. Matches played without the Crawford rule are valued
as if it were in force.

**Equity and match winning chance.** At a score and a cube value, a game's results are
normalised as in money play: ``+1`` is winning the cube's value as a single game and ``-1``
losing it, so ``mwc = (E + 1) / 2 * (MWC(win) - MWC(lose)) + MWC(lose)`` (GNU Backgammon's
``eq2mwc``) and back (``mwc2eq``):

>>> score = MatchScore(3, 3)
>>> round(eq2mwc(0.0, score), 5), round(mwc2eq(0.5, score), 5)
(0.5, 0.0)
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Final, NamedTuple

from gammon.engine.data import kazaross_xg2 as _table

__all__ = [
    "MAX_AWAY",
    "MET_NAME",
    "MET_SOURCE",
    "GammonValues",
    "MatchEquityError",
    "MatchScore",
    "eq2mwc",
    "gammon_values",
    "match_winning_chance",
    "mwc2eq",
    "post_crawford_mwc",
    "read_gnubg_met",
]

MET_NAME: Final = _table.NAME
"""The table in use: ``"Kazaross-XG2"``."""
MET_SOURCE: Final = _table.SOURCE
"""Where its numbers come from."""
MAX_AWAY: Final = _table.LENGTH
"""The table's reach: scores up to 25-away (matches up to 25 points)."""

_PRE: Final = _table.PRE_CRAWFORD
_POST: Final = _table.POST_CRAWFORD


class MatchEquityError(ValueError):
    """A score the match equity table cannot value (or that no match can reach)."""


def _check_away(name: str, away: object) -> int:
    if isinstance(away, bool) or not isinstance(away, int):
        raise MatchEquityError(f"{name} is a whole number of points, got {away!r}")
    if not 1 <= away <= MAX_AWAY:
        raise MatchEquityError(
            f"{name} must be 1 to {MAX_AWAY} points (the {MET_NAME} table covers matches "
            f"to {MAX_AWAY} points), got {away}"
        )
    return away


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A match score seen by one player: the points each side still needs, and where the
    game about to be played stands with the Crawford rule.

    ``crawford`` is the Crawford game (one side 1-away, no cube); ``post_crawford`` a game
    after it (one side 1-away, cube back in play). A score with one side 1-away and neither
    flag is the Crawford game; 1-away/1-away is post-Crawford.

    >>> MatchScore(1, 3)
    MatchScore(away_me=1, away_opp=3, crawford=True, post_crawford=False)
    >>> MatchScore(3, 1, post_crawford=True).mwc()
    0.32264
    """

    away_me: int
    away_opp: int
    crawford: bool = False
    post_crawford: bool = False

    def __post_init__(self) -> None:
        _check_away("away_me", self.away_me)
        _check_away("away_opp", self.away_opp)
        for name in ("crawford", "post_crawford"):
            if not isinstance(getattr(self, name), bool):
                raise MatchEquityError(f"{name} must be a bool, got {getattr(self, name)!r}")
        one_away = min(self.away_me, self.away_opp) == 1
        if self.crawford and self.post_crawford:
            raise MatchEquityError("a game cannot be both the Crawford game and after it")
        if (self.crawford or self.post_crawford) and not one_away:
            flag = "the Crawford game" if self.crawford else "post-Crawford"
            raise MatchEquityError(
                f"{flag} needs a side 1-away, got {self.away_me}-away/{self.away_opp}-away")
        if self.away_me == self.away_opp == 1:
            if self.crawford:
                raise MatchEquityError("1-away/1-away is never the Crawford game: the Crawford "
                                       "game is played when the first side reaches 1-away")
            object.__setattr__(self, "post_crawford", True)
        elif one_away and not self.post_crawford:
            object.__setattr__(self, "crawford", True)

    @property
    def is_crawford_or_later(self) -> bool:
        """A side is 1-away: the Crawford game or a game after it."""
        return self.crawford or self.post_crawford

    def mwc(self) -> float:
        """My chance of winning the match from this score, before the game."""
        if self.post_crawford:
            if self.away_me == 1:
                return 1.0 - _POST[self.away_opp - 1]
            return _POST[self.away_me - 1]
        return _PRE[self.away_me - 1][self.away_opp - 1]

    def after(self, points: int, *, i_win: bool) -> float:
        """My match winning chance once this game is over and its winner (me if ``i_win``)
        has scored ``points``.

        >>> MatchScore(3, 3).after(2, i_win=True)    # 1-away/3-away: the Crawford game next
        0.75076
        >>> MatchScore(2, 2).after(4, i_win=False)
        0.0
        """
        me = self.away_me - (points if i_win else 0)
        opp = self.away_opp - (0 if i_win else points)
        if me <= 0:
            return 1.0
        if opp <= 0:
            return 0.0
        if self.is_crawford_or_later:
            # the next game is post-Crawford: the leader is still (or now) 1-away
            if me == 1:
                return 1.0 - _POST[opp - 1]
            return _POST[me - 1]
        return _PRE[me - 1][opp - 1]

    def swap(self) -> MatchScore:
        """The same score seen by the opponent."""
        return MatchScore(self.away_opp, self.away_me, self.crawford, self.post_crawford)

    @classmethod
    def from_score(cls, length: int, mine: int, theirs: int, *, crawford: bool) -> MatchScore:
        """From points scored in a match to ``length``; ``crawford`` is the Match ID's flag
        (this game is the Crawford game), so a side 1-away without it is post-Crawford.

        >>> MatchScore.from_score(7, 6, 3, crawford=False)
        MatchScore(away_me=1, away_opp=4, crawford=False, post_crawford=True)
        """
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise MatchEquityError(f"a match length is a positive number of points, "
                                   f"got {length!r}")
        for points in (mine, theirs):
            if isinstance(points, bool) or not isinstance(points, int) or not 0 <= points < length:
                raise MatchEquityError(f"a score in a {length}-point match is 0 to {length - 1}, "
                                       f"got {points!r}")
        me, opp = length - mine, length - theirs
        one_away = min(me, opp) == 1
        if crawford and not one_away:
            raise MatchEquityError(f"the Crawford game needs a side 1-away, got "
                                   f"{mine}-{theirs} in a {length}-point match")
        return cls(me, opp, crawford=crawford and not me == opp == 1,
                   post_crawford=one_away and not crawford)


def match_winning_chance(away_me: int, away_opp: int, *, crawford: bool = False,
                         post_crawford: bool = False) -> float:
    """My chance of winning the match when I need ``away_me`` points and the opponent
    ``away_opp`` (both 1 to 25), before the next game.

    With one side 1-away the game is the Crawford game unless ``post_crawford`` is set
    (``crawford=True`` says so explicitly and refuses a score with nobody 1-away).

    >>> match_winning_chance(5, 5)
    0.5
    >>> match_winning_chance(1, 4, crawford=True)
    0.81436
    """
    return MatchScore(away_me, away_opp, crawford, post_crawford).mwc()


def post_crawford_mwc(trailer_away: int) -> float:
    """The trailer's chance after the Crawford game, the leader being 1-away.

    The trailer doubles at once (the leader's cube is dead), so 2-away is worth barely less
    than 1-away/1-away: the leader's *free drop* of the first double (dropping 2-away →
    1-away costs nothing) is what the 0.5 - 0.48803 difference measures; likewise 4-away is
    close to 3-away.

    >>> post_crawford_mwc(1), post_crawford_mwc(2), post_crawford_mwc(3)
    (0.5, 0.48803, 0.32264)
    """
    return _POST[_check_away("trailer_away", trailer_away) - 1]


def _win_lose(score: MatchScore, cube: int) -> tuple[float, float]:
    if isinstance(cube, bool) or not isinstance(cube, int) or cube < 1:
        raise MatchEquityError(f"a cube value is a positive whole number, got {cube!r}")
    return score.after(cube, i_win=True), score.after(cube, i_win=False)


def eq2mwc(equity: float, score: MatchScore, cube: int = 1) -> float:
    """Match winning chance of a normalised equity at ``score`` with the cube at ``cube``
    (``+1``: I win ``cube`` points, ``-1``: I lose them; linear between and beyond).

    >>> eq2mwc(1.0, MatchScore(2, 2)), eq2mwc(-1.0, MatchScore(2, 2))
    (0.67736, 0.32264)
    """
    win, lose = _win_lose(score, cube)
    return (equity + 1.0) / 2.0 * (win - lose) + lose


def mwc2eq(mwc: float, score: MatchScore, cube: int = 1) -> float:
    """The normalised equity of a match winning chance (the inverse of :func:`eq2mwc`).

    >>> mwc2eq(0.67736, MatchScore(2, 2))
    1.0
    """
    win, lose = _win_lose(score, cube)
    if win == lose:
        raise MatchEquityError("no result of this game changes the match winning chance")
    return 2.0 * (mwc - lose) / (win - lose) - 1.0


class GammonValues(NamedTuple):
    """What gammons and backgammons add, in the usual convention: the extra match winning
    chance of a gammon (backgammon) over a single game, divided by the spread between winning
    and losing a single game at that cube. Money play: 0.5 and 1.0 on both sides.
    (GNU Backgammon's "gammon price" is twice these.)"""

    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float


def gammon_values(score: MatchScore, cube: int = 1) -> GammonValues:
    """The gammon values at ``score`` with the cube at ``cube``.

    At 2-away/4-away my gammon wins the match, so a backgammon adds nothing to it:

    >>> [round(v, 4) for v in gammon_values(MatchScore(2, 4))]
    [0.8639, 0.8639, 0.4629, 1.2882]
    """
    win, lose = _win_lose(score, cube)
    spread = win - lose
    if spread <= 0.0:
        return GammonValues(0.0, 0.0, 0.0, 0.0)

    def gain(points: int) -> float:
        return max(0.0, (score.after(points * cube, i_win=True) - win) / spread)

    def loss(points: int) -> float:
        return max(0.0, (lose - score.after(points * cube, i_win=False)) / spread)

    return GammonValues(gain(2), gain(3), loss(2), loss(3))


def read_gnubg_met(path: str | Path) -> tuple[str, tuple[tuple[float, ...], ...],
                                              tuple[float, ...]]:
    """Read a GNU Backgammon match equity file (``met/*.xml``) with explicit tables.

    Returns its name, the pre-Crawford table (rows: my points away, columns: the
    opponent's) and the post-Crawford row (the trailer's chances). This is how the shipped
    table was transcribed; it reads only explicit tables, not parametrised ones.
    """
    root = ElementTree.parse(path).getroot()
    info = root.find("info")
    name = (info.findtext("name") if info is not None else None) or Path(path).stem
    pre_table = root.find("pre-crawford-table")
    post_table = root.find("post-crawford-table")
    if pre_table is None or post_table is None:
        raise MatchEquityError(f"{path}: not a GNU Backgammon match equity table")
    for table in (pre_table, post_table):
        if table.get("type", "explicit") != "explicit":
            raise MatchEquityError(f"{path}: only explicit tables can be read, "
                                   f"not {table.get('type')!r}")

    def values(row: ElementTree.Element) -> tuple[float, ...]:
        return tuple(float((me.text or "").strip()) for me in row.findall("me"))

    pre = tuple(values(row) for row in pre_table.findall("row"))
    post_row = post_table.find("row")
    if post_row is None:
        raise MatchEquityError(f"{path}: the post-Crawford table has no row")
    return name, pre, values(post_row)
