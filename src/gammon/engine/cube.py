"""Cube decisions: cubeful equities from the engine's cubeless probabilities, for money play
and at every match score, and when to resign or accept a resignation (RULES.md §5, §6).

The method is Rick Janowski's, as GNU Backgammon applies it (``Cl2CfMoney`` and
``Cl2CfMatch`` in its ``eval.c``): the cubeful value of a position is interpolated between

* the **dead cube** — the cubeless value, every game played out at the cube's present value;
* the **live cube** — the value if every cube turn came exactly at the take point: a piecewise
  linear function of the winning chance ``p`` through the cash points of the sides that may
  double, with the average value of a win and of a loss (gammon rates held fixed)

by the **cube efficiency** ``x``: ``cubeful = x * live + (1 - x) * dead``. Positions are first
evaluated at the requested ply by any :class:`~gammon.engine.evaluator.Evaluator` (the
engine), then converted; the cube itself is not searched ply by ply as GNU Backgammon's
cubeful search does.

**Money.** Janowski's closed forms, with ``W`` and ``L`` the average cubeless value of a win and
of a loss: live take point ``TP = (L - 1/2) / (W + L + 1/2)``, cash point
``CP = (L + 1) / (W + L + 1/2)``. Centred cube: ``-L`` at ``p = 0`` to ``-1`` at ``TP``, ``+1``
at ``CP``, ``+W`` at ``p = 1``; a cube I own drops the ``TP`` corner, one the opponent owns the
``CP`` corner. With the **Jacoby rule** and a centred cube gammons count for nothing (dead cube)
and the live cube is flat beyond the cash points (the side that is too good must double to
score a gammon). Equities are in units of the present cube: double/pass is ``+1``.

**Match.** The same in match winning chances (MWC) from the match equity table
(:mod:`gammon.engine.met`): the live cube joins the MWC of losing (gammons weighted) at
``p = 0``, of the opponent cashing at his cash point, of my cashing at mine, and of winning
(weighted) at ``p = 1``. Cash points come from the score: a dead cube's is where taking and
passing are worth the same to the taker; below that level each cash point comes from the
next one, ``CP(me, c) = 1 - CP(opp, 2c) * (DP - DTW) / (RDP - DTW)`` (my double/pass,
double/take win and redouble/pass MWCs), a recursion over cube levels that ends where the
taker's cube would be dead: his own single win at the doubled value wins the match, or the
cube would pass 64. That end includes the **automatic redouble** (a taker far from the end
redoubles at once when the doubler is within reach of the match, since the doubler can no
longer use the cube) exactly as GNU Backgammon's "cube prime" does. At 2-away/2-away the
first double makes it double match point, so holding the cube has no live value and
no-double is valued dead (GNU Backgammon does the same). Match equities are shown
normalised at the present cube (``mwc2eq``), and as MWC.

Checked against GNU Backgammon 1.07 at 0-ply: fed its own probabilities, these functions
give its no-double, double/take and double/pass equities to its 5 printed decimals, and the
same proper cube action, over some 600 positions at money (centred, owned, Jacoby) and match
scores from 3 to 25 points, Crawford and post-Crawford included (a sample is in the tests).

**Rules.** No cube in the Crawford game. A side whose single win at the present cube already
wins the match has a **dead cube**: doubling cannot gain, so it never doubles (the
post-Crawford leader's cube is dead, which is why the trailer doubles at the first chance:
the live and dead valuations then give double/take or too-good, never no-double — see the
tests). The cube stops at 64. **Beavers** (money, where enabled): the receiver of a double
beavers when taking is better than even for him; he then owns the cube at four times the
value (GNU Backgammon also asks that double/take lie between -2 and 0 for the doubler; here a
beaver is the answer whenever it is worth more to the receiver than taking). Decisions, for
the side on roll before rolling, with ``ND``, ``DT``, ``DP`` (and ``DB``
for a beaver) its equities: double when the receiver's best answer still leaves
``min(DT, DP, DB) >= ND``, as double/take or double/pass by that answer; otherwise *too good*
when ``ND >= DP`` (playing on for the gammon beats cashing), as too-good/take or
too-good/pass by the answer a double would get; otherwise no double.

**Cube efficiency** (``x``), GNU Backgammon's defaults: 0.68 in contact positions (its
crashed-board class uses the same); in races ``0.55 + 0.00125 * pips`` of the side on roll,
held between 0.6 and 0.7 (a long race keeps the cube nearly as live as a contact position,
the last rolls of a short one make it all-or-nothing); 0.6 when both sides are bearing off.
So races are not *more* efficient than contact here: at most 0.7, from 120 pips up.
These figures are the fields of :class:`CubeEfficiency`, whose default
(:data:`DEFAULT_EFFICIENCY`) every function here uses unless given another one; a crashed
position (the engine's class, :func:`gammon.engine.expert.is_crashed`) has a value of its
own there, by default the contact one.

>>> from gammon.engine.player import Probabilities
>>> decision = cube_decision(Probabilities(0.72, 0.0, 0.0, 0.0, 0.0), CubeInfo())
>>> decision.action, round(decision.no_double, 3), round(decision.double_take, 3)
(<CubeAction.DOUBLE_TAKE: 'double-take'>, 0.639, 0.69)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Final, Protocol, TypeAlias

import numpy as np

from gammon.core.cube import MAX_CUBE, Cube, Level, counted_level, win_level
from gammon.engine import cubeful
from gammon.engine.met import MatchScore, mwc2eq

if TYPE_CHECKING:
    from gammon.core.dice import Roll
    from gammon.core.position import Position
    from gammon.engine.evaluator import Evaluator
    from gammon.formats.match_id import MatchKey

__all__ = [
    "BEAROFF_EFFICIENCY",
    "CONTACT_EFFICIENCY",
    "DEFAULT_EFFICIENCY",
    "GNUBG_EFFICIENCY",
    "CubeAction",
    "CubeDecision",
    "CubeEfficiency",
    "CubeError",
    "CubeInfo",
    "Owner",
    "ResignDecision",
    "Response",
    "TakeDecision",
    "accept_resignation",
    "analyse_cube",
    "analyse_resignation",
    "analyse_resignation_offer",
    "analyse_take",
    "cube_decision",
    "cube_efficiency",
    "cubeful_equity",
    "cubeful_mwc",
    "efficiency_for",
    "exact_cube_decision",
    "filter_weights",
    "play_equities",
    "play_equity",
    "race_efficiency",
    "resign_equity",
    "resignation_offer",
    "take_decision",
]

CONTACT_EFFICIENCY: Final = 0.68
"""Cube efficiency of contact (and crashed) positions."""
BEAROFF_EFFICIENCY: Final = 0.6
"""Cube efficiency when both sides are bearing off."""
RACE_EFFICIENCY_BASE: Final = 0.55
RACE_EFFICIENCY_PER_PIP: Final = 0.00125
RACE_EFFICIENCY_MIN: Final = 0.6
RACE_EFFICIENCY_MAX: Final = 0.7

RESIGN_TOLERANCE: Final = 0.01
"""How close (normalised equity, in cubes) playing on and resigning must be for the bot to
offer a resignation: the game is lost at that level."""

_SLACK: Final = 1e-6  # how far hand-made or network probabilities may stray before refusal


class CubeError(ValueError):
    """A cube state or a set of probabilities that no decision can be made for."""


class Owner(StrEnum):
    """Who holds the cube, seen from the side on roll."""

    CENTRED = "centred"
    ME = "me"
    OPPONENT = "opponent"


class CubeAction(StrEnum):
    """The right cube action of the side on roll before it rolls."""

    NO_DOUBLE = "no-double"
    DOUBLE_TAKE = "double-take"
    DOUBLE_PASS = "double-pass"
    TOO_GOOD_TAKE = "too-good-take"
    """Too good to double (playing on beats cashing); a double would be taken."""
    TOO_GOOD_PASS = "too-good-pass"
    """Too good to double (playing on beats cashing); a double would be passed."""

    @property
    def doubles(self) -> bool:
        return self in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS)


class Response(StrEnum):
    """The right answer to a double."""

    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


class Outcomes(Protocol):
    """Cubeless probabilities of the side on roll, before it rolls, each unconditional
    (what :class:`gammon.engine.player.Probabilities` holds)."""

    @property
    def win(self) -> float: ...
    @property
    def win_gammon(self) -> float: ...
    @property
    def win_backgammon(self) -> float: ...
    @property
    def lose_gammon(self) -> float: ...
    @property
    def lose_backgammon(self) -> float: ...


# -- cube efficiency --------------------------------------------------------------------------


def _check_efficiency(efficiency: float) -> float:
    if not 0.0 <= efficiency <= 1.0:
        raise CubeError(f"cube efficiency is from 0 (dead) to 1 (fully live), got {efficiency}")
    return float(efficiency)


@dataclass(frozen=True, slots=True)
class CubeEfficiency:
    """The cube efficiency of each class of position: ``contact``, ``crashed`` (contact where
    a side has few active checkers, the engine's class), races ``race_base + race_per_pip *
    pips`` of the side on roll held between ``race_min`` and ``race_max``, and ``bearoff``
    when both sides are bearing off. The default is GNU Backgammon's.

    >>> CubeEfficiency().race(100)
    0.675
    >>> round(CubeEfficiency().shifted_race(0.05).race(100), 6)
    0.725
    """

    contact: float = CONTACT_EFFICIENCY
    crashed: float = CONTACT_EFFICIENCY
    race_base: float = RACE_EFFICIENCY_BASE
    race_per_pip: float = RACE_EFFICIENCY_PER_PIP
    race_min: float = RACE_EFFICIENCY_MIN
    race_max: float = RACE_EFFICIENCY_MAX
    bearoff: float = BEAROFF_EFFICIENCY

    def __post_init__(self) -> None:
        for name in ("contact", "crashed", "race_min", "race_max", "bearoff"):
            _check_efficiency(getattr(self, name))
        if self.race_min > self.race_max:
            raise CubeError(f"race_min {self.race_min} is above race_max {self.race_max}")

    def race(self, pips: int) -> float:
        """A race with ``pips`` to go for the side on roll (not both bearing off)."""
        x = self.race_base + self.race_per_pip * pips
        return min(self.race_max, max(self.race_min, x))

    def shifted_race(self, offset: float) -> CubeEfficiency:
        """The same, with every race value (bear-offs included) moved by ``offset``."""
        return replace(self, race_base=self.race_base + offset,
                       race_min=self.race_min + offset, race_max=self.race_max + offset,
                       bearoff=self.bearoff + offset)

    def of(self, position: Position) -> float:
        """The efficiency for ``position``, by its class."""
        if not position.is_race():
            if self.crashed != self.contact:
                from gammon.engine.expert import is_crashed  # numba: only when it matters

                if is_crashed(position.array()):
                    return self.crashed
            return self.contact
        if position.is_bearing_off() and position.swap().is_bearing_off():
            return self.bearoff
        return self.race(position.pips()[0])


    def of_boards(self, boards: np.ndarray, count: int) -> np.ndarray:
        """:meth:`of` the positions plays leave: ``boards[i]`` (``i < count``) is the board
        after play ``i`` in the mover's view (``Position.array()``'s layout), the opponent
        on roll."""
        x = np.empty(count, dtype=np.float64)
        cubeful.board_efficiencies(boards, count, self.contact, self.race_base,
                                   self.race_per_pip, self.race_min, self.race_max,
                                   self.bearoff, x)
        if self.crashed != self.contact:
            from gammon.core.position import Position

            for i in range(count):
                if x[i] == self.contact:  # contact or a race valued the same: ask again
                    x[i] = self.of(Position.from_board(boards[i].tolist()).swap())
        return x


GNUBG_EFFICIENCY: Final = CubeEfficiency()
"""GNU Backgammon's cube efficiencies (the reference the tests check against)."""
DEFAULT_EFFICIENCY: Final = GNUBG_EFFICIENCY
"""What the engine and the bot use: GNU Backgammon's, rechecked with the second-generation
networks (docs/journal/training-journal.md, "Cube and resignations with the second
generation")."""


