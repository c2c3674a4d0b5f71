"""The engine's interface: the bot, the cube functions and the analysis take any
:class:`Evaluator`, so a stand-in with two methods drives them; the neural engine is one."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from gammon.core.actions import Action, PlayMove, RollOpening
from gammon.core.dice import Roll
from gammon.core.game import Rules
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.analysis import analyse_actions
from gammon.engine.cube import (
    CubeInfo,
    analyse_cube,
    analyse_take,
    cube_decision,
    cube_efficiency,
    take_decision,
)
from gammon.engine.evaluator import (
    LEVELS,
    Evaluator,
    Probabilities,
    bot_level,
    choose,
    rank_plays,
)
from gammon.engine.matchbot import MatchBot, play_match
from gammon.engine.player import Engine


class PipCount:
    """A stand-in evaluator: the side on roll's chance from the pip count alone (no
    gammons); it keeps every position it was asked about."""

    def __init__(self) -> None:
        self.asked: list[Position] = []

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities:
        self.asked.append(position)
        if position.winner() == 1:
            return Probabilities(0.0, 0.0, 0.0, 0.0, 0.0)
        mine, theirs = position.pips()
        return Probabilities(1 / (1 + math.exp((mine - theirs) / 15)), 0.0, 0.0, 0.0, 0.0)

    def evaluate_batch(self, positions: Sequence[Position], *,
                       plies: int = 0) -> list[Probabilities]:
        return [self.evaluate(p, plies=plies) for p in positions]


# A short race: the side on roll leads 10 pips to 22.
RACE = Position.from_points({3: 2, 2: 2}, {6: 2, 5: 2})
CONTACT = Position.from_id("4HPwATDgc/ABMA")


def test_a_stand_in_and_the_engine_are_both_evaluators() -> None:
    assert isinstance(PipCount(), Evaluator)
    assert isinstance(Engine.load(), Evaluator)
    assert not isinstance(object(), Evaluator)


def test_plays_are_ranked_by_the_evaluation_of_the_position_each_leaves() -> None:
    fake = PipCount()
    ranked = rank_plays(fake, CONTACT, Roll(6, 4))
    plays = legal_plays(CONTACT, Roll(6, 4))
    assert {r.play for r in ranked} == set(plays)
    assert len(fake.asked) == len(plays)  # one batch, one position per play
    for r in ranked:
        assert r.equity == pytest.approx(-fake.evaluate(r.play.next_position).equity)
        assert r.ply == 0
    equities = [r.equity for r in ranked]
    assert equities == sorted(equities, reverse=True)


def test_the_play_a_level_chooses_comes_from_the_evaluator() -> None:
    fake = PipCount()
    best = rank_plays(fake, CONTACT, Roll(5, 2))[0].play
    assert choose(fake, CONTACT, Roll(5, 2), "expert") == best
    # a noisy level sometimes picks another play, always a legal one
    legal = set(legal_plays(CONTACT, Roll(5, 2)))
    picks = {choose(fake, CONTACT, Roll(5, 2), "beginner", random.Random(seed))
             for seed in range(40)}
    assert picks <= legal and len(picks) > 1


def test_an_unknown_level_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="world-class"):
        bot_level("grandmaster")
    assert bot_level("casual") is LEVELS["casual"]


def test_the_cube_functions_decide_on_the_evaluators_probabilities() -> None:
    """Outside the two-sided bear-off database (a checker still outside its home board)
    the cube is the evaluator's; inside it, the database's exact equities."""
    fake = PipCount()
    info = CubeInfo.money()
    race = Position.from_points({8: 2, 3: 2}, {9: 2, 5: 2})
    x = cube_efficiency(race)
    assert analyse_cube(fake, race, info) == cube_decision(fake.evaluate(race), info,
                                                           efficiency=x, plies=0)
    assert analyse_take(fake, race, info) == take_decision(fake.evaluate(race), info,
                                                           efficiency=x, plies=0)
    assert analyse_cube(fake, RACE, info).exact


def test_bots_on_a_stand_in_play_a_match_and_the_analysis_rates_it_with_it() -> None:
    """A 3-point match of four games, to the last one (3-2), played and analysed on the
    stand-in. The dice are those of seed 16: a match of some hundred plays (the analysis
    ranks the plays of all 21 rolls at each roll, for its luck, in Python here); seed 5's
    match took 1,419 plays, two pip-count bots priming each other for hundreds of turns."""
    fake = PipCount()
    rules = Rules(length=3)
    record: list[Action] = []
    bots = (MatchBot(fake, rng=random.Random(1)), MatchBot(fake, rng=random.Random(2)))
    match = play_match(bots, rules, random.Random(16), record=record)
    assert match.is_over and max(match.score) >= 3 and min(match.score) == 2
    assert sum(isinstance(a, RollOpening) for a in record) == 4  # games, not one
    analysis = analyse_actions(record, rules, engine=fake)
    moves = [a for a in record if isinstance(a, PlayMove)]
    assert 0 < len(analysis.decisions) <= len(moves)
    for decision in analysis.decisions:
        # the bots played the stand-in's best play (an expert level has no noise)
        assert decision.played_equity == pytest.approx(decision.best_equity)


def test_the_engine_evaluates_a_batch_as_it_evaluates_one() -> None:
    engine = Engine.load()
    positions = [CONTACT, RACE, RACE.swap(), Position.from_points({}, {19: 15}).swap()]
    for plies in (0, 1):
        batch = engine.evaluate_batch(positions, plies=plies)
        assert batch == [engine.evaluate(p, plies=plies) for p in positions]
    assert engine.evaluate_batch([]) == []


def test_next_position_is_the_opponents_view_of_the_play() -> None:
    play = rank_plays(Engine.load(), Position.initial(), Roll(3, 1))[0].play
    assert play.next_position == play.position.swap()
    # the opponent, on roll, still has 167 pips; the 3-1 took ours to 163
    assert play.next_position.pips() == (167, 163)
