"""XGID, eXtreme Gammon's position ID: a board, cube, dice and score on one line.

An XGID is ``XGID=`` and ten fields separated by colons::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10
         position                   | | | |  | | | |  max cube (log2)
                                    | | | |  | | | match length (0: money)
                                    | | | |  | | Crawford (match) / Jacoby+beaver (money)
                                    | | | |  | score of the top player
                                    | | | |  score of the bottom player
                                    | | | dice
                                    | | turn: 1 bottom, -1 top
                                    | cube owner: 1 bottom, 0 centred, -1 top
                                    cube value (log2)

The format is eXtreme Gammon's (Xavier Dufaure de Citres, GameSite 2000). The meanings
below are how GNU Backgammon 1.07 reads it (``set xgid``), which the tests check against
gnubg itself; eXtreme Gammon writes the same:

* **position**: 26 characters, always from the bottom player's side whoever is on roll.
  Character 0 is the top player's bar, 1..24 the points numbered from the bottom player's
  view (it moves 24 -> 1), 25 the bottom player's bar. ``-`` is an empty point, ``A``..``O``
  1..15 of the bottom player's checkers, ``a``..``o`` the top player's.
* **dice**: two digits for a roll (``52``; kept in the order written), ``00`` not rolled
  yet, ``D`` a double offered and awaiting take or pass. ``B`` (the double was beavered)
  and ``R`` (raccooned) are listed in eXtreme Gammon's description of the format; gnubg
  refuses them, so they are read and written here but have no Match ID.
* **turn** names the player on roll, also while a double is on offer: with ``D`` it is the
  doubler, and the player to answer is the other one (gnubg: ``fTurn = !fMove``).
* **cube**: with a double on offer, the value before the double.
* **Crawford/Jacoby**: in a match, 1 for the Crawford game and 0 otherwise; in money play,
  bit 0 is the Jacoby rule and bit 1 beavers. Anything else is refused, as gnubg does.
* **max cube**: log2 of the largest cube allowed in money play (eXtreme Gammon writes 10);
  GNU Backgammon ignores it.

:class:`Xgid` keeps the board as a core :class:`~gammon.core.position.Position` seen from the
side on roll, and the rest with the bottom/top seats the format uses:

>>> x = Xgid.from_id('XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10')
>>> x.position == Position.initial(), x.on_roll, x.dice, x.jacoby, x.beaver, x.max_cube
(True, Seat.BOTTOM, (5, 2), True, True, 1024)
>>> x.id()
'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Final

from gammon.core.dice import Roll
from gammon.core.game import Phase, player_to_act
from gammon.core.position import BAR, OPPONENT_BAR, SLOTS, InvalidPositionError, Position
from gammon.formats.match_id import (
    GameState,
    MatchKey,
    _check_dice_and_score,
    _check_score_in_match,
)

__all__ = ["InvalidXgidError", "PendingDouble", "Seat", "Xgid"]

_PREFIX: Final = "XGID="
_FIELDS: Final = 10
_MAX_CUBE_LOG: Final = 15
_NUMBER: Final = re.compile(r"0|[1-9][0-9]*")


class InvalidXgidError(ValueError):
    """An XGID, or XGID fields, that do not describe a possible position."""


class Seat(IntEnum):
    """A player as an XGID names one: by where they sit, with the format's own numbers."""

    BOTTOM = 1
    TOP = -1

    @property
    def other(self) -> Seat:
        """The player in the other seat."""
        return Seat(-self)

    def __repr__(self) -> str:
        return f"Seat.{self.name}"


class PendingDouble(Enum):
    """A double in progress (doubled, beavered, raccooned), written in the dice field instead
    of dice."""

    NONE = ""
    DOUBLED = "D"
    """The player on roll has doubled; the opponent must take or pass."""
    BEAVERED = "B"
    """The double was beavered (eXtreme Gammon only)."""
    RACCOONED = "R"
    """The beaver was raccooned (eXtreme Gammon only)."""

    def __repr__(self) -> str:
        return f"PendingDouble.{self.name}"


