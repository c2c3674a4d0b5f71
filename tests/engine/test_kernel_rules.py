"""The compiled (numba) copies of rules facts agree with the core, the one place each fact
lives (docs/architecture.md, "Where each rules fact lives"): the level a game is won at
(``terminal_result``, ``lost_result``, the arena's points), the starting board and the
opening of the compiled game loops. Positions come from random games and from random
finished boards (hypothesis)."""

from __future__ import annotations

import random

import numba as nb
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.actions import RollOpening
from gammon.core.cube import Level, win_level
from gammon.core.dice import OpeningRoll, Roll, deciding_throw, first_to_move
from gammon.core.game import Game, Phase
from gammon.core.moves import legal_plays
from gammon.core.position import BAR, CHECKERS, Position
from gammon.engine import arena, playout
from gammon.engine.evaluate import lost_result, terminal_result
from gammon.engine.network import OUTPUTS
from tests.core.helpers import random_game_position


@st.composite
def finished_boards(draw: st.DrawFn) -> Position:
    """A board seen by the side that has just borne off its last checker: the loser keeps
    0..15 checkers anywhere on its bar (index 0) and the points (indices 1..24)."""
    kept = draw(st.integers(0, CHECKERS))
    slots = draw(st.lists(st.integers(0, BAR - 1), min_size=kept, max_size=kept))
    board = [0] * (BAR + 1)
    for slot in slots:
        board[slot] -= 1
    return Position(board)


def finished_in_play(seed: int) -> Position:
    """The board after the winning play of a random game, from the winner's view."""
    rng = random.Random(seed)
    position = Position.initial()
    while True:
        play = rng.choice(legal_plays(position, Roll.roll(rng)))
        if play.position.winner() == 0:
            return play.position
        position = play.position.swap()


finished = st.one_of(finished_boards(), st.builds(finished_in_play, st.integers(0, 2**32)))


def expected_won(level: Level) -> list[float]:
    return [1.0, float(level >= Level.GAMMON), float(level is Level.BACKGAMMON), 0.0, 0.0]


@settings(max_examples=300, deadline=None)
@given(finished)
def test_terminal_result_is_the_cores_win_level(board: Position) -> None:
    out = np.full(OUTPUTS, np.nan)
    assert terminal_result(board.array(), out)
    assert out.tolist() == expected_won(win_level(board))


@settings(max_examples=300, deadline=None)
@given(finished)
def test_lost_result_is_the_cores_win_level_from_the_losers_view(board: Position) -> None:
    out = np.full(OUTPUTS, np.nan)
    assert lost_result(board.swap().array(), out)
    won = expected_won(win_level(board))
    assert out.tolist() == [0.0, 0.0, 0.0, won[1], won[2]]


@settings(max_examples=300, deadline=None)
@given(finished)
def test_the_arenas_points_are_the_cores_level(board: Position) -> None:
    out = np.empty(OUTPUTS)
    terminal_result(board.array(), out)
    assert arena._points(out) == int(win_level(board))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 120))
def test_no_result_while_both_sides_have_checkers(seed: int, turns: int) -> None:
    """The kernels call a game over exactly when the core does (``Position.winner``)."""
    position = random_game_position(seed, turns)
    out = np.empty(OUTPUTS)
    assert terminal_result(position.array(), out) is (position.winner() == 0)
    assert lost_result(position.array(), out) is (position.winner() == 1)


def test_the_compiled_games_start_from_the_cores_initial_board() -> None:
    assert playout.INITIAL.dtype == np.int8
    assert Position(playout.INITIAL.tolist()) == Position.initial()


@nb.njit(cache=False)
def _openings(seed: int, count: int) -> np.ndarray:
    np.random.seed(seed)
    out = np.empty((count, 2), dtype=np.int64)
    for i in range(count):
        out[i, 0], out[i, 1] = playout.opening_roll()
    return out


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_compiled_opening_is_one_the_core_accepts(seed: int) -> None:
    """The compiled games seat the side that moves first as player 0 and let it play the
    opening dice: the core's opening with that deciding throw (no double, the higher die
    moves first) starts the same game."""
    for d1, d2 in _openings(seed, 20).tolist():
        roll = Roll(d1, d2)
        throw = deciding_throw(0, roll)
        assert first_to_move(throw) == 0
        game, _ = Game.new().apply(RollOpening(OpeningRoll(0, roll, (throw,))))
        assert game.phase is Phase.MOVING and game.turn == 0 and game.roll == roll
