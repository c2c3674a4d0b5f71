"""One game as a state machine: RULES.md §2 (the opening), §3 (a turn, step by step),
§4 (end of game and scoring) and §6 (resigning). The cube (§5) is in test_cube.py, matches,
abandon and timeout in test_match.py."""

from __future__ import annotations

import doctest
import random

import pytest

import gammon.core.actions
import gammon.core.cube
import gammon.core.game
import gammon.core.match
from gammon.core.actions import (
    Abandon,
    AcceptResign,
    ConfirmPlay,
    MoveChecker,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    RollDice,
    RollOpening,
    Take,
    Timeout,
    UndoStep,
)
from gammon.core.cube import Cube, Level
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.errors import (
    GameOverError,
    IllegalActionError,
    IllegalMoveError,
    NotYourTurnError,
    ResignationError,
    WrongPhaseError,
)
from gammon.core.events import (
    CheckerMoved,
    DiceRolled,
    EndKind,
    GameEnded,
    NoLegalMove,
    OpeningRolled,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    StepUndone,
    TurnEnded,
)
from gammon.core.game import Game, Phase, Rules
from gammon.core.moves import IllegalPlayError, Move, Play, legal_plays
from gammon.core.position import Position
from tests.core.helpers import opening, refused, run

# -- helpers ------------------------------------------------------------------------------


def rolled(position: Position, die1: int, die2: int, turn: int = 0, **rules: object) -> Game:
    """A game where ``turn`` has just rolled ``die1-die2`` in ``position``."""
    game = Game.from_position(position, turn, rules=Rules(**rules))  # type: ignore[arg-type]
    return run(game, RollDice(turn, Roll(die1, die2)))[0]


# A lone checker of player 0 on its ace point, about to bear off its last checker.
LAST_CHECKER = {1: 1}


def test_doctests_of_the_state_machines() -> None:
    for module in (gammon.core.game, gammon.core.match, gammon.core.cube, gammon.core.actions):
        failures, _ = doctest.testmod(module)
        assert failures == 0, module.__name__


# -- §2 starting a game -------------------------------------------------------------------


def test_higher_die_moves_first_and_plays_the_two_numbers_shown() -> None:
    game, events = Game.new().apply(opening(1, 5, 2))
    assert game.turn == 1
    assert game.phase is Phase.MOVING
    assert game.roll == Roll(5, 2)
    assert events == (OpeningRolled(1, ((2, 5),), Roll(5, 2)), DiceRolled(1, Roll(5, 2)))


def test_ties_roll_again() -> None:
    action = RollOpening(OpeningRoll(first=0, roll=Roll(4, 1), throws=((3, 3), (6, 6), (4, 1))))
    game, events = Game.new().apply(action)
    assert game.turn == 0
    assert events[0] == OpeningRolled(0, ((3, 3), (6, 6), (4, 1)), Roll(4, 1))
    # a decided throw is not thrown again, and a tie does not decide
    bad = RollOpening(OpeningRoll(first=0, roll=Roll(4, 1), throws=((5, 2), (4, 1))))
    assert "only ties" in refused(Game.new(), bad)
    tie = RollOpening(OpeningRoll(first=0, roll=Roll(3, 3), throws=((3, 3),)))
    refused(Game.new(), tie)


def test_opening_winner_plays_the_opening_dice_and_not_others() -> None:
    wrong_roll = RollOpening(OpeningRoll(first=0, roll=Roll(6, 6), throws=((4, 1),)))
    assert "plays the two opening dice 4-1" in refused(Game.new(), wrong_roll)
    wrong_winner = RollOpening(OpeningRoll(first=1, roll=Roll(4, 1), throws=((4, 1),)))
    assert "the higher die moves first" in refused(Game.new(), wrong_winner)


def test_winner_rolls_anew_option_plays_a_fresh_roll() -> None:
    game = Game.new(Rules(winner_rolls_anew=True))
    fresh = RollOpening(OpeningRoll(first=0, roll=Roll(6, 6), throws=((4, 1),)))
    game, events = game.apply(fresh)
    assert (game.turn, game.roll, game.dice_left) == (0, Roll(6, 6), (6, 6, 6, 6))
    assert events[-1] == DiceRolled(0, Roll(6, 6))