@dataclass(frozen=True, slots=True)
class Xgid:
    """Everything an XGID holds.

    ``position`` is seen from the side on roll (``on_roll``), the way every core function
    takes it; the other fields name players by seat, as the format does.

    >>> x = Xgid(Position.initial(), on_roll=Seat.TOP, dice=(3, 1), match_length=7, score=(2, 0))
    >>> x.id()
    'XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:2:0:0:7:10'
    """

    position: Position
    on_roll: Seat = Seat.BOTTOM
    """The player who rolls, has rolled, or has doubled (the XGID's turn field)."""
    cube: int = 1
    """Cube value 1, 2, 4, ...; with a cube action in progress, the value before it."""
    cube_owner: Seat | None = None
    """None for a centred cube."""
    dice: tuple[int, int] | None = None
    """The dice in the order written, or None when not rolled (``00``) or for a cube action."""
    cube_action: PendingDouble = PendingDouble.NONE
    score: tuple[int, int] = (0, 0)
    """(bottom, top), as the format writes them."""
    match_length: int = 0
    """0 for money play."""
    crawford: bool = field(default=False, kw_only=True)
    """The Crawford game (match play only)."""
    jacoby: bool = field(default=False, kw_only=True)
    """The Jacoby rule (money play only)."""
    beaver: bool = field(default=False, kw_only=True)
    """Beavers allowed (money play only)."""
    max_cube: int = field(default=1 << 10, kw_only=True)
    """The largest cube allowed; eXtreme Gammon's default is 1024."""

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            raise InvalidXgidError(f"position must be a Position, got {self.position!r}")
        object.__setattr__(self, "on_roll", _seat("on_roll", self.on_roll))
        if self.cube_owner is not None:
            object.__setattr__(self, "cube_owner", _seat("cube_owner", self.cube_owner))
        if not isinstance(self.cube_action, PendingDouble):
            raise InvalidXgidError(f"cube_action must be a PendingDouble, got {self.cube_action!r}")
        for name in ("cube", "max_cube"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not 1 <= value <= 1 << _MAX_CUBE_LOG
                or value & (value - 1)
            ):
                raise InvalidXgidError(
                    f"{name} must be a power of two from 1 to {1 << _MAX_CUBE_LOG}, got {value!r}"
                )
        if self.cube > self.max_cube:
            raise InvalidXgidError(f"cube {self.cube} is above the max cube {self.max_cube}")
        if self.dice is not None and self.cube_action is not PendingDouble.NONE:
            raise InvalidXgidError("the dice field holds either dice or a cube action")
        _check_dice_and_score(self.dice, self.match_length, self.score, None, InvalidXgidError)
        for name in ("crawford", "jacoby", "beaver"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidXgidError(f"{name} must be a bool, got {getattr(self, name)!r}")
        _check_score_in_match(self.score, self.match_length, self.crawford, InvalidXgidError)
        if self.match_length and (self.jacoby or self.beaver):
            raise InvalidXgidError("the Jacoby and beaver rules are for money play only")

    # -- the ID ---------------------------------------------------------------------------

    @classmethod
    def from_id(cls, xgid: str) -> Xgid:
        """Decode an XGID, with or without its ``XGID=`` prefix.

        >>> Xgid.from_id('XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:2:4:0:9:10').cube_action
        PendingDouble.DOUBLED
        >>> try:
        ...     Xgid.from_id('XGID=-b----E')
        ... except InvalidXgidError as error:
        ...     print(error)
        XGID must have 10 fields separated by ':', got 1 (in 'XGID=-b----E')
        """
        if not isinstance(xgid, str):
            raise InvalidXgidError(f"XGID must be a string, not {type(xgid).__name__}")
        text = xgid.strip()
        try:
            return cls._decode(text.removeprefix(_PREFIX))
        except InvalidXgidError as error:
            raise InvalidXgidError(f"{error} (in {text!r})") from None

    @classmethod
    def _decode(cls, body: str) -> Xgid:
        fields = body.split(":")
        if len(fields) != _FIELDS:
            raise InvalidXgidError(
                f"XGID must have {_FIELDS} fields separated by ':', got {len(fields)}"
            )
        board_text, cube_log, owner, turn, dice_text, bottom, top, rules, length, max_log = fields
        bottom_view = _parse_board(board_text)
        on_roll = _turn_field(turn)
        dice: tuple[int, int] | None = None
        action = PendingDouble.NONE
        if dice_text in ("D", "B", "R"):
            action = PendingDouble(dice_text)
        elif dice_text != "00":
            if len(dice_text) != 2 or any(c not in "123456" for c in dice_text):
                raise InvalidXgidError(
                    f"dice must be two digits 1-6, 00, D, B or R, got {dice_text!r}"
                )
            dice = (int(dice_text[0]), int(dice_text[1]))
        match_length = _int_field("match length", length)
        flags = _int_field("Crawford/Jacoby", rules)
        if flags > (1 if match_length else 3):
            kind = "0 or 1 in a match" if match_length else "0 to 3 in money play"
            raise InvalidXgidError(f"the Crawford/Jacoby field must be {kind}, got {flags}")
        cube = _int_field("cube", cube_log)
        max_cube = _int_field("max cube", max_log)
        for name, log in (("cube", cube), ("max cube", max_cube)):
            if log > _MAX_CUBE_LOG:
                raise InvalidXgidError(f"{name} must be 0 to {_MAX_CUBE_LOG} (log2), got {log}")
        return cls(
            position=bottom_view if on_roll is Seat.BOTTOM else bottom_view.swap(),
            on_roll=on_roll,
            cube=1 << cube,
            cube_owner=_owner_field(owner),
            dice=dice,
            cube_action=action,
            score=(_int_field("bottom score", bottom), _int_field("top score", top)),
            match_length=match_length,
            crawford=bool(match_length and flags),
            jacoby=bool(not match_length and flags & 1),
            beaver=bool(not match_length and flags & 2),
            max_cube=1 << max_cube,
        )

    def id(self) -> str:
        """The XGID, with its ``XGID=`` prefix."""
        if self.match_length:
            flags = int(self.crawford)
        else:
            flags = int(self.jacoby) | int(self.beaver) << 1
        if self.cube_action is not PendingDouble.NONE:
            dice = self.cube_action.value
        elif self.dice is not None:
            dice = f"{self.dice[0]}{self.dice[1]}"
        else:
            dice = "00"
        fields = (
            self.board(),
            self.cube.bit_length() - 1,
            0 if self.cube_owner is None else int(self.cube_owner),
            int(self.on_roll),
            dice,
            self.score[0],
            self.score[1],
            flags,
            self.match_length,
            self.max_cube.bit_length() - 1,
        )
        return _PREFIX + ":".join(str(f) for f in fields)

    # -- views ----------------------------------------------------------------------------

    def board(self) -> str:
        """The 26-character position field (from the bottom player's side)."""
        view = self.position if self.on_roll is Seat.BOTTOM else self.position.swap()
        return "".join(_CHARS[count] for count in view.board)

    @property
    def roll(self) -> Roll | None:
        """The dice as a :class:`~gammon.core.dice.Roll`, or None."""
        return None if self.dice is None else Roll(*self.dice)

    def match_key(self) -> MatchKey:
        """The same state as a GNU Backgammon :class:`~gammon.formats.match_id.MatchKey`.

        This is the mapping GNU Backgammon's ``set xgid`` uses: the top player is player 0,
        the bottom player is player 1. The max cube and the beaver flag have no place in a
        Match ID; a beavered or raccooned cube has none either, and raises.

        >>> Xgid.from_id('XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:2:4:0:9:10').match_key().id()
        'QREgAUAAEAAE'
        """
        if self.cube_action in (PendingDouble.BEAVERED, PendingDouble.RACCOONED):
            raise InvalidXgidError(f"a Match ID cannot hold a {self.cube_action.name.lower()} cube")
        doubled = self.cube_action is PendingDouble.DOUBLED
        mover = _player(self.on_roll)
        deciding = player_to_act(Phase.CUBE_OFFERED if doubled else Phase.BEFORE_ROLL, mover)
        assert deciding is not None  # someone acts while a game is in play
        return MatchKey(
            cube=self.cube,
            cube_owner=None if self.cube_owner is None else _player(self.cube_owner),
            dice_owner=mover,
            crawford=self.crawford,
            game_state=GameState.PLAYING,
            turn=deciding,
            double_offered=doubled,
            dice=self.dice,
            match_length=self.match_length,
            score=(self.score[1], self.score[0]),
            jacoby=self.jacoby,
        )


# Index = signed count (negative counts index from the end): '-' for 0, 'A'.. for the bottom
# player's checkers, 'a'.. for the top player's. Built once at import.
_CHARS: Final = (
    ["-"]
    + [chr(ord("A") + n) for n in range(15)]
    + [chr(ord("a") + n) for n in reversed(range(15))]
)
_COUNTS: Final = {c: (n if n <= 15 else n - len(_CHARS)) for n, c in enumerate(_CHARS)}


def _parse_board(text: str) -> Position:
    if len(text) != SLOTS:
        raise InvalidXgidError(f"the position field must be {SLOTS} characters, got {len(text)}")
    board: list[int] = []
    for index, char in enumerate(text):
        if char not in _COUNTS:
            raise InvalidXgidError(
                f"position character {index} must be '-', A-O or a-o, got {char!r}"
            )
        board.append(_COUNTS[char])
    if board[BAR] < 0:
        raise InvalidXgidError("the top player has checkers on the bottom player's bar")
    if board[OPPONENT_BAR] > 0:
        raise InvalidXgidError("the bottom player has checkers on the top player's bar")
    try:
        return Position(board)
    except InvalidPositionError as error:
        raise InvalidXgidError(str(error)) from None


def _int_field(name: str, text: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise InvalidXgidError(f"{name} must be a whole number, got {text!r}")
    return int(text)


def _turn_field(text: str) -> Seat:
    if text not in ("1", "-1"):
        raise InvalidXgidError(f"turn must be 1 (bottom) or -1 (top), got {text!r}")
    return Seat(int(text))


def _owner_field(text: str) -> Seat | None:
    if text == "0":
        return None
    if text not in ("1", "-1"):
        raise InvalidXgidError(
            f"cube owner must be 1 (bottom), 0 (centred) or -1 (top), got {text!r}"
        )
    return Seat(int(text))


def _seat(name: str, value: object) -> Seat:
    if isinstance(value, bool) or value not in (1, -1):
        raise InvalidXgidError(f"{name} must be a Seat, got {value!r}")
    return Seat(value)


def _player(seat: Seat) -> int:
    """GNU Backgammon's player number for a seat: top is player 0, bottom is player 1."""
    return 1 if seat is Seat.BOTTOM else 0


