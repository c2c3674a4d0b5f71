"""`gammon cube`: the cube decision of the side on roll, the answer to a pending double or
resignation, batch mode over standard input, and bad input."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from gammon.cli.cube_commands import MAX_PLY, add_cube_commands, cube_hint_lines, parse_ids
from gammon.core.position import Position
from gammon.engine import search
from gammon.engine.player import Engine
from gammon.formats.match_id import GameState, MatchKey, Resignation

START = "4HPwATDgc/ABMA"
MONEY = MatchKey().id()  # player 0 on roll, cube centred, no Jacoby
# The side on roll has 15 checkers in the opponent's home board and nothing off; the
# opponent one checker on its ace point: lost with a backgammon.
LOST = Position.from_points({22: 5, 21: 5, 20: 5}, {1: 1}).id()
WON = Position.from_id(LOST).swap().id()


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``gammon ARGV`` as the command line runs it (``main``'s error handling included)."""
    parser = argparse.ArgumentParser(prog="gammon")
    add_cube_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = args.handler(args, out, io.StringIO(stdin))
    except ValueError as error:
        err.write(f"gammon: error: {error}\n")
        code = 2
    return code, out.getvalue(), err.getvalue()


def cube(position_id: str, key: MatchKey, *extra: str) -> dict[str, Any]:
    code, text, _ = run(["cube", position_id, key.id(), "--json", *extra])
    assert code == 0
    answer = json.loads(text)
    assert isinstance(answer, dict)
    return answer


def test_cube_gives_the_decision_of_the_side_on_roll_as_json() -> None:
    answer = cube(START, MatchKey())
    assert answer["action"] == "no-double"  # nobody doubles the opening position
    assert answer["player"] == 0 and answer["ply"] == 0
    assert set(answer["equities"]) == {"no_double", "double_take", "double_pass"}
    assert answer["equities"]["double_pass"] == 1.0
    assert answer["response"] == "take" and answer["cube_available"] is True
    assert "mwc" not in answer


def test_cube_of_a_won_position_is_too_good_and_shows_match_winning_chances() -> None:
    answer = cube(WON, MatchKey(match_length=7, score=(2, 3)))
    assert answer["action"] == "too-good-pass"
    assert set(answer["mwc"]) == {"no_double", "double_take", "double_pass"}
    assert answer["cube"] == "5-away/4-away, cube 1 centred"


def test_crawford_game_answers_no_double_without_a_cube() -> None:
    answer = cube(WON, MatchKey(match_length=5, score=(2, 4), crawford=True))
    assert answer["action"] == "no-double"
    assert answer["cube_available"] is False and answer["response"] is None
    assert answer["reason"] == "the Crawford game: no cube"
    assert list(answer["equities"]) == ["no_double"]


def test_a_short_race_in_money_play_is_decided_exactly() -> None:
    """One checker on the 6-point against one on the ace: the last roll, 27 of 36 to win.
    Doubling is right and taking is worth passing (25% exactly), read from the two-sided
    bear-off database and said so."""
    race = Position.from_points({6: 1}, {1: 1}).id()
    code, text, _ = run(["cube", race, MONEY])
    assert code == 0
    assert "exact (the two-sided bear-off database)" in text.splitlines()[0]
    assert "No double      +0.500" in text and "Double, take   +1.000" in text
    doubled = MatchKey(turn=1, double_offered=True).id()
    code, text, _ = run(["cube", race, doubled])
    assert code == 0 and "exact" in text.splitlines()[0] and "Take           -1.000" in text


def test_cube_text_output_lists_the_equities_and_the_proper_action() -> None:
    code, text, _ = run(["cube", WON, MONEY])
    assert code == 0
    assert "No double" in text and "Double, take" in text and "Double, pass" in text
    assert text.splitlines()[-1].startswith("Proper cube action: too-good-pass")


def test_pending_double_gets_the_receivers_answer() -> None:
    # the Match ID holds the cube before the double; the position is the doubler's view
    doubled = MatchKey(dice_owner=0, turn=1, double_offered=True)
    hopeless = cube(WON, doubled)
    assert hopeless["action"] == "pass" and hopeless["player"] == 1
    assert hopeless["equities"] == {"take": pytest.approx(-6.0, abs=0.1), "pass": -1.0}
    crazy = cube(LOST, doubled)
    assert crazy["action"] == "take"
    assert cube(LOST, doubled, "--beavers")["action"] == "beaver"
    in_match = cube(LOST, MatchKey(dice_owner=0, turn=1, double_offered=True, match_length=7))
    assert in_match["action"] == "take" and set(in_match["mwc"]) == {"take", "pass"}


