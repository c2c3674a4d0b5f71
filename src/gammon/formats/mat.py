"""Jellyfish ``.mat`` match files, as GNU Backgammon reads and writes them.

A ``.mat`` file is plain text: optional ``; [Tag "value"]`` header lines, the match length,
then each game with the score before it and its moves in two columns, player 0 (GNU
Backgammon's "O", the first name) on the left, player 1 on the right::

    ; [EventDate "2024.05.01"]

     5 point match

     Game 1
     Alice : 0                      Bob : 0
      1) 31: 8/5 6/5                 52: 13/8 13/11
      2) 64: 24/18 13/9               Doubles => 2
      3)  Takes                      33: 13/10 13/10 8/5 8/5
      ...
                                      Wins 1 point

What GNU Backgammon 1.07 writes, and so what :func:`dumps` writes:

* a roll and its play: ``52: 13/8 24/22``, one checker and one die per move, ``25`` for the
  bar, ``0`` for off, ``*`` after a hit; a roll that cannot be played is ``66:`` alone;
* cube actions ``Doubles => 2``, ``Takes``, ``Drops``, a beaver ``Beavers => 4`` by the
  player doubled (the doubler's acceptance of the beaver is not written). GNU Backgammon's
  importer adds the acceptance when the doubler rolls next; it cannot read a beaver that
  the doubler answers by resigning at once (nor does a redouble followed by ``Takes`` work
  for it), so such a game reads right only in gammon and in SGF;
* each game ends with ``Wins N point(s)`` in the winner's column: the level won times the
  cube (for a drop, the cube before the double). Under the Jacoby rule a gammon with the
  cube never turned scores single, and :func:`dumps` writes what it scored, as the SGF
  writer does (:func:`~gammon.formats.matchfile.points_written`; GNU Backgammon writes the
  level times the cube there, which both readers accept). When the moves do not end the
  game (no bear-off, no drop) the line is a resignation by the other player, read back as GNU
  Backgammon does: ``N`` up to the cube is a single game, up to twice the cube a gammon,
  more a backgammon. A player who resigns after rolling has the roll written alone;
* a money session is a ``0 point match``.

:func:`loads` reads that and what other programs write within the published grammar:
moves in any order, ``bar``/``off`` words, joined moves (``24/16``, ``13/11(2)``), hit
marks optional, ``Double``/``Take``/``Drop`` spellings, ``Wins N points and the match``,
XG's ``Cannot Move``. The columns are found the way GNU Backgammon finds them: a line
holding two entries has one per column; a lone entry starting after column 15 is the
right-hand one. The reader only parses the syntax: the rules (the opening, beavers,
resignations, the scores, forfeits) are applied by :mod:`gammon.formats.builder`, the same
for SGF files.

The format has no place for a few things, handled with header tags that GNU Backgammon
ignores (the first three are XG's): ``[Jacoby "On"]``, ``[Beaver "On"]``, ``[Crawford
"Off"]`` for a match without the Crawford rule, ``[CubeLimit "1"]`` for play without the
cube, and gammon's ``[Forfeit "abandon 2"]`` / ``[Forfeit "timeout 1"]`` for a match lost by
abandoning or running out of time (player 1 is the left column). A match played with the
"winner rolls anew" opening has ``[WinnerRollsAnew "On"]`` and ``[OpeningThrows "52 36"]``,
each game's deciding opening throw (the left column's die first); each game's first move is
the winner's new roll and its play, which GNU Backgammon imports as an ordinary first move
(a double there included). Resign offers that were
refused or left unanswered are not written (GNU Backgammon drops them too): a record goes
through a ``.mat`` file as :meth:`MatchRecord.without_open_resignations
<gammon.formats.matchfile.MatchRecord.without_open_resignations>`.

>>> from gammon.core.actions import PlayMove, RollOpening
>>> from gammon.core.dice import OpeningRoll, Roll
>>> from gammon.core.match import Rules
>>> opening = RollOpening(OpeningRoll(first=1, roll=Roll(5, 2), throws=((2, 5),)))
>>> record = MatchRecord.from_match_actions([opening, PlayMove(1, '13/8 13/11')],
...                                         rules=Rules(length=3), players=('Alice', 'Bob'))
>>> print(dumps(record), end='')
; [Player 1 "Alice"]
; [Player 2 "Bob"]
<BLANKLINE>
 3 point match
<BLANKLINE>
 Game 1
 Alice : 0                      Bob : 0
  1)                             52: 13/8 13/11
<BLANKLINE>
>>> loads(dumps(record)) == record
True
"""

