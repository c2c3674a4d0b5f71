"""The GNU Backgammon Match ID: the cube, score, turn and dice of a match in 12 characters.

A Match ID is the base64 encoding of a 9-byte *match key*. The key is a string of bits
filled from the least significant bit of byte 0 upward (the same order as the Position ID),
each field stored least significant bit first. Layout, from the GNU Backgammon manual
("A technical description of the Match ID", section 11.7), with bits numbered from 0:

====== ======================================================================
bits   field
====== ======================================================================
0-3    log2 of the cube value (so 1 .. 32768)
4-5    cube owner: 0 or 1, or 3 for a centred cube
6      dice owner: the player on roll, or who did roll
7      Crawford game
8-10   game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a dropped cube
11     turn: the player to make the next decision (the opponent after a double or a
       resignation offer)
12     a double is being offered
13-14  resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17  first die, 0 if not rolled
18-20  second die, 0 if not rolled
21-35  match length, 0 for money play
36-50  score of player 0
51-65  score of player 1
66     **not in the manual**: GNU Backgammon 1.07 writes 1 here when the Jacoby rule is
       *off* (``matchid.c`` stores ``!fJacoby``), which it always is in match play; so
       the IDs it prints usually end in ``E``, and a 66-bit key as the manual describes
       it reads as Jacoby on
67-71  unused, always 0
====== ======================================================================

The manual's own example, a 9-point match at 2-4 where player 0 holds a 2-cube and player 1
has just rolled 5-2:

>>> key = MatchKey.from_id('QYkqASAAIAAA')
>>> key.cube, key.cube_owner, key.dice_owner, key.dice, key.match_length, key.score
(2, 0, 1, (5, 2), 9, (2, 4))
>>> key.id()
'QYkqASAAIAAA'

Players are GNU Backgammon's: player 0 is "O" (drawn on top), player 1 is "X" (bottom).
GNU Backgammon writes the higher die first; this codec keeps the dice in the order given,
so any ID it reads it writes back unchanged.

:meth:`MatchKey.from_id` refuses, with :class:`InvalidMatchIdError`, what no match state
can be: a die above 6 or a single die rolled, game states 5-7, cube owner bits ``10``, a
score that has already reached the match length, a Crawford game in money play, and bits
67-71 set. GNU Backgammon's own reader also refuses a die above 6, a score above the length
and a Crawford money game; it reads owner ``10`` as centred, ignores bits 67-71 and takes a
score equal to the length (it never writes one: it has no Match ID once a match is won).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Final, TypeVar

from gammon.core.dice import Roll
from gammon.core.game import Phase

if TYPE_CHECKING:
    from gammon.core.match import Match

__all__ = [
    "MAX_CUBE",
    "MAX_MATCH_LENGTH",
    "GameState",
    "InvalidMatchIdError",
    "MatchKey",
    "Resignation",
    "match_key",
]

_ID_LENGTH: Final = 12
_KEY_BYTES: Final = 9
_CENTRED: Final = 3
_USED_BITS: Final = 67  # the manual's 66 plus gnubg's Jacoby bit

MAX_CUBE: Final = 1 << 15
"""The largest cube a Match ID can hold (4 bits of log2)."""
MAX_MATCH_LENGTH: Final = (1 << 15) - 1
"""The largest match length or score a Match ID can hold (15 bits)."""

# (first bit, width) of each field, in key order.
_CUBE_LOG = (0, 4)
_CUBE_OWNER = (4, 2)
_DICE_OWNER = (6, 1)
_CRAWFORD = (7, 1)
_GAME_STATE = (8, 3)
_TURN = (11, 1)
_DOUBLED = (12, 1)
_RESIGNATION = (13, 2)
_DIE1 = (15, 3)
_DIE2 = (18, 3)
_MATCH_LENGTH = (21, 15)
_SCORE0 = (36, 15)
_SCORE1 = (51, 15)
_NO_JACOBY = (66, 1)


_E = TypeVar("_E", bound=IntEnum)


class InvalidMatchIdError(ValueError):
    """A Match ID, or match key fields, that do not describe a possible match state."""


class _ReprEnum(IntEnum):
    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class GameState(_ReprEnum):
    """Where the current game stands (bits 8-10)."""

    NONE = 0
    """No game started yet."""
    PLAYING = 1
    OVER = 2
    """Ended by bearing off the last checker."""
    RESIGNED = 3
    """Ended by an accepted resignation."""
    DROPPED = 4
    """Ended by a dropped (passed) cube."""


class Resignation(_ReprEnum):
    """A resignation on offer (bits 13-14): what the resigning player concedes."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True, slots=True)
