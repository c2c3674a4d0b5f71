"""The position value and the GNU Backgammon Position ID (RULES.md §1)."""

from __future__ import annotations

import pytest

from gammon.core.position import InvalidPositionError, Position


def test_starting_position_two_five_three_five_each_side() -> None:
    start = Position.initial()
    for side in (start, start.swap()):
        assert [side.checkers(p) for p in (24, 13, 8, 6)] == [2, 5, 3, 5]
        assert sum(side.checkers(p) for p in range(1, 26)) == 15
    assert start.pips() == (167, 167)


def test_published_start_position_id() -> None:
    # The gnubg manual's ID of the starting position.
    assert Position.initial().id() == "4HPwATDgc/ABMA"
    assert Position.from_id("4HPwATDgc/ABMA") == Position.initial()


def test_position_id_key_lists_the_opponent_first() -> None:
    # Published: '4HPwATDgc/ABUA' with 6-6 has no legal play, which holds only if the
    # changed second half (a checker on the bar) belongs to the side on roll.
    position = Position.from_id("4HPwATDgc/ABUA")
    assert position.on_bar() == (1, 0)
    assert position.checkers(24) == 1


def test_a_checker_on_the_bar_counts_twenty_five_pips() -> None:
    position = Position.from_points({25: 1}, {25: 1})
    assert position.pips() == (25, 25)


def test_borne_off_is_what_is_not_on_the_board() -> None:
    position = Position.from_points({1: 3}, {6: 15})
    assert position.borne_off() == (12, 0)
    assert position.is_bearing_off()
    assert position.swap().is_bearing_off()  # their 15 are on their own 6-point
    assert not Position.initial().is_bearing_off()


def test_race_and_contact() -> None:
    assert not Position.initial().is_race()
    assert Position.from_points({6: 15}, {6: 15}).is_race()


def test_winner_is_the_side_with_all_fifteen_off() -> None:
    assert Position.from_points({}, {6: 15}).winner() == 0
    assert Position.from_points({6: 15}, {}).winner() == 1
    assert Position.initial().winner() is None


def test_positions_are_immutable_values() -> None:
    start = Position.initial()
    with pytest.raises(AttributeError):
        start._board = ()  # type: ignore[misc]
    assert hash(start) == hash(Position.initial())
    assert {start, Position.initial()} == {start}


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "4HPwATDgc/AB",  # too short
        "4HPwATDgc/ABMAA",  # too long
        "4HPwATDgc/AB!A",  # not base64
        "//////////////",  # far too many checkers
        "4HPwATDgc/ABMB",  # stray bits after the board
    ],
)
def test_malformed_position_ids_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_id(bad)


def test_a_non_string_position_id_is_rejected() -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_id(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ({1: 16}, {}),  # sixteen checkers
        ({}, {3: 16}),
        ({0: 1}, {}),  # no point 0
        ({26: 1}, {}),
        ({5: -1}, {}),
        ({5: 1}, {20: 1}),  # both sides on one point
    ],
)
def test_impossible_boards_are_rejected(mine: dict[int, int], theirs: dict[int, int]) -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_points(mine, theirs)


@pytest.mark.parametrize(
    "board",
    [
        [0] * 25,
        [1] + [0] * 25,  # opponent's bar positive
        [0] * 25 + [-1],  # own bar negative
    ],
)
def test_impossible_raw_boards_are_rejected(board: list[int]) -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_board(board)
