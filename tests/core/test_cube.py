"""The doubling cube in one game: RULES.md §5. (The Crawford rule across games and money
sessions are also in test_match.py.)"""

from __future__ import annotations

import pytest

from gammon.core.actions import (
    AcceptResign,
    Beaver,
    Drop,
    MoveChecker,
    OfferDouble,
    OfferResign,
    RollDice,
    Take,
)
from gammon.core.cube import MAX_CUBE, Cube, Level
from gammon.core.dice import Roll
from gammon.core.errors import (
    CubeNotAvailableError,
    NotYourTurnError,
    WrongPhaseError,
)
from gammon.core.events import (
    CubeBeavered,
    CubeDropped,
    CubeOffered,
    CubeTaken,
    EndKind,
    GameEnded,
)
from gammon.core.game import Game, Phase, Rules
from gammon.core.position import Position
from tests.core.helpers import refused, run


def game(turn: int = 0, at: Cube | None = None, **rules: object) -> Game:
    """Player ``turn`` about to roll the initial position, the cube ``at``."""
    return Game.from_position(
        Position.initial(), turn, cube=at, rules=Rules(**rules)  # type: ignore[arg-type]
    )


# A position where player 0 bears off its last checker while player 1 has borne off none.
GAMMON = Position.from_points({1: 1}, {6: 15})


def test_cube_starts_centred_at_1_and_either_side_may_double() -> None:
    start = Game.new()
    assert start.cube == Cube(1, None) and start.cube.is_centred
    assert game(0).can_double(0) and game(1).can_double(1)
    assert OfferDouble(0) in game(0).legal_actions()


def test_cube_is_offered_only_before_rolling() -> None:
    moving, _ = game(0).apply(RollDice(0, Roll(3, 1)))
    assert not moving.can_double(0)
    assert moving.double_refusal(0) == "the cube is offered only before rolling"
    message = refused(moving, OfferDouble(0), WrongPhaseError)
    assert message == "player 0 cannot double: the cube is offered only before rolling"


def test_only_the_side_on_turn_may_double() -> None:
    message = refused(game(0), OfferDouble(1), NotYourTurnError)
    assert message == "player 1 cannot double: it is player 0's turn"
    assert game(0).double_refusal(1) == "it is player 0's turn"


def test_take_doubles_the_cube_and_the_taker_owns_it() -> None:
    state, events = run(game(0), OfferDouble(0))
    assert events == [CubeOffered(0, 2)]
    assert state.phase is Phase.CUBE_OFFERED
    assert state.legal_actions() == (Take(1), Drop(1))
    state, events = run(state, Take(1))
    assert events == [CubeTaken(1, 2)]
    assert state.cube == Cube(2, 1)
    assert state.phase is Phase.BEFORE_ROLL and state.turn == 0  # the doubler now rolls
    assert state.apply(RollDice(0, Roll(3, 1)))[0].phase is Phase.MOVING


def test_only_the_doublers_opponent_answers_and_nothing_else_happens_meanwhile() -> None:
    offered, _ = game(0).apply(OfferDouble(0))
    assert "player 1 answers" in refused(offered, Take(0), NotYourTurnError)
    message = refused(offered, RollDice(0, Roll(3, 1)), WrongPhaseError)
    assert message == "player 0 cannot roll: player 1 must first take or drop the cube"
    refused(offered, OfferResign(0, Level.SINGLE), WrongPhaseError)
    refused(game(0), Take(1), WrongPhaseError)


def test_only_the_owner_may_redouble() -> None:
    owned = game(0, Cube(2, 1))
    assert not owned.can_double(0)
    message = refused(owned, OfferDouble(0), CubeNotAvailableError)
    assert message == "player 0 cannot double: player 1 owns the cube"
    state, events = run(game(1, Cube(2, 1)), OfferDouble(1), Take(0))
    assert events == [CubeOffered(1, 4), CubeTaken(0, 4)]
    assert state.cube == Cube(4, 0)


def test_drop_loses_the_game_at_the_value_before_the_double() -> None:
    state, events = run(game(0, Cube(4, 0)), OfferDouble(0), Drop(1))
    assert events[1:] == [CubeDropped(1, 4), GameEnded(0, 4, EndKind.DROP, Level.SINGLE, 4)]
    assert state.phase is Phase.GAME_OVER and state.winner == 0


def test_drop_scores_a_single_game_even_when_a_gammon_was_coming() -> None:
    state = Game.from_position(GAMMON, 1)
    _, events = run(state, OfferDouble(1), Drop(0))
    assert events[-1] == GameEnded(1, 1, EndKind.DROP, Level.SINGLE, 1)