def test_opening_is_thrown_with_a_dice_source() -> None:
    game = Game.new()
    action = game.opening_action(random.Random(7))
    game, _ = game.apply(action)
    assert game.turn == action.opening.first and game.phase is Phase.MOVING
    anew = Game.new(Rules(winner_rolls_anew=True))
    assert len(anew.opening_action(random.Random(7)).opening.throws) >= 1


def test_the_opening_starts_the_game_once() -> None:
    game, _ = Game.new().apply(opening(0, 3, 1))
    assert "has started" in refused(game, opening(0, 3, 1), WrongPhaseError)
    assert "opening roll" in refused(Game.new(), RollDice(0, Roll(3, 1)), WrongPhaseError)


# -- §3 a turn ----------------------------------------------------------------------------


def test_the_board_is_kept_from_the_side_on_turn_and_given_from_either_view() -> None:
    position = Position.from_points({24: 2, 6: 13}, {20: 1, 6: 14})
    game = Game.from_position(position, 1)
    assert game.position == position
    assert game.board(1) == position
    assert game.board(0) == position.swap()


def test_each_die_is_a_separate_move_of_one_checker() -> None:
    game = rolled(Position.initial(), 6, 1)
    game, events = game.apply(MoveChecker(0, 13, 6))
    assert events == (CheckerMoved(0, Move(13, 7), 6),)
    assert game.dice_left == (1,)
    game, events = game.apply(MoveChecker(0, 8, 1))
    assert events[0] == CheckerMoved(0, Move(8, 7), 1)
    assert events[1] == TurnEnded(0, (Move(13, 7), Move(8, 7)))


def test_one_checker_may_use_both_dice() -> None:
    game = rolled(Position.initial(), 6, 5)
    game, events = run(game, MoveChecker(0, 24, 6), MoveChecker(0, 18, 5))
    assert TurnEnded(0, (Move(24, 18), Move(18, 13))) in events


def test_doubles_give_four_moves() -> None:
    game = rolled(Position.initial(), 3, 3)
    assert game.dice_left == (3, 3, 3, 3)
    game, events = run(game, *(MoveChecker(0, s, 3) for s in (24, 21, 8, 6)))
    assert events[-1] == TurnEnded(0, (Move(24, 21), Move(21, 18), Move(8, 5), Move(6, 3)))
    assert game.turn == 1


def test_moves_go_to_an_open_point_only() -> None:
    # player 1's 6-point is player 0's 19-point: 24/19 with a 5 is blocked.
    game = rolled(Position.initial(), 5, 2)
    message = refused(game, MoveChecker(0, 24, 5), IllegalMoveError)
    assert message == "player 0 cannot move point 24 by 5: point 19 is blocked"


def test_hitting_a_blot_sends_it_to_the_bar() -> None:
    position = Position.from_points({13: 15}, {14: 1, 6: 14})  # a blot on our 11-point
    game, events = run(rolled(position, 2, 1), MoveChecker(0, 13, 2))
    assert events[0] == CheckerMoved(0, Move(13, 11, hit=True), 2)
    assert game.position.on_bar() == (0, 1)


def test_checkers_on_the_bar_must_enter_first() -> None:
    position = Position.from_points({25: 1, 13: 14}, {6: 15})
    game = rolled(position, 6, 1)
    message = refused(game, MoveChecker(0, 13, 6), IllegalMoveError)
    assert message.endswith("checkers on the bar must enter first")
    game, _ = game.apply(MoveChecker(0, 25, 1))  # enters on 24, in the opponent's home
    assert game.position.on_bar() == (0, 0) and game.position.checkers(24) == 1


def test_if_no_die_enters_the_turn_is_lost() -> None:
    # player 1 has closed its home board: player 0's points 19..24
    position = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    game, events = Game.from_position(position).apply(RollDice(0, Roll(6, 1)))
    assert events == (
        DiceRolled(0, Roll(6, 1)),
        NoLegalMove(0, Roll(6, 1)),
        TurnEnded(0, ()),
    )
    assert game.turn == 1 and game.phase is Phase.BEFORE_ROLL


