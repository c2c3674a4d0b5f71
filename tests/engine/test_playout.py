"""The compiled self-play turn that the arena, rollouts and training share
(:mod:`gammon.engine.playout`): its plays are the core's, and its end of turn is the core's
next position or the game's result."""

from __future__ import annotations

from importlib import resources

import numpy as np

from gammon.core import _movegen
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.evaluate import kernel_arrays
from gammon.engine.network import NetworkPair
from gammon.engine.player import WEIGHTS_FILE
from gammon.engine.playout import end_turn, roll_plays

SHIPPED = str(resources.files("gammon.engine") / "weights" / WEIGHTS_FILE)
ROLLS = [Roll(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def boards_of(plays_boards: np.ndarray, count: int) -> set[bytes]:
    return {plays_boards[i].tobytes() for i in range(count)}


def core_boards(position: Position, roll: Roll) -> set[bytes]:
    return {play.position.array().tobytes() for play in legal_plays(position, roll)}


def test_a_turn_rolls_and_generates_the_cores_legal_plays_of_that_roll() -> None:
    gen = _movegen.new_scratch()
    for position in (Position.initial(), Position.from_id("4HPwATDgc/ABMA"),
                     Position.from_points({6: 3, 5: 2, 1: 4}, {13: 2, 1: 1})):
        for opening in (True, False):
            for _ in range(10):
                count = roll_plays(position.array(), opening, gen)
                found = boards_of(gen[0], count)
                rolls = [r for r in ROLLS if core_boards(position, r) == found]
                assert rolls, "the plays are those of some roll"
                if opening:
                    assert any(not r.is_double() for r in rolls)  # no doubles at the opening


def test_a_turn_ends_with_the_opponents_view_or_the_games_result() -> None:
    # our last two checkers against fifteen of theirs, some in our home board
    position = Position.from_points({2: 1, 1: 1}, {20: 1, 19: 14})
    result = np.empty(5)
    for play in legal_plays(position, Roll(6, 5)):  # bears both checkers off: a backgammon
        board = position.array()
        assert end_turn(play.position.array(), board, result)
        assert result.tolist() == [1, 1, 1, 0, 0]
    for play in legal_plays(Position.initial(), Roll(3, 1)):
        board = Position.initial().array()
        assert not end_turn(play.position.array(), board, result)
        assert Position.from_board(board.tolist()) == play.next_position


def test_the_kernel_arrays_are_named() -> None:
    nets = NetworkPair.load(SHIPPED)
    arrays = kernel_arrays(nets)
    assert arrays.contact_w1 is arrays[0] and arrays.judge_margin is arrays[-1]
    assert arrays.feature_set[0] == nets.feature_set
    assert arrays.race_w1.shape == nets.race.arrays()[0].shape
