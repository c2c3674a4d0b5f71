"""``gammon bench strength``: an interrupted run resumes where it stopped, and the threads
of ``--jobs`` do not change a single game."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest

from tests.benchmarks.load import benchmark

strength = benchmark("strength")


def saved_games(folder: Path) -> str:
    (path,) = folder.glob("strength-0ply-vs-pubeval-seed4-*.json")
    games: str = json.loads(path.read_text())["games"]
    return games


def test_an_interrupted_run_resumes_and_threads_give_the_same_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--opponent", "pubeval", "--seed", "4", "--games", "12", "--chunk", "2"]
    play = strength.play_pairs_on_threads
    chunks = 0

    def interrupted_after_two_chunks(*a: object) -> list[list[float]]:
        nonlocal chunks
        chunks += 1
        if chunks > 2:
            raise KeyboardInterrupt
        return play(*a)  # type: ignore[no-any-return]

    monkeypatch.setattr(strength, "play_pairs_on_threads", interrupted_after_two_chunks)
    with pytest.raises(KeyboardInterrupt):
        strength.main([*args, "--results", str(tmp_path / "run")])
    assert len(saved_games(tmp_path / "run")) == 8  # two chunks of two pairs kept
    monkeypatch.setattr(strength, "play_pairs_on_threads", play)

    strength.main([*args, "--results", str(tmp_path / "run")])
    assert "resuming from" in capsys.readouterr().out
    strength.main([*args, "--results", str(tmp_path / "threads"), "--jobs", "3"])
    games = saved_games(tmp_path / "run")
    assert len(games) == 12
    assert games == saved_games(tmp_path / "threads")
    assert set(games) <= set("0123456")


def test_results_file_round_trips_and_rejects_what_is_not_a_result() -> None:
    pairs = [[1.0, -2.0], [3.0, -3.0], [0.0, 1.0]]
    assert strength.decode_pairs(strength.encode_pairs(pairs)) == pairs
    for bad in ("123", "17", "ab"):
        with pytest.raises(ValueError, match="not pairs of results"):
            strength.decode_pairs(bad)


@pytest.mark.parametrize("argument", [["--jobs", "0"], ["--games", "1"], ["--chunk", "0"]])
def test_bad_arguments_are_refused(argument: list[str], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must be at least"):
        strength.main(["--opponent", "random", *argument, "--results", str(tmp_path)])
    assert not any(tmp_path.iterdir())


def test_the_paired_difference_is_over_the_pairs_both_runs_played() -> None:
    ours = np.array([[1.0, -1.0], [2.0, 1.0], [-3.0, -1.0]])
    baseline = np.array([[-1.0, -1.0], [2.0, 1.0]])
    mean, half, pairs = strength.paired_difference(ours, baseline)
    # pair means 0 and 1.5 against -1 and 1.5: differences 1 and 0
    assert pairs == 2
    assert mean == pytest.approx(0.5)
    assert half == pytest.approx(1.96 * statistics.stdev([1.0, 0.0]) / 2 ** 0.5)
    with pytest.raises(ValueError, match="at least two pairs"):
        strength.paired_difference(ours[:1], baseline)


def test_a_run_against_a_baseline_prints_the_difference_of_their_saved_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = Path("training/checkpoints/td-h128-seed1.npz")
    args = ["--opponent", "pubeval", "--seed", "4", "--games", "8",
            "--results", str(tmp_path)]
    with pytest.raises(SystemExit, match="no saved run of the baseline"):
        strength.main([*args, "--baseline", str(baseline)])
    strength.main([*args, "--weights", str(baseline)])
    capsys.readouterr()
    strength.main([*args, "--baseline", str(baseline)])
    printed = capsys.readouterr().out.splitlines()[-1]
    ours, theirs = (strength.decode_pairs(json.loads(path.read_text())["games"])
                    for path in (next(p for p in tmp_path.glob("*.json")
                                      if f"w{strength.file_hash(b)}" in p.name)
                                 for b in (strength.shipped_weights(), baseline)))
    expected = statistics.fmean((sum(a) - sum(b)) / 2 for a, b in zip(ours, theirs,
                                                                      strict=True))
    assert printed.startswith(f"paired against {baseline.name}")
    assert f"{expected:+.4f} ±" in printed and "over 4 pairs" in printed
