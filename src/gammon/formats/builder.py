"""The one match-record builder behind every match-file reader.

A reader (:mod:`gammon.formats.mat`, :mod:`gammon.formats.sgf`) only parses its syntax: it
turns a file into a list of neutral **steps** (:class:`StartGame`, :class:`Rolled`,
:class:`Cube`, :class:`Answer`, :class:`Offer`, :class:`Result`, :class:`EndGame`,
:class:`Forfeit`), each with the line it came from, and hands them to :func:`build`. The
builder plays them through the core (:class:`~gammon.core.match.Match`), so the rules —
the opening, beavers, resignations, the score each game starts at, the Crawford game,
forfeits, what a game was won at — are applied once, the same way for every format, and
every refusal is one error type, :class:`MatchFileError`, naming the line:

>>> from gammon.core.dice import Roll
>>> from gammon.core.match import Rules
>>> steps = [
...     StartGame(line=3, players=('Alice', 'Bob'), score=(0, 0)),
...     Rolled(line=4, player=0, roll=Roll(3, 1), play=WrittenPlay(((8, 5), (6, 5)))),
...     Rolled(line=4, player=1, roll=Roll(5, 2), play=None),
...     Rolled(line=5, player=0, roll=Roll(6, 4), play=None),
... ]
>>> build(steps, Rules(length=3))
Traceback (most recent call last):
...
gammon.formats.builder.MatchFileError: line 4: player 2 rolled 52 and has legal plays, \
but no play is written (and no resignation follows)
>>> record = build(steps[:2], Rules(length=3))
>>> record.players, len(record.games[0].actions)
(('Alice', 'Bob'), 2)

What the files say and how it is read (GNU Backgammon's reading where it has one):

* **the opening**: a game's first roll is its opening, by the player who moves first; it
  cannot be a double, and its deciding throw is that roll (the higher die moves first)
  unless the match is played with "winner rolls anew", when the file gives the throw
  (:attr:`StartGame.opening_throw`) and the roll is the winner's new one;
* **a roll with nothing played**: the roll cannot be played, or its player resigns (or
  offers to) before playing; anything else after it is refused. The last game may stop
  there (a match in progress);
* **cube actions**: a double offered to the player who writes a double is a beaver (money
  play; a beaver in a money session whose file does not say beavers are on turns them on,
  as GNU Backgammon keeps that setting out of its files); the doubler's take right after
  it is the beaver's acceptance, which the core's beaver includes; a redouble right after
  a beaver (a raccoon) is refused;
* **results**: points stated for a game the moves ended must be the points it scored, or
  the level times the cube (they differ only for a Jacoby-rule gammon: gammon's writers and
  GNU Backgammon's SGF write the first, GNU Backgammon's ``.mat`` export the second);
  points stated for a game the moves did not end are a resignation by the other player on
  their turn, read as GNU Backgammon reads them: the cube, twice or three times the cube is
  a single, gammon or backgammon (:func:`~gammon.core.cube.resigned_level`), anything else
  is refused;
* **score continuity**: each game after the first must start at the score the games before
  it end at, except under the Jacoby rule (GNU Backgammon scores an accepted resignation at
  its full level there, gammon's core single while the cube is centred); the first game
  may start at any score, post-Crawford if the file says the game at a Crawford score is
  not the Crawford game;
* **forfeits** (abandon, timeout) come last and end the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

from gammon.core import actions
from gammon.core.cube import Level, resigned_level
from gammon.core.dice import OpeningRoll, Roll, deciding_throw
from gammon.core.events import EndKind
from gammon.core.game import Phase
from gammon.core.match import Match, Rules, is_crawford_game
from gammon.core.moves import IllegalPlayError, Play
from gammon.core.notation import NotationError, parse_play
from gammon.core.position import Position
from gammon.formats.matchfile import (
    IncompletePlayError,
    MatchInfo,
    MatchRecord,
    MatchRecordError,
    play_from_steps,
    points_written,
)

__all__ = [
    "Answer",
    "Cube",
    "EndGame",
    "Forfeit",
    "MatchFileError",
    "Offer",
    "Result",
    "Rolled",
    "StartGame",
    "Step",
    "WrittenPlay",
    "build",
    "rules_from",
]


class MatchFileError(ValueError):
    """A match file that cannot be read, or a match it cannot hold.

    ``line`` is the 1-based line the error is on, when there is one. Each format raises its
    own subclass (:class:`~gammon.formats.mat.MatFormatError`,
    :class:`~gammon.formats.sgf.SgfFormatError`).
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line


