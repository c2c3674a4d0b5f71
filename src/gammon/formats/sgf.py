"""GNU Backgammon's SGF match files (the Smart Game Format, backgammon is ``GM[6]``).

An SGF file holds one game tree per game. GNU Backgammon 1.07 writes each like this::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:5][game:0][ws:0][bs:0]
    PW[Alice]PB[Bob]DT[2024-05-01]RU[Crawford]RE[B+2]
    ;W[31hefe]
    ;B[double]
    ;W[take]
    ;B[52yvyw]
    ...)

* the root node: ``MI`` the match length (``0`` for money), the game's index from 0 and the
  score of White (player 0) and Black (player 1) before it; ``PW``/``PB`` the names; in the
  first game ``DT`` (date), ``EV``, ``RO``, ``PC`` (place), ``AN``, ``GC``; ``RU`` the rules
  joined by ``:``, out of ``NoCube``, ``Crawford``, ``CrawfordGame`` (this game is the
  Crawford game) and ``Jacoby``; ``RE`` the result, ``W+2`` or ``B+3R`` (``R``: the loser
  resigned);
* a move node ``W[...]`` or ``B[...]``: the dice, then one letter pair (from, to) per checker
  moved by one die, points ``a`` (White's 1-point, Black's 24-point) to ``x``, ``y`` the bar
  and ``z`` off; hits are not marked. ``W[66]`` is a roll that cannot be played; ``double``,
  ``take`` and ``drop`` are cube actions, and a beaver is a ``double`` by the player doubled,
  then a ``take`` by the doubler (``W[double];B[double];W[take]``);
* ``PL[W]DI[52]``: dice rolled and not played, when the player then resigns;
* a resignation is not a node at all: ``RE[W+4R]`` says Black resigned, and GNU Backgammon
  reads the level from the points as ``points / cube`` (1 single, 2 gammon, 3 backgammon).
  :func:`dumps` writes the points as the ``.mat`` writer does
  (:func:`~gammon.formats.matchfile.points_written`): what the game scored, and a
  resignation as the level times the cube, so that it reads back right even where the
  Jacoby rule made the game score less.

Beyond that :func:`dumps` uses SGF's room for extensions, with properties GNU Backgammon
ignores, so that every :class:`~gammon.formats.matchfile.MatchRecord` goes through an SGF
file unchanged: ``Beavers`` among the rules; a node ``XR[W2]`` for a resign offer (here
White's, of a gammon) that was refused, ``XO[W2]`` for one left unanswered when the record
ends; in the root of the last game ``XF[B:abandon]`` or ``XF[B:timeout]`` when a player
lost the match by abandoning or running out of time; and for a match played with the
"winner rolls anew" opening ``WinnerRollsAnew`` among the rules and in each game's root
``XT[52]``, the deciding opening throw (White's die first). The first move of such a game is
the winner's new roll (a double included) and its play, which GNU Backgammon reads as an
ordinary first move.

:func:`loads` reads GNU Backgammon's files (its analysis properties are skipped), follows
the main line where a file has variations, and refuses what a match record cannot hold:
board setups (``AE``/``AB``/``AW``), automatic doubles and raccoons. It only parses the
syntax: the rules are applied by :mod:`gammon.formats.builder`, the same for ``.mat``
files (a resignation's points must be the cube, twice or three times it, for instance; a
first game at a Crawford score without ``CrawfordGame`` is post-Crawford).

>>> from gammon.core.actions import PlayMove, RollOpening
>>> from gammon.core.dice import OpeningRoll, Roll
>>> from gammon.core.match import Rules
>>> opening = RollOpening(OpeningRoll(first=0, roll=Roll(3, 1), throws=((3, 1),)))
>>> record = MatchRecord.from_match_actions([opening, PlayMove(0, '8/5 6/5')],
...                                         rules=Rules(length=3), players=('Alice', 'Bob'))
>>> print(dumps(record), end='')
(;FF[4]GM[6]CA[UTF-8]AP[gammon]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]RU[Crawford]
;W[31hefe])
>>> loads(dumps(record)) == record
True
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Final

from gammon.core import actions
from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.events import EndKind, GameEnded
from gammon.core.game import Phase
from gammon.core.match import Rules
from gammon.core.moves import Move, Play
from gammon.core.position import BAR
from gammon.formats.builder import (
    Answer,
    Cube,
    EndGame,
    Forfeit,
    MatchFileError,
    Offer,
    Result,
    Rolled,
    StartGame,
    Step,
    WrittenPlay,
    build,
    rules_from,
)
from gammon.formats.matchfile import (
    MatchInfo,
    MatchRecord,
    ReplayStep,
    points_written,
    rolled,
    write_text,
)

__all__ = ["SgfFormatError", "dump", "dumps", "load", "loads"]


class SgfFormatError(MatchFileError):
    """Text that is not a backgammon SGF file, or a match one cannot hold.

    ``line`` is the 1-based line the error is on, when there is one.
    """


_COLOURS: Final = "WB"
_APPLICATION: Final = "gammon"
_FORFEITS: Final = ("abandon", "timeout")


# -- the SGF syntax -----------------------------------------------------------------------


@dataclass(slots=True)
class _Property:
    name: str
    values: list[str]
    line: int


@dataclass(slots=True)
class _Node:
    line: int
    properties: list[_Property] = field(default_factory=list)

    def get(self, name: str) -> _Property | None:
        return next((p for p in self.properties if p.name == name), None)


@dataclass(slots=True)
class _Tree:
    line: int
    nodes: list[_Node] = field(default_factory=list)
    children: list[_Tree] = field(default_factory=list)

    def main_line(self) -> list[_Node]:
        nodes = list(self.nodes)
        tree = self
        while tree.children:
            tree = tree.children[0]
            nodes += tree.nodes
        return nodes


class _Parser:
    """A recursive-descent reader of SGF's grammar (FF[4], section 2)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.line = 1

    def error(self, message: str) -> SgfFormatError:
        return SgfFormatError(message, self.line)

    def _skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.line += self.text[self.at] == "\n"
            self.at += 1

    def _peek(self) -> str:
        self._skip_space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def collection(self) -> list[_Tree]:
        trees = []
        while self._peek() == "(":
            trees.append(self._tree())
        if self._peek():
            raise self.error(f"expected '(' to start a game tree, found {self._peek()!r}")
        if not trees:
            raise SgfFormatError("not an SGF file: no game tree '(;...)'")
        return trees

    def _tree(self) -> _Tree:
        tree = _Tree(self.line)
        self.at += 1  # '('
        if self._peek() != ";":
            raise self.error("a game tree starts with a node ';'")
        while self._peek() == ";":
            tree.nodes.append(self._node())
        while self._peek() == "(":
            tree.children.append(self._tree())
        if self._peek() != ")":
            found = self._peek()
            raise self.error(f"expected ')' to close the game tree, found "
                             f"{found!r}" if found else "the file ends inside a game tree")
        self.at += 1
        return tree

    def _node(self) -> _Node:
        self.at += 1  # ';'
        node = _Node(self.line)
        while self._peek().isalpha():
            start, line = self.at, self.line
            while self.at < len(self.text) and self.text[self.at].isalpha():
                self.at += 1
            # FF[3] allowed lower-case letters in identifiers; only the capitals count
            name = "".join(c for c in self.text[start:self.at] if c.isupper())
            if not name:
                raise SgfFormatError(
                    f"a property name needs capital letters: {self.text[start:self.at]!r}", line
                )
            values = []
            while self._peek() == "[":
                values.append(self._value())
            if not values:
                raise self.error(f"property {name} has no value '[...]'")
            node.properties.append(_Property(name, values, line))
        return node

    def _value(self) -> str:
        self.at += 1  # '['
        start_line = self.line
        chars: list[str] = []
        while True:
            if self.at >= len(self.text):
                raise SgfFormatError("the file ends inside a property value '[...'", start_line)
            char = self.text[self.at]
            self.at += 1
            if char == "]":
                return "".join(chars)
            if char == "\n":
                self.line += 1
            if char == "\\":
                if self.at >= len(self.text):
                    continue
                escaped = self.text[self.at]
                self.at += 1
                if escaped == "\n":  # a soft line break
                    self.line += 1
                    continue
                if escaped == "\r":
                    if self.text[self.at: self.at + 1] == "\n":
                        self.at += 1
                    self.line += 1
                    continue
                char = escaped
            chars.append(char)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# -- writing ------------------------------------------------------------------------------


