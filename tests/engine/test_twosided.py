"""The two-sided bear-off database against an independent solver: the same races solved by
plain recursion over the core's legal plays (``legal_plays``, memoised on Position IDs),
every pair of up to two checkers a side and every three against one; and the textbook
facts of last-roll positions (double above 50%, take from 25%)."""

from __future__ import annotations

import itertools
from functools import cache

import pytest

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine import twosided
from gammon.engine.bearoff import NotBearoffError
from gammon.engine.cube import CubeAction, CubeInfo, Owner, Response, exact_cube_decision
from gammon.engine.player import Engine

ROLLS = [(Roll(a, b), 1 / 36 if a == b else 2 / 36) for a in range(1, 7) for b in range(a, 7)]


@cache
def solved(position_id: str, cube: str) -> tuple[float, float]:
    """(win chance, cubeful money equity with the cube ``centred``/``mine``/``theirs``) of
    the side on roll before it rolls, by recursion: each roll's best play for the winning
    chance and, separately, for the equity; doubling when it pays (taken when the
    opponent does no worse)."""
    position = Position.from_id(position_id)
    swap = {"centred": "centred", "mine": "theirs", "theirs": "mine"}
    win = 0.0
    no_double = {"centred": 0.0, "mine": 0.0, "theirs": 0.0}
    for roll, weight in ROLLS:
        best_win, best = 0.0, {c: -9.0 for c in no_double}
        for play in legal_plays(position, roll):
            after = play.position.swap()  # the opponent on roll
            if play.position.winner() is not None:
                best_win, best = 1.0, dict.fromkeys(no_double, 1.0)
                break
            best_win = max(best_win, 1.0 - solved(after.id(), "centred")[0])
            for c in best:
                best[c] = max(best[c], -solved(after.id(), swap[c])[1])
        win += weight * best_win
        for c in no_double:
            no_double[c] += weight * best[c]
    if cube == "theirs":
        return win, no_double["theirs"]
    return win, max(no_double[cube], min(2.0 * no_double["theirs"], 1.0))


def homes(checkers: int) -> list[dict[int, int]]:
    """Every home board of exactly ``checkers`` checkers."""
    out = []
    for points in itertools.combinations_with_replacement(range(1, 7), checkers):
        board: dict[int, int] = {}
        for p in points:
            board[p] = board.get(p, 0) + 1
        out.append(board)
    return out


def races(most: int) -> list[Position]:
    boards = [b for n in range(1, most + 1) for b in homes(n)]
    return [Position.from_points(mine, theirs) for mine in boards for theirs in boards]


def test_every_race_of_up_to_two_checkers_a_side_is_the_independent_solvers() -> None:
    for position in races(2):
        win, centred = solved(position.id(), "centred")
        assert twosided.win_probability(position) == pytest.approx(win, abs=1e-6)
        nd, dt, dp = twosided.money_cube(position, "centred")
        assert max(nd, min(dt, dp)) == pytest.approx(centred, abs=1e-5), position.id()
        assert dt == pytest.approx(2 * solved(position.id(), "theirs")[1], abs=1e-5)


def test_three_checkers_against_one_are_the_independent_solvers() -> None:
    """Every race of three checkers (on the side on roll) against one, the cube owned by
    the side on roll."""
    for mine in homes(3):
        for theirs in homes(1):
            position = Position.from_points(mine, theirs)
            win, owned = solved(position.id(), "mine")
            assert twosided.win_probability(position) == pytest.approx(win, abs=1e-6)
            nd, dt, dp = twosided.money_cube(position, "mine")
            assert max(nd, min(dt, dp)) == pytest.approx(owned, abs=1e-5), position.id()


@pytest.mark.parametrize(("mine", "win"), [({6: 1}, 27 / 36), ({5: 1}, 31 / 36),
                                           ({4: 1}, 34 / 36), ({3: 1}, 1.0)])
def test_last_roll_positions_double_above_half_and_are_taken_from_a_quarter(
        mine: dict[int, int], win: float) -> None:
    """One checker left each, the opponent's on its ace point (it is off next roll): the
    side on roll wins exactly when this roll bears its checker off."""
    position = Position.from_points(mine, {1: 1})
    assert twosided.win_probability(position) == pytest.approx(win)
    nd, dt, dp = twosided.money_cube(position, "centred")
    assert (nd, dt, dp) == pytest.approx((2 * win - 1, 2 * (2 * win - 1), 1.0))
    decision = exact_cube_decision(position, CubeInfo())
    assert decision is not None and decision.exact
    assert decision.action.doubles  # every one of these is above 50%
    assert decision.response is (Response.TAKE if 1 - win >= 0.25 else Response.PASS)


def test_the_database_answers_only_money_races_of_six_checkers_or_fewer() -> None:
    race = Position.from_points({1: 2, 2: 2, 3: 2}, {1: 3, 2: 3})
    assert exact_cube_decision(race, CubeInfo()) is not None
    assert exact_cube_decision(race, CubeInfo.money(2, Owner.OPPONENT)) is None  # may not double
    assert exact_cube_decision(race, CubeInfo.money(beavers=True)) is None
    assert exact_cube_decision(race, CubeInfo.match(5, 5)) is None
    seven = Position.from_points({1: 3, 2: 2, 3: 2}, {1: 3})
    assert not twosided.in_database(seven)
    with pytest.raises(NotBearoffError):
        twosided.win_probability(Position.initial())
    assert not twosided.in_database(Position.initial())


def test_the_engine_decides_the_cube_of_a_short_race_exactly() -> None:
    from gammon.engine.cube import analyse_cube, analyse_take

    position = Position.from_points({6: 1}, {1: 1})
    decision = analyse_cube(Engine.load(), position, CubeInfo())
    # 25% exactly: taking is worth passing, and ties are taken
    assert decision.exact and decision.action is CubeAction.DOUBLE_TAKE
    assert analyse_take(Engine.load(), position, CubeInfo()).doubler.exact
