"""What players (and the dice) do: small frozen values applied to a game or match state.

``player`` is the absolute side, ``0`` or ``1``. Randomness lives only in the two dice
actions, :class:`RollOpening` and :class:`RollDice`: whoever applies them (the server, a test)
supplies the dice, e.g. with :meth:`RollOpening.from_source` and :meth:`RollDice.from_source`.

>>> import random
>>> RollDice.from_source(0, random.Random(3))
RollDice(player=0, roll=Roll(2, 5))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from gammon.core.cube import Level
from gammon.core.dice import DiceSource, OpeningRoll, Roll, roll_opening
from gammon.core.errors import IllegalActionError
from gammon.core.moves import Play


def _check_player(player: object) -> None:
    if isinstance(player, bool) or player not in (0, 1):
        raise IllegalActionError(f"a player is 0 or 1, got {player!r}")


@dataclass(frozen=True, slots=True)
class _PlayerAction:
    player: int

    def __post_init__(self) -> None:
        _check_player(self.player)


@dataclass(frozen=True, slots=True)
class RollOpening:
    """The opening (RULES.md §2): each side's single die, ties thrown again, as
    :func:`~gammon.core.dice.roll_opening` returns them.

    It starts a game. Without the ``winner_rolls_anew`` option ``opening.roll`` is the two
    opening dice, played by the winner at once; with it, ``opening.roll`` is the winner's
    fresh roll of both dice, carried by this same action.
    """

    opening: OpeningRoll

    @classmethod
    def from_source(cls, source: DiceSource, *, winner_rolls_anew: bool = False) -> RollOpening:
        """Throw the opening with ``source``."""
        return cls(roll_opening(source, winner_rolls_anew=winner_rolls_anew))


@dataclass(frozen=True, slots=True)
class RollDice(_PlayerAction):
    """The side on roll rolls ``roll``."""

    roll: Roll

    @classmethod
    def from_source(cls, player: int, source: DiceSource) -> RollDice:
        """``player`` rolls two dice from ``source``."""
        return cls(player, Roll.roll(source))


@dataclass(frozen=True, slots=True)
class PlayMove(_PlayerAction):
    """A whole play at once, as a :class:`~gammon.core.moves.Play` or in notation
    (``'24/18 13/11*'``). It ends the turn, with or without the confirm option."""

    play: Play | str


@dataclass(frozen=True, slots=True)
class MoveChecker(_PlayerAction):
    """One step: the checker on ``source`` (25 = the bar) moves by ``die``."""

    source: int
    die: int

    def __post_init__(self) -> None:
        _check_player(self.player)
        for name, value, top in (("source", self.source, 25), ("die", self.die, 6)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise IllegalActionError(f"a step's {name} is a number from 1 to {top}, "
                                         f"got {value!r}")


@dataclass(frozen=True, slots=True)
class UndoStep(_PlayerAction):
    """Take back the last step of this turn."""


@dataclass(frozen=True, slots=True)
class ConfirmPlay(_PlayerAction):
    """End the turn once the steps are a legal play (the "click the dice" option)."""


@dataclass(frozen=True, slots=True)
class OfferDouble(_PlayerAction):
    """Offer the cube, before rolling."""


@dataclass(frozen=True, slots=True)
class Take(_PlayerAction):
    """Accept the double: the cube doubles and the taker owns it."""


@dataclass(frozen=True, slots=True)
class Drop(_PlayerAction):
    """Refuse the double: lose the game at the cube's value before the double."""


@dataclass(frozen=True, slots=True)
class Beaver(_PlayerAction):
    """Take and at once redouble, keeping the cube (money sessions with beavers on)."""


@dataclass(frozen=True, slots=True)
class OfferResign(_PlayerAction):
    """Resign the game, offering a single game, a gammon or a backgammon."""

    level: Level

    def __post_init__(self) -> None:
        _check_player(self.player)
        if not isinstance(self.level, Level):
            try:
                object.__setattr__(self, "level", Level(self.level))
            except ValueError:
                raise IllegalActionError(
                    "a resign offer is single (1), gammon (2) or backgammon (3), "
                    f"got {self.level!r}"
                ) from None


@dataclass(frozen=True, slots=True)
class AcceptResign(_PlayerAction):
    """Accept the opponent's resign offer: the game ends at the offered level."""


@dataclass(frozen=True, slots=True)
class RejectResign(_PlayerAction):
    """Refuse the opponent's resign offer: play goes on."""


@dataclass(frozen=True, slots=True)
class Abandon(_PlayerAction):
    """Leave the match: ``player`` loses the whole match (RULES.md §6)."""


@dataclass(frozen=True, slots=True)
class Timeout(_PlayerAction):
    """``player`` ran out of time: they lose the whole match (RULES.md §6, §7)."""


Action: TypeAlias = (
    RollOpening
    | RollDice
    | PlayMove
    | MoveChecker
    | UndoStep
    | ConfirmPlay
    | OfferDouble
    | Take
    | Drop
    | Beaver
    | OfferResign
    | AcceptResign
    | RejectResign
    | Abandon
    | Timeout
)
"""Every action a game or match accepts."""
