"""GNU Backgammon as the referee (``gammon bench reference``): GNU Backgammon reads our
Position IDs as our boards, a play's equity is its mover's (the position it leaves is
evaluated from the opponent's side and turned round), gammons count, the grading rule, and
the cache (a second run asks GNU Backgammon nothing; a full cache needs no GNU Backgammon).
The tests that run GNU Backgammon are skipped where it is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.core.position import Position
from gammon.engine.evaluate import kernel_arrays
from gammon.engine.network import NetworkPair
from gammon.engine.player import Engine
from tests.benchmarks.load import benchmark

reference = benchmark("reference")
positions = benchmark("positions")

GNUBG = reference.find_gnubg()
needs_gnubg = pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")


def gnubg_board(position: Position) -> list[list[int]]:
    """The board as GNU Backgammon holds it: [opponent, side on roll], each 25 counts on
    that side's own points 1..24 and then its bar."""
    def side(p: Position) -> list[int]:
        return [max(p.board[i], 0) for i in range(1, 25)] + [p.board[25]]
    return [side(position.swap()), side(position)]


def board(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """A position from each side's {point: checkers}, each on its own numbering."""
    return Position.from_points(mine, theirs)


def tiny_set(tmp_path: Path, count: int = 5) -> Path:
    path = tmp_path / "tiny.npz"
    positions.PositionSet.load(positions.DEFAULT_SET).prefix(count).save(path)
    return path


# -- with GNU Backgammon ------------------------------------------------------------------------


@needs_gnubg
def test_gnubg_reads_our_position_ids_as_our_boards() -> None:
    cases = [
        Position.initial(),
        board({25: 2, 6: 5, 8: 3, 13: 4, 24: 1}, {25: 1, 2: 3, 6: 6, 11: 2}),  # both on the bar
        board({1: 3, 2: 2}, {22: 1, 19: 4, 3: 1}),  # borne off, and far apart
        board({}, {6: 15}),  # the side on roll has borne everything off
    ]
    rows = reference.run_gnubg(GNUBG, [p.id() for p in cases], 0, boards=True)
    for position, row in zip(cases, rows, strict=True):
        assert row[0] == position.id()
        assert json.loads(row[7]) == gnubg_board(position), position


@needs_gnubg
def test_a_plays_equity_is_its_movers_with_the_opponent_on_roll() -> None:
    # Each board is what a play leaves, seen from the mover; the opponent rolls next.
    plays = [
        # the opponent (2 checkers on its 6-point) bears off both only with 3-3, 4-4, 5-5 or
        # 6-6 (4 rolls in 36), else the mover's last checker goes off: +1 - 2 * 4/36
        (board({1: 1}, {6: 2}), 1 - 8 / 36, 32 / 36),
        # the mover's last checker goes off next; the opponent (15 on its 6-point) saves
        # the gammon only by bearing one off now: a 6 (11 rolls), 5-1, 4-2, 3-3 or 2-2 (6
        # more), so the mover wins a gammon 19 times in 36
        (board({1: 1}, {6: 15}), 1 + 19 / 36, 1.0),
        # the play bore off the last checker with one of the opponent's in the mover's home
        # board (its 20-point): a backgammon, the game over
        (board({}, {6: 14, 20: 1}), 3.0, 1.0),
        # the mover left 2 on its 6-point, the opponent's last checker is on its ace: lost
        (board({6: 2}, {1: 1}), -1.0, 0.0),
    ]
    results = reference.for_mover(reference.evaluate_ids(
        GNUBG, [reference.play_id(p.array()) for p, _, _ in plays], 0))
    for (position, equity, win), result in zip(plays, results, strict=True):
        assert result[5] == pytest.approx(equity, abs=1e-4), position
        assert result[0] == pytest.approx(win, abs=1e-4), position


@needs_gnubg
def test_the_opening_position_is_nearly_even_for_the_side_on_roll() -> None:
    for plies in (0, 2):
        result = reference.evaluate_ids(GNUBG, [Position.initial().id()], plies)[0]
        assert 0.45 < result[0] < 0.57
        assert abs(result[5]) < 0.15


@needs_gnubg
def test_gammons_and_backgammons_count_in_the_equity(tmp_path: Path) -> None:
    s = positions.PositionSet.load(positions.DEFAULT_SET)
    rows = np.arange(s.start[0], s.start[40])
    results = reference.for_mover(reference.evaluate_ids(
        GNUBG, [reference.play_id(s.plays[m]) for m in rows], 0))
    win, win_g, win_bg, lose_g, lose_bg, equity = results.T
    money = 2 * win - 1 + win_g - lose_g + win_bg - lose_bg
    assert np.allclose(equity, money, atol=2e-5)
    assert np.abs(win_g - lose_g).max() > 0.01, "the sample has positions with gammons"


@needs_gnubg
def test_a_second_run_reads_the_cache_and_grades_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--set", str(tiny_set(tmp_path)), "--gnubg-ply", "1", "--cache", str(tmp_path),
            "--chunk", "20"]
    assert reference.main(args) == 0
    first = capsys.readouterr().out
    assert "1-ply: " in first and "0-ply: " in first and "positions to evaluate" in first
    assert reference.main(args) == 0
    second = capsys.readouterr().out
    assert "positions to evaluate" not in second
    assert first.splitlines()[-1] == second.splitlines()[-1]
    # the cached row is GNU Backgammon's answer for that play, turned to its mover
    s = positions.PositionSet.load(tmp_path / "tiny.npz")
    cache = reference.Cache(tmp_path, s, 1)
    m = int(s.start[2]) + 1
    direct = reference.for_mover(reference.evaluate_ids(GNUBG, [reference.play_id(s.plays[m])],
                                                        1))[0]
    assert np.allclose(cache.results[m], direct, atol=1e-6)


