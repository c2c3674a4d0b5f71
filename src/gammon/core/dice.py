"""Dice: rolls, parsing, and the opening roll (RULES.md §2).

Randomness always comes from outside: every function that rolls takes a :class:`DiceSource`
(anything with ``randint(a, b)``, such as :class:`random.Random` or the server's provably fair
source). There is no global random here.

>>> Roll.parse('3-1'), Roll.parse('66').moves()
(Roll(3, 1), (6, 6, 6, 6))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class InvalidDiceError(ValueError):
    """Dice that are not two numbers from 1 to 6."""


class DiceSource(Protocol):
    """Where dice come from: ``randint(1, 6)`` must return a fair die."""

    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True, slots=True)
class Roll:
    """The two dice of a roll, in the order they were rolled."""

    die1: int
    die2: int

    def __post_init__(self) -> None:
        for die in (self.die1, self.die2):
            if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
                raise InvalidDiceError(f"a die shows 1 to 6, got {die!r}")

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Parse ``'31'``, ``'3-1'``, ``'3 1'`` or ``'3,1'``."""
        if not isinstance(text, str):
            raise InvalidDiceError(f"dice must be text like '31' or '3-1', got {text!r}")
        digits = text.strip()
        for separator in "-, ":
            digits = digits.replace(separator, "")
        if len(digits) != 2 or not digits.isdigit():
            raise InvalidDiceError(f"dice must be two digits 1-6 like '31' or '3-1', got {text!r}")
        return cls(int(digits[0]), int(digits[1]))

    @classmethod
    def roll(cls, source: DiceSource) -> Roll:
        """Roll two dice from ``source``."""
        return cls(source.randint(1, 6), source.randint(1, 6))

    def is_double(self) -> bool:
        return self.die1 == self.die2

    def moves(self) -> tuple[int, ...]:
        """The dice to play: higher first, or four times the number for doubles."""
        if self.is_double():
            return (self.die1,) * 4
        return (max(self.die1, self.die2), min(self.die1, self.die2))

    def __str__(self) -> str:
        return f"{self.die1}{self.die2}"

    def __repr__(self) -> str:
        return f"Roll({self.die1}, {self.die2})"


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """The result of the opening: who moves first and the roll they play.

    ``throws`` lists every pair of single dice thrown, ties included (player 0's die first),
    so a client can show them.
    """

    first: int
    roll: Roll
    throws: tuple[tuple[int, int], ...]


def roll_opening(source: DiceSource, *, winner_rolls_anew: bool = False) -> OpeningRoll:
    """RULES.md §2: each side rolls one die, ties roll again, the higher die moves first.

    By default the winner plays the two numbers shown; with ``winner_rolls_anew`` (the
    French/Corsican option) the winner rolls both dice anew instead.
    """
    throws: list[tuple[int, int]] = []
    while True:
        mine, theirs = source.randint(1, 6), source.randint(1, 6)
        throws.append((mine, theirs))
        if mine != theirs:
            break
    first = first_to_move((mine, theirs))
    opening = Roll(mine, theirs) if first == 0 else Roll(theirs, mine)
    if winner_rolls_anew:
        opening = Roll.roll(source)
    return OpeningRoll(first=first, roll=opening, throws=tuple(throws))


def first_to_move(throw: tuple[int, int]) -> int:
    """Who moves first after the deciding opening throw (player 0's die first): the side
    with the higher die (RULES.md §2). A tie decides nothing: it is thrown again.

    >>> first_to_move((5, 2)), first_to_move((1, 6))
    (0, 1)
    """
    mine, theirs = throw
    if mine == theirs:
        raise InvalidDiceError(f"a tie at the opening is thrown again, it decides nothing: "
                               f"{mine}-{theirs}")
    return 0 if mine > theirs else 1


def deciding_throw(first: int, roll: Roll) -> tuple[int, int]:
    """The opening throw (player 0's die first) after which ``first`` moves first and plays
    ``roll``, the two numbers shown (without "winner rolls anew").

    >>> deciding_throw(0, Roll(3, 5)), deciding_throw(1, Roll(3, 5))
    ((5, 3), (3, 5))
    """
    if first not in (0, 1):
        raise ValueError(f"a player is 0 or 1, got {first!r}")
    if roll.is_double():
        raise InvalidDiceError(f"the opening roll cannot be a double: {roll}")
    high, low = max(roll.die1, roll.die2), min(roll.die1, roll.die2)
    return (high, low) if first == 0 else (low, high)
