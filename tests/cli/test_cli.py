"""The `gammon` command line: show, moves (single and batch mode), and bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gammon.cli.main import main
from gammon.core.position import Position

START = "4HPwATDgc/ABMA"


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out, stdin=io.StringIO(stdin))
    return code, out.getvalue()


def test_moves_lists_every_play_with_the_position_id_seen_by_the_opponent() -> None:
    code, text = run(["moves", START, "31"])
    assert code == 0
    lines = text.splitlines()
    assert len(lines) == 16
    plays = dict(line.split("\t") for line in lines)
    # 8/5 6/5 seen from the opponent: our 5-point (their 20) now holds two of "their" checkers
    after = Position.from_id(plays["8/5 6/5"])
    assert after.opponent_checkers(20) == 2 and after.opponent_checkers(17) == 2


def test_moves_accepts_dice_with_a_dash_and_prints_json() -> None:
    code, text = run(["moves", START, "3-1", "--json"])
    assert code == 0
    plays = json.loads(text)
    assert len(plays) == 16
    assert all(set(p) == {"play", "position_id"} for p in plays)
    assert any(p["play"] == "8/5 6/5" for p in plays)


def test_a_roll_with_no_legal_play_yields_one_empty_play() -> None:
    code, text = run(["moves", "4HPwATDgc/ABUA", "66"])
    assert code == 0
    (line,) = text.splitlines()
    play, position_id = line.split("\t")
    assert play == ""
    assert Position.from_id(position_id) == Position.from_id("4HPwATDgc/ABUA").swap()


def test_batch_mode_answers_one_json_array_per_line_and_survives_bad_lines() -> None:
    code, text = run(["moves"], stdin=f"{START} 21\nnot-an-id 33\n\n{START} 77\n{START}\n")
    assert code == 0
    answers = [json.loads(line) for line in text.splitlines()]
    assert len(answers) == 4
    assert len(answers[0]) == 15
    assert "Position ID" in answers[1]["error"]
    assert "die" in answers[2]["error"]
    assert "POSITION_ID DICE" in answers[3]["error"]


def test_batch_mode_flushes_each_answer_before_reading_the_next_line() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gammon.cli.main", "moves"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(f"{START} 31\n")
        process.stdin.flush()
        first = process.stdout.readline()  # would hang if the answer were buffered
        assert len(json.loads(first)) == 16
    finally:
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()
    assert process.returncode == 0


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["moves", "4HPwATDgc/AB", "31"], "14 characters"),
        (["moves", START, "71"], "die"),
        (["moves", START, "3"], "two digits"),
        (["moves", START], "DICE"),
        (["show", "????????????AA"], "base64"),
        (["show", START, "cAlvATAAIAAB"], "score"),
    ],
)
def test_malformed_input_exits_non_zero_with_a_one_line_reason(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run(argv)
    assert code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and reason in error


def test_show_draws_the_board_with_pips_and_match_details() -> None:
    code, text = run(["show", START, "cAlvATAAIAAA"])
    assert code == 0
    assert "pips 167" in text
    assert "Match to" in text and "Cube: 1 (centred)" in text and "Dice: 6-3" in text


def test_analyse_rates_a_match_file_in_text_json_and_html(tmp_path: Path) -> None:
    match_file = Path(__file__).parents[1] / "data" / "matches" / "handwritten.mat"
    quick = ["--recheck-games", "36", "--recheck-truncate", "2"]  # a small recheck
    code, text = run(["analyse", str(match_file), *quick])
    assert code == 0
    assert "unforced decisions" in text and "PR" in text
    assert run(["analyze", str(match_file), *quick]) == (code, text)  # American spelling
    code, text = run(["analyse", str(match_file), "--format", "json", *quick])
    data = json.loads(text)
    assert code == 0 and len(data["players"]) == 2 and data["decisions"]
    # every flagged error says it was graded again, and how; the rest their ply
    for d in data["decisions"]:
        rechecked = d["graded_by"] == "rollout 36 games, 2 plies"
        assert rechecked or d["graded_by"] == "0-ply", d
    report = tmp_path / "report.html"
    code, _ = run(["analyse", str(match_file), "--format", "html", "--out", str(report),
                   "--recheck-games", "0"])
    assert code == 0 and report.read_text().startswith("<!doctype html>")
    assert run(["analyse", str(match_file), "--recheck-games", "1"])[0] == 2


def test_analyse_refuses_a_missing_or_malformed_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["analyse", "/no/such/file.mat"])[0] == 2
    broken = tmp_path / "broken.mat"
    broken.write_text(" 5 point match\n\n Game 1\n Alice : 0     Bob : 0\n  1) 99: 8/5 6/5\n")
    assert run(["analyse", str(broken)])[0] == 2
    assert "line" in capsys.readouterr().err


def test_bench_scripts_import_their_shared_modules_as_when_run_directly() -> None:
    # gnubg_money imports gnubg_play, a sibling script: `gammon bench` puts the folder first
    done = subprocess.run([sys.executable, "-m", "gammon.cli.main", "bench", "gnubg_money",
                           "--help"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "--games" in done.stdout
