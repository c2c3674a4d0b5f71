"""The bot at the table: whole matches through the state machine, and its cube choices."""

from __future__ import annotations

import random

import pytest

from gammon.core.actions import Drop, OfferDouble, OfferResign, RollDice, Take
from gammon.core.cube import Cube, Level
from gammon.core.game import Game, Phase, Rules
from gammon.core.match import Match
from gammon.core.position import Position
from gammon.engine.cube import DEFAULT_EFFICIENCY, CubeEfficiency, CubeInfo
from gammon.engine.matchbot import MatchBot, cube_info, play_match
from gammon.engine.player import Engine, Probabilities


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def at(position: Position, rules: Rules, *, cube: Cube | None = None,
       score: tuple[int, int] = (0, 0)) -> Match:
    """A match where player 0 is about to roll ``position``."""
    game = Game.from_position(position, 0, rules=rules, cube=cube)
    return Match(rules, game, score=score)


def test_the_bots_play_a_whole_match_with_the_cube_through_the_rules(engine: Engine) -> None:
    rules = Rules(length=3)
    bots = (MatchBot(engine, rng=random.Random(1)), MatchBot(engine, rng=random.Random(2)))
    match = play_match(bots, rules, random.Random(3))
    assert match.is_over and max(match.score) >= 3


def test_a_match_started_at_a_score_is_played_from_that_score(engine: Engine) -> None:
    rules = Rules(length=3)
    bots = (MatchBot(engine, rng=random.Random(1)), MatchBot(engine, rng=random.Random(2)))
    start = Match.new(rules, score=(2, 2), crawford_reached=True)  # one game decides it
    match = play_match(bots, rules, random.Random(3), start=start)
    assert match.is_over and sorted(match.score) in ([2, 3], [2, 4], [2, 5])
    assert len(match.results) == 1
    with pytest.raises(ValueError, match="other rules"):
        play_match(bots, Rules(length=5), random.Random(3), start=start)


# A short bear-off race (exact from the database): we need two rolls at most and win 94%,
# no gammons either way — double/pass in money play.
CRUSHING = Position.from_points({3: 2, 2: 2}, {6: 2, 5: 2})


def test_the_bot_doubles_a_crushing_position_and_the_opponent_passes(engine: Engine) -> None:
    match = at(CRUSHING, Rules())
    assert MatchBot(engine).decide(match, 0) == OfferDouble(0)
    doubled, _ = match.apply(OfferDouble(0))
    assert MatchBot(engine).decide(doubled, 1) == Drop(1)


def test_the_cubeless_bot_never_doubles(engine: Engine) -> None:
    assert MatchBot(engine, cube=False).decide(at(CRUSHING, Rules()), 0) is None


def test_no_double_in_the_crawford_game(engine: Engine) -> None:
    rules = Rules(length=5)
    game = Game.from_position(CRUSHING, 0, rules=rules, crawford=True)
    match = Match(rules, game, score=(4, 2), crawford_reached=True)
    assert match.is_crawford
    assert MatchBot(engine).decide(match, 0) is None


def test_an_even_position_is_no_double_and_a_double_is_taken(engine: Engine) -> None:
    match = at(Position.initial(), Rules())
    assert MatchBot(engine).decide(match, 0) is None  # rolls
    doubled, _ = match.apply(OfferDouble(0))
    assert MatchBot(engine).decide(doubled, 1) == Take(1)


def test_the_bot_only_acts_when_it_is_its_turn(engine: Engine) -> None:
    match = at(Position.initial(), Rules())
    assert MatchBot(engine).decide(match, 1) is None
    rolled, _ = match.apply(RollDice(0, match.game.roll_action(random.Random(4)).roll))
    assert rolled.game.phase is Phase.MOVING
    assert MatchBot(engine).decide(rolled, 1) is None
    assert MatchBot(engine).decide(rolled, 0) is not None


def test_cube_info_sees_the_score_and_the_owner_from_each_side() -> None:
    match = at(Position.initial(), Rules(length=7), cube=Cube(2, 1), score=(2, 4))
    mine, theirs = cube_info(match, 0), cube_info(match, 1)
    assert mine.value == theirs.value == 2
    assert (mine.owner.name, theirs.owner.name) == ("OPPONENT", "ME")
    assert mine.score is not None and (mine.score.away_me, mine.score.away_opp) == (5, 3)


class Fixed:
    """An evaluator that sees the same chances everywhere."""

    def __init__(self, probabilities: Probabilities) -> None:
        self.probabilities = probabilities

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities:
        return self.probabilities

    def evaluate_batch(self, positions: list[Position], *, plies: int = 0) -> list[Probabilities]:
        return [self.probabilities for _ in positions]


def test_the_bots_cube_efficiency_decides_its_double() -> None:
    # 68% and no gammons: with a dead cube doubling (0.72) beats playing on (0.36); with a
    # fully live one, playing on (0.60) beats double/take (0.40)
    engine = Fixed(Probabilities(0.68, 0.0, 0.0, 0.0, 0.0))
    match = at(Position.initial(), Rules())
    assert MatchBot(engine).efficiency == DEFAULT_EFFICIENCY
    dead, live = CubeEfficiency(contact=0.0), CubeEfficiency(contact=1.0)
    assert MatchBot(engine, efficiency=dead).decide(match, 0) == OfferDouble(0)
    assert MatchBot(engine, efficiency=live).decide(match, 0) is None
    race_only = CubeEfficiency(race_min=0.0, race_max=0.0, bearoff=0.0)
    assert MatchBot(engine, efficiency=race_only).decide(match, 0) is None  # contact: 0.68
    doubled, _ = match.apply(OfferDouble(0))
    assert MatchBot(engine, efficiency=dead).decide(doubled, 1) == Take(1)


