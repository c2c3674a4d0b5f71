"""Puzzles from an analysis: which decisions become puzzles (the error and margin rules, at
the decision's grade), one puzzle for one position and context however often it is met,
the context with the player to answer numbered 0, and each theme's rule on known
positions."""

from __future__ import annotations

import pytest

from gammon.core.actions import Drop, OfferDouble, PlayMove
from gammon.core.dice import Roll
from gammon.core.game import Game, Rules
from gammon.core.match import Match
from gammon.core.position import Position
from gammon.engine.analysis import Analysis, CheckerDecision, analyse_actions
from gammon.engine.cube import CubeInfo
from gammon.engine.player import Engine
from gammon.engine.puzzles import (
    CLEAR_MARGIN,
    MIN_ERROR,
    THEMES,
    Spot,
    canonical,
    puzzles_of,
    themes_of,
)
from gammon.formats.match_id import MatchKey
from tests.core.helpers import opening


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()



def test_an_opening_blunder_is_a_puzzle_whose_answer_is_the_best_play(engine: Engine) -> None:
    analysis = analyse_actions([opening(0), PlayMove(0, "24/23 13/10")],
                               Rules(length=3), engine=engine)
    (puzzle,) = puzzles_of(analysis)
    (decision,) = analysis.decisions
    assert (puzzle.kind, puzzle.position_id, puzzle.dice) == ("checker", decision.position_id,
                                                              "31")
    assert puzzle.best == "8/5 6/5" == decision.best
    assert puzzle.error == decision.loss >= MIN_ERROR
    assert puzzle.margin >= CLEAR_MARGIN
    assert [a.equity for a in puzzle.answers] == sorted(
        (a.equity for a in puzzle.answers), reverse=True)
    assert "24/23 13/10" in [a.text for a in puzzle.answers]
    assert puzzle.graded_by == "0-ply" and puzzle.plies == 0
    ranked = engine.rank_plays(Position.initial(), Roll(3, 1), plies=0,
                               context=CubeInfo.match(3, 3))
    assert ranked[0].play.notation() == puzzle.best
    assert ranked[0].equity - ranked[1].equity >= CLEAR_MARGIN
    key = MatchKey.from_id(puzzle.match_id)
    assert (key.match_length, key.score, key.cube, key.turn, key.dice) == (3, (0, 0), 1, 0,
                                                                            (3, 1))
    assert puzzle.themes == ("opening",)
    assert [(s.game, s.move_number, s.player, s.played) for s in puzzle.sources] == [
        (1, 1, 0, "24/23 13/10")]


def test_the_best_play_made_is_no_puzzle(engine: Engine) -> None:
    analysis = analyse_actions([opening(0), PlayMove(0, "8/5 6/5")],
                               Rules(length=3), engine=engine)
    assert puzzles_of(analysis) == []


def test_a_dropped_take_and_a_wrong_double_are_cube_puzzles(engine: Engine) -> None:
    rules = Rules()  # money: doubled in the opening position, a take; doubling was wrong
    start = Match(rules, Game.from_position(Position.initial(), 0, rules=rules))
    analysis = analyse_actions([OfferDouble(0), Drop(1)], rules, engine=engine, start=start)
    double, take = puzzles_of(analysis)
    assert (double.kind, double.best, double.dice) == ("double", "no double", "")
    assert {a.text for a in double.answers} == {"double", "no double"}
    assert "cube-action" in double.themes and "take-point" not in double.themes
    assert (take.kind, take.best) == ("take", "take")
    assert {a.text for a in take.answers} == {"take", "drop"}
    assert "take-point" in take.themes
    assert take.error == pytest.approx(analysis.cube[1].loss)
    assert MatchKey.from_id(take.match_id).turn == 0  # the taker, numbered 0
    assert MatchKey.from_id(take.match_id).double_offered


def decision(player: int, match_id: str, alternatives: tuple[tuple[str, float], ...],
             played: str = "24/23 13/10", *, forced: bool = False) -> CheckerDecision:
    values = dict(alternatives)
    return CheckerDecision(
        game=1, move_number=1 + player, player=player, position_id=Position.initial().id(),
        roll="13", played=played, best=alternatives[0][0], played_equity=values[played],
        best_equity=alternatives[0][1], forced=forced, luck=0.0, win_chance=0.5,
        match_id=match_id, graded_by="2-ply", alternatives=alternatives)


def test_the_error_and_margin_rules_and_one_puzzle_for_one_position_and_context() -> None:
    at_1_3 = MatchKey(match_length=5, score=(1, 3), dice=(1, 3)).id()
    mirrored = MatchKey(match_length=5, score=(3, 1), dice=(3, 1), turn=1, dice_owner=1).id()
    clear = (("8/5 6/5", 0.30), ("13/10 6/5", 0.30 - CLEAR_MARGIN - 0.001),
             ("24/23 13/10", 0.20))
    close = (("8/5 6/5", 0.30), ("13/10 6/5", 0.30 - CLEAR_MARGIN + 0.001),
             ("24/23 13/10", 0.20))
    small = (("8/5 6/5", 0.30), ("24/23 13/10", 0.30 - MIN_ERROR + 0.001))
    analysis = Analysis(names=("a", "b"), plies=2, decisions=[
        decision(0, at_1_3, clear), decision(1, mirrored, clear),
        decision(0, at_1_3, close), decision(0, at_1_3, small),
        decision(0, at_1_3, clear, forced=True)])
    (puzzle,) = puzzles_of(analysis)
    assert [s.player for s in puzzle.sources] == [0, 1]  # both players' at the same score
    assert puzzle.margin == pytest.approx(CLEAR_MARGIN + 0.001)
    assert MatchKey.from_id(puzzle.match_id).score == (1, 3)