from __future__ import annotations

import datetime
import itertools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Final

from gammon.core import actions
from gammon.core.dice import Roll
from gammon.core.events import EndKind, GameEnded
from gammon.core.match import Rules
from gammon.core.moves import Move, Play
from gammon.core.notation import NotationError, parse_segments
from gammon.formats.builder import (
    Answer,
    Cube,
    EndGame,
    Forfeit,
    MatchFileError,
    Result,
    Rolled,
    StartGame,
    Step,
    WrittenPlay,
    build,
    rules_from,
)
from gammon.formats.matchfile import (
    GameRecord,
    MatchInfo,
    MatchRecord,
    ReplayStep,
    points_written,
    rolled,
    write_text,
)

__all__ = ["MatFormatError", "dump", "dumps", "load", "loads"]


class MatFormatError(MatchFileError):
    """Text that is not a ``.mat`` match file, or a match one cannot hold.

    ``line`` is the 1-based line the error is on, when there is one.
    """


_RIGHT_COLUMN: Final = 15
"""A lone entry that starts after this column (0-based) is in the right-hand column."""
_LEFT_WIDTH: Final = 27
_FORFEITED: Final = frozenset({EndKind.ABANDON, EndKind.TIMEOUT})

_TAG = re.compile(r'^\[(?P<tag>[A-Za-z][A-Za-z0-9 ]*?)\s+"(?P<value>.*)"\]\s*$')
_MATCH = re.compile(r"^\s*(?P<length>\d+)\s+[Pp]oint\s+[Mm]atch\s*$")
_GAME = re.compile(r"^\s*Game\s+(?P<number>\d+)\s*$")
_PLAYERS = re.compile(
    r"^\s*(?P<name0>\S.*?)\s*:\s*(?P<score0>\d+)\s+(?P<name1>\S.*?)\s*:\s*(?P<score1>\d+)\s*$"
)
_NUMBERED = re.compile(r"^\s*\d+\)")
_ENTRY = re.compile(
    r"(?<!\S)(?:[1-6][1-6]:|(?i:doubles|double|beavers|beaver|raccoons|raccoon|takes|take"
    r"|drops|drop|wins|win)(?![A-Za-z]))"
)
_ROLL = re.compile(r"^(?P<die1>[1-6])(?P<die2>[1-6]):\s*(?P<play>.*)$")
_CUBE = re.compile(
    r"^(?P<kind>doubles?|beavers?|raccoons?)(?:\s*=>\s*(?P<value>\d+))?$", re.IGNORECASE
)
_TAKE = re.compile(r"^takes?$", re.IGNORECASE)
_DROP = re.compile(r"^drops?$", re.IGNORECASE)
_WINS = re.compile(
    r"^wins?\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?$", re.IGNORECASE
)
_NO_PLAY = re.compile(r"^(?:\?{3,4}|cannot\s+move)$", re.IGNORECASE)


# -- writing ------------------------------------------------------------------------------


