"""The labeller-choice benchmark: each labeller's choice graded by GNU Backgammon's cached
2-ply equities. The engine's own choices must grade as ``gammon bench reference`` grades
them (its choosing and grading code, not this benchmark's), a rollout labeller chooses
among the candidates the label stage would label, and a rerun resumes from its results."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.evaluate import kernel_arrays
from gammon.engine.network import NetworkPair
from tests.benchmarks.load import benchmark

choices = benchmark("labeller_choices")
reference = benchmark("reference")
positions = reference.positions

SET = positions.PositionSet.load(positions.DEFAULT_SET)
CACHE = reference.Cache(reference.RESULTS, SET, 2)


def test_rollout_labellers_are_read_as_games_and_truncation() -> None:
    assert choices.parse_rollouts("144:7,1296:0") == [(144, 7), (1296, 0)]
    for bad in ("144", "1:7", "a:7", "144:-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            choices.parse_rollouts(bad)


def test_the_searchs_choices_grade_as_the_reference_benchmark_grades_them() -> None:
    nets = kernel_arrays(NetworkPair.load(positions.shipped_weights()))
    chooser = choices.Chooser(nets)
    decisions = np.nonzero(SET.kinds == 0)[0][:12]
    grade = CACHE.results[:, 5].astype(np.float64)
    for plies in (0, 1, 2):
        expected = reference.errors_of(
            grade, SET.start, decisions, np.array(positions.choose_plays(SET, nets, plies,
                                                                         decisions.tolist())))
        for d, error in zip(decisions, expected, strict=True):
            first, last = SET.start[d], SET.start[d + 1]
            errors = choices.decision_errors(chooser, SET.plays[first:last], grade[first:last],
                                             [(4, 1)], seed=3)
            assert errors[plies] == pytest.approx(error)
            assert errors[3] >= 0


def test_a_rollout_chooses_among_the_candidates_the_1_ply_filter_keeps() -> None:
    nets = kernel_arrays(NetworkPair.load(positions.shipped_weights()))
    chooser = choices.Chooser(nets)
    d = int(np.nonzero(SET.kinds == 0)[0][0])
    plays = SET.plays[SET.start[d]:SET.start[d + 1]]
    _, depth = chooser.ranked(plays, 1)
    candidates = [i for i in range(len(plays)) if depth[i] == 1]
    assert 1 < len(candidates) < len(plays)  # the filter dropped some: the test can tell
    for seed in range(5):
        assert chooser.rolled_out(plays, candidates, 4, 2, seed) in candidates


def test_a_rerun_resumes_from_the_results_and_prints_every_labeller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(choices, "RESULTS", tmp_path)
    argv = ["--decisions", "3", "--rollouts", "2:1,2:2", "--cache", str(reference.RESULTS)]
    assert choices.main(argv) == 0
    [store] = tmp_path.glob("labeller-choices-*.txt")
    lines = store.read_text().splitlines()
    assert [line.split()[0] for line in lines] == ["0", "1", "2"]
    assert all(len(line.split()) == 1 + 5 for line in lines)
    first = capsys.readouterr().out
    assert choices.main(argv) == 0
    assert store.read_text().splitlines() == lines
    again = capsys.readouterr().out
    assert "resuming: 3 done" in again
    for name in ("0-ply", "1-ply", "2-ply", "rollout 2:1", "rollout 2:2"):
        assert name in first and name in again
