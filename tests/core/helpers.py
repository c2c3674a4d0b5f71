"""What the rules tests share: an opening with chosen dice, a run of actions, a refused
action that changes nothing, and positions met in random games (hypothesis strategies, also
used by the engine's property tests)."""

from __future__ import annotations

import copy
import random
from typing import TypeVar

import pytest
from hypothesis import strategies as st

from gammon.core.actions import Action, RollOpening
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.errors import IllegalActionError
from gammon.core.game import Game
from gammon.core.match import Match
from gammon.core.moves import legal_plays
from gammon.core.position import Position

State = TypeVar("State", Game, Match)


def opening(first: int, die1: int = 3, die2: int = 1) -> RollOpening:
    """The opening won by ``first`` with dice ``die1 > die2``, no ties (the deciding throw is
    written here, not taken from the dice module the opening tests check)."""
    throw = (die1, die2) if first == 0 else (die2, die1)
    return RollOpening(OpeningRoll(first=first, roll=Roll(die1, die2), throws=(throw,)))


def run(state: State, *actions: Action) -> tuple[State, list[object]]:
    """Apply ``actions`` in turn; return the last state and every event."""
    events: list[object] = []
    for action in actions:
        state, new = state.apply(action)
        events += new
    return state, events


def refused(state: State, action: Action, error: type[Exception] = IllegalActionError) -> str:
    """``action`` is refused with ``error`` and changes nothing; returns the message."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        state.apply(action)
    assert state == before
    return str(info.value)


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
