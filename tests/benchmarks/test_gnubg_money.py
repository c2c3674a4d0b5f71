"""Cubeless money games against the real GNU Backgammon (``gammon bench gnubg_money``): the
two games of a pair are thrown the same dice (read from gnubg's own ``.mat`` records, not
through the benchmark's reader), each pair's points are what the records say, the counts add
up, and a rerun plays only the pairs its results file lacks. Skipped where gnubg is not
installed; the bookkeeping without gnubg runs everywhere."""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from gammon.formats import mat
from tests.benchmarks.load import benchmark

money = benchmark("gnubg_money")
play = benchmark("gnubg_play")

needs_gnubg = pytest.mark.skipif(not os.access(play.GNUBG, os.X_OK),
                                 reason=f"GNU Backgammon is not installed ({play.GNUBG})")


def dice_in_mat(text: str) -> list[tuple[int, int]]:
    """The rolls of a one-game ``.mat`` file in the order thrown: each numbered line's
    left column, then its right one (a roll is two digits and a colon)."""
    thrown = []
    for line in text.splitlines():
        if re.match(r"\s*\d+\)", line):
            for high, low in re.findall(r"\b([1-6])([1-6]):", line):
                thrown.append(tuple(sorted((int(high), int(low)))))
    return thrown


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with play.external_server("expert", 0, 11, ["--no-resign", "--no-cube"]) as found:
        yield found


@needs_gnubg
def test_each_pair_plays_the_same_dice_with_the_seats_swapped(port: int,
                                                              tmp_path: Path) -> None:
    results = money.play_pairs(port, [0, 1, 2], 5, 0, tmp_path, keep=True)
    assert sorted(results) == [0, 1, 2]
    for pair, points in results.items():
        files = money.record_files(tmp_path, 5, pair)
        first, second = (dice_in_mat(file.read_text()) for file in files)
        assert len(first) > 5 and len(second) > 5
        common = min(len(first), len(second))
        assert first[:common] == second[:common], pair
        for seat, file, gammon_points in zip(play.SEATS, files, points, strict=True):
            record = mat.load(file)
            ended = record.games[0].result
            assert ended is not None and ended.points in (1, 2, 3)
            assert gammon_points == (ended.points if ended.winner == seat else -ended.points)
            # the right-hand column is gnubg's player 1: who wrote "Wins N point(s)" where
            wins = re.search(r"^( +)Wins (\d) points?", file.read_text(), re.MULTILINE)
            assert wins is not None and int(wins.group(2)) == ended.points
            assert (len(wins.group(1)) > 15) == (ended.winner == 1)


@needs_gnubg
def test_a_rerun_plays_only_the_missing_pairs(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "results.txt"
    # scores no real pair would give, so a replayed pair would show
    store.write_text("0 3 3\n1 -3 -3\n")
    assert money.main(["--games", "6", "--seed", "9", "--results", str(store)]) == 0
    lines = store.read_text().splitlines()
    assert lines[:2] == ["0 3 3", "1 -3 -3"] and len(lines) == 3
    pair, *points = map(int, lines[2].split())
    assert pair == 2 and len(points) == 2 and all(p in (-3, -2, -1, 1, 2, 3) for p in points)
    printed = capsys.readouterr().out
    assert "resuming: 2 pairs already" in printed
    assert f"{sum(points) / 6:+.3f}" in printed.splitlines()[-1]
    # nothing left to play: the same figures, the file unchanged
    assert money.main(["--games", "6", "--seed", "9", "--results", str(store)]) == 0
    assert store.read_text().splitlines() == lines


def test_a_results_file_that_is_not_integers_is_refused_and_left_alone(
        tmp_path: Path) -> None:
    store = tmp_path / "results.txt"
    store.write_text("0 1 -1\n1 two 2\n")
    with pytest.raises(SystemExit, match=r"results.txt:2: not a line of integers"):
        play.read_results(store, 2)
    assert store.read_text() == "0 1 -1\n1 two 2\n"
    store.write_text("0 1 -1\n1 2\n")
    with pytest.raises(SystemExit, match=r"results.txt:2: expected a pair number and 2"):
        play.read_results(store, 2)


def test_summary_counts_each_side_and_pairs_the_interval() -> None:
    counts = money.summary([(1, -1), (2, 1), (-3, -1)])
    assert counts["games"] == 6
    assert counts["ppg"] == pytest.approx((1 - 1 + 2 + 1 - 3 - 1) / 6)
    assert (counts["gammon_single"], counts["gammon_gammon"], counts["gammon_backgammon"]) \
        == (2, 1, 0)
    assert (counts["gnubg_single"], counts["gnubg_gammon"], counts["gnubg_backgammon"]) \
        == (2, 0, 1)
    # the interval is over the pairs' means (0, 1.5, -2), not over the six games
    assert counts["half"] == pytest.approx(1.96 * statistics.stdev([0, 1.5, -2]) / 3 ** 0.5)
    assert counts["single_half"] == pytest.approx(
        1.96 * statistics.stdev([1, -1, 2, 1, -3, -1]) / 6 ** 0.5)


def test_dice_are_the_same_for_as_long_as_both_games_last() -> None:
    assert play.same_dice([(1, 2), (3, 3)], [(1, 2), (3, 3), (5, 6)])
    assert not play.same_dice([(1, 2), (3, 4)], [(1, 2), (3, 3)])


def test_two_networks_are_compared_over_the_pairs_both_played() -> None:
    ours = {0: (1, -1), 1: (2, 1), 2: (-3, -1), 5: (1, 1)}
    baseline = {0: (-1, -1), 1: (2, 1), 2: (-1, -1), 3: (3, 3)}
    mean, half, pairs = money.paired_difference(ours, baseline)
    # pairs 0, 1, 2: differences of the pairs' means (0 - -1, 1.5 - 1.5, -2 - -1)
    assert pairs == 3
    assert mean == pytest.approx((1 + 0 - 1) / 3)
    assert half == pytest.approx(1.96 * statistics.stdev([1, 0, -1]) / 3 ** 0.5)
    with pytest.raises(SystemExit, match="none of this run's pairs"):
        money.paired_difference({7: (1, 1)}, baseline)