def race_efficiency(pips: int) -> float:
    """Cube efficiency of a race with ``pips`` to go for the side on roll (the default).

    >>> race_efficiency(20), race_efficiency(100), race_efficiency(160)
    (0.6, 0.675, 0.7)
    """
    return DEFAULT_EFFICIENCY.race(pips)


def cube_efficiency(position: Position,
                    efficiency: CubeEfficiency = DEFAULT_EFFICIENCY) -> float:
    """The cube efficiency for ``position`` (see the module doc), by default GNU
    Backgammon's.

    >>> from gammon.core.position import Position
    >>> cube_efficiency(Position.initial())
    0.68
    >>> cube_efficiency(Position.initial(), CubeEfficiency(contact=0.6))
    0.6
    """
    return efficiency.of(position)


# -- the cube as the side on roll sees it ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class CubeInfo:
    """The cube, the score and the options, seen from the side on roll before it rolls.

    ``score`` is None for money play. ``jacoby`` and ``beavers`` are money options. With a
    double pending, this is the doubler's view with the cube before the double. ``in_use``
    is False in a game played without the cube (the rules' option, or GNU Backgammon's
    ``set cube use off``): neither side may ever double, so every value is cubeless.

    >>> CubeInfo.match(3, 5).may_double()
    True
    >>> CubeInfo.match(1, 5).may_double()       # the Crawford game
    False
    >>> CubeInfo.match(2, 5, 2, Owner.ME).is_dead_for_me()
    True
    >>> CubeInfo.money(in_use=False).may_double()
    False
    """

    value: int = 1
    owner: Owner = Owner.CENTRED
    score: MatchScore | None = None
    jacoby: bool = False
    beavers: bool = False
    in_use: bool = True

    def __post_init__(self) -> None:
        if (isinstance(self.value, bool) or not isinstance(self.value, int)
                or self.value < 1 or self.value > MAX_CUBE or self.value & (self.value - 1)):
            raise CubeError(f"the cube shows a power of two from 1 to {MAX_CUBE}, "
                            f"got {self.value!r}")
        try:
            object.__setattr__(self, "owner", Owner(self.owner))
        except ValueError:
            raise CubeError(f"the cube's owner is one of {', '.join(Owner)}, "
                            f"got {self.owner!r}") from None
        if self.owner is Owner.CENTRED and self.value != 1:
            raise CubeError(f"a centred cube shows 1, got {self.value}")
        if self.score is not None:
            if not isinstance(self.score, MatchScore):
                raise CubeError(f"score is a MatchScore or None, got {self.score!r}")
            if self.jacoby or self.beavers:
                raise CubeError("the Jacoby rule and beavers are money-play options")
            if self.score.crawford and (self.value != 1 or self.owner is not Owner.CENTRED):
                raise CubeError("the cube is out of play in the Crawford game: it stays "
                                "centred at 1")

    @classmethod
    def money(cls, value: int = 1, owner: Owner | str = Owner.CENTRED, *, jacoby: bool = False,
              beavers: bool = False, in_use: bool = True) -> CubeInfo:
        """A money game (``in_use=False``: played without the cube)."""
        return cls(value, Owner(owner), None, jacoby, beavers, in_use)

    @classmethod
    def match(cls, away_me: int, away_opp: int, value: int = 1,
              owner: Owner | str = Owner.CENTRED, *, crawford: bool = False,
              post_crawford: bool = False, in_use: bool = True) -> CubeInfo:
        """A match game; the side on roll needs ``away_me`` points, the opponent ``away_opp``
        (one side 1-away: the Crawford game unless ``post_crawford``; ``in_use=False``: a
        match played without the cube)."""
        return cls(value, Owner(owner), MatchScore(away_me, away_opp, crawford, post_crawford),
                   in_use=in_use)

    @classmethod
    def from_match_key(cls, key: MatchKey, *, beavers: bool = False) -> CubeInfo:
        """The view of ``key.dice_owner`` (the side on roll, the doubler if a double is
        pending). The Match ID's Jacoby bit counts in money play only; beavers are not in a
        Match ID and come from the caller."""
        me = key.dice_owner
        if key.cube_owner is None:
            owner = Owner.CENTRED
        else:
            owner = Owner.ME if key.cube_owner == me else Owner.OPPONENT
        if key.cube > MAX_CUBE:
            raise CubeError(f"the cube stops at {MAX_CUBE}, the Match ID shows {key.cube}")
        if key.match_length == 0:
            return cls(key.cube, owner, None, key.jacoby, beavers)
        score = MatchScore.from_score(key.match_length, key.score[me], key.score[1 - me],
                                      crawford=key.crawford)
        return cls(key.cube, owner, score)

    @property
    def is_money(self) -> bool:
        return self.score is None

    def counted(self, level: Level) -> Level:
        """What a game won at ``level`` scores here, as a level (the core's
        :func:`~gammon.core.cube.counted_level`: single under the Jacoby rule while the cube
        is centred)."""
        return counted_level(level, jacoby=self.jacoby, centred=self.owner is Owner.CENTRED)

    def _may(self, holder: Owner) -> bool:
        if not self.in_use or (self.score is not None and self.score.crawford):
            return False
        # the core's rule, with the side on roll as player 0
        cube = Cube(self.value, None if self.owner is Owner.CENTRED else
                    0 if self.owner is Owner.ME else 1)
        return cube.may_double(0 if holder is Owner.ME else 1)

    def may_double(self) -> bool:
        """The side on roll may legally double: no Crawford game, the cube centred or its
        own, below 64."""
        return self._may(Owner.ME)

    def opponent_may_double(self) -> bool:
        """The opponent could double on its turn (same rules)."""
        return self._may(Owner.OPPONENT)

    def is_dead_for_me(self) -> bool:
        """Match play: a single win at the present cube already wins me the match, so my
        doubling cannot gain."""
        return self.score is not None and self.score.away_me <= self.value

    def is_dead_for_opponent(self) -> bool:
        """Match play: the opponent's single win at the present cube wins him the match."""
        return self.score is not None and self.score.away_opp <= self.value

    def _can_use(self, holder: Owner) -> bool:
        dead = self.is_dead_for_me() if holder is Owner.ME else self.is_dead_for_opponent()
        return self._may(holder) and not dead

    def after_take(self) -> CubeInfo:
        """My double taken: twice the value, the opponent's cube."""
        return replace(self, value=self.value * 2, owner=Owner.OPPONENT)

    def after_beaver(self) -> CubeInfo:
        """My double beavered: four times the value, the opponent's cube."""
        return replace(self, value=self.value * 4, owner=Owner.OPPONENT)

    def swap(self) -> CubeInfo:
        """The same cube seen by the opponent."""
        owner = {Owner.CENTRED: Owner.CENTRED, Owner.ME: Owner.OPPONENT,
                 Owner.OPPONENT: Owner.ME}[self.owner]
        score = None if self.score is None else self.score.swap()
        return CubeInfo(self.value, owner, score, self.jacoby, self.beavers, self.in_use)

    def describe(self) -> str:
        """One line: the score and the cube, e.g. ``'money, cube 1 centred'``."""
        if self.score is None:
            game = "money" + (", Jacoby" if self.jacoby else "") + (
                ", beavers" if self.beavers else "")
        else:
            s = self.score
            game = f"{s.away_me}-away/{s.away_opp}-away" + (
                " (Crawford game)" if s.crawford else " (post-Crawford)" if s.post_crawford
                else "")
        if not self.in_use:
            return f"{game}, no cube"
        holder = "centred" if self.owner is Owner.CENTRED else f"owned by {self.owner}"
        return f"{game}, cube {self.value} {holder}"