def dumps(record: MatchRecord) -> str:
    """The ``.mat`` text of ``record`` (see the module doc for what is written)."""
    if not isinstance(record, MatchRecord):
        raise TypeError(f"expected a MatchRecord, got {type(record).__name__}")
    for name in record.players:
        _check_name(name)
    record = record.without_open_resignations()
    lines = _header(record)
    lines += ["", f" {record.length} point match", ""]
    steps = list(record.steps())
    for number, game in enumerate(record.games):
        lines.append(f" Game {number + 1}")
        left = f"{record.players[0]} : {game.score[0]}"
        lines.append(f" {left:<31}{record.players[1]} : {game.score[1]}")
        lines += _game_lines([step for step in steps if step.game == number], number)
        lines.append("")
    return "\n".join(lines) + "\n"


def dump(record: MatchRecord, target: str | os.PathLike[str] | IO[str]) -> None:
    """Write ``record`` as a ``.mat`` file to a path or an open text file."""
    write_text(dumps(record), target)


def _check_name(name: str) -> None:
    if not name or name != name.strip() or ":" in name or any(c in name for c in "\r\n"):
        raise MatFormatError(
            f"a .mat file cannot hold the player name {name!r}: names are written as "
            f"'name : score', so they must not be empty, hold ':' or line breaks, or start "
            f"or end with spaces"
        )


def _tag_value(tag: str, value: str) -> str:
    if any(c in value for c in "\r\n"):
        raise MatFormatError(f"a .mat header tag cannot hold a line break: {tag} {value!r}")
    return f'; [{tag} "{value}"]'


def _header(record: MatchRecord) -> list[str]:
    info = record.info
    lines = [
        _tag_value(tag, value)
        for tag, value in (
            ("Site", info.site),
            ("Event", info.event),
            ("Round", info.round),
        )
        if value
    ]
    if info.date is not None:
        lines.append(_tag_value("EventDate", info.date.strftime("%Y.%m.%d")))
    if info.annotator:
        lines.append(_tag_value("Transcriber", info.annotator))
    lines += [
        _tag_value("Player 1", record.players[0]),
        _tag_value("Player 2", record.players[1]),
    ]
    rules = record.rules
    if rules.jacoby:
        lines.append(_tag_value("Jacoby", "On"))
    if rules.beavers:
        lines.append(_tag_value("Beaver", "On"))
    if not rules.crawford:
        lines.append(_tag_value("Crawford", "Off"))
    if not rules.cube:
        lines.append(_tag_value("CubeLimit", "1"))
    if rules.winner_rolls_anew:
        lines.append(_tag_value("WinnerRollsAnew", "On"))
        throws = [_opening_throw(game) for game in record.games]
        lines.append(_tag_value("OpeningThrows", " ".join(f"{a}{b}" for a, b in throws)))
    if record.forfeit is not None:
        kind = "abandon" if isinstance(record.forfeit, actions.Abandon) else "timeout"
        lines.append(_tag_value("Forfeit", f"{kind} {record.forfeit.player + 1}"))
    if info.comment:
        lines.append("")
        lines += [f"; {line}".rstrip() for line in info.comment.split("\n")]
    return lines


def _opening_throw(game: GameRecord) -> tuple[int, int]:
    opening = game.actions[0]
    assert isinstance(opening, actions.RollOpening), "a game starts with its opening"
    return opening.opening.throws[-1]


@dataclass(frozen=True, slots=True)
class _Entry:
    player: int
    text: str
    numbered: bool = True


def _move_text(moves: Sequence[Move]) -> str:
    return " ".join(f"{m.source}/{m.destination}{'*' if m.hit else ''}" for m in moves)


