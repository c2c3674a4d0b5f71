"""Invariants of positions and legal plays over positions met in random games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.notation import parse_play
from gammon.core.position import BAR, CHECKERS, Position


def random_game_position(seed: int, turns: int) -> Position:
    """The position after ``turns`` random legal plays from the start (a game that ends
    early starts again)."""
    rng = random.Random(seed)
    position = Position.initial()
    for _ in range(turns):
        play = rng.choice(legal_plays(position, Roll.roll(rng)))
        position = play.position.swap()
        if play.position.winner() is not None:
            position = Position.initial()
    return position


positions = st.builds(random_game_position, st.integers(0, 2**32), st.integers(0, 120))
rolls = st.builds(Roll, st.integers(1, 6), st.integers(1, 6))


def on_board(position: Position) -> tuple[int, int]:
    mine = sum(c for c in position.board if c > 0)
    theirs = -sum(c for c in position.board if c < 0)
    return mine, theirs


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_fifteen_checkers_a_side_always(position: Position, roll: Roll) -> None:
    for play in legal_plays(position, roll):
        (mine, theirs), (off_mine, off_theirs) = on_board(play.position), play.position.borne_off()
        assert mine + off_mine == CHECKERS
        assert theirs + off_theirs == CHECKERS


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_the_pips_moved_equal_the_dice_played(position: Position, roll: Roll) -> None:
    """Each move travels its die exactly, except bearing off a checker from below the die;
    the mover's pip count falls by exactly the distance travelled."""
    dice = list(roll.moves())
    for play in legal_plays(position, roll):
        left = list(dice)
        travelled = 0
        for move in play.moves:
            distance = move.source - move.destination
            assert distance in left or (move.destination == 0 and distance < max(left))
            left.remove(distance if distance in left else max(left))
            travelled += distance
        assert position.pips()[0] - play.position.pips()[0] == travelled
        # a hit sends the blot to the bar: the opponent's pips grow by what it had travelled
        hits = [m for m in play.moves if m.hit]
        assert play.position.on_bar()[1] == position.on_bar()[1] + len(hits)


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_every_play_uses_the_same_number_of_dice(position: Position, roll: Roll) -> None:
    found = legal_plays(position, roll)
    assert len({len(p.moves) for p in found}) == 1
    assert len({p.position for p in found}) == len(found)


@settings(max_examples=300, deadline=None)
@given(positions)
def test_position_id_round_trips(position: Position) -> None:
    assert Position.from_id(position.id()) == position
    assert Position.from_id(position.swap().id()) == position.swap()
    assert position.swap().swap() == position
    assert eval(repr(position)) == position


@settings(max_examples=150, deadline=None)
@given(positions, rolls)
def test_notation_round_trips(position: Position, roll: Roll) -> None:
    for play in legal_plays(position, roll):
        assert parse_play(position, roll, play.notation()).position == play.position


@settings(max_examples=100, deadline=None)
@given(positions)
def test_swap_mirrors_the_board(position: Position) -> None:
    swapped = position.swap()
    assert swapped.pips() == position.pips()[::-1]
    assert swapped.borne_off() == position.borne_off()[::-1]
    assert swapped.on_bar() == position.on_bar()[::-1]
    for point in range(1, BAR):
        assert swapped.checkers(point) == position.opponent_checkers(BAR - point)
