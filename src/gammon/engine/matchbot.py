"""The bot at the table: every decision of a match, through the core's state machine.

:class:`MatchBot` answers "what does this player do now?" for any state of a
:class:`gammon.core.match.Match`: double or not before rolling, take/drop/beaver a double,
accept or refuse a resignation, offer one when the game is lost, and the checker play. Dice
actions are not its business: whoever runs the match rolls (the server, a benchmark).

With ``cube=False`` it is the *cubeless* bot: the same checker play, but it never doubles or
resigns, and it takes a double when its cubeless equity is above -0.5 (the dead-cube take
point) — the baseline `gammon bench matches` measures the cube's worth against.
``efficiency`` sets the cube efficiency of each class of position (GNU Backgammon's by
default) and ``resign=False`` makes a bot that never offers a resignation (it still answers
one): the variants `gammon bench cube` plays against the default bot.

Checker plays are ranked at the score and cube of the match
(:func:`gammon.engine.evaluator.rank_plays` with the player's :func:`cube_info`): a gammon
counts for what it is worth at that score. ``at_score=False`` ranks them by cubeless money
equity, as the bot did before: the baseline `gammon bench matches --baseline money-checkers`
measures match-aware play against.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from gammon.core.actions import (
    AcceptResign,
    Action,
    Beaver,
    Drop,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    Take,
)
from gammon.core.cube import Level
from gammon.core.dice import DiceSource, Roll
from gammon.core.game import Phase, Rules
from gammon.core.match import Match
from gammon.core.moves import Play
from gammon.core.position import Position
from gammon.engine.cube import (
    DEFAULT_EFFICIENCY,
    CubeAction,
    CubeEfficiency,
    CubeInfo,
    Owner,
    Response,
    analyse_resignation,
    analyse_take,
    cube_decision,
    cube_efficiency,
    exact_cube_decision,
    resignation_offer,
)
from gammon.engine.evaluator import BotLevel, Evaluator, choose

DOUBLING = (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS)
DOUBLE: Final[Literal["double"]] = "double"
"""What :meth:`MatchBot.before_roll` returns for a double."""


class Player(Protocol):
    """Whatever answers "what does this player do now?" (:class:`MatchBot`)."""

    def decide(self, match: Match, player: int) -> Action | None: ...


def cube_info(match: Match, player: int) -> CubeInfo:
    """The cube and score as ``player`` sees them (for the engine's cube functions); in a
    game played without the cube, a cube out of use: every value is cubeless."""
    game = match.game
    cube = game.cube
    if cube.owner is None:
        owner = Owner.CENTRED
    else:
        owner = Owner.ME if cube.owner == player else Owner.OPPONENT
    rules = match.rules
    if rules.is_money:
        return CubeInfo.money(cube.value, owner, jacoby=rules.jacoby, beavers=rules.beavers,
                              in_use=rules.cube)
    return CubeInfo.match(rules.length - match.score[player],
                          rules.length - match.score[1 - player], cube.value, owner,
                          crawford=game.crawford, post_crawford=match.is_post_crawford,
                          in_use=rules.cube)


@dataclass
class MatchBot:
    """A player's decisions. ``level`` sets the checker play (at the score unless
    ``at_score`` is False); ``plies`` the depth of the
    cube and resignation evaluations; ``efficiency`` the cube efficiencies; ``resign``
    whether it offers resignations, and ``resign_plies`` (when deeper than ``plies``) the
    depth of a second look that must confirm an offer before it is made. ``engine`` is any
    :class:`Evaluator`."""

    engine: Evaluator
    level: BotLevel | str = "expert"
    cube: bool = True
    plies: int = 0
    rng: random.Random = field(default_factory=random.Random)
    efficiency: CubeEfficiency = DEFAULT_EFFICIENCY
    resign: bool = True
    resign_plies: int = 0
    at_score: bool = True

    def decide(self, match: Match, player: int) -> Action | None:
        """The action ``player`` takes now, or None when it is not theirs to act (or the
        next action is a roll)."""
        if match.to_act != player:  # the core's one answer to "whose action is it?"
            return None
        game = match.game
        phase = game.phase
        if phase is Phase.MOVING and game.roll is not None:
            context = cube_info(match, player) if self.at_score else None
            return PlayMove(player, self.checker_play(game.position, game.roll, context))
        if phase is Phase.BEFORE_ROLL:
            choice = self.before_roll(game.position, cube_info(match, player),
                                      may_double=game.can_double(player),
                                      may_resign=lambda level: game.can_resign(player, level))
            if isinstance(choice, Level):
                return OfferResign(player, choice)
            return None if choice is None else OfferDouble(player)
        if phase is Phase.CUBE_OFFERED:
            response = self.answer_double(game.position, cube_info(match, game.turn),
                                          may_beaver=game.can_beaver(player))
            if response is Response.BEAVER:
                return Beaver(player)
            return Drop(player) if response is Response.PASS else Take(player)
        if phase is Phase.RESIGN_OFFERED:
            return self._answer_resignation(match, player)
        return None

    # -- the decisions, from a position and its context (for players outside a Match) --------

    def checker_play(self, position: Position, roll: Roll, context: CubeInfo | None) -> Play:
        """The play of ``roll``, ranked at ``context`` (None: cubeless money)."""
        return choose(self.engine, position, roll, self.level, self.rng, context=context)

    def before_roll(self, position: Position, info: CubeInfo, *, may_double: bool,
                    may_resign: Callable[[Level], bool] = lambda level: True
                    ) -> Level | Literal["double"] | None:
        """Before rolling: a resignation to offer (its level), :data:`DOUBLE`, or None (roll).
        ``info`` is the side on roll's view; ``may_resign`` says which levels the rules
        allow now."""
        if not self.cube or not (self.resign or may_double):
            return None
        # one evaluation for both questions
        probabilities = self.engine.evaluate(position, plies=self.plies)
        x = cube_efficiency(position, self.efficiency)
        if self.resign:
            level = resignation_offer(probabilities, info, efficiency=x)
            if level is not None and self.resign_plies > self.plies:
                deeper = self.engine.evaluate(position, plies=self.resign_plies)
                level = resignation_offer(deeper, info, efficiency=x)
            if level is not None and may_resign(level):
                return level
        if may_double:
            decision = exact_cube_decision(position, info) or cube_decision(
                probabilities, info, efficiency=x, plies=self.plies)
            if decision.action in DOUBLING:
                return DOUBLE
        return None

    def answer_double(self, position: Position, doubler: CubeInfo, *,
                      may_beaver: bool) -> Response:
        """Take, pass or beaver the double of the side on roll in ``position``; ``doubler``
        is that side's view of the cube and score before its double."""
        if not self.cube:
            equity = -self.engine.evaluate(position, plies=self.plies).equity
            return Response.TAKE if equity > -0.5 else Response.PASS
        answer = analyse_take(self.engine, position, doubler, plies=self.plies,
                              efficiency=self.efficiency)
        if answer.response is Response.BEAVER and not may_beaver:
            return Response.TAKE
        return answer.response

    def _answer_resignation(self, match: Match, player: int) -> Action:
        game = match.game
        offer = game.resign_offer
        assert offer is not None
        resigner = game.turn
        decision = analyse_resignation(self.engine, game.start_position,
                                       cube_info(match, resigner), offer.level,
                                       roll=game.roll, plies=self.plies,
                                       efficiency=self.efficiency)
        return AcceptResign(player) if decision.accept else RejectResign(player)


def play_match(bots: tuple[Player, Player], rules: Rules, dice: DiceSource, *,
               record: list[Action] | None = None, start: Match | None = None) -> Match:
    """A whole match between two bots (player 0 is ``bots[0]``), or a single game when
    ``rules`` is a money session; the dice come from ``dice``. Every action applied is
    appended to ``record`` when one is given. ``start`` (a new match of ``rules`` at some
    score, :meth:`Match.new`) plays the rest of a match from there."""
    if start is not None and start.rules != rules:
        raise ValueError("the match to start from is played under other rules")
    match = Match.new(rules) if start is None else start
    while not match.is_over:
        action: Action | None
        if match.phase in (Phase.OPENING, Phase.GAME_OVER):
            if rules.is_money and match.results:
                break
            action = match.opening_action(dice)
        else:
            action = bots[0].decide(match, 0) or bots[1].decide(match, 1)
            if action is None:
                action = match.game.roll_action(dice)
        match, _ = match.apply(action)
        if record is not None:
            record.append(action)
    return match
