"""The FIBS ``board:`` line: the board state FIBS sends its clients, and GNU Backgammon
sends an external player (``set player N external HOST:PORT``).

A line is ``board:`` and 52 fields separated by colons::

    board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0

in order: the player's name and the opponent's; the match length (``9999`` an unlimited
match, GNU Backgammon writes ``0`` for money play); the player's score and the opponent's;
26 board counts; whose turn (the colour of the side on roll, ``0`` when the game is over);
the player's two dice and the opponent's (``0`` not rolled); the cube; whether the player
and the opponent may double; was-doubled; the player's colour (``1`` X, ``-1`` O) and
direction (``-1`` moves 24 -> 1, ``1`` moves 1 -> 24); the home and bar indices; checkers
borne off and on the bar of each side; can-move (how many checkers the roll moves);
forced-move; did-Crawford; redoubles.

**The board.** Counts whose sign is the player's colour are the player's checkers, the other
sign the opponent's. The player's bar is at index ``bar``, the opponent's at index ``home``
(``0``/``25`` for direction ``-1``, ``25``/``0`` for direction ``1``). With direction ``-1``
index ``i`` is the player's own point ``i``; with direction ``1`` it is point ``25 - i``.

**GNU Backgammon's dialect** (1.07, ``FIBSBoard`` and ``play.c``, checked against the
installed gnubg by the tests): it always writes colour 1, direction -1, home 0, bar 25, with
the board from its player 1's side (``X``). The turn field names the side on roll (the
doubler while a double is pending) and was-doubled is 1 while a double awaits an answer.
The names and scores are those of player 0 (``O``) first unless a double is pending, in which
case player 1's come first (its source passes ``ms.anScore[fTurn ^ fMove]`` first); both dice
fields hold the roll. Did-Crawford is 1 after the Crawford game, as on FIBS, and the last
field (redoubles) is 0 in the Crawford game and 1 otherwise. :meth:`FibsBoard.state` reads
a line with either meaning of the names and scores (:class:`Dialect`).

>>> line = ('board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:'
...         '1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0')
>>> board = FibsBoard.parse(line)
>>> board.player, board.match_length, board.player_dice, board.player_on_roll
('You', 3, (6, 2), True)
>>> state = board.state(Dialect.FIBS)
>>> state.position == Position.initial(), state.roll, state.match_length
(True, Roll(6, 2), 3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Final

from gammon.core.dice import Roll
from gammon.core.position import BAR, CHECKERS, OPPONENT_BAR, SLOTS, InvalidPositionError, Position

__all__ = ["Dialect", "FibsBoard", "FibsState", "InvalidFibsBoardError"]

PREFIX: Final = "board:"
FIELDS: Final = 52
"""Fields after ``board:``."""
UNLIMITED: Final = 9999
"""The match length FIBS writes for an unlimited match."""
MAX_LINE: Final = 2000
_MAX_CUBE: Final = 1 << 15
_NUMBER: Final = re.compile(r"-?[0-9]{1,7}")


class InvalidFibsBoardError(ValueError):
    """A line that is not a well-formed FIBS board state."""


class Dialect(Enum):
    """Who wrote the line: which side the first name and score belong to differs."""

    FIBS = "fibs"
    """FIBS itself: the first name and score are the player's (the colour side)."""
    GNUBG = "gnubg"
    """GNU Backgammon's external-player protocol (see the module doc)."""


@dataclass(frozen=True, slots=True)
class FibsState:
    """A board line in gammon's terms, seen from the side on roll (the doubler while a double
    is pending)."""

    position: Position
    roll: Roll | None
    """The dice of the side on roll, None before it rolls."""
    cube: int
    cube_owner: bool | None
    """True: the side on roll owns the cube; False: its opponent; None: centred."""
    doubled: bool
    """A double by the side on roll awaits its opponent's answer."""
    score: tuple[int, int]
    """(side on roll, opponent)."""
    match_length: int
    """0 for money play (and FIBS's unlimited matches)."""
    crawford: bool
    post_crawford: bool
    player_on_roll: bool
    """The line's player (its colour) is the side on roll."""

    @property
    def is_money(self) -> bool:
        return self.match_length == 0


