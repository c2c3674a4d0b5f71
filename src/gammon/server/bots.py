"""The computer opponents: the neural engine's :class:`~gammon.engine.matchbot.MatchBot`
at five strengths, behind :func:`decide`.

A bot level is an integer in the API, 1 to 5, for the engine's named strengths
(:data:`gammon.engine.player.LEVELS`, weakest first): 1 beginner, 2 casual, 3 intermediate,
4 expert, 5 world-class. Every decision of the bot goes through the bot: doubling and
resigning before the roll (None means: roll), taking, dropping or beavering a double,
accepting or refusing a resignation, and the checker play. One :class:`Engine` serves the
process (``Engine.load()`` is cached; it is thread-safe, with per-thread buffers); the server
calls :func:`decide` off the event loop (``asyncio.to_thread``).

>>> from gammon.core.match import Match, Rules
>>> level_name(5)
'world-class'
>>> decide(Match.new(Rules(length=1)), 0, 4) is None  # the opening roll is not the bot's
True
"""

from __future__ import annotations

import random

from gammon.core.actions import Action
from gammon.core.match import Match
from gammon.engine.matchbot import MatchBot
from gammon.engine.player import LEVELS as ENGINE_LEVELS
from gammon.engine.player import Engine

LEVEL_NAMES: tuple[str, ...] = tuple(ENGINE_LEVELS)
"""The engine's strengths, weakest first: level ``n`` is ``LEVEL_NAMES[n - 1]``."""

LEVELS: tuple[int, ...] = tuple(range(1, len(LEVEL_NAMES) + 1))
"""The API's bot levels, 1 (beginner) to 5 (world-class)."""


def engine() -> Engine:
    """The process's one engine (the shipped networks, loaded once)."""
    return Engine.load()


def level_name(level: int | str) -> str:
    """The engine's name of a bot level (an API integer or a name)."""
    if isinstance(level, str):
        if level not in ENGINE_LEVELS:
            raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVEL_NAMES)}")
        return level
    if level not in LEVELS:
        raise ValueError(f"bot levels are 1 to {len(LEVELS)}, got {level}")
    return LEVEL_NAMES[level - 1]


def decide(match: Match, player: int, level: int | str,
           rng: random.Random | None = None) -> Action | None:
    """What the bot in seat ``player`` does now in ``match``: an action, or None when it is
    not the bot's to act or the bot's next action is to roll."""
    name = level_name(level)
    bot = MatchBot(engine(), name, cube=True, plies=ENGINE_LEVELS[name].plies,
                   rng=rng or random.Random())
    return bot.decide(match, player)
