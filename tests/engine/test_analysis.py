"""Match analysis: equity lost per checker play, forced plays, luck, and the reports."""

from __future__ import annotations

import pytest

from gammon import views
from gammon.core.actions import Drop, OfferDouble, PlayMove, RollDice
from gammon.core.dice import Roll
from gammon.core.game import Game, Rules
from gammon.core.match import Match
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.analysis import BLUNDER, ERROR, analyse_actions
from gammon.engine.player import Engine
from tests.core.helpers import opening


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()



def test_the_best_play_loses_nothing_and_a_bad_one_is_a_blunder(engine: Engine) -> None:
    rules = Rules(length=1)
    good = analyse_actions([opening(0), PlayMove(0, "8/5 6/5")], rules,
                           engine=engine)
    bad = analyse_actions([opening(0), PlayMove(0, "24/23 13/10")], rules,
                          engine=engine)
    assert good.decisions[0].loss == 0
    assert good.decisions[0].best == "8/5 6/5"
    assert bad.decisions[0].loss >= BLUNDER
    assert bad.decisions[0].mark == "??"
    summary = bad.summaries()[0]
    assert (summary.unforced, summary.blunders) == (1, 1)
    assert summary.performance_rating == pytest.approx(500 * bad.decisions[0].loss)


def test_at_0_ply_the_play_made_is_valued_by_the_judge_as_the_best_is(engine: Engine) -> None:
    """A 0-ply ranking gives its best plays the judge's values; the analysis values the
    play made by the judge too, so both sides of the loss come from one evaluator. The
    judge's values here are computed the plain way: networks whose contact network is the
    judge. At double match point a play is worth 2 P(win) - 1."""
    assert engine.nets.judge is not None
    as_contact = engine.nets.copy()
    as_contact.contact, as_contact.judge = engine.nets.judge, None
    judge = Engine(as_contact)
    position, roll = Position.initial(), Roll(3, 1)

    def judged(notation: str) -> float:
        play = next(p for p in legal_plays(position, roll) if p.notation() == notation)
        return 2 * judge.evaluate(play.next_position).inverted().win - 1

    decision = analyse_actions([opening(0), PlayMove(0, "24/23 13/10")], Rules(length=1),
                               engine=engine, plies=0).decisions[0]
    assert decision.best == "8/5 6/5"
    assert decision.best_equity == pytest.approx(judged("8/5 6/5"), abs=1e-9)
    assert decision.played_equity == pytest.approx(judged("24/23 13/10"), abs=1e-9)
    # the ranking itself left the play made to the contact network: the test can tell
    ranked = engine.rank_plays(position, roll, plies=0)
    alone = next(r for r in ranked if r.play.notation() == "24/23 13/10").probabilities
    assert abs(2 * alone.win - 1 - judged("24/23 13/10")) > 1e-4


def test_a_forced_play_is_not_an_unforced_decision(engine: Engine) -> None:
    # A lone checker on the bar, 5-5, and only their 5-point open: bar/20 then 20/15/10/5
    # is the one legal play (the checkers on the 1-point cannot move while one is out).
    position = Position.from_points({25: 1, 1: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 6: 2, 11: 5})
    (only,) = legal_plays(position, Roll(5, 5))
    start = Match(Rules(length=1), Game.from_position(position, 0, rules=Rules(length=1)))
    actions = [RollDice(0, Roll(5, 5)), PlayMove(0, only)]
    analysis = analyse_actions(actions, Rules(length=1), engine=engine, start=start)
    (decision,) = analysis.decisions
    assert decision.forced and decision.mark == ""
    assert analysis.summaries()[0].unforced == 0


def test_luck_is_zero_on_average_over_the_rolls(engine: Engine) -> None:
    # Luck is the roll's value minus the average over the 21 rolls: weighted by how often
    # each roll comes, the luck of all rolls sums to zero.
    reply_position = next(p for p in legal_plays(Position.initial(), Roll(3, 1))
                          if str(p) == "8/5 6/5").position.swap()
    total = 0.0
    for roll in (Roll(a, b) for a in range(1, 7) for b in range(1, a + 1)):
        best = engine.rank_plays(reply_position, roll)[0].play
        actions = [opening(0), PlayMove(0, "8/5 6/5"), RollDice(1, roll),
                   PlayMove(1, best)]
        analysis = analyse_actions(actions, Rules(length=1), engine=engine)
        total += analysis.decisions[1].luck * (1 if roll.is_double() else 2) / 36
    assert abs(total) < 1e-9


def test_luck_is_valued_at_the_score_at_dmp_the_chance_of_winning(engine: Engine) -> None:
    """At double match point a game's value is 2 x (its winning chance) - 1 (the match
    equity table's one fact there): the luck of a roll is that of its play with the most
    winning chances, against the average over the 21 rolls — not money equity."""
    reply_position = next(p for p in legal_plays(Position.initial(), Roll(3, 1))
                          if str(p) == "8/5 6/5").position.swap()

    def value(roll: Roll) -> float:
        return max(2 * r.probabilities.win - 1
                   for r in engine.rank_plays(reply_position, roll))

    rolls = [Roll(a, b) for a in range(1, 7) for b in range(1, a + 1)]
    average = sum(value(r) * (1 if r.is_double() else 2) for r in rolls) / 36
    roll = Roll(6, 6)
    best = engine.rank_plays(reply_position, roll)[0].play
    actions = [opening(0), PlayMove(0, "8/5 6/5"), RollDice(1, roll),
               PlayMove(1, best)]
    luck = analyse_actions(actions, Rules(length=1), engine=engine).decisions[1].luck
    assert luck == pytest.approx(value(roll) - average, abs=1e-6)
    money = analyse_actions(actions, Rules(length=0), engine=engine).decisions[1].luck
    assert abs(money - luck) > 1e-3  # money play values gammons: another number