@dataclass(frozen=True, slots=True)
class FibsBoard:
    """Every field of a FIBS ``board:`` line, as written (see the module doc)."""

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    board: tuple[int, ...]
    """The 26 counts, indexed as the line writes them."""
    turn: int
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: bool
    opponent_may_double: bool
    was_doubled: int
    colour: int
    direction: int
    home: int
    bar: int
    player_home: int
    opponent_home: int
    player_bar: int
    opponent_bar: int
    can_move: int
    forced_move: bool
    did_crawford: bool
    redoubles: int

    # -- parsing --------------------------------------------------------------------------

    @classmethod
    def parse(cls, line: str) -> FibsBoard:
        """Read one line (a trailing newline, carriage return or NUL is ignored).

        >>> try:
        ...     FibsBoard.parse('board:a:b:1')
        ... except InvalidFibsBoardError as error:
        ...     print(error)
        a board line has 52 fields after 'board:', got 3
        """
        if not isinstance(line, str):
            raise InvalidFibsBoardError(f"a board line is text, not {type(line).__name__}")
        if len(line) > MAX_LINE:
            raise InvalidFibsBoardError(f"a board line is at most {MAX_LINE} characters, "
                                        f"got {len(line)}")
        text = line.strip("\r\n\x00 ")
        if not text.startswith(PREFIX):
            raise InvalidFibsBoardError(f"a board line starts with {PREFIX!r}, got {text[:20]!r}")
        fields = text[len(PREFIX):].split(":")
        if len(fields) != FIELDS:
            raise InvalidFibsBoardError(
                f"a board line has {FIELDS} fields after {PREFIX!r}, got {len(fields)}")
        player, opponent = fields[0], fields[1]
        for role, name in (("player", player), ("opponent", opponent)):
            if not name or not name.isprintable():
                raise InvalidFibsBoardError(f"the {role}'s name must be printable text, "
                                            f"got {name!r}")
        numbers = [_number(i + 2, text) for i, text in enumerate(fields[2:])]
        (length, my_score, their_score), counts = numbers[0:3], tuple(numbers[3:29])
        (turn, d1, d2, o1, o2, cube, may_me, may_them, doubled, colour, direction, home, bar,
         my_home, their_home, my_bar, their_bar, can_move, forced, crawford,
         redoubles) = numbers[29:]
        board = cls(player, opponent, length, my_score, their_score, counts, turn, (d1, d2),
                    (o1, o2), cube, _flag("may-double (player)", may_me),
                    _flag("may-double (opponent)", may_them), doubled, colour, direction, home,
                    bar, my_home, their_home, my_bar, their_bar, can_move,
                    _flag("forced-move", forced), _flag("did-Crawford", crawford), redoubles)
        board._check()
        return board

    def _check(self) -> None:
        if self.match_length < 0:
            raise InvalidFibsBoardError(f"the match length is 0 or more, got {self.match_length}")
        for role, score in (("player", self.player_score), ("opponent", self.opponent_score)):
            if score < 0:
                raise InvalidFibsBoardError(f"the {role}'s score is 0 or more, got {score}")
            if self.match_length not in (0, UNLIMITED) and score > self.match_length:
                raise InvalidFibsBoardError(f"the {role}'s score {score} is above the match "
                                            f"length {self.match_length}")
        if self.colour not in (1, -1):
            raise InvalidFibsBoardError(f"colour is 1 (X) or -1 (O), got {self.colour}")
        if self.direction not in (1, -1):
            raise InvalidFibsBoardError(f"direction is 1 or -1, got {self.direction}")
        home, bar = (OPPONENT_BAR, BAR) if self.direction == -1 else (BAR, OPPONENT_BAR)
        if (self.home, self.bar) != (home, bar):
            raise InvalidFibsBoardError(
                f"with direction {self.direction} home and bar are {home} and {bar}, got "
                f"{self.home} and {self.bar}")
        if self.turn not in (1, 0, -1):
            raise InvalidFibsBoardError(f"turn is 1, -1 or 0, got {self.turn}")
        for role, dice in (("player", self.player_dice), ("opponent", self.opponent_dice)):
            if dice != (0, 0) and not all(1 <= d <= 6 for d in dice):
                raise InvalidFibsBoardError(f"the {role}'s dice are 1 to 6 (0 0: not rolled), "
                                            f"got {dice[0]} {dice[1]}")
        if not 1 <= self.cube <= _MAX_CUBE or self.cube & (self.cube - 1):
            raise InvalidFibsBoardError(f"the cube is a power of two from 1 to {_MAX_CUBE}, "
                                        f"got {self.cube}")
        if self.was_doubled not in (1, 0, -1):
            raise InvalidFibsBoardError(f"was-doubled is 1, -1 or 0, got {self.was_doubled}")
        for name in ("player_home", "opponent_home", "player_bar", "opponent_bar"):
            value = getattr(self, name)
            if not 0 <= value <= CHECKERS:
                raise InvalidFibsBoardError(f"{name.replace('_', ' ')} is 0 to {CHECKERS}, "
                                            f"got {value}")
        if not 0 <= self.can_move <= 4:
            raise InvalidFibsBoardError(f"can-move is 0 to 4, got {self.can_move}")
        if self.redoubles < 0:
            raise InvalidFibsBoardError(f"redoubles is 0 or more, got {self.redoubles}")
        if self.board[self.bar] * self.colour < 0:
            raise InvalidFibsBoardError("the opponent has checkers on the player's bar")
        if self.board[self.home] * self.colour > 0:
            raise InvalidFibsBoardError("the player has checkers on the opponent's bar")
        self.player_position()  # the checker counts

    # -- views ----------------------------------------------------------------------------

    @property
    def player_on_roll(self) -> bool:
        """The player (the line's colour) is on roll; False also when the game is over."""
        return self.turn == self.colour

    @property
    def is_money(self) -> bool:
        """Money play: GNU Backgammon's 0 or FIBS's unlimited match."""
        return self.match_length in (0, UNLIMITED)

    def player_position(self) -> Position:
        """The board from the player's side, whoever is on roll."""
        counts = [0] * SLOTS
        for index, count in enumerate(self.board):
            own = index if self.direction == -1 else SLOTS - 1 - index
            counts[own] = count * self.colour
        try:
            return Position(counts)
        except InvalidPositionError as error:
            raise InvalidFibsBoardError(f"not a backgammon position: {error}") from None

    def state(self, dialect: Dialect = Dialect.GNUBG) -> FibsState:
        """The line in gammon's terms, from the side on roll (see :class:`FibsState`).

        A game that is over (turn 0) has no side on roll and raises.
        """
        if self.turn == 0:
            raise InvalidFibsBoardError("the game is over (turn 0): there is no side on roll")
        mine = self.player_on_roll
        position = self.player_position()
        if not mine:
            position = position.swap()
        dice = self.player_dice if mine else self.opponent_dice
        if dice == (0, 0):  # GNU Backgammon fills both; FIBS only the roller's
            dice = self.opponent_dice if mine else self.player_dice
        doubled = self.was_doubled != 0
        if doubled and dice != (0, 0):
            raise InvalidFibsBoardError("a double is pending but the dice are rolled")
        roll = None if dice == (0, 0) or doubled else Roll(*dice)
        if self.player_may_double == self.opponent_may_double:
            owner: bool | None = None
        else:
            owner = self.player_may_double == mine
        # scores of the line's player (the colour side) and of the opponent
        first_is_player = dialect is Dialect.FIBS or doubled
        colour_score, other_score = (
            (self.player_score, self.opponent_score) if first_is_player
            else (self.opponent_score, self.player_score))
        score = (colour_score, other_score) if mine else (other_score, colour_score)
        length = 0 if self.is_money else self.match_length
        crawford = post_crawford = False
        if length:
            if max(score) >= length:
                raise InvalidFibsBoardError(
                    f"the score {score[0]}-{score[1]} has already won the {length}-point match")
            one_away = length - max(score) == 1
            crawford = one_away and not self.did_crawford
            post_crawford = one_away and self.did_crawford
        if crawford and (doubled or self.cube != 1):
            raise InvalidFibsBoardError("no cube in the Crawford game")
        if owner is None and self.cube != 1 and not doubled:
            raise InvalidFibsBoardError(f"a centred cube shows 1, got {self.cube}")
        return FibsState(position, roll, self.cube, owner, doubled, score, length, crawford,
                         post_crawford, mine)


def _number(index: int, text: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise InvalidFibsBoardError(f"field {index + 1} must be a whole number, got {text[:20]!r}")
    return int(text)


def _flag(name: str, value: int) -> bool:
    if value not in (0, 1):
        raise InvalidFibsBoardError(f"{name} is 0 or 1, got {value}")
    return bool(value)