# -- the steps ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WrittenPlay:
    """A play as a file writes it: single-checker ``steps`` (source, destination) one die
    each, in order (25 the bar, 0 off); ``notation``, when the file's text may join moves
    (``24/16``, ``13/11(2)``), to read it by if the steps are not a play; ``hits``, the
    points marked as hits (a mark must be a hit, a hit need not be marked)."""

    steps: tuple[tuple[int, int], ...]
    notation: str | None = None
    hits: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class StartGame:
    """A game starts: the names and the score the file gives; ``length`` the match length
    if the file repeats it per game; ``crawford`` whether the file marks this game the
    Crawford game (``None``: the file does not say); ``opening_throw`` the deciding opening
    throw (player 0's die first) of a "winner rolls anew" game."""

    line: int | None
    players: tuple[str, str]
    score: tuple[int, int]
    length: int | None = None
    crawford: bool | None = None
    opening_throw: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Rolled:
    """``player`` rolled ``roll`` and played ``play`` (``None``: nothing written).
    ``player`` ``None`` is the player on turn. ``text`` is the file's own text of the
    entry, for messages."""

    line: int | None
    player: int | None
    roll: Roll
    play: WrittenPlay | None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Cube:
    """A cube action: ``double`` (an offer, or a beaver by the player doubled), ``beaver``
    (said as one) or ``raccoon``; ``value`` the cube value the file says it goes to."""

    line: int | None
    player: int
    kind: Literal["double", "beaver", "raccoon"] = "double"
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """``player`` takes or drops the double."""

    line: int | None
    player: int
    take: bool


@dataclass(frozen=True, slots=True)
class Offer:
    """``player`` offers to resign at ``level``; the offer is ``refused``, or else left
    unanswered (the record ends with it)."""

    line: int | None
    player: int
    level: Level
    refused: bool


@dataclass(frozen=True, slots=True)
class Result:
    """The file says ``winner`` won ``points``; ``resigned``: whether it says the loser
    resigned (``None``: the file does not say)."""

    line: int | None
    winner: int
    points: int
    resigned: bool | None = None


