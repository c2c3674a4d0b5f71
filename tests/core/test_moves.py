"""Legal plays, rule by rule (RULES.md §3), on hand-built positions with hand-derived answers.

Positions are built with ``Position.from_points(mine, theirs)``, each side's points numbered
from its own view (the opponent's point p is the side on roll's point 25 - p).
"""

from __future__ import annotations

import pickle
import random
from dataclasses import FrozenInstanceError

import pytest

from gammon.core.dice import InvalidDiceError, Roll
from gammon.core.moves import Move, Play, legal_plays, plays_with
from gammon.core.position import Position


def plays(position: Position, die1: int, die2: int) -> set[str]:
    return {str(p) for p in legal_plays(position, Roll(die1, die2))}


def finals(position: Position, die1: int, die2: int) -> set[Position]:
    return {p.position for p in legal_plays(position, Roll(die1, die2))}


def test_published_counts_from_the_starting_position() -> None:
    start = Position.initial()
    assert len(legal_plays(start, Roll(3, 1))) == 16
    assert len(legal_plays(start, Roll(4, 4))) == 52


def test_a_checker_may_not_land_on_a_point_held_by_two_opposing_checkers() -> None:
    # My checker on 10; they hold my 7 (their 18) and my 9 (their 16).
    position = Position.from_points({10: 1, 1: 14}, {18: 2, 16: 2, 1: 11})
    found = legal_plays(position, Roll(3, 1))
    # 10/7 and 10/9 are blocked; the 1 and 3 cannot be played at all by that checker,
    # and the checkers on the 1-point cannot bear off (a checker is still outside).
    assert len(found) == 1 and found[0].moves == ()


def test_landing_on_a_blot_hits_it_to_the_bar() -> None:
    # Their blot on my 10 (their 15).
    position = Position.from_points({13: 1, 6: 14}, {15: 1, 6: 14})
    hitting = [p for p in legal_plays(position, Roll(3, 2)) if Move(13, 10, True) in p.moves]
    assert hitting, "13/10* must be legal"
    for play in hitting:
        assert play.position.on_bar() == (0, 1)
    assert {str(p) for p in hitting} == {"13/10* 6/4", "13/10*/8"}


def test_one_checker_uses_both_dice_only_through_an_open_intermediate_point() -> None:
    # A lone runner on 24 with 6-5; they hold my 18 but not my 19: 24/19/13 only.
    open_path = Position.from_points({24: 1, 1: 14}, {7: 2, 2: 13})
    assert plays(open_path, 6, 5) == {"24/13"}
    # Holding both 18 and 19 leaves no way to move the runner at all.
    closed = Position.from_points({24: 1, 1: 14}, {7: 2, 6: 2, 2: 11})
    assert [p.moves for p in legal_plays(closed, Roll(6, 5))] == [()]


def test_doubles_give_four_moves() -> None:
    for play in legal_plays(Position.initial(), Roll(3, 3)):
        assert len(play.moves) == 4
        assert all(m.source - m.destination == 3 for m in play.moves)


def test_doubles_partial_play_when_only_some_moves_are_possible() -> None:
    # Two runners on 24 with 6-6: 24/18(2), then 18/12 is blocked (their 13-point); the
    # checkers on the 1-point cannot bear off. The other two sixes are lost.
    position = Position.from_points({24: 2, 1: 13}, {13: 2, 8: 13})
    assert plays(position, 6, 6) == {"24/18(2)"}


def test_both_dice_must_be_used_if_any_legal_play_uses_both() -> None:
    # My last checker outside on 8 with 6-2: 8/2 then 2/off, or 8/6 then 6/off — both use
    # the two dice and reach the same position (all off): one play.
    position = Position.from_points({8: 1}, {6: 15})
    found = legal_plays(position, Roll(6, 2))
    assert len(found) == 1
    assert found[0].position.borne_off()[0] == 15


def test_if_either_die_can_be_played_but_not_both_the_higher_must_be_played() -> None:
    # Runner on 24 with 6-5: 24/18 or 24/19, but their 13-point blocks 24/13.
    position = Position.from_points({24: 1, 1: 14}, {12: 2, 2: 13})
    assert plays(position, 6, 5) == {"24/18"}


def test_if_only_one_die_can_be_played_it_is_played() -> None:
    # They also hold my 18 (their 7): only the 5 moves, and the 6 cannot follow it.
    position = Position.from_points({24: 1, 1: 14}, {12: 2, 7: 2, 2: 11})
    assert plays(position, 6, 5) == {"24/19"}


def test_with_no_legal_move_the_turn_passes() -> None:
    # On the bar against a closed board: no die enters.
    position = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    for die1 in range(1, 7):
        for die2 in range(1, 7):
            found = legal_plays(position, Roll(die1, die2))
            assert len(found) == 1 and found[0].moves == ()
            assert found[0].position == position


def test_checkers_on_the_bar_must_enter_before_anything_else_moves() -> None:
    position = Position.from_points({25: 1, 13: 14}, {6: 15})
    for play in legal_plays(position, Roll(5, 2)):
        assert play.moves[0].source == 25
        assert sum(1 for m in play.moves if m.source == 25) == 1
    # Entering with the 5 lands on my 20 (their 5-point), with the 2 on my 23.
    assert {m.destination for p in legal_plays(position, Roll(5, 2)) for m in p.moves
            if m.source == 25} == {20, 23}


