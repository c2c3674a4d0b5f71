"""The doubling cube (RULES.md §5) and the stakes a game is won at (§4, §6).

>>> cube = Cube()
>>> cube.may_double(0), cube.may_double(1)
(True, True)
>>> cube = cube.taken_by(1)
>>> cube, cube.may_double(0), cube.may_double(1)
(Cube(value=2, owner=1), False, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

MAX_CUBE: Final = 64
"""The cube's highest value: no double beyond it."""


class Level(IntEnum):
    """What a game is won at, as a multiple of the cube: also the level of a resign offer."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube's value and owner: ``None`` while centred (either side may double)."""

    value: int = 1
    owner: int | None = None

    def __post_init__(self) -> None:
        if self.value not in _VALUES:
            raise ValueError(
                f"the cube shows a power of two from 1 to {MAX_CUBE}, got {self.value!r}"
            )
        if self.owner not in (None, 0, 1):
            raise ValueError(f"the cube's owner is player 0, 1 or None, got {self.owner!r}")
        if self.owner is None and self.value != 1:
            raise ValueError("a turned cube has an owner")

    @property
    def is_centred(self) -> bool:
        """Never turned in this game: either side may double."""
        return self.owner is None

    def may_double(self, player: int) -> bool:
        """Whether ``player`` holds the right to double (owner or centred) below the maximum."""
        return self.owner in (None, player) and self.value < MAX_CUBE

    def taken_by(self, player: int) -> Cube:
        """The cube after ``player`` takes a double: twice the value, owned by the taker."""
        return Cube(self.value * 2, player)

    def beavered_by(self, player: int) -> Cube:
        """The cube after ``player`` takes and at once redoubles, keeping it (a beaver)."""
        return Cube(self.value * 4, player)


_VALUES: Final = frozenset(2**k for k in range(7))
