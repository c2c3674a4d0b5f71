"""The FIBS rating formula (RULES.md §10), the backgammon standard.

Every player starts at 1500. For a match to ``N`` points between ratings ``winner`` and
``loser``, with ``D = winner - loser``::

    P(winner wins) = 1 - 1 / (10 ** (D * sqrt(N) / 2000) + 1)
    change         = 4 * sqrt(N) * (1 - P(winner wins)) * K

The winner gains and the loser loses ``change`` computed with their own experience factor
``K = max(1, 5 - experience / 100)`` (``experience`` is the total length of the rated matches
played, so newcomers move faster). Rated matches: both players registered (or bots), a match
length of at least one point (money sessions are not rated).

>>> new_ratings(1500.0, 0, 1500.0, 0, 1)     # even, newcomers, 1 point: 4 * 0.5 * 5
(1510.0, 1490.0)
>>> round(win_probability(1600, 1500, 5), 4)
0.564
"""

from __future__ import annotations

import math


def win_probability(rating: float, other: float, length: int) -> float:
    """FIBS's probability that ``rating`` beats ``other`` in a match to ``length`` points."""
    power: float = 10.0 ** ((rating - other) * math.sqrt(length) / 2000.0)
    return 1.0 - 1.0 / (power + 1.0)


def experience_factor(experience: int) -> float:
    """``max(1, 5 - experience / 100)``: the first 400 points of experience count extra."""
    return max(1.0, 5.0 - experience / 100.0)


def new_ratings(winner: float, winner_experience: int, loser: float, loser_experience: int,
                length: int) -> tuple[float, float]:
    """(winner's new rating, loser's new rating) after a match to ``length`` points."""
    if length < 1:
        raise ValueError(f"only matches of at least one point are rated, got {length}")
    base = 4.0 * math.sqrt(length) * (1.0 - win_probability(winner, loser, length))
    return (winner + base * experience_factor(winner_experience),
            loser - base * experience_factor(loser_experience))