def test_a_bot_that_does_not_resign_plays_a_lost_game_on() -> None:
    engine = Fixed(Probabilities(0.0, 0.0, 0.0, 1.0, 1.0))  # a backgammon whatever happens
    match = at(Position.from_points({22: 5, 21: 5, 20: 5}, {1: 1}), Rules())
    assert MatchBot(engine).decide(match, 0) == OfferResign(0, Level.BACKGAMMON)
    assert MatchBot(engine, resign=False).decide(match, 0) is None


class ByDepth:
    """An evaluator whose chances depend on the depth asked for; it records the depths."""

    def __init__(self, by_plies: dict[int, Probabilities]) -> None:
        self.by_plies = by_plies
        self.asked: list[int] = []

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities:
        self.asked.append(plies)
        return self.by_plies[plies]

    def evaluate_batch(self, positions: list[Position], *, plies: int = 0) -> list[Probabilities]:
        return [self.evaluate(p, plies=plies) for p in positions]


def test_a_deeper_look_must_confirm_a_resignation_offer() -> None:
    """With ``resign_plies`` deeper than ``plies``, an offer found by the shallow evaluation
    is made only if the deeper one still finds it, at the deeper one's level; no offer at
    the shallow depth asks for no deeper look."""
    lost = Probabilities(0.0, 0.0, 0.0, 1.0, 0.0)  # a gammon whatever happens
    alive = Probabilities(0.05, 0.0, 0.0, 0.3, 0.0)
    match = at(Position.from_points({22: 5, 21: 5, 20: 5}, {1: 1}), Rules())
    shallow_only = ByDepth({0: lost, 2: alive})
    assert MatchBot(shallow_only, cube=True, resign_plies=2).decide(match, 0) is None
    assert shallow_only.asked == [0, 2]
    confirmed = ByDepth({0: lost, 1: lost})
    assert MatchBot(confirmed, resign_plies=1).decide(match, 0) == OfferResign(0, Level.GAMMON)
    single = ByDepth({0: lost, 1: Probabilities(0.0, 0.0, 0.0, 0.0, 0.0)})
    assert MatchBot(single, resign_plies=1).decide(match, 0) == OfferResign(0, Level.SINGLE)
    playing = ByDepth({0: alive, 2: lost})
    assert MatchBot(playing, resign_plies=2).decide(match, 0) is None
    assert playing.asked == [0]
    same_depth = ByDepth({0: lost})
    assert MatchBot(same_depth).decide(match, 0) == OfferResign(0, Level.GAMMON)
    assert same_depth.asked == [0]


def dead_cube_mwc(p: Probabilities, info: CubeInfo) -> float:
    """The match winning chance of playing the game out without touching the cube: each
    outcome's chance times the MET after it (``MatchScore.after``)."""
    assert info.score is not None
    wins = (p.win - p.win_gammon, p.win_gammon - p.win_backgammon, p.win_backgammon)
    losses = (1 - p.win - p.lose_gammon, p.lose_gammon - p.lose_backgammon, p.lose_backgammon)
    return sum(chance * info.score.after(level * info.value, i_win=won)
               for won, chances in ((True, wins), (False, losses))
               for level, chance in enumerate(chances, start=1))


@pytest.mark.parametrize("level", ["beginner", "casual", "intermediate", "expert"])
def test_no_bot_level_offers_a_resignation_of_a_game_it_can_still_win(
        engine: Engine, level: str) -> None:
    """Over seeded money games (Jacoby off, so a resignation of level n is worth -n cubes)
    and 5-point matches, every resignation a bot offers gives up no more than its own
    evaluation (at its level's depth, as the server makes its bots) says playing the game
    out is worth without the cube: in money, cubeless equity <= -n + 0.02 (not merely the
    opponent's cash of a middlegame it is far behind in); in a match, the match winning
    chance of playing on (the MET after each outcome) at most 0.01 above the one after
    losing n times the cube."""
    from gammon.engine.evaluator import bot_level

    plies = bot_level(level).plies
    offers = 0
    for seed, rules in [(s, Rules(length=0)) for s in range(16)] + [
            (s, Rules(length=5)) for s in range(16, 22)]:
        record: list = []
        bots = (MatchBot(engine, level, plies=plies, rng=random.Random(seed)),
                MatchBot(engine, level, plies=plies, rng=random.Random(seed + 100)))
        play_match(bots, rules, random.Random(seed), record=record)
        match = Match.new(rules)
        for action in record:
            if isinstance(action, OfferResign):
                offers += 1
                p = engine.evaluate(match.game.position, plies=plies)
                where = (level, seed, match.game.position.id(), p)
                if rules.is_money:
                    assert p.equity <= -int(action.level) + 0.02, where
                else:
                    info = cube_info(match, action.player)
                    assert info.score is not None
                    resigned = info.score.after(int(action.level) * info.value, i_win=False)
                    assert dead_cube_mwc(p, info) <= resigned + 0.01, where
            match, _ = match.apply(action)
    assert offers > 0  # the games reached lost positions: the test looked at some offers