# -- probabilities ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcomes:
    """Checked probabilities split into the six disjoint results of a game."""

    win: float
    win_single: float
    win_gammon: float  # gammon but not backgammon
    win_backgammon: float
    lose_single: float
    lose_gammon: float
    lose_backgammon: float


def _outcomes(probabilities: Outcomes) -> _Outcomes:
    try:
        p, wg, wbg, lg, lbg = (float(probabilities.win), float(probabilities.win_gammon),
                               float(probabilities.win_backgammon),
                               float(probabilities.lose_gammon),
                               float(probabilities.lose_backgammon))
    except (AttributeError, TypeError) as error:
        raise CubeError(f"expected cubeless probabilities (win, win_gammon, win_backgammon, "
                        f"lose_gammon, lose_backgammon), got {probabilities!r}") from error
    checks = ((0.0 <= p <= 1.0, "win is a probability"),
              (0.0 <= wbg <= wg <= p, "0 <= win_backgammon <= win_gammon <= win"),
              (0.0 <= lbg <= lg <= 1.0 - p, "0 <= lose_backgammon <= lose_gammon <= 1 - win"))
    for ok, rule in checks:
        if not ok:
            strays = (-p, p - 1, -wbg, wbg - wg, wg - p, -lbg, lbg - lg, lg - (1 - p))
            if max(strays) > _SLACK:
                raise CubeError(f"inconsistent probabilities ({rule}): {p}, {wg}, {wbg}, "
                                f"{lg}, {lbg}")
    p = min(1.0, max(0.0, p))
    wg = min(p, max(0.0, wg))
    wbg = min(wg, max(0.0, wbg))
    lg = min(1.0 - p, max(0.0, lg))
    lbg = min(lg, max(0.0, lbg))
    return _Outcomes(p, p - wg, wg - wbg, wbg, 1.0 - p - lg, lg - lbg, lbg)


