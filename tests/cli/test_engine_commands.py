"""The engine's commands: `gammon hint` (text, JSON, batch), `gammon rollout`, `gammon play`
(scripted through the stdin argument) and the `strength` and `speed` benchmarks."""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import gammon.cli.main as cli
from gammon.cli.engine_commands import LEVEL_NAMES, PROBABILITIES, add_engine_commands
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.player import LEVELS, Engine

START = "4HPwATDgc/ABMA"
WON = Position.from_points({3: 1}, {19: 15}).id()  # every roll bears our last checker off


@pytest.fixture(autouse=True)
def engine_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until cli/main.py wires add_engine_commands in, add the commands to its parser."""
    build = cli.build_parser

    def build_with_engine_commands() -> argparse.ArgumentParser:
        parser = build()
        commands = next(a for a in parser._actions
                        if isinstance(a, argparse._SubParsersAction))
        if "hint" not in commands.choices:
            add_engine_commands(commands)
        return parser

    monkeypatch.setattr(cli, "build_parser", build_with_engine_commands)


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(argv, out=out, stdin=io.StringIO(stdin))
    return code, out.getvalue()


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("gammon: error: ")
    return line


# -- hint -----------------------------------------------------------------------------------


def test_hint_lists_every_legal_play_best_first_the_bots_play_first() -> None:
    code, text = run(["hint", START, "31", "--ply", "0"])
    assert code == 0
    lines = text.splitlines()
    assert len(lines) == len(legal_plays(Position.initial(), Roll(3, 1))) == 16
    best = Engine.load().choose(Position.initial(), Roll(3, 1), "expert")
    assert lines[0].startswith(f" 1. {best} ")
    equities = [float(re.search(r"equity ([+-]\d\.\d+)", line)[1]) for line in lines]  # type: ignore[index]
    assert equities == sorted(equities, reverse=True)
    # aligned: the equity column starts at the same place on every line
    assert len({line.index("equity") for line in lines}) == 1
    assert all("0-ply" in line and "win " in line and "lose " in line for line in lines)


def test_hint_json_gives_equity_five_probabilities_and_ply_for_each_play() -> None:
    code, text = run(["hint", START, "3-1", "--json", "--ply", "1"])
    assert code == 0
    plays = json.loads(text)
    assert len(plays) == 16
    for play in plays:
        # the shape of POST /api/hint (gammon.views.ranked_play_view), to 6 decimals
        assert list(play) == ["play", "moves", "position_id", "equity", "ply", "probabilities"]
        p = play["probabilities"]
        assert list(p) == list(PROBABILITIES)
        equity = 2 * p["win"] - 1 + p["win_gammon"] - p["lose_gammon"] + \
            p["win_backgammon"] - p["lose_backgammon"]
        assert play["equity"] == pytest.approx(equity, abs=1e-5)
        assert play["ply"] in (0, 1)
    assert plays[0]["ply"] == 1
    assert plays[0]["play"] == str(Engine.load().rank_plays(Position.initial(), Roll(3, 1),
                                                            plies=1)[0].play)


def test_hint_of_a_roll_with_no_legal_play_is_the_single_pass() -> None:
    code, text = run(["hint", "4HPwATDgc/ABUA", "66", "--json"])
    assert code == 0
    (only,) = json.loads(text)
    assert only["play"] == ""
    code, text = run(["hint", "4HPwATDgc/ABUA", "66"])
    assert "(no legal play)" in text


def test_hint_batch_mode_answers_each_line_with_a_json_array_and_survives_bad_lines() -> None:
    lines = f"{START} 21\nnot-an-id 33\n\n{START} 77\n{START}\n{WON} 21\n{START} 66\n"
    code, text = run(["hint", "--ply", "0"], stdin=lines)
    assert code == 0
    answers = [json.loads(line) for line in text.splitlines()]
    assert len(answers) == 6
    assert len(answers[0]) == 15 and answers[0][0]["ply"] == 0
    assert "Position ID" in answers[1]["error"]
    assert "die" in answers[2]["error"]
    assert "POSITION_ID DICE" in answers[3]["error"]
    assert answers[4][0]["play"] == "3/off"
    assert answers[4][0]["probabilities"]["win"] == 1
    assert answers[5][0]["play"]


class Lines(io.StringIO):
    """Standard input that checks, before giving each line, that every answer so far has
    been flushed to ``out``."""

    def __init__(self, lines: list[str], out: Flushes) -> None:
        super().__init__()
        self.lines = lines
        self.out = out
        self.given = 0

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        for line in self.lines:
            assert self.out.flushed_lines == self.given, "an answer was not flushed"
            self.given += 1
            yield line


class Flushes(io.StringIO):
    flushed_lines = 0

    def flush(self) -> None:
        self.flushed_lines = self.getvalue().count("\n")
        super().flush()


def test_hint_batch_mode_flushes_each_answer_before_reading_the_next_line() -> None:
    out = Flushes()
    stdin = Lines([f"{START} 31\n", "bad line here\n", f"{START} 52\n"], out)
    assert cli.main(["hint", "--ply", "0"], out=out, stdin=stdin) == 0
    assert out.flushed_lines == 3


@pytest.mark.parametrize(("argv", "reason"), [
    (["hint", START], "needs DICE"),
    (["hint", START, "72"], "die"),
    (["hint", "not-an-id", "31"], "Position ID"),
    (["hint", START, "31", "--ply", "3"], "--ply"),
    (["hint", Position.from_points({1: 2}, {}).id(), "31"], "game is over"),
    (["rollout", START, "--games", "1"], "at least 2 games"),
    (["rollout", START, "--truncate", "-1"], "--truncate"),
    (["rollout", "4HPwATDgc/AB"], "Position ID"),
    (["play", "--level", "grandmaster"], "unknown level"),
    (["play", "--length", "-3"], "--length"),
    (["hint", START, "31", "--weights", "/nonexistent/w.npz"], "cannot read the weights"),
])
def test_bad_input_exits_2_with_a_one_line_reason(argv: list[str], reason: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(argv)
    assert code == 2
    assert text == ""
    assert reason in one_line_error(capsys)


# -- rollout --------------------------------------------------------------------------------


def test_rollout_json_is_deterministic_for_a_seed() -> None:
    argv = ["rollout", START, "--games", "40", "--truncate", "4", "--json"]
    first = json.loads(run([*argv, "--seed", "7"])[1])
    assert first == json.loads(run([*argv, "--seed", "7"])[1])
    assert first != json.loads(run([*argv, "--seed", "8"])[1])
    assert first["games"] == 40 and first["seed"] == 7 and first["truncate"] == 4
    for name in (*PROBABILITIES, "equity"):
        row = first[name]
        low, high = row["interval_95"]
        assert low <= row["mean"] <= high
        assert row["standard_error"] > 0
        assert high - low == pytest.approx(2 * 1.96 * row["standard_error"], abs=1e-5)
    assert 0 < first["win"]["mean"] < 1


def test_rollout_of_a_won_position_is_a_certain_backgammon_with_no_error() -> None:
    code, text = run(["rollout", WON, "--games", "10", "--json"])
    assert code == 0
    summary = json.loads(text)
    assert [summary[name]["mean"] for name in PROBABILITIES] == [1, 1, 1, 0, 0]
    assert summary["equity"] == {"mean": 3, "standard_error": 0, "interval_95": [3, 3]}


def test_rollout_text_shows_progress_by_chunk_then_the_table() -> None:
    code, text = run(["rollout", START, "--games", "500", "--truncate", "2", "--seed", "3"])
    assert code == 0
    lines = text.splitlines()
    assert lines[0].startswith(f"Rollout of {START}") and "500 games" in lines[0]
    assert any(re.match(r"\s+500/500 games\s+equity", line) for line in lines)
    table = {line.split()[0] + (" " + line.split()[1] if line.split()[1].isalpha() else ""):
             line for line in lines[-6:]}
    assert set(table) == {"win", "win gammon", "win backgammon", "lose gammon",
                          "lose backgammon", "equity"}
    summary = json.loads(run(["rollout", START, "--games", "500", "--truncate", "2",
                              "--seed", "3", "--json"])[1])
    assert f"{summary['equity']['mean']:+.3f}" in table["equity"]


def test_rollout_gives_the_same_games_through_the_command_and_the_engine() -> None:
    """One seed, one rollout: ``gammon rollout`` and ``Engine.rollout`` share the seeding
    (games past the first chunk of 216 included)."""
    summary = json.loads(run(["rollout", START, "--games", "300", "--truncate", "3",
                              "--seed", "11", "--json"])[1])
    seen: list[int] = []
    result = Engine.load().rollout(Position.from_id(START), games=300, truncate=3, seed=11,
                                   progress=lambda so_far: seen.append(so_far.count))
    assert seen == [216, 300]
    assert summary["games"] == result.count == 300
    means = dict(zip(PROBABILITIES, result.mean.as_tuple(), strict=True))
    errors = dict(zip(PROBABILITIES, result.standard_error.as_tuple(), strict=True))
    for name in PROBABILITIES:
        assert summary[name]["mean"] == round(means[name], 6)
        assert summary[name]["standard_error"] == round(errors[name], 6)
    assert summary["equity"]["mean"] == round(result.equity, 6)
    assert summary["equity"]["standard_error"] == round(result.equity_standard_error, 6)


# -- play -----------------------------------------------------------------------------------


def test_level_names_in_the_help_are_the_engines_levels() -> None:
    assert tuple(LEVELS) == LEVEL_NAMES


def test_a_scripted_session_lists_moves_refuses_an_illegal_one_hints_and_quits() -> None:
    # seed 5: we win the opening 5-3 and move first
    script = "moves\n24/30\n13/1\nhint\n\n8/3 6/3\nhint\nquit\n"
    code, text = run(["play", "--seed", "5", "--hint-ply", "0"], stdin=script)
    assert code == 0
    assert "Opening roll: you 5, bot 3: you move first with 5-3." in text
    assert " 9. 24/16" in text  # 'moves' lists the nine plays of 5-3
    assert "Not a legal play: points are 1 to 24" in text
    assert "Not a legal play: '13/1' is not a legal play for 53" in text
    assert re.search(r"^ 1\. .*\n 2\. .*\n 3\. .*\nYour roll 5-3", text, re.M)
    assert "You play 8/3 6/3." in text
    assert re.search(r"The bot rolls \d-\d and plays ", text)
    assert len(re.findall(r"^ 1\. .* equity ", text, re.M)) == 2  # two hints
    assert len(re.findall(r"^ 3\. .* equity ", text, re.M)) == 2  # of three plays each
    assert text.rstrip().endswith("The bot wins (you left): 1 point.")
    # the board is drawn from our side: X (us) at the bottom
    assert "X you on roll: pips 167, off 0" in text
    assert "X you: pips 159, off 0" in text  # after our 8/3 6/3, the bot on roll


def test_the_end_of_input_quits_the_game() -> None:
    code, text = run(["play", "--seed", "5"], stdin="")
    assert code == 0
    assert text.rstrip().endswith("The bot wins (you left): 1 point.")


class Hinted(io.StringIO):
    """A player who asks for a hint and then plays the bot's first suggestion."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__()
        self.out = out
        self.asked = False

    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]
        self.asked = not self.asked
        if self.asked:
            return "hint\n"
        *_, best = re.findall(r"^ 1\. (.+?)\s+\d-ply", self.out.getvalue(), re.M)
        return str(best) + "\n"