def test_with_no_legal_move_the_turn_passes_by_itself() -> None:
    # even when the player confirms turns by clicking the dice
    position = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    game = Game.from_position(position, rules=Rules(confirm_turn=(True, True)))
    game, events = game.apply(RollDice(0, Roll(5, 5)))
    assert isinstance(events[1], NoLegalMove) and game.turn == 1


def test_use_as_much_of_the_roll_as_possible_both_dice_if_any_play_uses_both() -> None:
    # 24/23 is open, but then no 6 can be played; 24/18 20/19 uses both dice.
    position = Position.from_points({24: 1, 20: 1, 1: 13}, {11: 2, 8: 2, 12: 11})
    game = rolled(position, 6, 1)
    assert [str(p) for p in game.plays] == ["24/18 20/19"]
    assert game.legal_steps() == {24: {6: Move(24, 18)}, 20: {1: Move(20, 19)}}


def test_step_play_refuses_to_end_a_turn_that_breaks_the_maximum_dice_rule() -> None:
    position = Position.from_points({24: 1, 20: 1, 1: 13}, {11: 2, 8: 2, 12: 11})
    game = rolled(position, 6, 1)
    message = refused(game, MoveChecker(0, 24, 1), IllegalPlayError)
    assert "as much of the roll as possible" in message
    assert "cannot play 24/23" in message


def test_doubles_play_as_many_as_possible() -> None:
    # 2-2 with the checker on 10: 10/8/6 then 6/4 is blocked, 10/8 leaves 8/6 and 6/4? no:
    # the opponent holds our 4-point, so at most two 2s can be played: 10/8/6.
    position = Position.from_points({10: 1, 1: 14}, {21: 2, 12: 13})
    game = rolled(position, 2, 2)
    assert [str(p) for p in game.plays] == ["10/6"]
    game, events = run(game, MoveChecker(0, 10, 2), MoveChecker(0, 8, 2))
    assert events[-1] == TurnEnded(0, (Move(10, 8), Move(8, 6)))


def test_higher_die_must_be_played_when_only_one_can() -> None:
    # one checker free on 24; 21 is blocked, so only one of 2 and 1 can be played: the 2.
    position = Position.from_points({24: 1, 1: 14}, {4: 2, 6: 13})
    game = rolled(position, 2, 1)
    assert [str(p) for p in game.plays] == ["24/22"]
    refused(game, MoveChecker(0, 24, 1), IllegalMoveError)
    game, events = game.apply(MoveChecker(0, 24, 2))
    assert events[-1] == TurnEnded(0, (Move(24, 22),))


def test_if_only_one_die_can_be_played_play_it() -> None:
    # the 6 is blocked everywhere; the 1 is played and the turn ends.
    position = Position.from_points({24: 1, 1: 14}, {7: 2, 8: 2, 6: 11})
    game = rolled(position, 6, 1)
    game, events = game.apply(MoveChecker(0, 24, 1))
    assert isinstance(events[-1], TurnEnded) and game.turn == 1


def test_turn_ends_as_soon_as_the_last_die_is_played() -> None:
    game = rolled(Position.initial(), 3, 1)
    game, events = game.apply(MoveChecker(0, 8, 3))
    assert game.phase is Phase.MOVING and game.turn == 0
    game, events = game.apply(MoveChecker(0, 6, 1))
    assert isinstance(events[-1], TurnEnded) and game.turn == 1 and game.phase is Phase.BEFORE_ROLL


def test_with_the_option_on_the_turn_ends_when_the_player_clicks_the_dice() -> None:
    game = rolled(Position.initial(), 3, 1, confirm_turn=(True, False))
    game, events = run(game, MoveChecker(0, 8, 3), MoveChecker(0, 6, 1))
    assert game.phase is Phase.MOVING and game.turn == 0 and game.is_play_complete()
    assert not any(isinstance(e, TurnEnded) for e in events)
    assert "play is complete" in refused(game, MoveChecker(0, 13, 1), IllegalMoveError)
    assert ConfirmPlay(0) in game.legal_actions()
    game, confirmed = game.apply(ConfirmPlay(0))
    assert confirmed == (TurnEnded(0, (Move(8, 5), Move(6, 5))),) and game.turn == 1


