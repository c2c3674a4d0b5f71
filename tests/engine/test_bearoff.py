"""The one-sided bear-off database against hand-computed cases and its invariants."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.position import Position
from gammon.engine import bearoff
from gammon.engine.bearoff import (
    MAX_ROLLS,
    POSITIONS,
    BearoffDatabase,
    NotBearoffError,
    bearoff_probabilities,
    bearoff_probabilities_batch,
    build_database,
    cache_path,
    is_bearoff,
    position_counts,
    position_index,
)

# float32 storage: probabilities are exact to about 1e-7.
TOL = 1e-6


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private cache directory, also set as $GAMMON_CACHE_DIR for the module."""
    directory = tmp_path_factory.mktemp("gammon-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(bearoff.CACHE_ENV, str(directory))
        yield directory


@pytest.fixture(scope="module")
def db(cache_dir: Path) -> BearoffDatabase:
    """The database, built once for the module into the private cache."""
    build_database(cache_dir)
    return BearoffDatabase.load()


def counts_on(**points: int) -> list[int]:
    """Counts on points 1..6 from keywords ``p1=..``, ``p6=..``."""
    return [points.get(f"p{p}", 0) for p in range(1, 7)]


def race(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """A race position, each side's home points numbered from its own view."""
    return Position.from_points(mine, theirs)


def assert_distribution(actual: np.ndarray, expected: dict[int, Fraction]) -> None:
    """``actual[n] == expected.get(n, 0)`` for every n, to float32 accuracy."""
    want = np.zeros(MAX_ROLLS)
    for n, p in expected.items():
        want[n] = float(p)
    np.testing.assert_allclose(actual, want, atol=TOL, rtol=0)


# -- the perfect hash ---------------------------------------------------------------------


def test_perfect_hash_round_trips_for_every_position() -> None:
    seen = set()
    for index in range(POSITIONS):
        counts = position_counts(index)
        assert min(counts) >= 0 and sum(counts) <= 15
        assert position_index(counts) == index
        seen.add(counts)
    # 54,264 distinct valid positions: as many as there are (C(21, 6)), so all of them.
    assert len(seen) == POSITIONS == 54_264


def test_perfect_hash_puts_the_empty_position_first_and_fifteen_on_the_ace_last() -> None:
    assert position_index(counts_on()) == 0
    assert position_index(counts_on(p1=15)) == POSITIONS - 1


@pytest.mark.parametrize("counts", [[0] * 5, [0] * 7, [-1, 0, 0, 0, 0, 0], [8, 8, 0, 0, 0, 0]])
def test_position_index_rejects_what_is_not_a_home_board(counts: list[int]) -> None:
    with pytest.raises(ValueError):
        position_index(counts)


def test_position_counts_rejects_an_index_out_of_range() -> None:
    with pytest.raises(ValueError):
        position_counts(POSITIONS)


# -- hand-computed distributions ----------------------------------------------------------


def test_empty_position_needs_zero_rolls(db: BearoffDatabase) -> None:
    assert_distribution(db.rolls_to_finish(counts_on()), {0: Fraction(1)})
    assert db.mean_rolls(counts_on()) == 0.0


def test_one_checker_on_the_ace_point_bears_off_in_one_roll(db: BearoffDatabase) -> None:
    assert_distribution(db.rolls_to_finish(counts_on(p1=1)), {1: Fraction(1)})


def test_one_checker_on_the_six_point_misses_with_under_six_pips(db: BearoffDatabase) -> None:
    # The lone checker is off in one roll unless the roll moves it fewer than 6 pips:
    # 2-1, 3-1, 4-1, 3-2 (two ways each) and 1-1 (4 pips) = 9/36. Each leaves it on the
    # 1-, 2- or 3-point, from where every roll bears it off.
    misses = Fraction(4 * 2 + 1, 36)
    assert_distribution(
        db.rolls_to_finish(counts_on(p6=1)), {1: 1 - misses, 2: misses}
    )
    assert db.mean_rolls(counts_on(p6=1)) == pytest.approx(1.25, abs=TOL)


def test_two_checkers_on_the_ace_point_bear_off_in_one_roll(db: BearoffDatabase) -> None:
    assert_distribution(db.rolls_to_finish(counts_on(p1=2)), {1: Fraction(1)})


def test_two_checkers_on_the_six_point_need_a_double_of_three_or_more(
    db: BearoffDatabase,
) -> None:
    # Twelve pips in one roll: two different dice move at most 11 and bear off at most one
    # checker each only with a 6 (so not both); 1-1 and 2-2 move 4 and 8 pips; 3-3 (6/3/off
    # twice), 4-4, 5-5 and 6-6 bear both off.
    distribution = db.rolls_to_finish(counts_on(p6=2))
    assert distribution[1] == pytest.approx(4 / 36, abs=TOL)
    assert distribution[0] == 0.0


@cache
def ace_point_distribution(checkers: int) -> dict[int, Fraction]:
    """Rolls to bear off checkers all on the ace point: each roll takes off two, or four
    with doubles (fewer when fewer are left) — arithmetic, no move generation."""
    if checkers == 0:
        return {0: Fraction(1)}
    result: dict[int, Fraction] = {}
    for off, weight in ((4, Fraction(6, 36)), (2, Fraction(30, 36))):
        for n, p in ace_point_distribution(max(checkers - off, 0)).items():
            result[n + 1] = result.get(n + 1, Fraction(0)) + weight * p
    return result


@pytest.mark.parametrize("checkers", [3, 5, 8, 15])
def test_checkers_on_the_ace_point_go_two_a_roll_or_four_with_doubles(
    db: BearoffDatabase, checkers: int
) -> None:
    assert_distribution(db.rolls_to_finish(counts_on(p1=checkers)),
                        ace_point_distribution(checkers))


def test_fifteen_on_the_six_point_take_the_first_checker_off_with_six_pips_exactly(
    db: BearoffDatabase,
) -> None:
    # With 14 still on the 6-point only an exact bear-off counts: any roll with a 6
    # (10/36), 5-1 and 4-2 (4/36), and the doubles 6-6, 3-3 and 2-2 (3/36); 4-4 and 5-5
    # can only move checkers down.
    first = db.rolls_to_first_off(counts_on(p6=15))
    assert first[1] == pytest.approx(17 / 36, abs=TOL)
    assert first[0] == 0.0


def test_first_checker_off_needs_zero_rolls_once_one_is_off(db: BearoffDatabase) -> None:
    assert_distribution(db.rolls_to_first_off(counts_on(p6=14)), {0: Fraction(1)})
    assert_distribution(db.rolls_to_first_off(counts_on(p1=15)), {1: Fraction(1)})
    fifteen = np.array([sum(position_counts(i)) == 15 for i in range(POSITIONS)])
    assert (db.first_off[~fifteen, 0] == 1.0).all()
    assert (db.first_off[fifteen, 0] == 0.0).all()


def test_every_distribution_sums_to_one(db: BearoffDatabase) -> None:
    np.testing.assert_allclose(db.rolls.sum(axis=1, dtype=np.float64), 1.0, atol=TOL)
    np.testing.assert_allclose(db.first_off.sum(axis=1, dtype=np.float64), 1.0, atol=TOL)
    assert (db.rolls >= 0).all() and (db.first_off >= 0).all()


def test_no_position_needs_more_than_thirty_rolls(db: BearoffDatabase) -> None:
    # The slowest case is 15 on the 6-point rolling 2-1 (3 pips) every time: 90 / 3.
    assert (db.rolls[:, 31:] == 0).all()
    assert db.rolls_to_finish(counts_on(p6=15))[30] > 0


def test_finishing_takes_at_least_as_long_as_the_first_checker_off(db: BearoffDatabase) -> None:
    # Tail by tail, P(N >= n) >= P(first >= n): what makes gammons <= wins.
    tail_all = np.cumsum(db.rolls[:, ::-1], axis=1, dtype=np.float64)[:, ::-1]
    tail_first = np.cumsum(db.first_off[:, ::-1], axis=1, dtype=np.float64)[:, ::-1]
    assert (tail_first <= tail_all + TOL).all()


# -- monotonicity -------------------------------------------------------------------------


def test_adding_a_checker_never_lowers_the_mean_for_any_position(db: BearoffDatabase) -> None:
    # Exhaustive, vectorised: for each point, every position with a checker there against
    # the same position without it.
    counts = np.array([position_counts(i) for i in range(POSITIONS)])
    for point in range(6):
        has = np.flatnonzero(counts[:, point] > 0)
        fewer = counts[has].copy()
        fewer[:, point] -= 1
        smaller = np.array([position_index(c) for c in fewer])
        assert (db.means[has] >= db.means[smaller] - TOL).all()


def test_a_gap_can_cost_more_than_a_pip_because_only_the_highest_checker_bears_off_high(
    db: BearoffDatabase,
) -> None:
    # Moving a checker to a higher point does NOT always raise the mean. With 2-1, ace-2-6
    # bears off the ace and deuce exactly (6 left), while ace-ace-6 cannot use the 2 on
    # an ace-point checker (the 6-point is higher) and keeps two checkers.
    assert db.mean_rolls(counts_on(p1=1, p2=1, p6=1)) < db.mean_rolls(counts_on(p1=2, p6=1))


# -- races --------------------------------------------------------------------------------


def test_a_race_has_every_checker_home_and_none_on_the_bar() -> None:
    assert is_bearoff(race({1: 3, 6: 2}, {2: 15}))
    assert is_bearoff(race({1: 1}, {1: 1}))
    assert not is_bearoff(Position.initial())
    assert not is_bearoff(race({1: 1, 7: 1}, {1: 1}))  # ours outside its home board
    assert not is_bearoff(race({1: 1}, {1: 1, 7: 1}))  # theirs outside theirs
    assert not is_bearoff(race({1: 1, 25: 1}, {1: 1}))  # on the bar
    assert not is_bearoff(race({1: 1}, {1: 1, 25: 1}))


def test_not_a_race_is_refused() -> None:
    with pytest.raises(NotBearoffError):
        bearoff_probabilities(Position.initial())


def test_the_side_on_roll_wins_a_race_of_ace_points(db: BearoffDatabase) -> None:
    result = bearoff_probabilities(race({1: 1}, {1: 1}), db)
    np.testing.assert_allclose(result, [1, 0, 0, 0, 0], atol=TOL)


def test_six_point_against_ace_point_wins_when_the_first_roll_bears_off(
    db: BearoffDatabase,
) -> None:
    result = bearoff_probabilities(race({6: 1}, {1: 1}), db)
    np.testing.assert_allclose(result, [27 / 36, 0, 0, 0, 0], atol=TOL)


def test_finishing_before_the_opponent_bears_any_off_wins_a_gammon(db: BearoffDatabase) -> None:
    result = bearoff_probabilities(race({1: 1}, {6: 15}), db)
    np.testing.assert_allclose(result, [1, 1, 0, 0, 0], atol=TOL)
    # Our 6-point checker is off at once with 27/36; otherwise the opponent takes two off
    # the ace point and we finish at the next roll: always a win, a gammon with 27/36.
    result = bearoff_probabilities(race({6: 1}, {1: 15}), db)
    np.testing.assert_allclose(result, [1, 27 / 36, 0, 0, 0], atol=TOL)


def test_failing_to_bear_one_off_before_the_opponent_finishes_loses_a_gammon(
    db: BearoffDatabase,
) -> None:
    # The opponent finishes at its first roll; we have one roll to get a checker off.
    result = bearoff_probabilities(race({6: 15}, {1: 1}), db)
    np.testing.assert_allclose(result, [0, 0, 0, 19 / 36, 0], atol=TOL)


def race_boards() -> st.SearchStrategy[np.ndarray]:
    def board(mine: int, theirs: int) -> np.ndarray:
        out = np.zeros(26, dtype=np.int8)
        for p, (a, b) in enumerate(zip(position_counts(mine), position_counts(theirs),
                                       strict=True), start=1):
            out[p] = a
            out[25 - p] = -b
        return out

    return st.builds(board, st.integers(1, POSITIONS - 1), st.integers(1, POSITIONS - 1))


@settings(max_examples=200, deadline=None)
@given(st.lists(race_boards(), min_size=1, max_size=8))
def test_race_probabilities_are_consistent(db: BearoffDatabase, boards: list[np.ndarray]) -> None:
    stacked = np.stack(boards)
    batch = bearoff_probabilities_batch(stacked, db)
    assert batch.shape == (len(boards), 5)
    for row, board in zip(batch, boards, strict=True):
        assert is_bearoff(board)
        np.testing.assert_array_equal(row, bearoff_probabilities(board, db))
        win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = row
        assert 1 + TOL >= win >= win_gammon - TOL
        assert win_gammon >= -TOL and lose_gammon >= -TOL
        assert win_backgammon == 0 and lose_backgammon == 0
        assert lose_gammon <= 1 - win + TOL


def test_the_batch_refuses_a_row_that_is_not_a_race(db: BearoffDatabase) -> None:
    boards = np.stack([race({1: 1}, {1: 1}).array(), Position.initial().array()])
    with pytest.raises(NotBearoffError, match="row 1"):
        bearoff_probabilities_batch(boards, db)


# -- the cache ----------------------------------------------------------------------------


def test_the_cache_file_carries_the_version_and_no_temporary_files(
    db: BearoffDatabase, cache_dir: Path
) -> None:
    path = cache_path()
    assert path.parent == cache_dir
    assert f"v{bearoff.VERSION}" in path.name
    assert [p.name for p in cache_dir.iterdir()] == [path.name]


def test_load_gives_one_database_per_cache_file(db: BearoffDatabase) -> None:
    assert BearoffDatabase.load() is db
    assert bearoff_probabilities(race({1: 1}, {1: 1}))[0] == pytest.approx(1.0)


def test_the_cached_file_reads_back_the_same_tables(db: BearoffDatabase) -> None:
    reread = bearoff._read(cache_path())
    assert reread is not None
    np.testing.assert_array_equal(reread.rolls, db.rolls)
    np.testing.assert_array_equal(reread.first_off, db.first_off)


def test_a_damaged_or_foreign_cache_file_is_not_used(tmp_path: Path) -> None:
    path = cache_path(tmp_path)
    path.write_bytes(b"not a zip file")
    assert bearoff._read(path) is None
    np.savez_compressed(path, version=np.int64(bearoff.VERSION + 1))
    assert bearoff._read(path) is None
    assert bearoff._read(tmp_path / "missing.npz") is None
