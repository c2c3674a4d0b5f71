"""The pairing rule of Play now (gammon.server.pairing), pure: the band widens with the time
waited, step by step, up to its most; two players may be paired within the wider band of the
two; the closest ratings (by step) are paired first, and inside one step the first come is
served first; nobody is in two pairs."""

from __future__ import annotations

import pytest

from gammon.server.pairing import Band, Seeker, allowed, band, pairs

RULE = Band(start=50, step=50, every=10, most=500)


def ids(made: list[tuple[Seeker, Seeker]]) -> list[tuple[int, int]]:
    return [(a.id, b.id) for a, b in made]


@pytest.mark.parametrize(("waited", "expected"), [
    (0, 50), (9.99, 50), (10, 100), (19, 100), (20, 150), (80, 450), (90, 500), (3600, 500)])
def test_the_band_widens_a_step_every_interval_up_to_its_most(waited: float,
                                                               expected: float) -> None:
    assert band(waited, RULE) == expected


def test_the_thresholds_are_checked() -> None:
    with pytest.raises(ValueError, match="step and every"):
        Band(step=0)
    with pytest.raises(ValueError, match="most"):
        Band(start=100, most=50)
    with pytest.raises(ValueError, match="finite"):
        Band(every=float("inf"))


def test_a_pair_is_allowed_within_the_band_of_the_one_who_waited_longer() -> None:
    old, new = Seeker(1, 1500, 0), Seeker(2, 1620, 29)
    assert not allowed(old, new, 19, RULE)  # 120 apart, the longer band 100
    assert allowed(old, new, 29, RULE)  # the older waited 29 s: 150
    assert allowed(new, old, 29, RULE)  # either way round
    assert allowed(Seeker(1, 1500, 0), Seeker(2, 1550, 0), 0, RULE)  # 50: at once


def test_two_far_apart_are_paired_once_one_has_waited_long_enough() -> None:
    a, b = Seeker(1, 1500, 0), Seeker(2, 1800, 0)
    assert pairs([a, b], 49, RULE) == []  # 300 apart: band 250 after 49 s
    assert ids(pairs([a, b], 50, RULE)) == [(1, 2)]  # 300 after 50 s
    assert pairs([Seeker(1, 1000, 0), Seeker(2, 2000, 0)], 10**6, RULE) == []  # beyond most


def test_the_closest_ratings_are_paired_first() -> None:
    # 1 and 2 are 90 apart (step 1), 2 and 3 are 10 apart (step 0): 2 and 3 go first,
    # although 1 came first; 1 stays waiting
    one, two, three = Seeker(1, 1500, 0), Seeker(2, 1590, 5), Seeker(3, 1600, 6)
    assert ids(pairs([one, two, three], 12, RULE)) == [(2, 3)]


def test_first_come_first_served_inside_one_step() -> None:
    # every difference is in step 0 (under 50): the earliest is paired with the next come,
    # not with the closer one who came later
    first, second, third = Seeker(1, 1500, 0), Seeker(2, 1540, 5), Seeker(3, 1500, 8)
    assert ids(pairs([third, second, first], 8, RULE)) == [(1, 2)]
    # four in one step: (1, 2) then (3, 4), by their times of arrival
    four = [Seeker(n, 1500 + n, float(n)) for n in (4, 2, 3, 1)]
    assert ids(pairs(four, 4, RULE)) == [(1, 2), (3, 4)]


def test_nobody_is_paired_twice_and_the_pairs_are_earlier_first() -> None:
    seekers = [Seeker(n, 1400 + 7 * n, float(20 - n)) for n in range(20)]
    made = pairs(seekers, 25, RULE)
    seen = [s.id for pair in made for s in pair]
    assert len(seen) == len(set(seen)) == 20
    assert all(a.since <= b.since for a, b in made)
    assert all(allowed(a, b, 25, RULE) for a, b in made)


def test_one_player_alone_waits() -> None:
    assert pairs([Seeker(1, 1500, 0)], 1000, RULE) == []
    assert pairs([], 0, RULE) == []