def _game_lines(steps: list[ReplayStep], number: int) -> list[str]:
    entries: list[_Entry] = []
    for index, step in enumerate(steps):
        action = step.action
        following = steps[index + 1].action if index + 1 < len(steps) else None
        if isinstance(action, actions.RollOpening | actions.RollDice):
            player, roll = rolled(action)
            text = f"{roll.die1}{roll.die2}:"
            if isinstance(following, actions.PlayMove):  # the play goes with its roll
                assert isinstance(following.play, Play), "a record holds plays, not notation"
                text += " " + _move_text(following.play.moves)
            entries.append(_Entry(player, text))
        elif isinstance(action, actions.PlayMove):
            if not isinstance(steps[index - 1].action, actions.RollOpening | actions.RollDice):
                raise MatFormatError(f"game {number + 1}: a play without its roll: {action!r}")
        elif isinstance(action, actions.OfferDouble):
            entries.append(_Entry(action.player, f" Doubles => {2 * step.before.game.cube.value}"))
        elif isinstance(action, actions.Beaver):  # GNU Backgammon's way: no acceptance written
            entries.append(_Entry(action.player, f" Beavers => {step.after.game.cube.value}"))
        elif isinstance(action, actions.Take):
            entries.append(_Entry(action.player, " Takes"))
        elif isinstance(action, actions.Drop):
            entries.append(_Entry(action.player, " Drops"))
        # OfferResign and AcceptResign show as the "Wins" entry below
        for event in step.events:
            if isinstance(event, GameEnded) and event.kind not in _FORFEITED:
                points = points_written(event)
                entries.append(
                    _Entry(event.winner, f" Wins {points} point{'s' if points != 1 else ''}",
                           numbered=False)
                )
    return _layout(entries)


def _layout(entries: list[_Entry]) -> list[str]:
    rows: list[list[_Entry | None]] = []
    for entry in entries:
        row = rows[-1] if rows else None
        if entry.player == 0 or row is None or row[1] is not None:
            row = [None, None]
            rows.append(row)
        row[entry.player] = entry
    lines: list[str] = []
    number = 0
    for left, right in rows:
        numbered = any(e is not None and e.numbered for e in (left, right))
        if numbered:
            number += 1
        prefix = f"{number:3d}) " if numbered else "     "
        left_text = left.text if left is not None else ""
        right_text = right.text if right is not None else ""
        line = prefix + left_text
        if right_text:
            line = f"{prefix}{left_text:<{_LEFT_WIDTH}} {right_text}"
        lines.append(line.rstrip())
    return lines


# -- reading ------------------------------------------------------------------------------


def load(source: str | os.PathLike[str] | IO[str]) -> MatchRecord:
    """Read a ``.mat`` file from a path or an open text file."""
    if isinstance(source, str | os.PathLike):
        with open(source, encoding="utf-8-sig") as handle:
            return loads(handle.read())
    return loads(source.read())