def dumps(record: MatchRecord) -> str:
    """The SGF text of ``record``: one game tree per game (see the module doc)."""
    if not isinstance(record, MatchRecord):
        raise TypeError(f"expected a MatchRecord, got {type(record).__name__}")
    steps = list(record.steps())
    trees = []
    for number, game in enumerate(record.games):
        root = _root(record, number, game.score, game.crawford)
        if game.result is not None and game.result.kind not in (EndKind.ABANDON,
                                                                EndKind.TIMEOUT):
            root += _result(game.result)
        if number == len(record.games) - 1:
            root += _forfeit(record)
        nodes = _nodes([step for step in steps if step.game == number])
        trees.append("(" + root + "".join("\n" + node for node in nodes) + ")\n")
    if not trees:  # no game was started: keep the players, the rules and any forfeit
        trees.append("(" + _root(record, 0, record.start_score(), False) + _forfeit(record)
                     + ")\n")
    return "".join(trees)


def dump(record: MatchRecord, target: str | os.PathLike[str] | IO[str]) -> None:
    """Write ``record`` as an SGF file to a path or an open text file."""
    write_text(dumps(record), target)


def _root(record: MatchRecord, number: int, score: tuple[int, int], crawford: bool) -> str:
    parts = [
        f";FF[4]GM[6]CA[UTF-8]AP[{_APPLICATION}]",
        f"MI[length:{record.length}][game:{number}][ws:{score[0]}][bs:{score[1]}]",
        f"PW[{_escape(record.players[0])}]PB[{_escape(record.players[1])}]",
    ]
    info = record.info
    if number == 0:
        if info.date is not None:
            parts.append(f"DT[{info.date.isoformat()}]")
        for name, value in (("EV", info.event), ("RO", info.round), ("PC", info.site),
                            ("AN", info.annotator), ("GC", info.comment)):
            if value:
                parts.append(f"{name}[{_escape(value)}]")
    rules = record.rules
    tokens = [
        name
        for name, on in (
            ("NoCube", not rules.cube),
            ("Crawford", rules.crawford and not rules.is_money),
            ("CrawfordGame", crawford),
            ("Jacoby", rules.jacoby),
            ("Beavers", rules.beavers),
            ("WinnerRollsAnew", rules.winner_rolls_anew),
        )
        if on
    ]
    if tokens:
        parts.append(f"RU[{':'.join(tokens)}]")
    if rules.winner_rolls_anew and number < len(record.games):
        opening = record.games[number].actions[0]
        assert isinstance(opening, actions.RollOpening), "a game starts with its opening"
        white, black = opening.opening.throws[-1]
        parts.append(f"XT[{white}{black}]")
    return "".join(parts)


