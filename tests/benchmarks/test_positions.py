"""The benchmark position set (``gammon bench positions``): a small set is made in shards
and resumes, is well formed, the error of a play follows the stated rule, and
the classes (contact, crashed, race) are what their definition says."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine import expert
from tests.benchmarks.load import benchmark

positions = benchmark("positions")


def check_well_formed(path: Path) -> Any:
    """Every decision's stored plays are exactly its legal plays (by the core's
    legal_plays), equities are money equities (within -3..3), at least one play per
    decision has a 2-ply label, classes follow the class rule and match the metadata."""
    s = positions.PositionSet.load(path)
    for d in range(len(s)):
        decision = s.decision(d)
        stored = {tuple(b) for b in s.plays[s.start[d]:s.start[d + 1]].tolist()}
        legal = {p.position.board for p in legal_plays(decision.position, decision.roll)}
        assert stored == legal, f"decision {d}"
        assert len(stored) == s.start[d + 1] - s.start[d] >= 2
        assert positions.position_class(decision.position) == s.kinds[d]
    assert np.all(np.abs(s.equity1) <= 3)
    labelled = s.equity2[~np.isnan(s.equity2)]
    assert np.all(np.abs(labelled) <= 3)
    counts = np.bincount(s.kinds, minlength=3)
    assert s.meta["classes"] == dict(zip(positions.CLASSES, counts.tolist(), strict=True))
    # a match set may hold a position and roll at several scores: its context is part of it
    contexts = [b""] * len(s) if s.contexts is None else [bytes(c) for c in s.contexts]
    assert len({(bytes(b), tuple(sorted(d)), c)
                for b, d, c in zip(s.boards, s.dice, contexts, strict=True)}) \
        == len(s), "a decision appears twice"
    return s.meta


def test_a_set_is_made_in_parts_and_the_second_part_writes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tiny.npz"
    args = ["--generate", "--out", str(out), "--contact", "3", "--crashed", "1", "--race",
            "1", "--shard-size", "2", "--top", "2", "--seed", "5"]
    positions.main([*args, "--part", "0/2"])
    assert "shards still to label" in capsys.readouterr().out
    assert not out.exists()
    assert sorted(p.name for p in (tmp_path / "tiny.npz.work").iterdir()) == [
        "decisions.npz", "shard-0000.npz", "shard-0002.npz"]
    positions.main([*args, "--part", "1/2"])
    assert "wrote" in capsys.readouterr().out
    meta = check_well_formed(out)
    assert meta["classes"] == {"contact": 3, "crashed": 1, "race": 1}
    assert meta["label_version"] == 1 and meta["seed"] == 5

    with pytest.raises(ValueError, match="other settings"):  # the work folder is not mixed
        positions.main([*args[:-2], "--seed", "6"])

    positions.main(["--set", str(out), "--ply", "0"])
    text = capsys.readouterr().out
    assert text.splitlines()[-1].startswith("gammon.npz 0-ply on tiny: ")
    assert "mpt per decision over 5 decisions" in text
    positions.main(["--set", str(out), "--ply", "1", "--decisions", "2"])
    assert "mpt per decision over 2 decisions" in capsys.readouterr().out


def hand_made_set() -> Any:
    """Three decisions with known equities (boards are placeholders: only the error rule is
    under test). NaN: no 2-ply label."""
    nan = math.nan
    equity1 = [0.30, 0.25, 0.10, -0.50,   # decision 0: four plays, two labelled at 2-ply
               0.00, -0.05,               # decision 1: both labelled
               0.40, 0.39, 0.20]          # decision 2: only the first labelled
    equity2 = [0.28, 0.31, nan, nan,
               0.02, -0.10,
               0.35, nan, nan]
    m = len(equity1)
    return positions.PositionSet(
        boards=np.zeros((3, 26), np.int8), dice=np.ones((3, 2), np.int8),
        kinds=np.array([0, 1, 2], np.int8), start=np.array([0, 4, 6, 9]),
        plays=np.zeros((m, 26), np.int8), equity1=np.array(equity1, np.float32),
        equity2=np.array(equity2, np.float32), meta={})


@pytest.mark.parametrize(("chosen", "expected"), [
    ([1, 0, 0], [0.0, 0.0, 0.0]),            # the 2-ply best everywhere
    ([0, 1, 0], [0.03, 0.12, 0.0]),          # 2-ply labelled: the 2-ply difference
    ([2, 0, 1], [0.20, 0.0, 0.01]),          # unlabelled: 1-ply gap (0.20 > worst 0.03)
    ([3, 0, 2], [0.80, 0.0, 0.20]),          # decision 2's worst stored 2-ply error is 0
])
def test_error_of_a_play_follows_the_rule(chosen: list[int], expected: list[float]) -> None:
    errors = positions.decision_errors(hand_made_set(), np.array(chosen))
    assert errors == pytest.approx(expected, abs=1e-6)


def test_unlabelled_play_counts_at_least_the_worst_stored_error() -> None:
    s = hand_made_set()
    s.equity1[2] = 0.29  # 1-ply gap 0.01, below the worst stored 2-ply error of 0.03
    assert positions.decision_errors(s, np.array([2, 0, 0]))[0] == pytest.approx(0.03, abs=1e-6)


def test_a_play_that_is_not_in_the_decision_is_refused() -> None:
    with pytest.raises(ValueError, match="decision 1 has 2 plays, not a play 2"):
        positions.decision_errors(hand_made_set(), np.array([0, 2, 0]))


def test_report_gives_mean_error_shares_and_intervals_per_class() -> None:
    errors = np.array([0.0, 0.01, 0.1, 0.0, 0.02, 0.09])
    kinds = np.array([0, 0, 0, 1, 1, 2])
    lines = positions.report_lines(errors, kinds)
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["all"][1] == "6" and rows["all"][2] == "36.7"  # mean 0.22 / 6 in mpt
    assert rows["contact"][2] == "36.7" and rows["contact"][5] == "66.7%"  # 2 of 3 wrong
    assert rows["contact"][8] == "33.3%"  # one blunder over 0.08 of 3
    assert rows["race"][2] == "90.0" and rows["race"][4] == "nan"  # one decision: no interval


def board(player: dict[int, int], opponent: dict[int, int]) -> Position:
    return Position.from_points(player, opponent)


def test_paired_report_gives_the_mean_difference_decision_by_decision() -> None:
    """--baseline: per class, the mean of (error - baseline's error) with its interval,
    and how many decisions each net does better on."""
    errors = np.array([0.0, 0.01, 0.02, 0.0])
    base = np.array([0.01, 0.01, 0.0, 0.002])
    kinds = np.array([0, 0, 1, 0])
    lines = positions.paired_lines(errors, base, kinds)
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["all"][1] == "4" and rows["all"][2] == "+2.00"  # (-10 + 0 + 20 - 2) / 4
    assert rows["all"][-2:] == ["2", "1"]  # better on two decisions, worse on one
    assert rows["contact"][2] == "-4.00" and rows["contact"][-2:] == ["2", "0"]
    assert rows["crashed"][2] == "+20.00" and rows["crashed"][4] == "nan"  # one decision
    assert "race" not in rows


def test_classes_contact_crashed_and_race() -> None:
    assert positions.position_class(Position.initial()) == positions.CONTACT
    race = board({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    assert positions.position_class(race) == positions.RACE
    # the side on roll has 5 checkers left, holding the opponent's 2-point anchor
    few = board({23: 2, 6: 3}, {6: 5, 5: 5, 4: 5})
    assert positions.position_class(few) == positions.CRASHED
    # 11 checkers, but 8 of them buried on the ace point, which never move: 11 - 7 = 4
    buried = board({24: 2, 1: 8, 2: 1}, {6: 5, 5: 5, 4: 5})
    assert positions.position_class(buried) == positions.CRASHED
    # the same seen from the other side is crashed too
    assert positions.position_class(buried.swap()) == positions.CRASHED
    # the engine's rule, one definition: extra checkers on the 2-point can still move
    deuce = board({24: 2, 1: 5, 2: 4}, {6: 5, 5: 5, 4: 5})  # 11 - 4 = 7 active
    assert positions.position_class(deuce) == positions.CONTACT
    spread = board({24: 2, 8: 3, 6: 3, 5: 2}, {6: 5, 5: 5, 4: 5})
    assert positions.position_class(spread) == positions.CONTACT
    for position in (few, buried, deuce, spread):
        crashed = positions.position_class(position) == positions.CRASHED
        assert crashed == expert.is_crashed(position.array())


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--ply", "3"], ["--jobs", "0"], ["--generate", "--part", "2/2"],
                 ["--generate", "--margin", "-1"], ["--generate", "--contact", "-1"],
                 ["--decisions", "0"]):
        with pytest.raises(SystemExit) as exit_:
            positions.main(argv)
        assert exit_.value.code == 2
    assert capsys.readouterr().err.count("error:") == 6


def test_a_prefix_keeps_the_first_decisions_with_their_plays_and_labels() -> None:
    s = hand_made_set()
    first_two = s.prefix(2)
    assert len(first_two) == 2 and len(first_two.plays) == 6
    chosen = np.array([2, 1, 1])
    assert positions.decision_errors(first_two, chosen[:2]) == pytest.approx(
        positions.decision_errors(s, chosen)[:2])
