"""Dice and the opening roll (RULES.md §2), with dice from an injected source."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gammon.core.dice import InvalidDiceError, Roll, roll_opening


class Scripted:
    """A dice source that returns the given dice in order."""

    def __init__(self, *dice: int) -> None:
        self.dice = list(dice)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.dice.pop(0)


def test_each_side_rolls_one_die_and_the_higher_die_moves_first() -> None:
    opening = roll_opening(Scripted(2, 5))
    assert opening.first == 1
    assert opening.roll == Roll(5, 2)
    assert opening.throws == ((2, 5),)


def test_ties_roll_again() -> None:
    opening = roll_opening(Scripted(4, 4, 3, 3, 6, 1))
    assert opening.throws == ((4, 4), (3, 3), (6, 1))
    assert opening.first == 0 and opening.roll == Roll(6, 1)


def test_the_opening_roll_is_never_a_double() -> None:
    rng = random.Random(7)
    for _ in range(500):
        assert not roll_opening(rng).roll.is_double()


def test_option_the_winner_of_the_opening_rolls_both_dice_anew() -> None:
    opening = roll_opening(Scripted(6, 2, 3, 3), winner_rolls_anew=True)
    assert opening.first == 0
    assert opening.roll == Roll(3, 3)  # a fresh roll, doubles allowed


def test_the_opening_is_fair_between_the_sides() -> None:
    rng = random.Random(11)
    firsts = Counter(roll_opening(rng).first for _ in range(6000))
    assert abs(firsts[0] - firsts[1]) < 400  # about 5 standard deviations


def test_doubles_play_four_times_and_the_higher_die_comes_first() -> None:
    assert Roll(2, 2).moves() == (2, 2, 2, 2)
    assert Roll(1, 5).moves() == (5, 1)


@pytest.mark.parametrize("text", ["31", "3-1", "3 1", "3,1", " 31 "])
def test_dice_parse_in_common_forms(text: str) -> None:
    assert Roll.parse(text) == Roll(3, 1)


@pytest.mark.parametrize("text", ["", "3", "70", "0-1", "311", "ab", "3--1x"])
def test_malformed_dice_are_rejected(text: str) -> None:
    with pytest.raises(InvalidDiceError):
        Roll.parse(text)


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), (True, 2), (1.5, 2)])
def test_a_die_shows_one_to_six(dice: tuple[object, object]) -> None:
    with pytest.raises(InvalidDiceError):
        Roll(*dice)  # type: ignore[arg-type]
