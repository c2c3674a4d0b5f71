"""Glicko-2 (server/glicko.py) against Glickman's worked example, and the property the
package's own volatility step misses: shifting every rating shifts the result, nothing
else."""

from __future__ import annotations

import glicko2
import pytest

from gammon.server.glicko import START, Rating, answered, update

OPPONENTS = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]


def test_glickmans_worked_example() -> None:
    """*Example of the Glicko-2 system* (Glickman, 2013): a player rated 1500, RD 200,
    volatility 0.06 beats 1400/30, loses to 1550/100 and 1700/300: 1464.06, RD 151.52,
    volatility 0.05999."""
    after = update(Rating(1500, 200, 0.06), OPPONENTS)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.vol == pytest.approx(0.05999, abs=0.00001)


def test_shifting_every_rating_shifts_the_result_and_nothing_else() -> None:
    base = update(Rating(1500, 200, 0.06), OPPONENTS)
    shifted = update(Rating(2300, 200, 0.06),
                     [(Rating(r.rating + 800, r.rd), s) for r, s in OPPONENTS])
    assert shifted.rating - 800 == pytest.approx(base.rating, abs=1e-9)
    assert (shifted.rd, shifted.vol) == pytest.approx((base.rd, base.vol), abs=1e-12)
    # the package alone moves the volatility (its f(x) reads mu squared for phi squared)
    plain = glicko2.Player(2300, 200, 0.06)
    plain.update_player([r.rating + 800 for r, _ in OPPONENTS], [r.rd for r, _ in OPPONENTS],
                        [s for _, s in OPPONENTS])
    assert abs(plain.vol - base.vol) > 1e-7


def test_a_right_answer_raises_the_player_and_lowers_the_puzzle() -> None:
    player, puzzle = answered(START, START, right=True)
    assert player.rating > 1500 > puzzle.rating
    assert player.rd < 350 and puzzle.rd < 350
    player, puzzle = answered(START, START, right=False)
    assert player.rating < 1500 < puzzle.rating