def test_the_context_numbers_the_player_to_answer_zero() -> None:
    key = canonical(MatchKey(match_length=7, score=(2, 5), cube=2, cube_owner=0, turn=1,
                             dice_owner=1, dice=(2, 6)).id())
    assert (key.score, key.cube_owner, key.turn, key.dice_owner, key.dice) == (
        (5, 2), 1, 0, 0, (6, 2))
    take = canonical(MatchKey(match_length=7, score=(2, 5), turn=1, dice_owner=0,
                              double_offered=True).id())
    assert (take.score, take.turn, take.dice_owner) == ((5, 2), 0, 1)
    assert canonical(take.id()) == take


def spot(position: Position, key: MatchKey | None = None, kind: str = "checker",
         plays_before: int = 10) -> Spot:
    return Spot(position, key or MatchKey(), kind, plays_before)  # type: ignore[arg-type]


HOME = {6: 5, 8: 3, 13: 5}
"""Thirteen checkers of the starting position, for the side whose other two are placed."""


@pytest.mark.parametrize(("name", "position", "expected"), [
    ("race", Position.from_points({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5}), True),
    ("race", Position.initial(), False),
    ("bear-off", Position.from_points({6: 5, 5: 5, 4: 5}, {12: 5, 5: 5, 4: 5}), True),
    ("bear-off", Position.from_points({12: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5}), True),
    ("bear-off", Position.from_points({12: 5, 5: 5, 4: 5}, {12: 5, 5: 5, 4: 5}), False),
    ("back-game", Position.from_points({24: 2, 22: 2, 6: 5, 8: 3, 13: 3}, HOME | {24: 2}),
     True),
    ("back-game", Position.initial(), False),
    ("holding", Position.from_points(HOME | {20: 2}, HOME | {24: 2}), True),
    ("holding", Position.from_points({24: 2, 20: 2, 6: 5, 8: 3, 13: 3}, HOME | {24: 2}),
     False),  # two anchors: a back game
    ("holding", Position.initial(), False),
    ("priming", Position.from_points({7: 2, 8: 2, 9: 2, 10: 2, 6: 3, 13: 4}, HOME | {24: 2}),
     True),
    ("priming", Position.from_points(HOME | {24: 2}, {7: 2, 8: 2, 9: 2, 10: 2, 6: 3, 13: 4}),
     True),  # the opponent's prime, the side on roll behind it
    ("priming", Position.from_points({7: 2, 8: 2, 9: 2, 4: 3, 13: 6}, HOME | {24: 2}),
     False),  # three points
    ("priming", Position.from_points({7: 2, 8: 2, 9: 2, 10: 2, 6: 3, 13: 4}, {6: 8, 5: 7}),
     False),  # nothing behind it
    ("blitz", Position.from_points({6: 3, 5: 2, 4: 2, 8: 3, 13: 5}, {25: 1, 24: 1} | HOME),
     True),
    ("blitz", Position.from_points({25: 1, 24: 1} | HOME, {6: 3, 5: 2, 4: 2, 8: 3, 13: 5}),
     True),  # the side on roll on the bar
    ("blitz", Position.from_points({6: 3, 5: 2, 8: 5, 13: 5}, {25: 1, 24: 1} | HOME),
     False),  # two points closed
    ("gammon-save", Position.from_points({13: 1, 6: 14}, {1: 5, 2: 5}), True),
    ("gammon-save", Position.from_points({13: 1, 6: 13}, {1: 5, 2: 5}), False),  # one off
    ("gammon-save", Position.from_points({1: 5, 2: 5}, {13: 1, 6: 14}), False),
    ("gammon-go", Position.from_points({1: 5, 2: 5}, {13: 1, 6: 14}), True),
    ("gammon-go", Position.from_points({1: 5, 2: 5}, {5: 1, 6: 14}), False),  # all home
])
def test_a_theme_rule_on_a_known_position(name: str, position: Position,
                                          expected: bool) -> None:
    assert THEMES[name](spot(position)) is expected


def test_the_themes_of_the_context_and_the_question() -> None:
    initial = Position.initial()
    assert themes_of(spot(initial, plays_before=3)) == ("opening",)
    assert themes_of(spot(initial, plays_before=4)) == ()
    assert themes_of(spot(initial, MatchKey(match_length=5, score=(4, 4)))) == ("dmp",)
    assert themes_of(spot(initial, MatchKey(match_length=5, score=(4, 2), crawford=True))
                     ) == ("crawford",)
    assert themes_of(spot(initial, kind="double")) == ("cube-action",)
    assert themes_of(spot(initial, kind="take")) == ("take-point",)