@pytest.mark.parametrize(("efficiency", "expected"), [(0.0, 0.25), (1.0, 0.20)])
def test_the_take_point_is_where_take_and_pass_are_worth_the_same(efficiency: float,
                                                                  expected: float) -> None:
    """Money, no gammons: the dead cube's take point is 25%, the live cube's Janowski's 20%;
    at 2-away/2-away the first double is final: 1 - MET(1-away, 2-away), 32.264%."""
    from gammon.engine.cube import CubeInfo, cube_decision, take_decision
    from gammon.engine.evaluator import Probabilities
    from gammon.views import cube_decision_view, take_decision_view, take_point

    chances = Probabilities(0.7, 0.0, 0.0, 0.0, 0.0)
    decision = cube_decision(chances, CubeInfo(), efficiency=efficiency)
    assert take_point(decision) == pytest.approx(expected, abs=1e-6)
    assert cube_decision_view(decision, player=0)["take_point"] == pytest.approx(expected)
    answer = take_decision(chances, CubeInfo(), efficiency=efficiency)
    assert take_decision_view(answer, player=1)["take_point"] == pytest.approx(expected)
    at_dmp = cube_decision(chances, CubeInfo.match(2, 2), efficiency=efficiency)
    assert take_point(at_dmp) == pytest.approx(0.32264, abs=1e-5)
    # the point itself: the receiver passes just below it and takes just above it
    for p, response in ((1 - expected - 0.001, "take"), (1 - expected + 0.001, "pass")):
        at = cube_decision(Probabilities(p, 0.0, 0.0, 0.0, 0.0), CubeInfo(),
                           efficiency=efficiency)
        assert str(at.response) == response


def test_the_json_gives_the_take_point_at_the_score_and_none_without_a_double() -> None:
    answer = cube(START, MatchKey())
    money = answer["take_point"]
    assert 0.15 < money < 0.3
    in_match = cube(START, MatchKey(match_length=7, score=(0, 4)))["take_point"]
    assert 0 < in_match < 1 and in_match != money  # the score moves it
    doubled = cube(START, MatchKey(dice_owner=0, turn=1, double_offered=True))
    assert doubled["take_point"] == money  # the receiver's own, the same point
    crawford = cube(WON, MatchKey(match_length=5, score=(2, 4), crawford=True))
    assert crawford["take_point"] is None


def test_pending_resignation_gets_accepted_or_rejected() -> None:
    def resign(level: Resignation) -> str:
        key = MatchKey(dice_owner=0, turn=1, resignation=level)
        return str(cube(LOST, key, "--ply", "2")["action"])

    assert resign(Resignation.BACKGAMMON) == "accept"
    assert resign(Resignation.GAMMON) == "reject"
    rolled = MatchKey(dice_owner=0, turn=1, resignation=Resignation.SINGLE, dice=(6, 5))
    assert cube(LOST, rolled)["action"] == "reject"


def test_ply_option_evaluates_deeper() -> None:
    assert cube(START, MatchKey(), "--ply", "1")["ply"] == 1
    assert MAX_PLY == search.MAX_PLY


def test_batch_mode_answers_one_json_object_per_line_and_survives_bad_lines() -> None:
    rolled = MatchKey(dice=(3, 1)).id()
    lines = (f"{START} {MONEY}\n\nnot-an-id {MONEY}\n{START}\n{START} {rolled}\n"
             f"{WON} {MatchKey(match_length=31).id()}\n")
    code, text, _ = run(["cube"], stdin=lines)
    assert code == 0
    answers = [json.loads(line) for line in text.splitlines()]
    assert len(answers) == 5
    assert answers[0]["action"] == "no-double"
    assert "Position ID" in answers[1]["error"]
    assert "POSITION_ID MATCH_ID" in answers[2]["error"]
    assert "before the roll" in answers[3]["error"]
    assert "25 points" in answers[4]["error"]


def test_batch_mode_flushes_each_answer_before_reading_the_next_line() -> None:
    driver = textwrap.dedent("""
        import argparse, sys
        from gammon.cli.cube_commands import add_cube_commands
        parser = argparse.ArgumentParser(prog="gammon")
        add_cube_commands(parser.add_subparsers(dest="command", required=True))
        args = parser.parse_args(["cube"])
        sys.exit(args.handler(args, sys.stdout, sys.stdin))
    """)
    process = subprocess.Popen([sys.executable, "-c", driver], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(f"{START} {MONEY}\n")
        process.stdin.flush()
        first = process.stdout.readline()  # would hang if the answer were buffered
        assert json.loads(first)["action"] == "no-double"
    finally:
        process.stdin.close()
        process.wait(timeout=120)
        process.stdout.close()
    assert process.returncode == 0


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["cube", "4HPwATDgc/AB", MONEY], "14 characters"),
        (["cube", START, "cAlv"], "12 characters"),
        (["cube", START], "MATCH_ID"),
        (["cube", START, MONEY, "--ply", "3"], "--ply"),
        (["cube", START, MatchKey(dice=(6, 3)).id()], "before the roll"),
        (["cube", START, MatchKey(game_state=GameState.NONE).id()], "no game in play"),
        (["cube", START, MatchKey(match_length=31).id()], "25 points"),
        (["cube", START, MatchKey(cube=128, cube_owner=0).id()], "64"),
        (["cube", START, MatchKey(match_length=5, score=(4, 1), crawford=True,
                                  double_offered=True, turn=1).id()], "no double"),
        (["cube", Position.from_points({}, {1: 1}).id(), MONEY], "game is over"),
    ],
)
def test_malformed_input_exits_2_with_a_one_line_reason(argv: list[str], reason: str) -> None:
    code, _, error = run(argv)
    assert code == 2
    assert error.count("\n") == 1 and reason in error


def test_hint_lines_give_the_cube_decision_only_before_the_roll() -> None:
    engine = Engine.load()
    position, key = parse_ids(START, MONEY)
    lines = cube_hint_lines(engine, position, key, plies=0)
    assert lines[0].startswith("Cube decision for player 0 (on roll), 0-ply, money")
    assert lines[-1] == "Proper cube action: no-double (if doubled: take)"
    assert cube_hint_lines(engine, position, MatchKey(dice=(3, 1))) == []