def _result(result: GameEnded) -> str:
    resigned = "R" if result.kind is EndKind.RESIGN else ""
    return f"RE[{_COLOURS[result.winner]}+{points_written(result)}{resigned}]"


def _forfeit(record: MatchRecord) -> str:
    if record.forfeit is None:
        return ""
    kind = "abandon" if isinstance(record.forfeit, actions.Abandon) else "timeout"
    return f"XF[{_COLOURS[record.forfeit.player]}:{kind}]"


def _letter(player: int, point: int) -> str:
    if point == BAR:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _move_letters(player: int, moves: tuple[Move, ...]) -> str:
    return "".join(_letter(player, m.source) + _letter(player, m.destination) for m in moves)


def _nodes(steps: list[ReplayStep]) -> Iterator[str]:
    for index, step in enumerate(steps):
        action = step.action
        following = steps[index + 1].action if index + 1 < len(steps) else None
        if isinstance(action, actions.PlayMove) and not isinstance(
            steps[index - 1].action, actions.RollOpening | actions.RollDice
        ):
            # the play of a roll written before a refused resign offer: the dice again
            roll = step.before.game.roll
            assert roll is not None and isinstance(action.play, Play)
            yield f";{_COLOURS[action.player]}[{roll.die1}{roll.die2}" \
                  f"{_move_letters(action.player, action.play.moves)}]"
        if isinstance(action, actions.RollOpening | actions.RollDice):
            player, roll = rolled(action)
            colour = _COLOURS[player]
            if isinstance(following, actions.PlayMove):
                assert isinstance(following.play, Play), "a record holds plays, not notation"
                yield f";{colour}[{roll.die1}{roll.die2}" \
                      f"{_move_letters(player, following.play.moves)}]"
            elif step.after.game.phase is Phase.MOVING:  # rolled, not played (then resigns)
                yield f";PL[{colour}]DI[{roll.die1}{roll.die2}]"
            else:  # the roll cannot be played
                yield f";{colour}[{roll.die1}{roll.die2}]"
        elif isinstance(action, actions.OfferDouble):
            yield f";{_COLOURS[action.player]}[double]"
        elif isinstance(action, actions.Beaver):
            yield f";{_COLOURS[action.player]}[double]"
            yield f";{_COLOURS[1 - action.player]}[take]"
        elif isinstance(action, actions.Take):
            yield f";{_COLOURS[action.player]}[take]"
        elif isinstance(action, actions.Drop):
            yield f";{_COLOURS[action.player]}[drop]"
        elif isinstance(action, actions.OfferResign):
            offer = f"{_COLOURS[action.player]}{int(action.level)}"
            if isinstance(following, actions.RejectResign):
                yield f";XR[{offer}]"
            elif following is None and step.after.game.phase is Phase.RESIGN_OFFERED:
                yield f";XO[{offer}]"
            # an accepted offer is the game's result: RE[...R]


