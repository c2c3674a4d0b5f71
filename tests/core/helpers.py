"""What the rules tests of games and matches share: an opening with chosen dice, a run of
actions, and a refused action that changes nothing."""

from __future__ import annotations

import copy
from typing import TypeVar

import pytest

from gammon.core.actions import Action, RollOpening
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.errors import IllegalActionError
from gammon.core.game import Game
from gammon.core.match import Match

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