@pytest.mark.parametrize(("seed", "length"), [(11, 0), (4, 3)])
def test_whole_games_played_with_the_bots_hints_reach_a_result(seed: int, length: int) -> None:
    out = io.StringIO()
    argv = ["play", "--seed", str(seed), "--hint-ply", "0", "--level", "casual",
            "--length", str(length)]
    assert cli.main(argv, out=out, stdin=Hinted(out)) == 0
    text = out.getvalue()
    assert "Not a legal play" not in text
    assert "you left" not in text
    ends = re.findall(r"^(You win|The bot wins)( a gammon| a backgammon)?: (\d) points?\.$",
                      text, re.M)
    if length:
        final = re.findall(r"^(You win|The bot wins) the match, (\d+)-(\d+)", text, re.M)
        assert len(final) == 1
        assert max(int(final[0][1]), int(final[0][2])) >= length
        assert sum(int(points) for *_, points in ends) == int(final[0][1]) + int(final[0][2])
    else:
        assert len(ends) == 1


def test_a_seeded_game_is_replayed_exactly() -> None:
    def transcript() -> str:
        out = io.StringIO()
        cli.main(["play", "--seed", "21", "--level", "beginner", "--hint-ply", "0"],
                 out=out, stdin=Hinted(out))
        return out.getvalue()

    assert transcript() == transcript()