@dataclass(frozen=True, slots=True)
class EndGame:
    """The file's text of the current game ends (``line``: where, for messages)."""

    line: int | None


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``player`` lost the match by abandoning or running out of time."""

    line: int | None
    player: int
    kind: Literal["abandon", "timeout"]


Step: TypeAlias = StartGame | Rolled | Cube | Answer | Offer | Result | EndGame | Forfeit


# -- building -----------------------------------------------------------------------------


def rules_from(
    *,
    length: int,
    cube: bool = True,
    crawford: bool = True,
    jacoby: bool = False,
    beavers: bool = False,
    winner_rolls_anew: bool = False,
    line: int | None = None,
    error: type[MatchFileError] = MatchFileError,
) -> Rules:
    """The rules a file states (a money session always reads ``crawford`` on)."""
    if length and (jacoby or beavers):
        raise error(f"the Jacoby rule and beavers are money-play options, but this is a "
                    f"{length} point match", line)
    return Rules(length=length, cube=cube, crawford=crawford or not length, jacoby=jacoby,
                 beavers=beavers, winner_rolls_anew=winner_rolls_anew)


def build(
    steps: Sequence[Step],
    rules: Rules,
    *,
    players: tuple[str, str] = ("Player 1", "Player 2"),
    info: MatchInfo | None = None,
    error: type[MatchFileError] = MatchFileError,
    opening_throws: str = "the file",
) -> MatchRecord:
    """The record of the match ``steps`` describe under ``rules`` (see the module doc).

    ``players`` are the names when no game gives them; ``error`` the error type raised;
    ``opening_throws`` names where the format keeps "winner rolls anew" openings' throws,
    for messages.
    """
    try:
        return _Builder(rules, error, opening_throws).run(steps, players, info)
    except _BeaversPlayed:
        beavers = replace(rules, beavers=True)
        return _Builder(beavers, error, opening_throws).run(steps, players, info)


class _BeaversPlayed(Exception):
    """A beaver in a money session whose file does not say beavers are allowed."""


def _side(player: int) -> str:
    return f"player {player + 1}"


def _points(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


class _Builder:
    """Plays the steps through the core."""

    def __init__(self, rules: Rules, error: type[MatchFileError], throws: str) -> None:
        self.rules = rules
        self.error = error
        self.throws = throws
        self.match = Match.new(rules)
        self.actions: list[actions.Action] = []
        self.players: tuple[str, str] | None = None
        self.start_score = (0, 0)
        self.crawford_reached = False
        self.games = 0  # games started
        self.game: StartGame | None = None  # the game being read
        self.started = False  # its opening is played
        self.ended_at: int | None = None  # where the previous game's text ended
        self.pending: tuple[int, Roll, int | None] | None = None  # rolled, nothing played
        self.beaver_by: int | None = None  # the doubler, right after a beaver
        self.open_offer = False  # an unanswered resign offer: nothing may follow
        self.forfeit: actions.Abandon | actions.Timeout | None = None

    def run(self, steps: Sequence[Step], players: tuple[str, str],
            info: MatchInfo | None) -> MatchRecord:
        for step in steps:
            self.step(step)
        try:
            return MatchRecord.from_match_actions(
                [*self.actions, self.forfeit] if self.forfeit is not None else self.actions,
                rules=self.rules,
                players=self.players or players,
                info=info,
                score=self.start_score,
                crawford_reached=self.crawford_reached,
            )
        except MatchRecordError as error:  # pragma: no cover - the builder replays as it goes
            raise self.error(str(error)) from error

    def apply(self, action: actions.Action, line: int | None) -> None:
        try:
            self.match, _ = self.match.apply(action)
        except ValueError as error:
            raise self.error(str(error), line) from error
        self.actions.append(action)

    # -- one step -------------------------------------------------------------------------

    def step(self, step: Step) -> None:
        if self.forfeit is not None:
            raise self.error("nothing may follow a forfeit", step.line)
        if isinstance(step, StartGame):
            self.start_game(step)
            return
        if isinstance(step, Forfeit):
            self.lose(step)
            return
        if self.game is None:
            raise self.error("a game's moves come after its start", step.line)
        if isinstance(step, EndGame):
            self.end_game(step)
            return
        if self.open_offer:
            raise self.error("nothing may follow an unanswered resign offer", step.line)
        if not self.started and not isinstance(step, Rolled):
            raise self.error("the game starts with the opening roll", step.line)
        beaver_by, self.beaver_by = self.beaver_by, None
        game = self.match.game
        if self.started and game.phase is Phase.GAME_OVER:
            if isinstance(step, Result):
                self.check_result(step)
                return
            player = step.player if step.player is not None else game.turn
            raise self.error(f"the game is over, but {_side(player)} goes on", step.line)
        if self.pending is not None and not self.may_follow_a_roll(step):
            self.unplayed()
        if isinstance(step, Rolled):
            self.roll(step)
        elif isinstance(step, Cube):
            self.cube(step, beaver_by)
        elif isinstance(step, Answer):
            if step.take and beaver_by == step.player:
                return  # the doubler accepts the beaver: the core's beaver includes it
            answer = actions.Take if step.take else actions.Drop
            self.apply(answer(step.player), step.line)
        elif isinstance(step, Offer):
            self.apply(actions.OfferResign(step.player, step.level), step.line)
            if step.refused:
                self.apply(actions.RejectResign(1 - step.player), step.line)
            else:
                self.open_offer = True
        else:
            self.resignation(step)

    def may_follow_a_roll(self, step: Step) -> bool:
        """After a roll with nothing played: its play, or its player's resignation."""
        assert self.pending is not None
        player = self.pending[0]
        if isinstance(step, Rolled):
            return step.player in (None, player)
        return isinstance(step, Result | Offer)

    def unplayed(self) -> None:
        assert self.pending is not None
        player, roll, line = self.pending
        raise self.error(
            f"{_side(player)} rolled {roll} and has legal plays, but no play is written "
            f"(and no resignation follows)",
            line,
        )

    # -- games ----------------------------------------------------------------------------

    def start_game(self, step: StartGame) -> None:
        number = self.games + 1
        if self.games:
            self.finish_previous()
        if step.length is not None and step.length != self.rules.length:
            raise self.error(
                f"game {number} is from a {step.length} point match, the first game from a "
                f"{self.rules.length} point match",
                step.line,
            )
        if self.players is None:
            self.players = step.players
            self.start_at(step)
        elif step.players != self.players:
            raise self.error(
                f"the players change from {self.players[0]!r} and {self.players[1]!r} to "
                f"{step.players[0]!r} and {step.players[1]!r}",
                step.line,
            )
        if self.match.is_over:
            raise self.error(f"the match is over before game {number}", step.line)
        if not self.rules.jacoby and step.score != self.match.score:
            # under the Jacoby rule GNU Backgammon scores an accepted resignation at its
            # full level, gammon's core single while the cube is centred: tallies may differ
            before = self.match.score
            raise self.error(
                f"game {number} starts at {step.score[0]}-{step.score[1]}, but the games "
                f"before it end at {before[0]}-{before[1]}",
                step.line,
            )
        self.games = number
        self.game = step
        self.started = False
        self.pending = None
        self.beaver_by = None

    def start_at(self, step: StartGame) -> None:
        """The first game: the match may start at any score."""
        score = step.score
        rules = self.rules
        at_crawford = is_crawford_game(rules, score, reached=False)
        self.crawford_reached = at_crawford and step.crawford is False
        if score == (0, 0) and not self.crawford_reached:
            return
        try:
            self.match = Match.new(rules, score=score, crawford_reached=self.crawford_reached)
        except ValueError as error:
            raise self.error(str(error), step.line) from error
        self.start_score = score

    def end_game(self, step: EndGame) -> None:
        assert self.game is not None
        if not self.started:
            raise self.error(f"game {self.games} has no moves", step.line)
        marked = self.game.crawford
        if marked is not None and marked != self.match.game.crawford:
            raise self.error(
                f"game {self.games} is marked the Crawford game, but it is not"
                if marked
                else f"game {self.games} is the Crawford game, but the file does not mark it",
                step.line,
            )
        self.ended_at = step.line

    def finish_previous(self) -> None:
        """Before another game: the one before it must be over."""
        if self.pending is not None:
            self.unplayed()
        if self.open_offer or self.match.game.phase is not Phase.GAME_OVER:
            raise self.error(f"game {self.games} is not over, but another game follows",
                             self.ended_at)

    def lose(self, step: Forfeit) -> None:
        player = step.player
        forfeit = (actions.Abandon if step.kind == "abandon" else actions.Timeout)(player)
        try:
            self.match, _ = self.match.apply(forfeit)
        except ValueError as error:
            raise self.error(str(error), step.line) from error
        self.forfeit = forfeit

    # -- moves ----------------------------------------------------------------------------

    def roll(self, step: Rolled) -> None:
        game = self.match.game
        player = step.player if step.player is not None else game.turn
        roll = step.roll
        if self.pending is not None:  # the play of the roll already written
            if roll != self.pending[1]:
                raise self.error(f"{_side(player)} has rolled {self.pending[1]} and plays "
                                 f"{roll}", step.line)
            self.pending = None
        elif not self.started:
            self.apply(actions.RollOpening(OpeningRoll(player, roll, (self.throw(player, roll,
                                                                         step.line),))),
                       step.line)
            self.started = True
        else:
            self.apply(actions.RollDice(player, roll), step.line)
        game = self.match.game
        if step.play is None:
            if game.phase is Phase.MOVING:
                self.pending = (player, roll, step.line)
            return
        if game.phase is not Phase.MOVING:
            raise self.error(f"{_side(player)} cannot move with {roll} here, but the file "
                             f"plays {step.text or 'a play'}", step.line)
        play = self.play(game.position, roll, step.play, step.text, step.line)
        self.apply(actions.PlayMove(player, play), step.line)

    def throw(self, player: int, roll: Roll, line: int | None) -> tuple[int, int]:
        """The opening's deciding throw (see the module doc)."""
        assert self.game is not None
        if self.rules.winner_rolls_anew:
            if self.game.opening_throw is None:
                raise self.error(f"the winner rolls anew, but {self.throws} gives no deciding "
                                 f"opening throw for game {self.games}", line)
            return self.game.opening_throw
        if roll.is_double():
            raise self.error(f"the opening roll cannot be a double: {roll}", line)
        return deciding_throw(player, roll)

    def play(self, position: Position, roll: Roll, written: WrittenPlay, text: str,
             line: int | None) -> Play:
        label = f"{text}: " if text else ""
        try:
            play = play_from_steps(position, roll, written.steps)
        except IncompletePlayError as error:  # the moves can be played, but leave dice unused
            raise self.error(f"{label}{error}", line) from error
        except IllegalPlayError as error:
            if written.notation is None:
                raise self.error(f"{label}{error}", line) from error
            # perhaps joined moves with the way unwritten, like 24/16: resolve by notation
            try:
                play = parse_play(position, roll, written.notation)
            except (IllegalPlayError, NotationError) as failure:
                raise self.error(f"{roll}: {written.notation!r} is not a legal play here: "
                                 f"{failure}", line) from failure
        hit = {move.destination for move in play.moves if move.hit}
        if written.hits - hit:
            points = ", ".join(map(str, sorted(written.hits - hit)))
            raise self.error(f"{label}marks a hit on {points}, but the play hits no checker "
                             f"there", line)
        return play

    def cube(self, step: Cube, beaver_by: int | None) -> None:
        if step.kind == "raccoon" or (beaver_by is not None and step.player == beaver_by):
            raise self.error("raccoons (a redouble after a beaver) are not in gammon's rules",
                             step.line)
        game = self.match.game
        if game.can_take(step.player):  # a double by the player doubled: a beaver
            if game.rules.is_money and not game.rules.beavers:
                raise _BeaversPlayed
            self.apply(actions.Beaver(step.player), step.line)
            expected = self.match.game.cube.value
            self.beaver_by = game.turn
        elif step.kind == "beaver":
            raise self.error(f"{_side(step.player)} beavers, but no double is offered to them",
                             step.line)
        else:
            expected = 2 * game.cube.value
            self.apply(actions.OfferDouble(step.player), step.line)
        if step.value is not None and step.value != expected:
            raise self.error(f"the cube goes to {expected} here, not {step.value}", step.line)

    # -- results --------------------------------------------------------------------------

    def resignation(self, step: Result) -> None:
        winner, points, loser = step.winner, step.points, 1 - step.winner
        if step.resigned is False:
            raise self.error(f"the file says {_side(winner)} won {_points(points)} without a "
                             f"resignation, but the moves do not end the game", step.line)
        game = self.match.game
        if game.phase not in (Phase.BEFORE_ROLL, Phase.MOVING) or game.to_act != loser:
            raise self.error(
                f"{_side(winner)} wins {_points(points)} before the game is over, so "
                f"{_side(loser)} resigns; gammon's rules allow resigning only on one's own "
                f"turn, before the roll or the play",
                step.line,
            )
        cube = game.cube.value
        level = resigned_level(points, cube)
        if level is None:
            raise self.error(
                f"{_side(winner)} wins {_points(points)} by a resignation, but with the cube "
                f"at {cube} a resignation wins {cube}, {2 * cube} or {3 * cube}",
                step.line,
            )
        self.pending = None
        self.apply(actions.OfferResign(loser, level), step.line)
        if level.needs_answer:  # a backgammon offer is accepted by itself
            self.apply(actions.AcceptResign(winner), step.line)

    def check_result(self, step: Result) -> None:
        result = self.match.game.result
        assert result is not None
        stated = {points_written(result), int(result.level) * result.cube}  # see the doc
        resigned_ok = step.resigned is None or step.resigned == (result.kind is EndKind.RESIGN)
        if result.winner != step.winner or step.points not in stated or not resigned_ok:
            how = " by a resignation" if step.resigned else ""
            raise self.error(
                f"the file says {_side(step.winner)} wins {_points(step.points)}{how}, but "
                f"the game ended with {_side(result.winner)} winning "
                f"{_points(result.points)} ({result.kind})",
                step.line,
            )
