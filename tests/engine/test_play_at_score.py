"""Checker play at the score: the plays of a roll ranked by their cubeful value at the match
score and cube (:func:`gammon.engine.cube.play_equity`, :func:`rank_plays` with a context).

The references are facts of the match equity table, not the code under test: at double
match point (1-away/1-away) a game is worth the match whatever it is won by, so the match
winning chance *is* the winning chance; in the Crawford game the leader's own gammons win
nothing more; after it, the trailer's gammon losses cost nothing more; and a money call
without a context ranks as before, by cubeless money equity.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from gammon.core.actions import PlayMove
from gammon.core.dice import Roll
from gammon.core.game import Rules
from gammon.core.match import Match
from gammon.core.position import Position
from gammon.engine.analysis import analyse_actions
from gammon.engine.cube import CubeInfo, Owner, play_equity
from gammon.engine.evaluator import Probabilities, choose, rank_plays
from gammon.engine.matchbot import MatchBot, cube_info, play_match
from gammon.engine.player import Engine

AFTER = Position.initial()  # a contact position: the cube efficiency is the contact one


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def decisions(count: int, seed: int = 5) -> list[tuple[Position, Roll]]:
    """Positions with their rolls from random play (every kind of position, seeded)."""
    rng = random.Random(seed)
    out: list[tuple[Position, Roll]] = []
    from gammon.core.moves import legal_plays

    while len(out) < count:
        position = Position.initial()
        while position.winner() is None and len(out) < count:
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(position, roll)
            if len(plays) > 1:
                out.append((position, roll))
            position = rng.choice(plays).next_position
    return out


def test_at_double_match_point_the_plays_rank_by_winning_chance(engine: Engine) -> None:
    dmp = CubeInfo.match(1, 1)
    for position, roll in decisions(40):
        ranked = engine.rank_plays(position, roll, context=dmp)
        for r in ranked:
            # a won game is the match: the value is 2p - 1 exactly
            assert r.equity == pytest.approx(2 * r.probabilities.win - 1, abs=1e-9)
        wins = [r.probabilities.win for r in ranked]
        assert wins == sorted(wins, reverse=True)


def test_in_the_crawford_game_the_leaders_own_gammons_win_nothing_more() -> None:
    leader = CubeInfo.match(1, 5)
    single = Probabilities(0.6, 0.0, 0.0, 0.1, 0.0)
    gammons = Probabilities(0.6, 0.4, 0.2, 0.1, 0.0)
    assert play_equity(single, leader, AFTER) == pytest.approx(
        play_equity(gammons, leader, AFTER), abs=1e-12)
    # but losing a gammon costs the leader: the trailer would need one point fewer
    worse = Probabilities(0.6, 0.0, 0.0, 0.3, 0.0)
    assert play_equity(worse, leader, AFTER) < play_equity(single, leader, AFTER)


def test_after_the_crawford_game_the_trailers_gammon_losses_cost_nothing_more() -> None:
    trailer = CubeInfo.match(4, 1, post_crawford=True)
    plain = Probabilities(0.4, 0.1, 0.0, 0.0, 0.0)
    gammoned = Probabilities(0.4, 0.1, 0.0, 0.5, 0.3)
    assert play_equity(plain, trailer, AFTER) == pytest.approx(
        play_equity(gammoned, trailer, AFTER), abs=1e-12)


def test_the_value_of_a_play_moves_with_the_gammon_price_of_the_score() -> None:
    """A gammonish play beats a safe one for money; the leader of the Crawford game, whose
    gammons are worthless, prefers the safe one."""
    gammonish = Probabilities(0.6, 0.3, 0.0, 0.1, 0.0)
    safe = Probabilities(0.65, 0.05, 0.0, 0.02, 0.0)
    money = CubeInfo.money()
    assert play_equity(gammonish, money, AFTER) > play_equity(safe, money, AFTER)
    crawford = CubeInfo.match(1, 5)
    assert play_equity(gammonish, crawford, AFTER) < play_equity(safe, crawford, AFTER)


def test_owning_the_cube_is_worth_something_to_the_owner() -> None:
    """Money, an even position after the play: the owner of a 2-cube is better off than
    the side whose opponent owns it (the cube's value is its owner's)."""
    even = Probabilities(0.5, 0.1, 0.0, 0.1, 0.0)
    mine = play_equity(even, CubeInfo.money(2, Owner.ME), AFTER)
    theirs = play_equity(even, CubeInfo.money(2, Owner.OPPONENT), AFTER)
    assert mine > 0 > theirs


def test_without_a_context_the_plays_rank_by_cubeless_money_equity(engine: Engine) -> None:
    for position, roll in decisions(20, seed=8):
        ranked = rank_plays(engine, position, roll)
        equities = [r.equity for r in ranked]
        assert equities == sorted(equities, reverse=True)
        assert all(r.equity == r.probabilities.equity for r in ranked)


def test_in_money_play_the_cube_changes_the_values_not_the_search(engine: Engine) -> None:
    """A money context searches the candidates the plain call does (the filter prices
    gammons as money does) with the same probabilities: only their values and order move."""
    position, roll = decisions(1, seed=11)[0]
    plain = engine.rank_plays(position, roll, plies=1)
    at_score = engine.rank_plays(position, roll, plies=1, context=CubeInfo.money(2, Owner.ME))
    assert ({(r.play, r.probabilities, r.ply) for r in plain}
            == {(r.play, r.probabilities, r.ply) for r in at_score})
    values = [(r.ply, r.equity) for r in at_score]
    assert values == sorted(values, key=lambda v: (-v[0], -v[1]))


def test_the_bot_plays_at_the_score_unless_told_to_play_money(engine: Engine) -> None:
    """At double match point the bot's play is the one with the best winning chance; the
    money-play bot (``at_score=False``) keeps the cubeless money choice. Without a judge a
    play's 0-ply probabilities do not depend on the score, so the best winning chance is
    read from the money ranking; the judge values the best few plays at the score's prices,
    so with it the winning chances are read from the ranking at the score."""
    dmp = CubeInfo.match(1, 1)
    assert engine.nets.judge is not None
    nets = engine.nets.copy()
    nets.judge = None
    plain, differ = Engine(nets), 0
    for position, roll in decisions(80, seed=3):
        for bot, ranking in ((plain, None), (engine, dmp)):
            best_win = max(bot.rank_plays(position, roll, context=ranking),
                           key=lambda r: r.probabilities.win)
            chosen = choose(bot, position, roll, context=dmp)
            assert chosen.position == best_win.play.position
            differ += choose(bot, position, roll).position != chosen.position
    assert differ > 0  # the score changed some plays: the test can tell the two apart


def test_without_a_cube_in_use_a_play_is_worth_its_cubeless_equity() -> None:
    """A game played without the cube: no side can ever double, so a play's value is its
    cubeless equity (money: 2p - 1 plus gammons and backgammons, RULES.md's scoring), and
    owning or centring a cube that is not there changes nothing."""
    after = Probabilities(0.62, 0.2, 0.01, 0.08, 0.005)  # the mover's chances after a play
    cubeless = 2 * 0.62 - 1 + 0.2 + 0.01 - 0.08 - 0.005
    assert play_equity(after, CubeInfo.money(in_use=False), AFTER) == pytest.approx(cubeless)
    assert play_equity(after, CubeInfo.money(), AFTER) != pytest.approx(cubeless)
    assert not CubeInfo.money(in_use=False).swap().opponent_may_double()


def test_in_a_game_without_the_cube_the_bot_plays_cubeless_money(engine: Engine) -> None:
    """Money without the cube (the Hungarian traditional game): the bot's every play is
    the best by cubeless money equity; with the cube in play some plays differ (a centred
    cube weighs gammons and risk otherwise)."""
    no_cube = Match.new(Rules(length=0, cube=False))
    with_cube = Match.new(Rules(length=0))
    assert cube_info(no_cube, 0) == CubeInfo.money(in_use=False)
    differ = 0
    for position, roll in decisions(300, seed=12):
        money = engine.rank_plays(position, roll)[0].play.position
        assert choose(engine, position, roll, context=cube_info(no_cube, 0)).position == money
        differ += choose(engine, position, roll,
                         context=cube_info(with_cube, 0)).position != money
    assert differ > 0  # the cube's absence changed some plays: the test tells them apart


def test_the_match_bot_plays_at_its_own_view_of_the_score(engine: Engine) -> None:
    """In a whole 5-point match the bot's every play is the best at the score as it sees
    it (its own away count first), and the money-play bot's is the best in money."""
    rules = Rules(length=5)
    bots = (MatchBot(engine, rng=random.Random(1)),
            MatchBot(engine, rng=random.Random(2), at_score=False))
    record: list = []
    play_match(bots, rules, random.Random(4), record=record)
    match = Match.new(rules)
    checked = 0
    for action in record:
        if isinstance(action, PlayMove):
            game = match.game
            assert game.roll is not None
            context = cube_info(match, action.player) if action.player == 0 else None
            best = engine.rank_plays(game.position, game.roll, context=context)[0]
            assert action.play.position == best.play.position
            checked += 1
        match, _ = match.apply(action)
    assert checked > 20


def test_the_analysis_grades_a_play_at_the_score(engine: Engine) -> None:
    """The analysis of a DMP game values each play by its winning chance: the best play
    has the best winning chance, and the loss is twice the difference in winning chance
    (the chances of the ranking at that score: the judge values its best plays there)."""
    rng = random.Random(9)
    record: list = []
    bots = (MatchBot(engine, rng=random.Random(1), at_score=False),
            MatchBot(engine, rng=random.Random(2), at_score=False))
    play_match(bots, Rules(length=1), rng, record=record)
    analysis = analyse_actions(record, Rules(length=1), engine=engine)
    graded = [d for d in analysis.decisions if not d.forced]
    assert graded
    for d in graded[:15]:
        position = Position.from_id(d.position_id)
        roll = Roll(int(d.roll[0]), int(d.roll[1]))
        ranked = engine.rank_plays(position, roll, context=CubeInfo.match(1, 1))
        best = max(r.probabilities.win for r in ranked)
        played = next(r for r in ranked if r.play.notation() == d.played)
        assert d.best_equity == pytest.approx(2 * best - 1, abs=1e-9)
        assert d.played_equity == pytest.approx(2 * played.probabilities.win - 1, abs=1e-9)


def test_the_compiled_ranking_values_each_play_as_play_equity_does(engine: Engine) -> None:
    """The engine's fast path (one compiled call for a roll's plays) gives each play the
    value :func:`play_equity` gives it alone, at money and match scores of every kind."""
    contexts = [CubeInfo.money(), CubeInfo.money(2, Owner.ME), CubeInfo.money(jacoby=True),
                CubeInfo.match(2, 6), CubeInfo.match(1, 5), CubeInfo.match(3, 3, 2, Owner.ME),
                CubeInfo.match(5, 1, post_crawford=True), CubeInfo.match(9, 4, 4, "opponent")]
    for position, roll in decisions(40, seed=21):
        for context in contexts:
            for r in engine.rank_plays(position, roll, context=context):
                alone = play_equity(r.probabilities, context, r.play.next_position)
                assert r.equity == pytest.approx(alone, abs=1e-12)


def test_the_cube_efficiency_of_a_play_is_that_of_the_position_it_leaves() -> None:
    """:meth:`CubeEfficiency.of_boards` (the mover's boards, compiled) agrees with
    :meth:`CubeEfficiency.of` of each position the opponent then has on roll: contact,
    races by the pips, and bear-offs."""
    from gammon.core.moves import _legal_plays_and_boards
    from gammon.engine.cube import DEFAULT_EFFICIENCY

    kinds: set[float] = set()
    for position, roll in decisions(400, seed=13):
        plays, boards = _legal_plays_and_boards(position, roll)
        fast = DEFAULT_EFFICIENCY.of_boards(boards, len(plays))
        for play, x in zip(plays, fast, strict=True):
            assert x == pytest.approx(DEFAULT_EFFICIENCY.of(play.next_position), abs=1e-12)
            kinds.add(round(float(x), 4))
    assert len(kinds) > 3  # contact, bear-offs and races of several lengths were met


def test_at_double_match_point_the_deeper_search_keeps_the_winning_chances_best(
        engine: Engine) -> None:
    """The move filter of the 1-ply search compares values at the score too: at double match
    point the plays it looks at more deeply are those with the best 0-ply winning chances,
    and the best 1-ply play is the one with the best 1-ply winning chance."""
    for position, roll in decisions(25, seed=17):
        ranked = engine.rank_plays(position, roll, plies=1, context=CubeInfo.match(1, 1))
        deep = [r for r in ranked if r.ply == 1]
        assert deep
        wins = [r.probabilities.win for r in deep]
        assert wins == sorted(wins, reverse=True)
        shallow = engine.rank_plays(position, roll, plies=0, context=CubeInfo.match(1, 1))
        assert shallow[0].play.position in {r.play.position for r in deep}


def race_decisions(count: int, seed: int) -> list[tuple[Position, Roll]]:
    """Race positions (no contact, so no pruning inside the search) where one side is far
    behind: gammons are still in play."""
    from gammon.engine.features import is_race

    return [(p, r) for p, r in decisions(4000, seed)
            if is_race(p.array()) and abs(p.pips()[0] - p.pips()[1]) > 40][:count]


def one_ply_reference(engine: Engine, after: Position, replier: CubeInfo) -> np.ndarray:
    """The mover's 1-ply probabilities after a play, from the legal plays themselves: over
    the opponent's 21 rolls, its reply is the one worth most to it at its score
    (``replier``: its view), each reply's position valued at 0-ply."""
    from gammon.core.moves import legal_plays
    from gammon.engine.cube import filter_weights

    weights = filter_weights(replier)
    total = np.zeros(5)
    for a in range(1, 7):
        for b in range(1, a + 1):
            best, best_value = None, -np.inf
            for reply in legal_plays(after, Roll(a, b)):
                chances = engine.evaluate(reply.next_position)  # the mover on roll again
                mine = np.array(chances.as_tuple())
                theirs = np.array(chances.inverted().as_tuple())
                if float(weights @ theirs) > best_value:
                    best, best_value = mine, float(weights @ theirs)
            total += (1 if a == b else 2) / 36 * best
    return total


def test_inside_the_search_each_side_chooses_its_plays_at_its_own_score(
        engine: Engine) -> None:
    """At 1-ply the opponent's reply to each roll is the one best for it at the score (at
    double match point: the best winning chance), not the cubeless money best: the
    search's values equal a reference built from the legal replies themselves."""
    context = CubeInfo.match(1, 1)
    differ = 0
    for position, roll in race_decisions(6, seed=11):
        for r in engine.rank_plays(position, roll, plies=1, context=context):
            if r.ply != 1:
                continue
            reference = one_ply_reference(engine, r.play.next_position, context.swap())
            assert np.array(r.probabilities.as_tuple()) == pytest.approx(reference, abs=1e-6)
            money = one_ply_reference(engine, r.play.next_position, CubeInfo.money())
            differ += not np.allclose(money, reference, atol=1e-6)
    assert differ > 0  # the score changed some replies: the test tells the two apart


def test_each_graded_play_records_where_it_was_as_a_match_id(engine: Engine) -> None:
    """The analysis records each play's score, cube and dice as a GNU Backgammon Match ID,
    which reads back as the context the play was graded at (the review asks the hint API
    with it)."""
    from gammon.formats.match_id import MatchKey

    rules = Rules(length=5)
    record: list = []
    bots = (MatchBot(engine, rng=random.Random(1)), MatchBot(engine, rng=random.Random(2)))
    play_match(bots, rules, random.Random(6), record=record)
    analysis = analyse_actions(record, rules, engine=engine)
    match = Match.new(rules)
    decisions_seen = iter(analysis.decisions)
    for action in record:
        if isinstance(action, PlayMove) and match.game.roll is not None:
            d = next(decisions_seen)
            key = MatchKey.from_id(d.match_id)
            assert key.roll == match.game.roll and key.dice_owner == action.player
            assert CubeInfo.from_match_key(key) == cube_info(match, action.player)
        match, _ = match.apply(action)


def test_the_bot_and_the_analysis_search_at_the_score(engine: Engine) -> None:
    """``rank_plays`` (what ``choose``, the bot levels and the analysis call) hands the
    context to the engine's own search, so its move filter and the plays inside it are
    chosen at the score too, not only the final order."""
    context = CubeInfo.match(1, 1)
    for position, roll in race_decisions(3, seed=11):
        through = rank_plays(engine, position, roll, plies=1, context=context)
        direct = engine.rank_plays(position, roll, plies=1, context=context)
        assert ([(r.play, r.ply, r.probabilities, r.equity) for r in through]
                == [(r.play, r.ply, r.probabilities, r.equity) for r in direct])