def test_in_a_match_each_play_carries_its_match_winning_chance(engine: Engine) -> None:
    """At double match point the match is the game: the chance of winning the match after
    a play is the chance of winning the game; in money play there is none; in a longer
    match it is a chance, the graph's point."""
    actions = [opening(0), PlayMove(0, "8/5 6/5"), RollDice(1, Roll(6, 4)),
               PlayMove(1, "24/14")]
    for d in analyse_actions(actions, Rules(length=1), engine=engine).decisions:
        assert d.match_winning_chance == pytest.approx(d.win_chance, abs=1e-9)
        assert d.chance == d.match_winning_chance
    for d in analyse_actions(actions, Rules(length=0), engine=engine).decisions:
        assert d.match_winning_chance is None and d.chance == d.win_chance
    seven = analyse_actions(actions, Rules(length=7), engine=engine).decisions
    assert all(0.3 < (d.match_winning_chance or 0) < 0.7 for d in seven)
    assert all(abs((d.match_winning_chance or 0) - d.win_chance) > 1e-4 for d in seven)


def test_reports_name_both_players_and_every_decision(engine: Engine) -> None:
    actions = [opening(0), PlayMove(0, "24/23 13/10")]
    analysis = analyse_actions(actions, Rules(length=1), names=("alice", "bob"), engine=engine)
    data = views.analysis_view(analysis)
    assert data["names"] == ["alice", "bob"]
    assert data["decisions"][0]["mark"] == "??"
    assert "alice" in analysis.to_text() and "??" in analysis.to_text()
    page = analysis.to_html()
    assert page.startswith("<!doctype html>") and "<svg" in page and "alice" in page


def test_dropping_a_take_and_missing_a_double_are_cube_errors(engine: Engine) -> None:
    rules = Rules()  # money
    # Doubled in the opening position: dropping gives away a whole point for a position
    # that is about even — a blunder; taking is right.
    start = Match(rules, Game.from_position(Position.initial(), 0, rules=rules))
    analysis = analyse_actions([OfferDouble(0), Drop(1)], rules, engine=engine, start=start)
    (offer, answer) = analysis.cube
    assert (offer.chosen, offer.proper) == ("double", "no double")
    assert offer.loss > 0
    assert (answer.chosen, answer.proper, answer.mark) == ("drop", "take", "??")
    # A 94% bear-off race with no gammons: rolling on instead of doubling (double/pass).
    race = Position.from_points({3: 2, 2: 2}, {6: 2, 5: 2})
    start = Match(rules, Game.from_position(race, 0, rules=rules))
    analysis = analyse_actions([RollDice(0, Roll(2, 1))], rules, engine=engine, start=start)
    (missed,) = analysis.cube
    assert (missed.chosen, missed.proper) == ("no double", "double pass")
    assert missed.loss >= ERROR
    assert analysis.summaries()[0].cube_decisions == 1


def test_a_flagged_error_is_graded_again_by_rollouts_of_both_plays(engine: Engine) -> None:
    """With a recheck, the 0-ply blunder 24/23 13/10 is rolled out beside the best play on
    the same dice, at the score; both values are those rollouts' (cubeful at the score) and
    the decision says what graded it. A play within the error margin keeps its 0-ply
    grade."""
    from gammon.engine.analysis import Recheck
    from gammon.engine.cube import CubeInfo, play_equity

    rules = Rules(length=3)
    recheck = Recheck(games=144, truncate=3, seed=5)
    actions = [opening(0), PlayMove(0, "24/23 13/10")]
    plain = analyse_actions(actions, rules, engine=engine).decisions[0]
    checked = analyse_actions(actions, rules, engine=engine, recheck=recheck).decisions[0]
    assert plain.loss >= ERROR and plain.graded_by == "0-ply"
    assert checked.graded_by == "rollout 144 games, 3 plies"
    context = CubeInfo.match(3, 3)
    start = Position.initial()
    for notation, equity in ((plain.best, checked.best_equity),
                             ("24/23 13/10", checked.played_equity)):
        after = next(p for p in legal_plays(start, Roll(3, 1))
                     if p.notation() == notation).next_position
        result = engine.rollout(after, games=144, truncate=3, seed=5, context=context.swap(),
                                pruned=True)
        assert equity == pytest.approx(play_equity(result.mean.inverted(), context, after))
    # the plays rolled out are the graded alternatives: the best, the runner-up at the
    # analysis's ply and the play made, best first
    rolled = [text for text, _ in plain.alternatives[:2]]
    rolled += [] if "24/23 13/10" in rolled else ["24/23 13/10"]
    assert sorted(text for text, _ in checked.alternatives) == sorted(rolled)
    assert checked.alternatives[0] == (checked.best, checked.best_equity)
    assert ("24/23 13/10", checked.played_equity) in checked.alternatives
    assert [v for _, v in checked.alternatives] == sorted(
        (v for _, v in checked.alternatives), reverse=True)
    good = analyse_actions([opening(0), PlayMove(0, "8/5 6/5")], rules,
                           engine=engine, recheck=recheck).decisions[0]
    assert good.graded_by == "0-ply" and good.loss < ERROR
