"""The FIBS rating formula (RULES.md §10): the change of ratings after a match, the
experience factor, and the winning chance of the stronger player over longer matches."""

from __future__ import annotations

from gammon.server.ratings import experience_factor, new_ratings, win_probability


def test_fibs_rating_formula() -> None:
    # equal ratings: the winner gains 4 * sqrt(N) * 0.5 * K
    assert new_ratings(1500, 0, 1500, 0, 9) == (1530.0, 1470.0)
    assert new_ratings(1500, 1000, 1500, 1000, 1) == (1502.0, 1498.0)
    assert experience_factor(0) == 5 and experience_factor(250) == 2.5
    assert experience_factor(10_000) == 1
    # an upset moves more than an expected result; longer matches favour the stronger
    assert new_ratings(1400, 500, 1600, 500, 5)[0] - 1400 > new_ratings(
        1600, 500, 1400, 500, 5)[0] - 1600
    assert win_probability(1700, 1500, 11) > win_probability(1700, 1500, 1) > 0.5