class MatchKey:
    """Everything a GNU Backgammon Match ID holds, as named, typed fields.

    Players are numbered 0 and 1 as in GNU Backgammon. The defaults describe a money game
    in play with player 0 to roll, the cube centred at 1 and no Jacoby rule:

    >>> MatchKey().id()
    'MAEAAAAAAAAE'
    >>> MatchKey(match_length=7, score=(3, 5), dice=(6, 1)).score
    (3, 5)
    """

    cube: int = 1
    """Cube value: 1, 2, 4, ... up to 32768. With a double on offer, the value before it."""
    cube_owner: int | None = None
    """0 or 1, or None for a centred cube."""
    dice_owner: int = 0
    """The player on roll, or who has rolled."""
    crawford: bool = False
    """This game is the Crawford game (match play only)."""
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    """The player to make the next decision: the dice owner, or the opponent while a double
    or a resignation is on offer."""
    double_offered: bool = False
    resignation: Resignation = Resignation.NONE
    """The resignation on offer; the resigning player is the one *not* on turn."""
    dice: tuple[int, int] | None = None
    """The dice rolled, in the order written, or None when not rolled (``0 0`` in the key)."""
    match_length: int = 0
    """Points to win the match; 0 for money play."""
    score: tuple[int, int] = (0, 0)
    """(player 0, player 1)."""
    jacoby: bool = field(default=False, kw_only=True)
    """The Jacoby rule is in force (bit 66, GNU Backgammon's extension to the manual)."""

    def __post_init__(self) -> None:
        _check_int("cube", self.cube, 1, MAX_CUBE)
        if self.cube & (self.cube - 1):
            raise InvalidMatchIdError(f"cube must be a power of two, got {self.cube}")
        if self.cube_owner is not None:
            _check_player("cube_owner", self.cube_owner)
        _check_player("dice_owner", self.dice_owner)
        _check_player("turn", self.turn)
        for name in ("crawford", "double_offered", "jacoby"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidMatchIdError(f"{name} must be a bool, got {getattr(self, name)!r}")
        object.__setattr__(self, "game_state", _enum(GameState, "game_state", self.game_state))
        object.__setattr__(self, "resignation", _enum(Resignation, "resignation", self.resignation))
        _check_dice_and_score(self.dice, self.match_length, self.score, MAX_MATCH_LENGTH,
                              InvalidMatchIdError)
        _check_score_in_match(self.score, self.match_length, self.crawford, InvalidMatchIdError)

    # -- the ID ---------------------------------------------------------------------------

    @classmethod
    def from_id(cls, match_id: str) -> MatchKey:
        """Decode a 12-character Match ID.

        >>> MatchKey.from_id('cAlvATAAIAAA').dice
        (6, 3)
        >>> MatchKey.from_id('cAlv')
        Traceback (most recent call last):
        ...
        gammon.formats.match_id.InvalidMatchIdError: Match ID must be 12 characters, got 4: 'cAlv'
        """
        if not isinstance(match_id, str):
            raise InvalidMatchIdError(f"Match ID must be a string, not {type(match_id).__name__}")
        text = match_id.strip()
        if len(text) != _ID_LENGTH:
            raise InvalidMatchIdError(
                f"Match ID must be {_ID_LENGTH} characters, got {len(text)}: {text!r}"
            )
        try:
            key = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != _KEY_BYTES:  # a bad character, or '=' padding shortening the key
            raise InvalidMatchIdError(
                f"Match ID must be 12 characters of A-Z a-z 0-9 + /, got {text!r}"
            )
        bits = int.from_bytes(key, "little")

        def get(where: tuple[int, int]) -> int:
            first, width = where
            return (bits >> first) & ((1 << width) - 1)

        if bits >> _USED_BITS:
            raise InvalidMatchIdError(f"Match ID sets unused bits 67-71: {text!r}")
        owner = get(_CUBE_OWNER)
        if owner == 2:
            raise InvalidMatchIdError(f"cube owner bits must be 00, 01 or 11, got 10: {text!r}")
        state = get(_GAME_STATE)
        if state > max(GameState):
            raise InvalidMatchIdError(f"game state must be 0 to 4, got {state}: {text!r}")
        die1, die2 = get(_DIE1), get(_DIE2)
        if die1 > 6 or die2 > 6:
            raise InvalidMatchIdError(f"a die shows 1 to 6, got {die1} and {die2}: {text!r}")
        if (die1 == 0) != (die2 == 0):
            raise InvalidMatchIdError(f"only one die is rolled ({die1} and {die2}): {text!r}")
        try:
            return cls(
                cube=1 << get(_CUBE_LOG),
                cube_owner=None if owner == _CENTRED else owner,
                dice_owner=get(_DICE_OWNER),
                crawford=bool(get(_CRAWFORD)),
                game_state=GameState(state),
                turn=get(_TURN),
                double_offered=bool(get(_DOUBLED)),
                resignation=Resignation(get(_RESIGNATION)),
                dice=(die1, die2) if die1 else None,
                match_length=get(_MATCH_LENGTH),
                score=(get(_SCORE0), get(_SCORE1)),
                jacoby=not get(_NO_JACOBY),
            )
        except InvalidMatchIdError as error:
            raise InvalidMatchIdError(f"{error}: {text!r}") from None

    def id(self) -> str:
        """The 12-character Match ID."""
        fields = (
            (_CUBE_LOG, self.cube.bit_length() - 1),
            (_CUBE_OWNER, _CENTRED if self.cube_owner is None else self.cube_owner),
            (_DICE_OWNER, self.dice_owner),
            (_CRAWFORD, int(self.crawford)),
            (_GAME_STATE, int(self.game_state)),
            (_TURN, self.turn),
            (_DOUBLED, int(self.double_offered)),
            (_RESIGNATION, int(self.resignation)),
            (_DIE1, self.dice[0] if self.dice else 0),
            (_DIE2, self.dice[1] if self.dice else 0),
            (_MATCH_LENGTH, self.match_length),
            (_SCORE0, self.score[0]),
            (_SCORE1, self.score[1]),
            (_NO_JACOBY, int(not self.jacoby)),
        )
        bits = 0
        for (first, _width), value in fields:
            bits |= value << first
        return base64.b64encode(bits.to_bytes(_KEY_BYTES, "little")).decode("ascii")

    # -- views ----------------------------------------------------------------------------

    @property
    def cube_log(self) -> int:
        """log2 of the cube value, as the key stores it."""
        return self.cube.bit_length() - 1

    @property
    def roll(self) -> Roll | None:
        """The dice as a :class:`~gammon.core.dice.Roll`, or None when not rolled."""
        return None if self.dice is None else Roll(*self.dice)

    def is_money(self) -> bool:
        """Money play (no match length)."""
        return self.match_length == 0


def match_key(match: Match) -> MatchKey | None:
    """The key of the decision ``match`` waits for: the side to act's (its ``turn``) — a
    roll or a double before the roll, a checker play (dice rolled), the answer to a double
    or to a resignation on offer. None at the opening, once a game is over, and once the
    match is won (no one decides; a Match ID cannot hold a won match's score)."""
    game = match.game
    to_act = game.to_act
    if to_act is None or match.phase is Phase.MATCH_OVER:
        return None
    rules = match.rules
    offer = game.resign_offer if game.phase is Phase.RESIGN_OFFERED else None
    return MatchKey(cube=game.cube.value, cube_owner=game.cube.owner, dice_owner=game.turn,
                    crawford=game.crawford, turn=to_act,
                    double_offered=game.phase is Phase.CUBE_OFFERED,
                    resignation=Resignation.NONE if offer is None else Resignation(
                        int(offer.level)),
                    dice=None if game.roll is None else (game.roll.die1, game.roll.die2),
                    match_length=rules.length,
                    score=(0, 0) if rules.is_money else match.score,
                    jacoby=rules.jacoby)


def _check_int(name: str, value: object, low: int, high: int | None,
               error: type[ValueError] = InvalidMatchIdError) -> None:
    """``error`` unless ``value`` is an int (not a bool) from ``low`` to ``high`` (None: no
    limit)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        limit = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise error(f"{name} must be an int {limit}, got {value!r}")


def _check_dice_and_score(dice: object, match_length: object, score: object,
                          max_points: int | None, error: type[ValueError]) -> None:
    """What a Match ID and an XGID both require of a match state's numbers, or ``error``:
    ``dice`` a pair of dice or None, ``match_length`` (0: money) and each side's ``score``
    from 0 to ``max_points`` (None: no limit)."""
    if dice is not None:
        if not isinstance(dice, tuple) or len(dice) != 2:
            raise error(f"dice must be a pair or None, got {dice!r}")
        for die in dice:
            _check_int("a die", die, 1, 6, error)
    _check_int("match_length", match_length, 0, max_points, error)
    if not isinstance(score, tuple) or len(score) != 2:
        raise error(f"score must be a pair, got {score!r}")
    for points in score:
        _check_int("a score", points, 0, max_points, error)


def _check_score_in_match(score: tuple[int, int], match_length: int, crawford: bool,
                          error: type[ValueError]) -> None:
    """``error`` for a score that has already won the match, or a Crawford game in money
    play (``match_length`` 0)."""
    if match_length:
        if max(score) >= match_length:
            raise error(f"score {score[0]}-{score[1]} has already won a "
                        f"{match_length}-point match")
    elif crawford:
        raise error("a money game cannot be the Crawford game")


def _check_player(name: str, value: object) -> None:
    if isinstance(value, bool) or value not in (0, 1):
        raise InvalidMatchIdError(f"{name} must be player 0 or 1, got {value!r}")


def _enum(kind: type[_E], name: str, value: object) -> _E:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidMatchIdError(f"{name} must be a {kind.__name__}, got {value!r}")
    try:
        return kind(value)
    except ValueError:
        raise InvalidMatchIdError(f"{name} must be a {kind.__name__}, got {value!r}") from None