def test_the_game_refuses_to_end_a_turn_before_the_roll_is_played() -> None:
    game = rolled(Position.initial(), 3, 1, confirm_turn=(True, True))
    game, _ = game.apply(MoveChecker(0, 8, 3))
    message = refused(game, ConfirmPlay(0), IllegalMoveError)
    assert message == (
        "player 0 cannot end the turn: the play is not finished, 1 can still be played"
    )


def test_undo_within_the_turn_before_it_is_confirmed() -> None:
    start = rolled(Position.initial(), 3, 1, confirm_turn=(True, True))
    game, _ = run(start, MoveChecker(0, 8, 3), MoveChecker(0, 6, 1))
    game, events = game.apply(UndoStep(0))
    assert events == (StepUndone(0, Move(6, 5), 1),)
    assert game.dice_left == (1,)
    game, _ = game.apply(UndoStep(0))
    assert game == start
    assert "no step to undo" in refused(game, UndoStep(0), IllegalMoveError)


def test_a_whole_play_in_notation() -> None:
    game, events = rolled(Position.initial(), 6, 5).apply(PlayMove(0, "24/13"))
    assert events[:2] == (CheckerMoved(0, Move(24, 18), 6), CheckerMoved(0, Move(18, 13), 5))
    assert events[-1] == TurnEnded(0, (Move(24, 18), Move(18, 13)))
    assert game.turn == 1


def test_a_whole_play_must_be_legal() -> None:
    game = rolled(Position.initial(), 6, 5)
    assert "24/19" in refused(game, PlayMove(0, "24/18 24/19"), IllegalPlayError)
    assert "cannot play" in refused(game, PlayMove(0, "24/18 ** 1"), IllegalMoveError)
    foreign = legal_plays(Position.initial(), Roll(2, 1))[0]
    assert "not a legal play for 65" in refused(game, PlayMove(0, foreign), IllegalMoveError)
    stepped, _ = game.apply(MoveChecker(0, 24, 6))
    assert "undo them first" in refused(stepped, PlayMove(0, "13/8"), IllegalMoveError)


def test_two_plays_that_reach_the_same_position_are_the_same_play() -> None:
    game = rolled(Position.initial(), 6, 5)
    target = next(p for p in game.plays if str(p) == "24/13")
    reordered = Play((Move(24, 19), Move(19, 13)), target.position)
    after, _ = game.apply(PlayMove(0, reordered))
    assert after == game.apply(PlayMove(0, target))[0]


def test_whole_play_ends_the_turn_even_with_the_confirm_option() -> None:
    game = rolled(Position.initial(), 4, 2, confirm_turn=(True, True))
    game, events = game.apply(PlayMove(0, "8/4 6/4"))
    assert isinstance(events[-1], TurnEnded) and game.turn == 1


def test_bearing_off_needs_all_checkers_home_and_a_higher_checker_moves_first() -> None:
    outside = rolled(Position.from_points({7: 1, 3: 14}, {6: 15}), 3, 1)
    assert "home board" in refused(outside, MoveChecker(0, 3, 3), IllegalMoveError)
    higher = rolled(Position.from_points({5: 1, 3: 14}, {6: 15}), 4, 1)
    assert "higher point" in refused(higher, MoveChecker(0, 3, 4), IllegalMoveError)


def test_legal_steps_and_remaining_plays_follow_the_steps() -> None:
    game = rolled(Position.initial(), 6, 1)
    steps = game.legal_steps()
    assert {s: sorted(d) for s, d in steps.items()} == {
        24: [1, 6], 13: [6], 8: [1, 6], 6: [1]
    }
    assert steps[13][6] == Move(13, 7)
    game, _ = game.apply(MoveChecker(0, 13, 6))
    assert sorted(str(p) for p in game.remaining_plays()) == [
        "13/6", "13/7 6/5", "13/7 8/7", "24/23 13/7"
    ]


def test_the_dice_source_rolls_for_the_side_on_turn() -> None:
    game = Game.from_position(Position.initial(), 1)
    action = game.roll_action(random.Random(1))
    assert action.player == 1
    assert game.apply(action)[0].roll == action.roll