def loads(text: str) -> MatchRecord:
    """The match a ``.mat`` text holds, replayed through the rules.

    Raises :class:`MatFormatError` naming the line and what is wrong.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    lines = [line.expandtabs(8).rstrip("\r\n") for line in text.lstrip("\ufeff").split("\n")]
    header = _Header()
    index = header.read(lines)
    steps = _steps(lines, index, header)
    return build(steps, header.rules(), players=header.players, info=header.info(),
                 error=MatFormatError, opening_throws="[OpeningThrows]")


def _steps(lines: list[str], index: int, header: _Header) -> list[Step]:
    """The file's games as the builder's steps (see :mod:`gammon.formats.builder`)."""
    games: list[tuple[int, list[tuple[int, str]]]] = []  # (line of 'Game k', its lines)
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip():
            continue
        game = _GAME.match(line)
        if game:
            if int(game["number"]) != len(games) + 1:
                raise MatFormatError(
                    f"expected Game {len(games) + 1}, found Game {game['number']}", index
                )
            games.append((index, []))
        elif not games:
            raise MatFormatError(f"expected 'Game 1' after the match length, found {line!r}",
                                 index)
        else:
            games[-1][1].append((index, line))
    steps: list[Step] = []
    for number, (line_number, body) in enumerate(games):
        steps += _game_steps(number, line_number, body, header.throws)
    if header.forfeit is not None:
        kind, player, at = header.forfeit
        steps.append(Forfeit(at, player, "abandon" if kind == "abandon" else "timeout"))
    return steps


def _game_steps(number: int, line: int, body: list[tuple[int, str]],
                throws: list[tuple[int, int]]) -> list[Step]:
    if not body:
        raise MatFormatError(f"Game {number + 1} has no 'name : score' line", line)
    players_line, text = body[0]
    found = _PLAYERS.match(text)
    if not found:
        raise MatFormatError(
            f"expected the players and the score, like 'Alice : 0   Bob : 2', "
            f"found {text.strip()!r}",
            players_line,
        )
    steps: list[Step] = [StartGame(
        players_line,
        players=(found["name0"], found["name1"]),
        score=(int(found["score0"]), int(found["score1"])),
        opening_throw=throws[number] if number < len(throws) else None,
    )]
    for line_number, row in body[1:]:
        for player, entry in _entries(row, line_number):
            steps.append(_entry_step(player, entry, line_number))
    steps.append(EndGame(body[-1][0]))
    return steps


def _entry_step(player: int, text: str, line: int) -> Step:
    """One column's entry: a roll and its play, a cube action or a result."""
    if roll := _ROLL.match(text):
        play = roll["play"].strip()
        return Rolled(line, player, Roll(int(roll["die1"]), int(roll["die2"])),
                      None if not play or _NO_PLAY.match(play) else _written_play(play, line),
                      text)
    if cube := _CUBE.match(text):
        kind = cube["kind"].lower()
        return Cube(line, player,
                    "raccoon" if kind.startswith("raccoon")
                    else "beaver" if kind.startswith("beaver") else "double",
                    int(cube["value"]) if cube["value"] is not None else None)
    if _TAKE.match(text) or _DROP.match(text):
        return Answer(line, player, take=bool(_TAKE.match(text)))
    if wins := _WINS.match(text):
        return Result(line, player, int(wins["points"]))
    raise MatFormatError(f"cannot read player {player + 1}'s entry {text!r}", line)


def _written_play(text: str, line: int) -> WrittenPlay:
    """A play as written: checker moves one die each, perhaps joined (``24/16``) or
    repeated (``13/11(2)``), hits perhaps marked ``*``."""
    try:
        segments = parse_segments(text)
    except NotationError as error:
        raise MatFormatError(f"cannot read the play {text!r}: {error}", line) from error
    return WrittenPlay(
        steps=tuple(pair for points, _ in segments for pair in itertools.pairwise(points)),
        notation=text,
        hits=frozenset(point for points, hits in segments
                       for point, hit in zip(points, hits, strict=True) if hit),
    )


