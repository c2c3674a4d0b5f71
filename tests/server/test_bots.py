"""The computer opponents: five named levels, each playing only legal plays, and none
playing for the side that is not on turn."""

from __future__ import annotations

import random

import pytest

from gammon.core import actions as A
from gammon.core.dice import Roll


def test_bot_levels_play_legal_plays() -> None:
    from gammon.core.actions import PlayMove
    from gammon.core.game import Game, Phase
    from gammon.core.match import Match, Rules
    from gammon.core.moves import legal_plays
    from gammon.core.position import Position
    from gammon.server import bots

    assert [bots.level_name(n) for n in bots.LEVELS] == [
        "beginner", "casual", "intermediate", "expert", "world-class"]
    assert bots.level_name("expert") == "expert"
    with pytest.raises(ValueError):
        bots.level_name(6)
    rng = random.Random(1)
    for roll in (Roll(6, 6), Roll(2, 1)):
        game = Game.from_position(Position.initial(), 0, rules=Rules(length=1))
        game, _ = game.apply(A.RollDice(0, roll))
        assert game.phase is Phase.MOVING
        match = Match(Rules(length=1), game)
        legal = {p.position for p in legal_plays(Position.initial(), roll)}
        for level in bots.LEVELS:
            action = bots.decide(match, 0, level, rng)
            assert isinstance(action, PlayMove) and action.play.position in legal
        assert bots.decide(match, 1, 3, rng) is None