# -- reading ------------------------------------------------------------------------------


def load(source: str | os.PathLike[str] | IO[str]) -> MatchRecord:
    """Read an SGF match file from a path or an open text file."""
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as handle:
            data = handle.read()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:  # older files without CA[UTF-8] are Latin-1
            text = data.decode("latin-1")
        return loads(text)
    return loads(source.read())


def loads(text: str) -> MatchRecord:
    """The match an SGF text holds, replayed through the rules.

    Raises :class:`SgfFormatError` naming the line and what is wrong.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    trees = _Parser(text.lstrip("\ufeff")).collection()
    games = [tree for tree in trees if _is_backgammon(tree)]
    if not games:
        raise SgfFormatError("no backgammon game in the file: backgammon trees have GM[6]")
    first = _Root(games[0].nodes[0])
    return build(_steps(games), first.rules(), players=first.players(), info=first.info(),
                 error=SgfFormatError, opening_throws="the game's root (XT)")


def _is_backgammon(tree: _Tree) -> bool:
    game = tree.nodes[0].get("GM")
    return game is not None and game.values[0].strip() == "6"


def _steps(trees: list[_Tree]) -> list[Step]:
    """The file's game trees as the builder's steps (see :mod:`gammon.formats.builder`)."""
    steps: list[Step] = []
    for number, tree in enumerate(trees):
        last = number == len(trees) - 1
        nodes = tree.main_line()
        root = _Root(nodes[0])
        re_prop = root.node.get("RE")
        # a lone root without moves or result: the record of a match no game was started in
        if not (len(trees) == 1 and len(nodes) == 1 and re_prop is None):
            steps.append(StartGame(root.line, root.players(), root.score, length=root.length,
                                   crawford="CrawfordGame" in root.tokens,
                                   opening_throw=root.opening_throw()))
            for node in nodes[1:]:
                steps += _node_steps(node)
            if re_prop is not None:
                steps.append(_read_result(re_prop))
            steps.append(EndGame(root.line))
        if (xf := root.node.get("XF")) is not None:
            if not last:
                raise SgfFormatError("only the last game may end the match by a forfeit (XF)",
                                     xf.line)
            colour, _, kind = xf.values[0].partition(":")
            if colour not in _COLOURS or kind not in _FORFEITS:
                raise SgfFormatError(
                    f"XF is W or B and 'abandon' or 'timeout', like XF[B:abandon], got "
                    f"{xf.values[0]!r}",
                    xf.line,
                )
            steps.append(Forfeit(xf.line, _COLOURS.index(colour),
                                 "abandon" if kind == "abandon" else "timeout"))
    return steps


def _read_result(prop: _Property) -> Result:
    """``RE[W+2]``, ``RE[B+4R]`` (R: the loser resigned)."""
    found = _RESULT.match(prop.values[0].strip())
    if not found or not found["points"]:
        raise SgfFormatError(
            f"RE is the winner and the points, like RE[W+2] or RE[B+4R], got "
            f"{prop.values[0]!r}",
            prop.line,
        )
    how = found["how"].upper()
    if how not in ("", "R"):
        raise SgfFormatError(f"RE[{prop.values[0]}]: the points are followed by R for a "
                             f"resignation, or nothing", prop.line)
    return Result(prop.line, _COLOURS.index(found["colour"].upper()), int(found["points"]),
                  resigned=how == "R")


def _node_steps(node: _Node) -> list[Step]:
    """A move node: a roll and its play, a cube action, dice set (DI) before a resignation,
    a refused (XR) or unanswered (XO) resign offer."""
    for prop in node.properties:
        if prop.name in _SETUP:
            raise SgfFormatError(
                f"board setups ({prop.name}) are not supported: a match record replays "
                f"from the starting position",
                prop.line,
            )
    steps: list[Step] = []
    moves = [p for p in node.properties if p.name in ("W", "B")]
    dice = node.get("DI")
    if moves:
        prop = moves[0]  # like GNU Backgammon, a second move in one node is ignored
        steps.append(_move(_COLOURS.index(prop.name), prop.values[0].strip(), prop.line))
    elif dice is not None:
        turn = node.get("PL")
        colour = turn.values[0].strip()[:1].upper() if turn is not None else ""
        player = _COLOURS.index(colour) if colour and colour in _COLOURS else None
        steps.append(Rolled(dice.line, player, _roll(dice.values[0].strip(), dice.line), None,
                            f"DI[{dice.values[0]}]"))
    for name, refused in (("XR", True), ("XO", False)):
        if (offer := node.get(name)) is not None:
            found = _OFFER.match(offer.values[0].strip())
            if not found:
                raise SgfFormatError(
                    f"{name} is a colour and a level 1-3, like {name}[W2], got "
                    f"{offer.values[0]!r}",
                    offer.line,
                )
            steps.append(Offer(offer.line, _COLOURS.index(found["colour"]),
                               Level(int(found["level"])), refused=refused))
    return steps


def _move(player: int, value: str, line: int) -> Step:
    if value == "double":
        return Cube(line, player)
    if value in ("take", "drop"):
        return Answer(line, player, take=value == "take")
    found = _MOVE.match(value)
    if not found:
        raise SgfFormatError(
            f"{_COLOURS[player]}[{value}] is not a move: expected dice and letter pairs "
            f"like W[31hefe], or double, take, drop",
            line,
        )
    letters = found["moves"]
    steps = tuple(
        (_point(player, letters[i], line), _point(player, letters[i + 1], line))
        for i in range(0, len(letters), 2)
    )
    return Rolled(line, player, _roll(found["die1"] + found["die2"], line),
                  WrittenPlay(steps) if steps else None, f"{_COLOURS[player]}[{value}]")


def _roll(dice: str, line: int) -> Roll:
    if len(dice) != 2 or not all(d in "123456" for d in dice):
        raise SgfFormatError(f"dice are two digits 1-6, got {dice!r}", line)
    return Roll(int(dice[0]), int(dice[1]))


_RESULT = re.compile(r"^(?P<colour>[WBwb])\+(?P<points>\d*)(?P<how>[A-Za-z]*)$")


class _Root:
    """The game-info properties of a game tree's root node."""

    def __init__(self, node: _Node) -> None:
        self.node = node
        self.line = node.line
        self.length = 0
        self.score = (0, 0)
        if (mi := node.get("MI")) is not None:
            fields: dict[str, int] = {}
            for value in mi.values:
                tag, _, number = value.partition(":")
                tag = tag.strip().lower()
                if tag in ("length", "game", "ws", "bs"):
                    if not number.strip().isdigit():
                        raise SgfFormatError(f"MI[{value}]: {tag} is a number", mi.line)
                    fields[tag] = int(number)
            self.length = fields.get("length", 0)
            self.score = (fields.get("ws", 0), fields.get("bs", 0))
        self.tokens: set[str] = set()
        if (ru := node.get("RU")) is not None:
            self.tokens = {token.strip() for token in ru.values[0].split(":")}
        if (cv := node.get("CV")) is not None and cv.values[0].strip() not in ("", "1"):
            raise SgfFormatError("automatic doubles (CV in the root) are not in gammon's rules",
                                 cv.line)

    def text(self, name: str) -> str:
        prop = self.node.get(name)
        return prop.values[0] if prop is not None else ""

    def players(self) -> tuple[str, str]:
        return (self.text("PW") or "Player 1", self.text("PB") or "Player 2")

    def rules(self) -> Rules:
        return rules_from(
            length=self.length,
            cube="NoCube" not in self.tokens,
            crawford="Crawford" in self.tokens,
            jacoby="Jacoby" in self.tokens,
            beavers="Beavers" in self.tokens,
            winner_rolls_anew="WinnerRollsAnew" in self.tokens,
            line=self.line,
            error=SgfFormatError,
        )

    def opening_throw(self) -> tuple[int, int] | None:
        """The deciding opening throw of a "winner rolls anew" game (``XT``), if given."""
        prop = self.node.get("XT")
        if prop is None:
            return None
        value = prop.values[0].strip()
        if not re.fullmatch(r"[1-6][1-6]", value) or value[0] == value[1]:
            raise SgfFormatError(
                f"XT is the deciding opening throw of a game where the winner rolls anew, "
                f"two different dice like XT[52], got {value!r}",
                prop.line,
            )
        return int(value[0]), int(value[1])

    def info(self) -> MatchInfo:
        date = None
        if (dt := self.node.get("DT")) is not None:
            try:
                date = datetime.date.fromisoformat(dt.values[0].strip())
            except ValueError:
                raise SgfFormatError(f"DT is a date YYYY-MM-DD, got {dt.values[0]!r}",
                                     dt.line) from None
        return MatchInfo(
            event=self.text("EV"),
            site=self.text("PC"),
            round=self.text("RO"),
            date=date,
            annotator=self.text("AN"),
            comment=self.text("GC"),
        )


_MOVE = re.compile(r"^(?P<die1>[1-6])(?P<die2>[1-6])(?P<moves>(?:[a-z][a-z]){0,4})$")
_OFFER = re.compile(r"^(?P<colour>[WB])(?P<level>[123])$")
_SETUP: Final = frozenset({"AE", "AB", "AW", "CP"})


def _point(player: int, letter: str, line: int) -> int:
    if letter == "y":
        return BAR
    if letter == "z":
        return 0
    if not "a" <= letter <= "x":
        raise SgfFormatError(f"a point is a letter a-x, y (the bar) or z (off), got {letter!r}",
                             line)
    index = ord(letter) - ord("a")
    return index + 1 if player == 0 else 24 - index
