"""Computer opponents behind one small interface, :func:`choose_play`.

Until the neural engine is plugged in, every level plays a random legal play, except that
levels 2 and above pick pubeval's favourite (Tesauro's classic linear evaluator). The
server runs bots off the event loop (``asyncio.to_thread``).

>>> from gammon.core.dice import Roll
>>> from gammon.core.position import Position
>>> str(choose_play(Position.initial(), Roll(3, 1), 2))
'8/5 6/5'
"""

from __future__ import annotations

import random

import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import Play, legal_plays
from gammon.core.position import Position

LEVELS = (1, 2)
"""1: random legal plays; 2: pubeval."""


def rank_plays(position: Position, roll: Roll) -> list[tuple[Play, float]]:
    """Every legal play with pubeval's score, best first (the score only orders plays)."""
    from gammon.engine import pubeval
    from gammon.engine.features import is_race

    plays = legal_plays(position, roll)
    race = bool(is_race(np.array(position.board, dtype=np.int8)))
    scored = [(play, float(pubeval.score(np.array(play.position.board, dtype=np.int8), race)))
              for play in plays]
    scored.sort(key=lambda item: -item[1])
    return scored


def choose_play(position: Position, roll: Roll, level: int,
                rng: random.Random | None = None) -> Play:
    """The bot's play of ``roll`` in ``position`` (seen from the bot)."""
    if level >= 2:
        return rank_plays(position, roll)[0][0]
    plays = legal_plays(position, roll)
    return (rng or random.Random()).choice(plays)