class _Header:
    """The lines before the first game: tags, comments and the match length."""

    def __init__(self) -> None:
        self.tags: dict[str, tuple[str, int]] = {}
        self.comment: list[str] = []
        self.length = 0
        self.forfeit: tuple[str, int, int] | None = None
        self.players: tuple[str, str] = ("Player 1", "Player 2")

    def read(self, lines: list[str]) -> int:
        for index, line in enumerate(lines):
            number = index + 1
            stripped = line.strip()
            if not stripped:
                continue
            if stripped[0] in ";#":
                body = stripped[1:].strip()
                tag = _TAG.match(body)
                if tag:
                    self.tags[tag["tag"].lower()] = (tag["value"], number)
                else:
                    self.comment.append(line.lstrip()[1:].removeprefix(" ").rstrip())
                continue
            match = _MATCH.match(line)
            if not match:
                raise MatFormatError(
                    f"expected the match length ('5 point match', '0 point match' for money "
                    f"play) or a ';' comment, found {stripped!r}",
                    number,
                )
            self.length = int(match["length"])
            self._read_tags()
            return number
        raise MatFormatError("no match length: a .mat file has a line like ' 5 point match'")

    def _flag(self, tag: str, default: bool) -> bool:
        if tag not in self.tags:
            return default
        value, line = self.tags[tag]
        if value.lower() in ("on", "yes", "true", "1"):
            return True
        if value.lower() in ("off", "no", "false", "0"):
            return False
        raise MatFormatError(f"[{tag.title()}] is On or Off, got {value!r}", line)

    def _read_tags(self) -> None:
        self.jacoby = self._flag("jacoby", False)
        self.beavers = self._flag("beaver", False)
        self.crawford = self._flag("crawford", True)
        self.cube = True
        if "cubelimit" in self.tags:
            value, line = self.tags["cubelimit"]
            if not value.isdigit() or int(value) < 1:
                raise MatFormatError(f"[CubeLimit] is a number, got {value!r}", line)
            self.cube = int(value) > 1
        if "forfeit" in self.tags:
            value, line = self.tags["forfeit"]
            parts = value.split()
            if len(parts) != 2 or parts[0] not in ("abandon", "timeout") or parts[1] not in "12":
                raise MatFormatError(
                    f"[Forfeit] is 'abandon' or 'timeout' and the player, 1 or 2, got "
                    f"{value!r}",
                    line,
                )
            self.forfeit = (parts[0], int(parts[1]) - 1, line)
        self.anew = self._flag("winnerrollsanew", False)
        self.throws: list[tuple[int, int]] = []
        if "openingthrows" in self.tags:
            value, line = self.tags["openingthrows"]
            pairs = value.split()
            if not all(len(p) == 2 and p[0] in "123456" and p[1] in "123456" and p[0] != p[1]
                       for p in pairs):
                raise MatFormatError(f"[OpeningThrows] is each game's deciding opening throw, "
                                     f"two different dice like '52 36', got {value!r}", line)
            self.throws = [(int(p[0]), int(p[1])) for p in pairs]
        names = [self.tags.get(f"player {n}", ("", 0))[0] for n in (1, 2)]
        if all(names):
            self.players = (names[0], names[1])

    def rules(self) -> Rules:
        line = self.tags.get("jacoby", self.tags.get("beaver", ("", None)))[1]
        return rules_from(length=self.length, cube=self.cube, crawford=self.crawford,
                          jacoby=self.jacoby, beavers=self.beavers,
                          winner_rolls_anew=self.anew, line=line, error=MatFormatError)

    def info(self) -> MatchInfo:
        date = None
        if "eventdate" in self.tags:
            value, line = self.tags["eventdate"]
            try:
                date = datetime.datetime.strptime(value.strip(), "%Y.%m.%d").date()
            except ValueError:
                raise MatFormatError(f"[EventDate] is YYYY.MM.DD, got {value!r}", line) from None
        while self.comment and not self.comment[-1]:
            self.comment.pop()
        while self.comment and not self.comment[0]:
            self.comment.pop(0)
        return MatchInfo(
            event=self.tags.get("event", ("", 0))[0],
            site=self.tags.get("site", ("", 0))[0],
            round=self.tags.get("round", ("", 0))[0],
            date=date,
            annotator=self.tags.get("transcriber", ("", 0))[0],
            comment="\n".join(self.comment),
        )


def _entries(row: str, line: int) -> list[tuple[int, str]]:
    """The entries of a move line, each with its column (0 left, 1 right)."""
    numbered = _NUMBERED.match(row)
    start = numbered.end() if numbered else 0
    found = list(_ENTRY.finditer(row, start))
    if not found:
        raise MatFormatError(f"cannot read {row.strip()!r}: expected a roll like '52: 13/8 "
                             f"24/22', a cube action or 'Wins N points'", line)
    if row[start:found[0].start()].strip():
        raise MatFormatError(f"cannot read {row[start:found[0].start()].strip()!r}", line)
    if len(found) > 2:
        raise MatFormatError(f"more than two entries on one line: {row.strip()!r}", line)
    texts = [
        row[match.start(): found[n + 1].start() if n + 1 < len(found) else len(row)].strip()
        for n, match in enumerate(found)
    ]
    if len(texts) == 2:
        return [(0, texts[0]), (1, texts[1])]
    return [(1 if found[0].start() > _RIGHT_COLUMN else 0, texts[0])]