def test_maximum_cube_value_is_64() -> None:
    state, _ = run(game(0, Cube(32, 0)), OfferDouble(0), Take(1))
    assert state.cube == Cube(MAX_CUBE, 1) and MAX_CUBE == 64
    top = game(1, Cube(64, 1))
    assert not top.can_double(1)
    message = refused(top, OfferDouble(1), CubeNotAvailableError)
    assert message == "player 1 cannot double: the cube is at its maximum, 64"
    with pytest.raises(ValueError, match="power of two from 1 to 64"):
        Cube(128, 0)


def test_no_cube_in_a_1_point_match() -> None:
    state = Game.new(Rules(length=1))
    assert not state.cube_enabled
    message = refused(game(0, length=1), OfferDouble(0), CubeNotAvailableError)
    assert message == "player 0 cannot double: a 1-point match has no cube"


def test_no_cube_in_the_crawford_game() -> None:
    crawford = Game.from_position(Position.initial(), 1, rules=Rules(length=5), crawford=True)
    assert not crawford.can_double(1) and not crawford.cube_enabled
    message = refused(crawford, OfferDouble(1), CubeNotAvailableError)
    assert message == "player 1 cannot double: the Crawford game has no cube"


def test_no_cube_in_a_single_game_without_cube() -> None:
    message = refused(game(0, cube=False), OfferDouble(0), CubeNotAvailableError)
    assert message == "player 0 cannot double: this game is played without the cube"


def test_with_auto_roll_on_the_player_cannot_offer_the_cube() -> None:
    state = game(0, auto_roll=(True, False))
    message = refused(state, OfferDouble(0), CubeNotAvailableError)
    assert message == "player 0 cannot double: a player using auto-roll cannot offer the cube"
    assert game(1, auto_roll=(True, False)).can_double(1)


def bear_off_last(cube: Cube, **rules: object) -> GameEnded:
    state = Game.from_position(GAMMON, 0, cube=cube, rules=Rules(**rules))  # type: ignore[arg-type]
    state, events = run(state, RollDice(0, Roll(2, 1)), MoveChecker(0, 1, 2))
    assert isinstance(events[-1], GameEnded)
    return events[-1]


def test_jacoby_rule_counts_gammons_single_until_the_cube_is_turned() -> None:
    assert bear_off_last(Cube(), jacoby=True) == GameEnded(0, 1, EndKind.GAMMON, Level.GAMMON, 1)
    assert bear_off_last(Cube(2, 1), jacoby=True).points == 4
    assert bear_off_last(Cube(2, 0), jacoby=True).points == 4


def test_jacoby_rule_applies_to_resignations_too() -> None:
    _, events = run(game(0, jacoby=True), OfferResign(0, Level.GAMMON), AcceptResign(1))
    assert events[-1] == GameEnded(1, 1, EndKind.RESIGN, Level.GAMMON, 1)
    _, events = run(game(0, Cube(2, 0), jacoby=True), OfferResign(0, Level.BACKGAMMON))
    assert events[-1] == GameEnded(1, 6, EndKind.RESIGN, Level.BACKGAMMON, 2)


def test_jacoby_and_beavers_are_off_by_default() -> None:
    rules = Rules()
    assert not rules.jacoby and not rules.beavers
    assert bear_off_last(Cube()).points == 2
    offered, _ = game(0).apply(OfferDouble(0))
    assert Beaver(1) not in offered.legal_actions()
    message = refused(offered, Beaver(1), CubeNotAvailableError)
    assert message == "player 1 cannot beaver: beavers are not allowed in this game"


def test_jacoby_and_beavers_are_money_session_options() -> None:
    with pytest.raises(ValueError, match="Jacoby rule is a money-session option"):
        Rules(length=5, jacoby=True)
    with pytest.raises(ValueError, match="beavers are a money-session option"):
        Rules(length=5, beavers=True)


def test_beaver_takes_and_redoubles_keeping_the_cube() -> None:
    offered, _ = game(0, beavers=True).apply(OfferDouble(0))
    assert offered.legal_actions() == (Take(1), Drop(1), Beaver(1))
    state, events = offered.apply(Beaver(1))
    assert events == (CubeBeavered(1, 4),)
    assert state.cube == Cube(4, 1) and state.phase is Phase.BEFORE_ROLL and state.turn == 0
    assert not state.can_double(0)


def test_no_beaver_past_the_maximum_cube() -> None:
    offered, _ = game(0, Cube(32, 0), beavers=True).apply(OfferDouble(0))
    assert not offered.can_beaver(1)
    assert "maximum, 64" in refused(offered, Beaver(1), CubeNotAvailableError)


def test_rules_check_their_options() -> None:
    with pytest.raises(ValueError, match="match length"):
        Rules(length=-1)
    with pytest.raises(ValueError, match="one flag per player"):
        Rules(confirm_turn=(True,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="owner"):
        Cube(2, 3)
    with pytest.raises(ValueError, match="turned cube has an owner"):
        Cube(2, None)