# -- benchmarks -----------------------------------------------------------------------------


def bench(argv: list[str], monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``gammon bench ...`` (which runs the script and exits) and return its output."""
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # bench replaces sys.argv
    with pytest.raises(SystemExit) as exit_:
        run(["bench", *argv])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_bench_strength_plays_duplicate_pairs_and_resumes_from_its_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["strength", "--opponent", "pubeval", "--seed", "3", "--chunk", "3",
            "--results", str(tmp_path)]
    first = bench([*args, "--games", "12"], monkeypatch, capsys)
    (saved,) = tmp_path.glob("strength-0ply-vs-pubeval-seed3-*.json")
    assert len(json.loads(saved.read_text())["games"]) == 12
    assert first.count(" games  ") == 2  # progress after each chunk of 3 pairs
    summary = first.splitlines()[-1]
    assert re.match(r"0ply vs pubeval \(weights \w+, seed 3\): [+-]\d\.\d{3} ± \d\.\d{3} ppg "
                    r"over 12 games, wins \d+\.\d%", summary)

    again = bench([*args, "--games", "16", "--chunk", "2"], monkeypatch, capsys)
    assert "6 pairs saved" in again
    assert len(json.loads(saved.read_text())["games"]) == 16
    fresh = bench([*args, "--games", "16", "--fresh", "--results", str(tmp_path / "new")],
                  monkeypatch, capsys)
    # a pair's dice do not depend on the chunks: resuming gives the same result
    assert fresh.splitlines()[-1] == again.splitlines()[-1]


def test_bench_speed_prints_the_figures_beside_their_targets(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = bench(["speed", "--positions", "4", "--positions-1ply", "2", "--positions-2ply",
                  "1", "--training-games", "3"], monkeypatch, capsys)
    assert re.search(r"^0-ply: median .* ms .*target ≤ 0\.15 ms", text, re.M)
    assert re.search(r"^2-ply: median .* ms .*target ≤ 50 ms", text, re.M)
    assert re.search(r"^training: [\d,]+ games/s", text, re.M)


def test_hint_with_a_match_id_before_the_roll_gives_the_cube_decision() -> None:
    # A money game, player 1 on roll, dice not rolled (the Match ID of `gammon cube`'s tests).
    code, text = run(["hint", "4HPwATDgc/ABMA", "--match-id", "cAkAAAAAAAAA", "--ply", "0",
                      "--json"])
    assert code == 0
    answer = json.loads(text)
    assert answer["action"] in {"no-double", "double-take", "double-pass", "too-good-take",
                                "too-good-pass"}
    assert set(answer["equities"]) >= {"no_double", "double_take", "double_pass"}


def test_hint_with_a_match_id_whose_dice_are_rolled_ranks_the_plays() -> None:
    # cAlvATAAIAAA: the gnubg manual's example, dice 6-3 rolled.
    code, text = run(["hint", "4HPwATDgc/ABMA", "--match-id", "cAlvATAAIAAA", "--ply", "0",
                      "--json"])
    assert code == 0
    plays = json.loads(text)
    assert len(plays) == len(legal_plays(Position.initial(), Roll(6, 3)))
