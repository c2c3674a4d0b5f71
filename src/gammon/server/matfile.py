"""A minimal writer of Jellyfish / GNU Backgammon ``.mat`` match files.

>>> from gammon.core.actions import PlayMove, RollDice, RollOpening
>>> from gammon.core.dice import OpeningRoll, Roll
>>> from gammon.core.match import Match, Rules
>>> acts = [RollOpening(OpeningRoll(0, Roll(3, 1), ((3, 1),))), PlayMove(0, '8/5 6/5'),
...         RollDice(1, Roll(6, 4)), PlayMove(1, '24/14')]
>>> print(write_mat(Rules(length=3), acts, ('alice', 'bob')).splitlines()[4])
  1) 31: 8/5 6/5                  64: 24/14
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gammon.core.actions import Action
from gammon.core.events import (
    CubeDropped,
    CubeOffered,
    CubeTaken,
    DiceRolled,
    GameEnded,
    GameStarted,
    MatchEnded,
    TurnEnded,
)
from gammon.core.match import Match, Rules
from gammon.core.notation import format_play

_COLUMN = 34


def write_mat(rules: Rules, actions: Iterable[Action], names: Sequence[str]) -> str:
    """The ``.mat`` text of a match replayed from its actions (player 0 on the left)."""
    match = Match.new(rules)
    out = [f" {rules.length} point match", ""]
    entries: list[tuple[int, str]] = []
    score = (0, 0)
    rolled: dict[int, str] = {}

    def flush_game() -> None:
        number = 1
        left: str | None = None
        right: str | None = None
        for player, text in entries:
            if (player == 0 and (left is not None or right is not None)) or \
                    (player == 1 and right is not None):
                out.append(f"{number:3d}) {left or '':<{_COLUMN - 5}}{right or ''}".rstrip())
                number += 1
                left = right = None
            if player == 0:
                left = text
            else:
                right = text
        if left is not None or right is not None:
            out.append(f"{number:3d}) {left or '':<{_COLUMN - 5}}{right or ''}".rstrip())
        entries.clear()

    for action in actions:
        match, events = match.apply(action)
        for event in events:
            if isinstance(event, GameStarted):
                out += [f" Game {event.number}",
                        f" {names[0]} : {score[0]:<{_COLUMN - 5 - len(names[0])}}"
                        f"{names[1]} : {score[1]}"]
            elif isinstance(event, DiceRolled):
                rolled[event.player] = f"{event.roll.die1}{event.roll.die2}"
            elif isinstance(event, TurnEnded):
                text = f"{rolled.pop(event.player, '')}: {format_play(event.moves)}".rstrip()
                entries.append((event.player, text))
            elif isinstance(event, CubeOffered):
                entries.append((event.player, f" Doubles => {event.value}"))
            elif isinstance(event, CubeTaken):
                entries.append((event.player, " Takes"))
            elif isinstance(event, CubeDropped):
                entries.append((event.player, " Drops"))
            elif isinstance(event, GameEnded):
                flush_game()
                plural = "s" if event.points != 1 else ""
                pad = " " * (4 + 1 + (_COLUMN - 5 if event.winner == 1 else 0))
                out += [f"{pad}Wins {event.points} point{plural}", ""]
                score = match.score
            elif isinstance(event, MatchEnded):
                out.append(f" Match won by {names[event.winner]} ({event.reason.value})")
    if entries:
        flush_game()
    return "\n".join(out) + "\n"