def test_only_the_side_on_turn_rolls_and_moves_and_only_once() -> None:
    game = Game.from_position(Position.initial(), 0)
    message = refused(game, RollDice(1, Roll(3, 1)), NotYourTurnError)
    assert message == "player 1 cannot roll: it is player 0's turn"
    moving = rolled(Position.initial(), 3, 1)
    assert "has rolled" in refused(moving, RollDice(0, Roll(3, 1)), WrongPhaseError)
    refused(moving, MoveChecker(1, 8, 3), NotYourTurnError)
    assert "has not rolled" in refused(game, MoveChecker(0, 8, 3), WrongPhaseError)
    assert "dice left are 3, 1" in refused(moving, MoveChecker(0, 8, 5), IllegalMoveError)
    assert "no checker" in refused(moving, MoveChecker(0, 9, 3), IllegalMoveError)


# -- §4 end of game and scoring -----------------------------------------------------------


def bear_off_last(opponent: dict[int, int], at: Cube | None = None, **rules: object) -> GameEnded:
    """Player 0 bears off its last checker against ``opponent``, the cube ``at``; the result."""
    game = Game.from_position(
        Position.from_points(LAST_CHECKER, opponent),
        rules=Rules(**rules),  # type: ignore[arg-type]
        cube=at,
    )
    game, events = run(game, RollDice(0, Roll(6, 5)), MoveChecker(0, 1, 6))
    assert game.phase is Phase.GAME_OVER and game.is_over and game.winner == 0
    assert isinstance(events[-1], GameEnded) and events[-1] == game.result
    assert events[-2] == TurnEnded(0, (Move(1, 0),))
    return events[-1]


def test_first_side_to_bear_off_all_15_wins_one_point_times_the_cube() -> None:
    assert bear_off_last({6: 14}) == GameEnded(0, 1, EndKind.SINGLE, Level.SINGLE, 1)
    assert bear_off_last({6: 14}, Cube(4, 1)).points == 4


def test_gammon_when_loser_has_borne_off_none() -> None:
    assert bear_off_last({6: 15}) == GameEnded(0, 2, EndKind.GAMMON, Level.GAMMON, 1)
    assert bear_off_last({6: 15}, Cube(2, 1)).points == 4


def test_no_gammon_when_the_loser_has_borne_off_a_checker() -> None:
    assert bear_off_last({5: 1, 6: 13}).kind is EndKind.SINGLE  # one is off


def test_backgammon_when_loser_still_has_a_checker_in_the_winners_home_board() -> None:
    result = bear_off_last({20: 1, 6: 14})  # their 20-point is our 5-point
    assert result == GameEnded(0, 3, EndKind.BACKGAMMON, Level.BACKGAMMON, 1)
    assert bear_off_last({23: 1, 6: 14}, Cube(8, 0)).points == 24


def test_backgammon_when_loser_still_has_a_checker_on_the_bar() -> None:
    assert bear_off_last({25: 1, 6: 14}).kind is EndKind.BACKGAMMON


def test_a_checker_just_outside_the_winners_home_board_is_only_a_gammon() -> None:
    assert bear_off_last({18: 1, 6: 14}).kind is EndKind.GAMMON  # their 18 is our 7-point


def test_a_single_game_without_cube_is_scored_the_same_way() -> None:
    assert bear_off_last({6: 14}, cube=False).points == 1
    assert bear_off_last({6: 15}, cube=False).points == 2
    assert bear_off_last({20: 1, 6: 14}, cube=False).points == 3


def test_the_game_is_over_after_it_ends() -> None:
    game = Game.from_position(Position.from_points(LAST_CHECKER, {6: 15}))
    game, _ = run(game, RollDice(0, Roll(2, 1)), MoveChecker(0, 1, 2))
    message = refused(game, RollDice(1, Roll(3, 1)), GameOverError)
    assert message == "the game is over: player 0 won 2 points"
    assert game.legal_actions() == ()


# -- §6 resigning -------------------------------------------------------------------------