# -- the conversion (compiled in gammon.engine.cubeful) --------------------------------------


def _array(o: _Outcomes) -> np.ndarray:
    return np.array((o.win, o.win_single, o.win_gammon, o.win_backgammon, o.lose_single,
                     o.lose_gammon, o.lose_backgammon), dtype=np.float64)


def _money_flags(info: CubeInfo) -> tuple[bool, bool, bool]:
    """Gammons count single (Jacoby, centred cube); the side on roll / the opponent may
    double."""
    return (info.counted(Level.GAMMON) is Level.SINGLE, info.may_double(),
            info.opponent_may_double())


def _money(o: _Outcomes, info: CubeInfo, x: float) -> float:
    """Cubeful money equity of the side on roll, in units of the present cube."""
    return float(cubeful.money_value(_array(o), *_money_flags(info), x))


def _match_args(info: CubeInfo) -> tuple[np.ndarray, np.ndarray, int, bool, bool]:
    """The match score, the cube level and who can use the cube, as the kernel takes them."""
    score = info.score
    assert score is not None
    return (cubeful.after_table(score), np.array((score.away_me, score.away_opp)),
            info.value.bit_length() - 1, info._can_use(Owner.ME), info._can_use(Owner.OPPONENT))


def _match(o: _Outcomes, info: CubeInfo, x: float) -> float:
    """Cubeful MWC of the side on roll."""
    return float(cubeful.match_value(_array(o), *_match_args(info), x))