# -- without GNU Backgammon ---------------------------------------------------------------------


def test_the_error_is_the_best_equity_minus_the_chosen_ones() -> None:
    equities = np.array([0.1, 0.3, -0.2, 0.5, 0.5, -1.0, 0.0])
    start = np.array([0, 3, 5, 7])
    decisions = np.array([0, 1, 2])
    errors = reference.errors_of(equities, start, decisions, np.array([0, 1, 0]))
    assert errors == pytest.approx([0.2, 0.0, 1.0])
    assert list(reference.referee_choices(equities, start, decisions)) == [1, 0, 1]
    with pytest.raises(ValueError, match="not a play 2"):
        reference.errors_of(equities, start, decisions, np.array([0, 2, 0]))
    with pytest.raises(ValueError, match="not evaluated"):
        reference.errors_of(np.where(np.arange(7) == 4, np.nan, equities), start, decisions,
                            np.array([0, 0, 0]))


def test_the_bootstrap_interval_surrounds_the_mean_and_shrinks_with_more_decisions() -> None:
    rng = np.random.default_rng(1)
    few = rng.exponential(5.0, 100)
    many = rng.exponential(5.0, 10_000)
    mean, low, high = reference.bootstrap(few)
    assert low < mean < high and mean == pytest.approx(few.mean())
    _, low_many, high_many = reference.bootstrap(many)
    assert high_many - low_many < (high - low) / 5
    assert reference.bootstrap(np.full(50, 3.0)) == (3.0, 3.0, 3.0)


def test_per_class_takes_the_first_decisions_of_each_class() -> None:
    s = positions.PositionSet.load(positions.DEFAULT_SET)
    chosen = reference.select(s, None, 5)
    for k in range(3):
        assert list(chosen[s.kinds[chosen] == k]) == list(np.flatnonzero(s.kinds == k)[:5])
    assert list(reference.select(s, 7, None)) == list(range(7))