def test_on_turn_a_side_may_resign_offering_single_gammon_or_backgammon() -> None:
    game = Game.from_position(Position.initial(), 0)
    offers = [a for a in game.legal_actions() if isinstance(a, OfferResign)]
    assert offers == [OfferResign(0, Level.SINGLE), OfferResign(0, Level.GAMMON),
                      OfferResign(0, Level.BACKGAMMON)]
    game, events = game.apply(OfferResign(0, Level.GAMMON))
    assert events == (ResignOffered(0, Level.GAMMON),)
    assert game.phase is Phase.RESIGN_OFFERED
    assert game.legal_actions() == (AcceptResign(1), RejectResign(1))


def test_a_side_may_resign_only_on_turn() -> None:
    game = Game.from_position(Position.initial(), 0)
    refused(game, OfferResign(1, Level.SINGLE), NotYourTurnError)
    offered, _ = game.apply(OfferResign(0, Level.SINGLE))
    refused(offered, AcceptResign(0), NotYourTurnError)
    refused(offered, RollDice(0, Roll(3, 1)), WrongPhaseError)
    refused(game, AcceptResign(1), WrongPhaseError)


def test_a_side_may_resign_after_rolling_too() -> None:
    game = rolled(Position.initial(), 3, 1)
    game, _ = game.apply(MoveChecker(0, 8, 3))
    game, _ = run(game, OfferResign(0, Level.SINGLE), RejectResign(1))
    assert game.phase is Phase.MOVING and game.dice_left == (1,)  # the steps are kept
    game, events = game.apply(MoveChecker(0, 6, 1))
    assert isinstance(events[-1], TurnEnded)


def test_accepted_resignation_ends_the_game_for_the_offer_times_the_cube() -> None:
    game = Game.from_position(Position.initial(), 0, cube=Cube(4, 0))
    game, events = run(game, OfferResign(0, Level.GAMMON), AcceptResign(1))
    assert events[-2:] == [
        ResignAccepted(1, Level.GAMMON), GameEnded(1, 8, EndKind.RESIGN, Level.GAMMON, 4)
    ]
    assert game.phase is Phase.GAME_OVER and game.winner == 1


def test_refused_resignation_play_goes_on() -> None:
    game = Game.from_position(Position.initial(), 0)
    game, events = run(game, OfferResign(0, Level.SINGLE), RejectResign(1))
    assert events[-1] == ResignRejected(1, Level.SINGLE)
    assert game.phase is Phase.BEFORE_ROLL and game.turn == 0
    assert game.apply(RollDice(0, Roll(3, 1)))[0].phase is Phase.MOVING


def test_after_a_refusal_only_a_higher_offer_may_be_made() -> None:
    game = Game.from_position(Position.initial(), 0)
    game, _ = run(game, OfferResign(0, Level.SINGLE), RejectResign(1))
    message = refused(game, OfferResign(0, Level.SINGLE), ResignationError)
    assert message == ("player 0 cannot offer single: a single offer was refused this turn, "
                       "only a higher offer may be made")
    assert not game.can_resign(0, Level.SINGLE) and game.can_resign(0, Level.GAMMON)
    game, _ = run(game, OfferResign(0, Level.GAMMON), RejectResign(1))
    refused(game, OfferResign(0, Level.GAMMON), ResignationError)
    assert [a for a in game.legal_actions() if isinstance(a, OfferResign)] == [
        OfferResign(0, Level.BACKGAMMON)
    ]


def test_backgammon_offer_is_accepted_automatically() -> None:
    game = Game.from_position(Position.initial(), 1, cube=Cube(2, 1))
    game, events = game.apply(OfferResign(1, Level.BACKGAMMON))
    assert events == (
        ResignOffered(1, Level.BACKGAMMON),
        ResignAccepted(0, Level.BACKGAMMON),
        GameEnded(0, 6, EndKind.RESIGN, Level.BACKGAMMON, 2),
    )
    assert game.phase is Phase.GAME_OVER


def test_offers_reset_after_each_turn() -> None:
    game = Game.from_position(Position.initial(), 0)
    game, _ = run(game, OfferResign(0, Level.GAMMON), RejectResign(1),
                  RollDice(0, Roll(3, 1)), PlayMove(0, "8/5 6/5"),
                  OfferResign(1, Level.SINGLE), RejectResign(0),
                  RollDice(1, Roll(3, 1)), PlayMove(1, "8/5 6/5"))
    assert game.turn == 0 and game.refused is None
    game, events = game.apply(OfferResign(0, Level.SINGLE))
    assert events == (ResignOffered(0, Level.SINGLE),)