def cubeful_mwc(probabilities: Outcomes, info: CubeInfo, *,
                efficiency: float = CONTACT_EFFICIENCY) -> float:
    """Match winning chance of the side on roll, cube included (match play only).

    >>> from gammon.engine.player import Probabilities
    >>> cubeful_mwc(Probabilities(0.5, 0.0, 0.0, 0.0, 0.0), CubeInfo.match(1, 1))
    0.5
    """
    if info.score is None:
        raise CubeError("match winning chances need a match score; this is money play")
    return _match(_outcomes(probabilities), info, _check_efficiency(efficiency))


def cubeful_equity(probabilities: Outcomes, info: CubeInfo, *,
                   efficiency: float = CONTACT_EFFICIENCY) -> float:
    """Cubeful equity of the side on roll, normalised to the present cube (money: points per
    cube; match: ``mwc2eq`` of :func:`cubeful_mwc`)."""
    o = _outcomes(probabilities)
    x = _check_efficiency(efficiency)
    if info.score is None:
        return _money(o, info, x)
    return mwc2eq(_match(o, info, x), info.score, info.value)


def play_equity(probabilities: Outcomes, info: CubeInfo, after: Position, *,
                efficiency: CubeEfficiency = DEFAULT_EFFICIENCY) -> float:
    """The cubeful value of a checker play for the side that made it: ``probabilities`` are
    its cubeless chances after the play, ``info`` its view of the cube and score before the
    play, ``after`` the position the play leaves with the opponent on roll. It is the
    opponent's cubeful equity there (the cube efficiency of ``after``), negated, normalised
    to the present cube: in a match, the mover's match winning chance as ``mwc2eq`` shows it.

    This is how GNU Backgammon values the plays of a roll at the score at 0-ply: at 2-away
    against 6-away a gammon is worth little to the leader and much to the trailer, and the
    order of the plays follows.

    >>> from gammon.engine.player import Probabilities
    >>> from gammon.core.position import Position
    >>> gammonish = Probabilities(0.6, 0.3, 0.0, 0.1, 0.0)
    >>> safe = Probabilities(0.65, 0.05, 0.0, 0.02, 0.0)
    >>> after = Position.initial()
    >>> money = CubeInfo()
    >>> play_equity(gammonish, money, after) > play_equity(safe, money, after)
    True
    >>> crawford = CubeInfo.match(1, 5)    # the leader in the Crawford game: gammons worthless
    >>> play_equity(gammonish, crawford, after) > play_equity(safe, crawford, after)
    False
    """
    o = _outcomes(probabilities)  # checked: a refusal names what is wrong
    chances = np.array(((o.win, o.win - o.win_single, o.win_backgammon,
                         o.lose_gammon + o.lose_backgammon, o.lose_backgammon),))
    x = np.array((_check_efficiency(efficiency.of(after)),))
    return float(play_equities(chances, info, x)[0])


@lru_cache(maxsize=4096)
def filter_weights(info: CubeInfo) -> np.ndarray:
    """Weights of the mover's (win, win gammon, win backgammon, lose gammon, lose
    backgammon) after a play whose sum is its cubeless value at ``info``, normalised to the
    cube, less a constant: what the search's move filter compares at a match score
    (:func:`gammon.engine.search.rank_plays_weighted`). Money: 2, 1, 1, -1, -1 (0 for
    gammons under the Jacoby rule with the cube centred); a match: each extra point's
    match winning chance, through the match equity table.

    >>> filter_weights(CubeInfo.match(1, 5)).round(3).tolist()  # the Crawford leader
    [2.0, 0.0, 0.0, -0.081, -1.067]
    """
    score = info.score
    if score is None:
        g = 0.0 if info.counted(Level.GAMMON) is Level.SINGLE else 1.0
        return np.array((2.0, g, g, -g, -g))
    wins = [score.after(m * info.value, i_win=True) for m in (1, 2, 3)]
    losses = [score.after(m * info.value, i_win=False) for m in (1, 2, 3)]
    scale = 2.0 / (wins[0] - losses[0])
    return np.array((2.0, scale * (wins[1] - wins[0]), scale * (wins[2] - wins[1]),
                     scale * (losses[1] - losses[0]), scale * (losses[2] - losses[1])))


_NO_TABLE = np.zeros((2, cubeful.LEVELS, 3, 2))
_NO_AWAYS = np.zeros(2, dtype=np.int64)


def play_equities(chances: np.ndarray, info: CubeInfo, efficiencies: np.ndarray) -> np.ndarray:
    """:func:`play_equity` of many plays of one decision at once: ``chances[i]`` the mover's
    cubeless probabilities after play ``i`` (win, win gammon, win backgammon, lose gammon,
    lose backgammon), ``efficiencies[i]`` the cube efficiency of the position it leaves."""
    out = np.empty(len(chances), dtype=np.float64)
    cubeful.play_values(chances, efficiencies, *_after_play_args(info), out)
    return out