def test_by_race_lead_splits_the_contact_decisions_by_the_movers_pip_deficit() -> None:
    """--by-race-lead adds the contact decisions split by the mover's pip count minus the
    opponent's: the opening is even, a known holding game is 40+ behind, and every contact
    decision falls in exactly one split, no other class in any."""
    s = positions.PositionSet.load(positions.DEFAULT_SET)
    decisions = reference.select(s, 400, None)
    deficits = reference.race_deficits(s, decisions)
    for d, deficit in zip(decisions, deficits, strict=True):
        mine, theirs = Position.from_board(s.boards[d].tolist()).pips()
        assert deficit == mine - theirs
    def deficit_of(position: Position) -> int:
        one = positions.PositionSet(np.array([position.board], dtype=np.int8),
                                    np.array([[3, 1]]), np.array([0]), np.array([0, 1]),
                                    np.zeros((1, 26), np.int8), np.zeros(1), np.zeros(1), {})
        return int(reference.race_deficits(one, np.array([0]))[0])

    assert deficit_of(Position.initial()) == 0
    # the mover holds the opponent's ace and bar points: 191 pips against 66
    holding = board({24: 2, 18: 2, 13: 5, 8: 3, 6: 3}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2})
    assert deficit_of(holding) == 125 and deficit_of(holding.swap()) == -125
    kinds = s.kinds[decisions]
    named = dict(reference.groups(kinds, deficits))
    splits = np.array([named[name] for name, _, _ in reference.RACE_LEADS])
    contact = kinds == reference.CLASSES.index("contact")
    assert (splits.sum(axis=0) == contact).all()
    assert splits[0].sum() > 0 and (deficits[splits[0]] >= 40).all()
    assert [name for name, _ in reference.groups(kinds)] == ["all", *reference.CLASSES]


def test_the_mean_of_networks_chooses_the_play_best_on_their_mean_equity(
        tmp_path: Path) -> None:
    """--mean-of picks, in each decision, the play whose equity averaged over the networks
    is highest, each network's equity of a play taken here from the engine's evaluator (the
    position the play leaves, the opponent on roll, turned round)."""
    s = positions.PositionSet.load(positions.DEFAULT_SET).prefix(40)
    checkpoints = Path(__file__).parents[2] / "training/checkpoints"
    files = [positions.shipped_weights(),
             checkpoints / "td-expert-h256-seed3-g4m-rank1-td100k-prune.npz"]
    engines = [Engine.load(path) for path in files]
    decisions = np.arange(len(s))
    expected = []
    for d in decisions:
        plays = s.plays[s.start[d]:s.start[d + 1]]
        means = [np.mean([-engine.evaluate(Position.from_board(play).swap()).equity
                          for engine in engines]) for play in plays]
        expected.append(int(np.argmax(means)))
    chosen = reference.mean_choices(s, files, decisions)
    np.testing.assert_array_equal(chosen, expected)
    for path in files:  # the mean is neither network alone on these decisions
        alone = reference.our_choices(s, kernel_arrays(NetworkPair.load(path)), 0, decisions, 1)
        assert (alone != chosen).any()
    with pytest.raises(SystemExit):
        reference.main(["--set", str(tiny_set(tmp_path)), "--mean-of", str(files[0]),
                        "--ply", "1"])


def test_without_gnubg_a_full_cache_grades_and_an_empty_one_says_what_is_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tiny_set(tmp_path)
    missing = str(tmp_path / "no-gnubg-here")
    args = ["--set", str(path), "--gnubg", missing, "--gnubg-ply", "0", "--cache", str(tmp_path)]
    assert reference.main(args) == 2
    assert "GNU Backgammon (gnubg) was not found" in capsys.readouterr().err

    # a made-up referee: each play is worth its row number in millipoints, so the best play
    # of a decision is its last one and an error is the number of plays after the chosen one
    s = positions.PositionSet.load(path)
    cache = reference.Cache(tmp_path, s, 0)
    cache.results[:, 5] = np.arange(len(s.plays)) / 1000
    cache.save()
    assert reference.main(args) == 0
    out = capsys.readouterr().out
    decisions = np.arange(len(s))
    chosen = reference.our_choices(s, kernel_arrays(NetworkPair.load(positions.shipped_weights())),
                                   0, decisions, 1)
    expected = np.mean([s.start[d + 1] - s.start[d] - 1 - chosen[d] for d in decisions])
    assert f"on positions-v2: {expected:.1f} [" in out.splitlines()[-1]