def test_if_some_but_not_all_checkers_enter_the_rest_of_the_roll_is_lost() -> None:
    # Two on the bar; only their 6-point is open. 6-1: one enters with the 6, the 1 is lost.
    position = Position.from_points({25: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 24: 5})
    assert plays(position, 6, 1) == {"bar/19"}


def test_once_all_checkers_have_entered_the_rest_of_the_roll_is_played_normally() -> None:
    position = Position.from_points({25: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 24: 5})
    assert plays(position, 6, 6) == {"bar/13(2)", "bar/19 bar/7"}


def test_bearing_off_only_when_all_fifteen_are_home() -> None:
    # A checker hit during the bear-off: bar/19/14 is the only play; 5/off is not allowed.
    position = Position.from_points({25: 1, 5: 2}, {6: 15})
    assert plays(position, 6, 5) == {"bar/14"}


def test_bear_off_with_the_exact_die_or_move_inside_bearing_off_is_not_compulsory() -> None:
    position = Position.from_points({6: 2, 3: 1}, {6: 15})
    assert plays(position, 6, 3) == {"6/off 3/off", "6/3 6/off"}


def test_a_higher_die_bears_off_from_the_highest_point_when_none_is_higher() -> None:
    position = Position.from_points({3: 1, 2: 1}, {6: 15})
    found = legal_plays(position, Roll(6, 5))
    assert len(found) == 1 and found[0].position.borne_off()[0] == 15


def test_if_the_dice_point_is_empty_a_checker_on_a_higher_point_must_move() -> None:
    # 4-1 with checkers on 6 and 2: the 4 cannot bear off from 2 while the 6-point is held.
    position = Position.from_points({6: 1, 2: 1}, {6: 15})
    found = legal_plays(position, Roll(4, 1))
    assert {p.position for p in found} == {Position.from_points({2: 1, 1: 1}, {6: 15})}
    assert all(m.destination != 0 for p in found for m in p.moves)


def test_the_last_checker_home_then_bears_off_with_the_other_die() -> None:
    # 8/2 then 2/off (the 5 bears off from the highest point, 2) equals 8/3/off.
    position = Position.from_points({8: 1, 2: 14}, {6: 15})
    assert finals(position, 6, 5) == {Position.from_points({2: 14}, {6: 15})}


def test_two_plays_reaching_the_same_position_are_one_play() -> None:
    found = legal_plays(Position.initial(), Roll(2, 1))
    assert len({p.position for p in found}) == len(found)
    # 13/11 6/5 and 6/5 13/11 are listed once.
    assert sum(1 for p in found if str(p) == "13/11 6/5") == 1


def test_steps_with_dice_left_midturn() -> None:
    # After 8/5 with a 3-1 only the 1 is left: every play is one move of 1 pip.
    after = Position.from_points({24: 2, 13: 5, 8: 2, 6: 5, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    for play in plays_with(after, (1,)):
        assert [m.source - m.destination for m in play.moves] == [1]


@pytest.mark.parametrize("dice", [(), (7,), (0, 1), (1, 2, 3), (2, 2, 2, 2, 2), (1, 1, 2)])
def test_malformed_dice_are_rejected(dice: tuple[int, ...]) -> None:
    with pytest.raises(InvalidDiceError):
        plays_with(Position.initial(), dice)


def test_a_non_position_is_rejected() -> None:
    with pytest.raises(TypeError):
        plays_with("4HPwATDgc/ABMA", (3, 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        legal_plays(Position.initial(), (3, 1))  # type: ignore[arg-type]


# -- plays as values (a play reads its moves and position from the generator when asked) ----


def _random_pairs(count: int, seed: int) -> list[tuple[Position, Roll]]:
    """(position, roll) pairs met in random games from the opening."""
    rng = random.Random(seed)
    pairs, position = [], Position.initial()
    while len(pairs) < count:
        roll = Roll.roll(rng)
        pairs.append((position, roll))
        play = rng.choice(legal_plays(position, roll))
        position = Position.initial() if play.position.winner() is not None \
            else play.position.swap()
    return pairs


def test_a_play_reads_the_same_values_in_any_order_it_is_read() -> None:
    # The first play read converts its own row, later ones convert all rows at once: the
    # values must not depend on which play is read first, nor on reading moves or position.
    for position, roll in _random_pairs(300, seed=11):
        forward = [(p.moves, p.position) for p in legal_plays(position, roll)]
        backward = [(p.position, p.moves) for p in reversed(legal_plays(position, roll))]
        assert forward == [(moves, board) for board, moves in reversed(backward)]
        for moves, after in forward:
            assert all(isinstance(m, Move) and type(m.hit) is bool for m in moves)
            assert after == Position.from_board(after.board)  # a valid position


def test_a_play_equals_hashes_and_pickles_as_one_built_from_its_values() -> None:
    for position, roll in _random_pairs(100, seed=12):
        for play in legal_plays(position, roll):
            built = Play(play.moves, play.position)
            assert play == built and hash(play) == hash(built)
            assert pickle.loads(pickle.dumps(play)) == play
            assert repr(play) == repr(built)
        fresh = legal_plays(position, roll)
        assert hash(fresh[0]) == hash(legal_plays(position, roll)[0])  # hashed before read


def test_a_play_is_immutable() -> None:
    play = legal_plays(Position.initial(), Roll(3, 1))[0]
    with pytest.raises(FrozenInstanceError):
        play.moves = ()  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        play.position = Position.initial()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        play.other = 1  # type: ignore[attr-defined]