@lru_cache(maxsize=4096)
def _after_play_args(info: CubeInfo) -> tuple[bool, bool, bool, bool, np.ndarray, np.ndarray,
                                              int, float, float]:
    """:func:`gammon.engine.cubeful.play_values`'s cube arguments for a decision at
    ``info``: the opponent's view, on roll after the play (one context serves many
    decisions)."""
    theirs = info.swap()
    if info.score is None:
        jacoby, opponent_may, mover_may = _money_flags(theirs)
        return (True, jacoby, opponent_may, mover_may, _NO_TABLE, _NO_AWAYS, 0, 0.0, 0.0)
    table, aways, level, opponent_can, mover_can = _match_args(theirs)
    return (False, False, opponent_can, mover_can, table, aways, level,
            info.score.after(info.value, i_win=True), info.score.after(info.value, i_win=False))


# -- decisions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The cube analysis of the side on roll, before it rolls.

    Equities are normalised to the present cube (double/pass is ``+1``); in match play the
    ``mwc_*`` fields give the same as match winning chances. ``double_*`` are None when the
    side may not double (``reason`` says why); ``double_beaver`` only where beavers are on.
    ``response`` is the opponent's right answer to a double.
    """

    action: CubeAction
    response: Response | None
    no_double: float
    double_take: float | None
    double_pass: float | None
    double_beaver: float | None
    mwc_no_double: float | None
    mwc_double_take: float | None
    mwc_double_pass: float | None
    reason: str | None
    info: CubeInfo
    probabilities: Outcomes
    efficiency: float
    plies: int | None = None
    exact: bool = False
    """Read from the two-sided bear-off database (:func:`exact_cube_decision`)."""

    @property
    def equity(self) -> float:
        """The equity of the right action (after the opponent's right answer)."""
        if self.action.doubles:
            return self._answered()
        return self.no_double

    @property
    def doubled(self) -> float:
        """The equity of doubling, after the opponent's right answer (no double's equity
        when the side may not double)."""
        return self._answered()

    def _answered(self) -> float:
        values = {Response.TAKE: self.double_take, Response.PASS: self.double_pass,
                  Response.BEAVER: self.double_beaver}
        value = values[self.response] if self.response is not None else None
        return self.no_double if value is None else value


def _respond(take: float, drop: float, beaver: float | None) -> Response:
    """The receiver's answer: the lowest equity for the doubler (ties: take)."""
    best = Response.PASS if drop < take else Response.TAKE
    if beaver is not None and beaver < min(take, drop):
        best = Response.BEAVER
    return best


def cube_decision(probabilities: Outcomes, info: CubeInfo, *,
                  efficiency: float = CONTACT_EFFICIENCY, plies: int | None = None) -> CubeDecision:
    """The right cube action for the side on roll with these cubeless probabilities.

    >>> from gammon.engine.player import Probabilities
    >>> cube_decision(Probabilities(0.8, 0.0, 0.0, 0.0, 0.0), CubeInfo()).action
    <CubeAction.DOUBLE_PASS: 'double-pass'>
    >>> cube_decision(Probabilities(0.9, 0.0, 0.0, 0.0, 0.0), CubeInfo.match(1, 3)).reason
    'the Crawford game: no cube'
    """
    o = _outcomes(probabilities)
    x = _check_efficiency(efficiency)
    score = info.score
    if score is None:
        no_double = _money(o, info, x)
        mwc_no_double: float | None = None
    else:
        mwc_no_double = _match(o, info, x)
        no_double = mwc2eq(mwc_no_double, score, info.value)
    reason: str | None = None
    if not info.may_double():
        if score is not None and score.crawford:
            reason = "the Crawford game: no cube"
        elif info.owner is Owner.OPPONENT:
            reason = "the opponent owns the cube"
        else:
            reason = f"the cube is at its maximum of {MAX_CUBE}"
        return CubeDecision(CubeAction.NO_DOUBLE, None, no_double, None, None, None, mwc_no_double,
                            None, None, reason, info, probabilities, x, plies)

    taken = info.after_take()
    double_beaver: float | None = None
    if score is None:
        double_take = 2.0 * _money(o, taken, x)
        double_pass = 1.0
        mwc_take: float | None = None
        mwc_pass: float | None = None
        if info.beavers and info.value * 4 <= MAX_CUBE:
            double_beaver = 4.0 * _money(o, info.after_beaver(), x)
    else:
        mwc_take = _match(o, taken, x)
        mwc_pass = score.after(info.value, i_win=True)
        double_take = mwc2eq(mwc_take, score, info.value)
        double_pass = mwc2eq(mwc_pass, score, info.value)
    return _decided(no_double, double_take, double_pass, double_beaver, mwc_no_double,
                    mwc_take, mwc_pass, info, probabilities, x, plies)


def _decided(no_double: float, double_take: float, double_pass: float,
             double_beaver: float | None, mwc_no_double: float | None,
             mwc_take: float | None, mwc_pass: float | None, info: CubeInfo,
             probabilities: Outcomes, x: float, plies: int | None, *,
             exact: bool = False) -> CubeDecision:
    """The decision of a side that may double, from its equities of each action."""
    reason: str | None = None
    response = _respond(double_take, double_pass, double_beaver)
    answered = {Response.TAKE: double_take, Response.PASS: double_pass,
                Response.BEAVER: double_beaver}[response]
    assert answered is not None
    if info.is_dead_for_me():
        action = CubeAction.NO_DOUBLE
        reason = ("dead cube: a single win at the present cube already wins the match, so "
                  "doubling cannot gain")
    elif answered >= no_double:
        action = CubeAction.DOUBLE_PASS if response is Response.PASS else CubeAction.DOUBLE_TAKE
    elif no_double >= double_pass:
        action = CubeAction.TOO_GOOD_PASS if response is Response.PASS else CubeAction.TOO_GOOD_TAKE
    else:
        action = CubeAction.NO_DOUBLE
    return CubeDecision(action, response, no_double, double_take, double_pass, double_beaver,
                        mwc_no_double, mwc_take, mwc_pass, reason, info, probabilities, x,
                        plies, exact)


def exact_cube_decision(position: Position, info: CubeInfo) -> CubeDecision | None:
    """The cube decision read from the two-sided bear-off database
    (:mod:`gammon.engine.twosided`: exact, best play ever after) when it applies: money
    play without beavers, the side on roll free to double, both sides' last six checkers
    or fewer in their home boards. None otherwise."""
    from gammon.engine import twosided

    if not info.is_money or info.beavers or not info.may_double():
        return None
    entry = twosided.lookup(position)
    if entry is None:
        return None
    owner: twosided.Cube = "centred" if info.owner is Owner.CENTRED else "mine"
    no_double, double_take, double_pass = entry.money_cube(owner)
    return _decided(no_double, double_take, double_pass, None, None, None, None, info,
                    _Exact(entry.win), 0.0, None, exact=True)


@dataclass(frozen=True, slots=True)
class _Exact:
    """The cubeless outcome of a database race: no gammon is possible."""

    win: float
    win_gammon: float = 0.0
    win_backgammon: float = 0.0
    lose_gammon: float = 0.0
    lose_backgammon: float = 0.0


@dataclass(frozen=True, slots=True)
class TakeDecision:
    """The receiver's answer to a pending double, with the receiver's equities normalised to
    the cube before the double (pass is ``-1``), and in match play as MWC."""

    response: Response
    take: float
    pass_: float
    beaver: float | None
    mwc_take: float | None
    mwc_pass: float | None
    doubler: CubeDecision
    """The doubler's own analysis (its view and equities)."""


def take_decision(probabilities: Outcomes, info: CubeInfo, *,
                  efficiency: float = CONTACT_EFFICIENCY, plies: int | None = None) -> TakeDecision:
    """Take, pass or beaver a double. ``probabilities`` and ``info`` are the **doubler's**
    (the side on roll, cube as it was before the double).

    >>> from gammon.engine.player import Probabilities
    >>> take_decision(Probabilities(0.7, 0.0, 0.0, 0.0, 0.0), CubeInfo()).response
    <Response.TAKE: 'take'>
    """
    if not info.may_double():
        raise CubeError(f"no double can be pending here ({info.describe()})")
    return _answer(cube_decision(probabilities, info, efficiency=efficiency, plies=plies))


def _answer(doubler: CubeDecision) -> TakeDecision:
    """The receiver's side of the doubler's decision."""
    assert doubler.response is not None
    assert doubler.double_take is not None and doubler.double_pass is not None
    beaver = None if doubler.double_beaver is None else -doubler.double_beaver
    mwc_take = None if doubler.mwc_double_take is None else 1.0 - doubler.mwc_double_take
    mwc_pass = None if doubler.mwc_double_pass is None else 1.0 - doubler.mwc_double_pass
    return TakeDecision(doubler.response, -doubler.double_take, -doubler.double_pass, beaver,
                        mwc_take, mwc_pass, doubler)


# -- resignations ----------------------------------------------------------------------------


def resign_equity(info: CubeInfo, level: Level) -> float:
    """What resigning ``level`` is worth to the resigning side on roll, normalised to the
    present cube: ``-level`` in money (``-1`` with the Jacoby rule and a centred cube, as an
    accepted resignation then scores a single), ``mwc2eq`` of losing ``level x cube`` points
    in a match."""
    level = Level(level)
    if info.score is None:
        return -float(info.counted(level))
    return mwc2eq(info.score.after(int(level) * info.value, i_win=False), info.score, info.value)


def _win_equity(info: CubeInfo, level: Level) -> float:
    """What winning ``level`` is worth to the side on roll, normalised to the present cube."""
    if info.score is None:
        return float(info.counted(level))
    return mwc2eq(info.score.after(int(level) * info.value, i_win=True), info.score, info.value)


def resignation_offer(probabilities: Outcomes, info: CubeInfo, *,
                      efficiency: float = CONTACT_EFFICIENCY,
                      tolerance: float = RESIGN_TOLERANCE) -> Level | None:
    """The resignation the side on roll should offer before rolling, or None to play on.

    It offers the lowest level whose value is within ``tolerance`` of playing on (with the
    best cube action): the game is lost at that level, so the opponent, who values it the
    same way, accepts. Playing on between two levels (say a gammon in doubt) offers nothing:
    a single would be refused and a gammon would give away too much.

    >>> from gammon.engine.player import Probabilities
    >>> resignation_offer(Probabilities(0.0, 0.0, 0.0, 0.0, 0.0), CubeInfo())
    <Level.SINGLE: 1>
    >>> resignation_offer(Probabilities(0.0, 0.0, 0.0, 0.5, 0.0), CubeInfo()) is None
    True
    """
    cubeful = cube_decision(probabilities, info, efficiency=efficiency).equity
    # Far behind with the cube centred, the cubeful value is the opponent's cash (-1): a
    # single resignation is then worth as much, but only against an opponent who doubles
    # the game out. A resignation gives the game itself up, so playing on is valued at
    # least at its dead-cube value: the bot never resigns a game it can still win.
    play_on = max(cubeful, cubeful_equity(probabilities, info, efficiency=0.0))
    for level in Level:
        if abs(play_on - resign_equity(info, level)) <= tolerance:
            return level
    return None


def accept_resignation(probabilities: Outcomes, info: CubeInfo, level: Level, *,
                       efficiency: float = CONTACT_EFFICIENCY,
                       tolerance: float = 1e-9) -> bool:
    """Whether the opponent of the side on roll should accept its offer to resign ``level``:
    yes when what it gives up costs the resigner no more than playing on (with its best cube
    action) would, in equity or, in a match, in match winning chance. ``probabilities`` and
    ``info`` are the **resigner's** (on roll, before rolling).

    >>> from gammon.engine.player import Probabilities
    >>> accept_resignation(Probabilities(0.0, 0.0, 0.0, 1.0, 0.0), CubeInfo(), Level.SINGLE)
    False
    >>> accept_resignation(Probabilities(0.0, 0.0, 0.0, 1.0, 0.0), CubeInfo(), Level.GAMMON)
    True
    """
    play_on = cube_decision(probabilities, info, efficiency=efficiency).equity
    return resign_equity(info, level) <= play_on + tolerance


# -- with the engine -------------------------------------------------------------------------


Efficiency: TypeAlias = "float | CubeEfficiency | None"
"""A fixed cube efficiency, one per class of position, or None for the default."""


def efficiency_for(position: Position, efficiency: Efficiency = None) -> float:
    """The cube efficiency an ``analyse_*`` function uses for ``position``: a float as given,
    else :func:`cube_efficiency` of the position with ``efficiency`` (default: GNU
    Backgammon's)."""
    if efficiency is None:
        return DEFAULT_EFFICIENCY.of(position)
    if isinstance(efficiency, CubeEfficiency):
        return efficiency.of(position)
    return efficiency


def _evaluate(engine: Evaluator, position: Position, plies: int,
              efficiency: Efficiency) -> tuple[Outcomes, float]:
    if position.winner() is not None:
        raise CubeError(f"the game is over in {position.id()}: no cube decision")
    probabilities = engine.evaluate(position, plies=plies)
    return probabilities, efficiency_for(position, efficiency)


def analyse_cube(engine: Evaluator, position: Position, info: CubeInfo, *, plies: int = 0,
                 efficiency: Efficiency = None) -> CubeDecision:
    """Evaluate ``position`` (side on roll, before rolling) at ``plies`` and decide the cube;
    the cube efficiency is :func:`efficiency_for` the position. A short race in money play
    is read from the two-sided bear-off database instead (:func:`exact_cube_decision`)."""
    exact = exact_cube_decision(position, info)
    if exact is not None:
        return exact
    probabilities, x = _evaluate(engine, position, plies, efficiency)
    return cube_decision(probabilities, info, efficiency=x, plies=plies)


def analyse_take(engine: Evaluator, position: Position, info: CubeInfo, *, plies: int = 0,
                 efficiency: Efficiency = None) -> TakeDecision:
    """The answer to a pending double; ``position`` and ``info`` are the doubler's view
    (a short race in money play: exact, as :func:`analyse_cube`)."""
    exact = exact_cube_decision(position, info)
    if exact is not None:
        return _answer(exact)
    probabilities, x = _evaluate(engine, position, plies, efficiency)
    return take_decision(probabilities, info, efficiency=x, plies=plies)


def analyse_resignation_offer(engine: Evaluator, position: Position, info: CubeInfo, *,
                              plies: int = 0, efficiency: Efficiency = None) -> Level | None:
    """The resignation the side on roll (the bot) should offer before rolling, or None."""
    probabilities, x = _evaluate(engine, position, plies, efficiency)
    return resignation_offer(probabilities, info, efficiency=x)


@dataclass(frozen=True, slots=True)
class ResignDecision:
    """The answer to a resignation offer, from the **receiver's** point of view: the
    equities of accepting and of playing on, normalised to the present cube."""

    accept: bool
    level: Level
    accept_equity: float
    play_on_equity: float
    decision: CubeDecision
    """The cube analysis that values playing on: the resigner's before its roll, or the
    receiver's own after the resigner's best play of a roll already thrown."""
    receiver_on_roll: bool
    """``decision`` is the receiver's (the resigner had rolled)."""


def analyse_resignation(engine: Evaluator, position: Position, info: CubeInfo, level: Level, *,
                        roll: Roll | None = None, plies: int = 0,
                        efficiency: Efficiency = None) -> ResignDecision:
    """Whether to accept the resignation of the side on roll (``position`` and ``info`` are
    its view). Before its roll, playing on is valued by its cube decision (as
    :func:`accept_resignation`); with ``roll`` thrown, by the receiver's own cube decision
    after the resigner's best play of it (the engine's choice at ``plies``).
    """
    level = Level(level)
    accepted = -resign_equity(info, level)
    if roll is None:
        decision = analyse_cube(engine, position, info, plies=plies, efficiency=efficiency)
        play_on = -decision.equity
    else:
        if position.winner() is not None:
            raise CubeError(f"the game is over in {position.id()}: nothing to resign")
        from gammon.engine.evaluator import rank_plays  # the evaluator builds on this module

        best = rank_plays(engine, position, roll, plies=plies)[0].play.position
        if best.winner() is not None:
            # the resigner's roll wins the game outright: playing on loses what it wins
            play_on = -_win_equity(info, win_level(best))
            return ResignDecision(accepted >= play_on - 1e-9, level, accepted, play_on,
                                  analyse_cube(engine, position, info, plies=plies,
                                               efficiency=efficiency), False)
        decision = analyse_cube(engine, best.swap(), info.swap(), plies=plies,
                                efficiency=efficiency)
        play_on = decision.equity
    return ResignDecision(accepted >= play_on - 1e-9, level, accepted, play_on, decision,
                          roll is not None)