def test_resigning_the_game_is_not_abandoning() -> None:
    # a resignation ends the game only; abandon and timeout are tested with matches
    game = Game.from_position(Position.initial(), 0)
    game, events = run(game, OfferResign(0, Level.SINGLE), AcceptResign(1))
    assert [e.kind for e in events if isinstance(e, GameEnded)] == [EndKind.RESIGN]


def test_abandon_or_timeout_lose_the_game_in_progress_at_the_cube_value() -> None:
    game = Game.from_position(Position.initial(), 0, cube=Cube(4, 1))
    game, events = game.apply(Abandon(0))
    assert events == (GameEnded(1, 4, EndKind.ABANDON, Level.SINGLE, 4),)
    # with a double pending, at the value before it
    offered, _ = Game.from_position(Position.initial(), 0, cube=Cube(2, 0)).apply(OfferDouble(0))
    timed, events = offered.apply(Timeout(1))
    assert events == (GameEnded(0, 2, EndKind.TIMEOUT, Level.SINGLE, 2),)
    assert timed.phase is Phase.GAME_OVER


# -- errors -------------------------------------------------------------------------------


def test_a_refused_action_changes_nothing_and_is_a_narrow_value_error() -> None:
    game = rolled(Position.initial(), 6, 1)
    for action in (
        RollDice(0, Roll(1, 1)),
        MoveChecker(0, 24, 5),
        MoveChecker(1, 24, 6),
        UndoStep(0),
        ConfirmPlay(0),
        OfferDouble(0),
        Take(1),
        AcceptResign(1),
        PlayMove(0, "nonsense"),
    ):
        message = refused(game, action, IllegalActionError)
        assert message.startswith("player ")
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(IllegalMoveError, IllegalPlayError)


def test_actions_name_a_player_and_a_resign_level() -> None:
    with pytest.raises(IllegalActionError, match="a player is 0 or 1"):
        RollDice(2, Roll(1, 2))
    with pytest.raises(IllegalActionError, match="source is a number from 1 to 25"):
        MoveChecker(0, 0, 3)
    with pytest.raises(IllegalActionError, match="die is a number from 1 to 6"):
        MoveChecker(0, 13, 7)
    with pytest.raises(IllegalActionError, match="single"):
        OfferResign(0, 4)  # type: ignore[arg-type]
    assert OfferResign(0, 2).level is Level.GAMMON  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Game.new().apply("roll")  # type: ignore[arg-type]


def test_from_position_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="borne off all"):
        Game.from_position(Position.from_points({}, {6: 15}))
    with pytest.raises(ValueError, match="player is 0 or 1"):
        Game.from_position(Position.initial(), 2)
    with pytest.raises(ValueError, match="without the cube"):
        Game.from_position(Position.initial(), cube=Cube(2, 0), rules=Rules(cube=False))


def test_reach_lists_every_point_a_checker_can_get_to_by_legal_steps() -> None:
    """RULES.md §9's highlighting comes from the core: every dice sequence in
    ``Game.reach()`` is accepted step by step and lands that checker on the point, and every
    single legal step is in it."""
    import random

    from gammon.core.actions import MoveChecker, RollDice
    from gammon.core.moves import legal_plays

    rng = random.Random(5)
    position = Position.initial()
    for _ in range(150):
        roll = Roll.roll(rng)
        game, _ = Game.from_position(position, 0).apply(RollDice(0, roll))
        reach = game.reach()
        for source, die_moves in game.legal_steps().items():
            for move in die_moves.values():
                assert move.destination in reach[source]
        for source, found in reach.items():
            for destination, dice in found.items():
                state, checker = game, source
                for die in dice:
                    state, events = state.apply(MoveChecker(0, checker, die))
                    checker = events[0].move.destination  # type: ignore[union-attr]
                assert checker == destination
        play = rng.choice(legal_plays(position, roll))
        finished = play.position.winner() is not None
        position = Position.initial() if finished else play.position.swap()
