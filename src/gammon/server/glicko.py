"""Glicko-2 ratings (Glickman, *Example of the Glicko-2 system*, 2013), for the puzzles: a
player's puzzle rating and each puzzle's, every answer one game between them.

The arithmetic is the ``glicko2`` package's (PyPI, MIT, Ryan Kirkman's pyglicko2 kept by
Alexander Nordlund): small, pure Python with no dependencies, its formulas line by line
those of Glickman's paper, and checked here against the paper's worked example
(``tests/server/test_glicko.py``). One fix: its volatility iteration's ``f(x)`` uses the
rating μ² where the paper has the deviation φ² (step 5.1), which the worked example cannot
show (its μ is 0) but which makes the result depend on where the ratings lie; :class:`_Player`
puts φ² back, so that shifting every rating shifts the result and nothing else.

Each answer is its own rating period (as puzzle sites do): the player's rating is updated
against the puzzle's as it was before the answer, and the puzzle's against the player's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import glicko2

TAU = 0.5
"""The system constant (the package's): how fast the volatility may change."""


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = 1500.0
    rd: float = 350.0
    vol: float = 0.06


START = Rating()
"""A new player's, and a new puzzle's: Glickman's unrated defaults."""


class _Player(glicko2.Player):  # type: ignore[misc]  # the package has no types
    """The package's player with the paper's ``f(x)`` (φ², not μ²)."""

    _tau = TAU

    def _f(self, x: float, delta: float, v: float, a: float) -> float:
        phi2: float = self._Player__rd ** 2
        ex = math.exp(x)
        return float(ex * (delta ** 2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2)
                     - (x - a) / self._tau ** 2)


def update(me: Rating, games: list[tuple[Rating, float]]) -> Rating:
    """``me`` after one rating period of ``games``: each the opponent's rating and my score
    (1 a win, 0 a loss)."""
    player = _Player(rating=me.rating, rd=me.rd, vol=me.vol)
    player.update_player([g.rating for g, _ in games], [g.rd for g, _ in games],
                         [score for _, score in games])
    return Rating(float(player.getRating()), float(player.getRd()), float(player.vol))


def answered(player: Rating, puzzle: Rating, right: bool) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after one answer: the player wins when the
    answer is right, the puzzle when it is wrong."""
    score = 1.0 if right else 0.0
    return update(player, [(puzzle, score)]), update(puzzle, [(player, 1.0 - score)])
