"""A format-neutral match record: the players, the rules and every game's actions.

A :class:`MatchRecord` is what the match-file codecs (:mod:`gammon.formats.mat`,
:mod:`gammon.formats.sgf`) read and write, and what the server and the analysis build from
the actions a match went through. It holds the core's own action values
(:mod:`gammon.core.actions`), so replaying a record through
:meth:`Match.apply <gammon.core.match.Match.apply>` checks it and rebuilds every position:

>>> from gammon.core.actions import PlayMove, RollDice, RollOpening
>>> from gammon.core.dice import OpeningRoll, Roll
>>> from gammon.core.match import Rules
>>> actions = [
...     RollOpening(OpeningRoll(first=0, roll=Roll(3, 1), throws=((3, 1),))),
...     PlayMove(0, '8/5 6/5'),
...     RollDice(1, Roll(5, 2)),
...     PlayMove(1, '13/8 13/11'),
... ]
>>> record = MatchRecord.from_match_actions(actions, rules=Rules(length=5),
...                                         players=('Alice', 'Bob'))
>>> len(record.games), len(record.games[0].actions), record.games[0].score
(1, 4, (0, 0))
>>> str(record.games[0].actions[1].play)
'8/5 6/5'
>>> record.replay().game.turn
0

A record is canonical, so equal matches give equal records whatever way they were played:

* a turn is one :class:`~gammon.core.actions.PlayMove` holding the legal
  :class:`~gammon.core.moves.Play` it reached, however it was entered (whole, as notation,
  or checker by checker with undos and a confirmation);
* a roll that cannot be played has no :class:`~gammon.core.actions.PlayMove` (the core passes
  the turn by itself), and a resignation accepted in the middle of a turn drops the steps
  played before it (they change nothing);
* an opening keeps only its deciding throw: tied opening throws are not part of a record,
  as neither a ``.mat`` nor an SGF file can hold them;
* the rules keep what decides play: the match length, the cube, the Crawford rule, Jacoby,
  beavers and ``winner_rolls_anew``. Each player's own options (``confirm_turn``,
  ``auto_roll``) are dropped, and a money session (where no game is ever the Crawford game)
  always reads ``crawford=True``. With ``winner_rolls_anew`` an opening's roll is the
  winner's new roll, not its deciding throw: match files write that roll as the first
  move's dice (what GNU Backgammon imports) and keep the throw in an extension of their own.

Abandoning or running out of time ends the whole match; it is kept apart as
:attr:`MatchRecord.forfeit`, applied after the last game's actions.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import IO

from gammon.core.actions import (
    Abandon,
    AcceptResign,
    Action,
    Beaver,
    ConfirmPlay,
    Drop,
    MoveChecker,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    RollDice,
    RollOpening,
    Take,
    Timeout,
    UndoStep,
)
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.events import EndKind, Event, GameEnded, GameStarted, TurnEnded
from gammon.core.game import Phase
from gammon.core.match import Match, Rules
from gammon.core.moves import IllegalPlayError, Play, legal_plays, play_steps
from gammon.core.position import BAR, Position

__all__ = [
    "GameRecord",
    "IncompletePlayError",
    "MatchInfo",
    "MatchRecord",
    "MatchRecordError",
    "ReplayStep",
    "normalized_rules",
    "play_from_steps",
    "points_written",
    "rolled",
    "write_text",
]


class IncompletePlayError(IllegalPlayError):
    """Checker moves that can be played one by one but are not a whole legal play of the
    roll (they leave dice unplayed that could be played)."""


class MatchRecordError(ValueError):
    """A match record the rules refuse: an illegal action, or stored scores, Crawford marks
    or results that disagree with what replaying the actions gives."""


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What a match file says about the match besides the play (all optional).

    ``site`` is where it was played; ``annotator`` who transcribed or annotated it;
    ``comment`` free text, lines separated by ``\\n``.
    """

    event: str = ""
    site: str = ""
    round: str = ""
    date: datetime.date | None = None
    annotator: str = ""
    comment: str = ""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: the score when it started, whether it is the Crawford game, its actions in
    order and how it ended (``result`` is ``None`` while it is unfinished).

    The fields other than ``actions`` follow from replaying the match; build records with
    :meth:`MatchRecord.from_match_actions` and they are filled in for you.
    """

    actions: tuple[Action, ...]
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    result: GameEnded | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def winner(self) -> int | None:
        return None if self.result is None else self.result.winner


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One action of a replay: the match ``before`` and ``after`` it and its events.

    ``game`` is the index in :attr:`MatchRecord.games` of the game the action belongs to
    (``len(games)`` for a forfeit that comes between games or before any).
    """

    game: int
    action: Action
    before: Match
    after: Match
    events: tuple[Event, ...]


def normalized_rules(rules: Rules) -> Rules:
    """The part of ``rules`` a match record keeps (see the module doc).

    >>> normalized_rules(Rules(length=0, crawford=False, confirm_turn=(True, False)))
    Rules(length=0, cube=True, crawford=True, jacoby=False, beavers=False, \
winner_rolls_anew=False, confirm_turn=(False, False), auto_roll=(False, False))
    """
    if not isinstance(rules, Rules):
        raise MatchRecordError(f"rules must be gammon.core.match.Rules, got {rules!r}")
    return Rules(
        length=rules.length,
        cube=rules.cube,
        crawford=rules.crawford or rules.length == 0,
        jacoby=rules.jacoby,
        beavers=rules.beavers,
        winner_rolls_anew=rules.winner_rolls_anew,
    )


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A whole match or money session (``rules.length`` 0): see the module doc.

    ``players`` are the names of player 0 and player 1 (GNU Backgammon's "O" and "X", the
    left and right columns of a ``.mat`` file, White and Black in SGF).
    """

    rules: Rules
    players: tuple[str, str] = ("Player 1", "Player 2")
    games: tuple[GameRecord, ...] = ()
    forfeit: Abandon | Timeout | None = None
    info: MatchInfo = field(default_factory=MatchInfo)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise MatchRecordError(f"rules must be gammon.core.match.Rules, got {self.rules!r}")
        if normalized_rules(self.rules) != self.rules:
            raise MatchRecordError(
                f"a record's rules are normalized (see normalized_rules): {self.rules!r}"
            )
        if (
            not isinstance(self.players, tuple)
            or len(self.players) != 2
            or not all(isinstance(name, str) for name in self.players)
        ):
            raise MatchRecordError(f"players are two names, got {self.players!r}")
        if not isinstance(self.games, tuple) or not all(
            isinstance(game, GameRecord) for game in self.games
        ):
            raise MatchRecordError("games must be a tuple of GameRecord")
        if self.forfeit is not None and not isinstance(self.forfeit, Abandon | Timeout):
            raise MatchRecordError(f"a forfeit is Abandon or Timeout, got {self.forfeit!r}")

    # -- building -------------------------------------------------------------------------

    @classmethod
    def from_match_actions(
        cls,
        actions: Iterable[Action],
        *,
        rules: Rules,
        players: tuple[str, str] = ("Player 1", "Player 2"),
        info: MatchInfo | None = None,
        score: tuple[int, int] = (0, 0),
        crawford_reached: bool = False,
    ) -> MatchRecord:
        """The record of a match that went through ``actions`` from ``Match.new(rules,
        score=score, crawford_reached=crawford_reached)``.

        ``actions`` are any the core accepts (steps, undos, confirmations, whole plays as
        :class:`~gammon.core.moves.Play` or notation); the record keeps them canonical (see
        the module doc). Raises :class:`MatchRecordError` naming the first action the rules
        refuse.
        """
        kept = normalized_rules(rules)
        games, forfeit, _ = _record(_new_match(rules, score, crawford_reached), actions)
        if kept != rules:  # replay again under the rules the record keeps
            flat = [action for game in games for action in game.actions]
            games, forfeit, _ = _record(
                _new_match(kept, score, crawford_reached),
                [*flat, forfeit] if forfeit is not None else flat,
            )
        return cls(
            rules=kept,
            players=players,
            games=games,
            forfeit=forfeit,
            info=info if info is not None else MatchInfo(),
        )

    # -- questions ------------------------------------------------------------------------

    @property
    def length(self) -> int:
        """The match length, ``0`` for a money session."""
        return self.rules.length

    @property
    def is_money(self) -> bool:
        return self.rules.is_money

    def actions(self) -> tuple[Action, ...]:
        """Every action of the match in order, the forfeit last."""
        flat = [action for game in self.games for action in game.actions]
        if self.forfeit is not None:
            flat.append(self.forfeit)
        return tuple(flat)

    def start_score(self) -> tuple[int, int]:
        """The score before the first game (``(0, 0)`` unless the record starts mid-match)."""
        return self.games[0].score if self.games else (0, 0)

    def new_match(self) -> Match:
        """The state the match starts from, before its first action."""
        score = self.start_score()
        crawford_reached = bool(
            self.games
            and not self.games[0].crawford
            and self.rules.crawford
            and self.rules.length > 1
            and self.rules.length - 1 in score
        )
        return _new_match(self.rules, score, crawford_reached)

    def steps(self) -> Iterator[ReplayStep]:
        """Replay the match action by action, with the state before and after each.

        Raises :class:`MatchRecordError` at the first action the rules refuse.
        """
        match = self.new_match()
        for number, game in enumerate(self.games):
            for action in game.actions:
                after, events = _apply(match, action, f"game {number + 1}")
                yield ReplayStep(number, action, match, after, events)
                match = after
        if self.forfeit is not None:
            index = len(self.games) - 1 if self.games and not self.games[-1].is_over else len(
                self.games
            )
            after, events = _apply(match, self.forfeit, "the forfeit")
            yield ReplayStep(index, self.forfeit, match, after, events)

    def without_open_resignations(self) -> MatchRecord:
        """This record without the resign offers that were refused or are still unanswered.

        A ``.mat`` file cannot hold them (GNU Backgammon drops them from its files too);
        leaving them out keeps every other action legal, since a refused offer only forbids
        lower offers for the rest of that turn.
        """
        games = tuple(
            replace(game, actions=tuple(_without_open_offers(game.actions)))
            for game in self.games
        )
        return replace(self, games=games)

    def replay(self) -> Match:
        """The final state of the match, after checking the record: every action legal, and
        the stored scores, Crawford marks and results what the replay gives.

        Raises :class:`MatchRecordError` saying what disagrees.
        """
        games, forfeit, final = _record(self.new_match(), self.actions())
        if forfeit != self.forfeit:
            raise MatchRecordError(f"the record's forfeit {self.forfeit!r} is not the one "
                                   f"its actions end with, {forfeit!r}")
        if len(games) != len(self.games):
            raise MatchRecordError(
                f"the record holds {len(self.games)} games, replaying its actions gives "
                f"{len(games)}"
            )
        for number, (stored, replayed) in enumerate(zip(self.games, games, strict=True), 1):
            for name in ("score", "crawford", "result"):
                if getattr(stored, name) != getattr(replayed, name):
                    raise MatchRecordError(
                        f"game {number}: the record says {name} {getattr(stored, name)!r}, "
                        f"replaying gives {getattr(replayed, name)!r}"
                    )
        return final


# -- replay machinery ---------------------------------------------------------------------


def _new_match(rules: Rules, score: tuple[int, int], crawford_reached: bool) -> Match:
    try:
        return Match.new(rules, score=score, crawford_reached=crawford_reached)
    except ValueError as error:
        raise MatchRecordError(str(error)) from error


def _apply(match: Match, action: Action, where: str) -> tuple[Match, tuple[Event, ...]]:
    try:
        return match.apply(action)
    except (ValueError, TypeError) as error:
        raise MatchRecordError(f"{where}: {action!r} is refused: {error}") from error


def _record(
    match: Match, actions: Iterable[Action]
) -> tuple[tuple[GameRecord, ...], Abandon | Timeout | None, Match]:
    """Replay ``actions`` into canonical game records (see the module doc); also the
    forfeit, kept apart, and the final state."""
    games: list[GameRecord] = []
    current: list[Action] = []
    forfeit: Abandon | Timeout | None = None
    plays: tuple[Play, ...] = ()
    for index, action in enumerate(actions):
        if forfeit is not None:
            raise MatchRecordError(f"action {index}: nothing may follow {forfeit!r}")
        before = match
        match, events = _apply(match, action, f"action {index}")
        started = [event for event in events if isinstance(event, GameStarted)]
        if started:
            games.append(GameRecord((), before.score, started[0].crawford))
            current = []
        kept: list[Action] = []
        if isinstance(action, Abandon | Timeout):
            forfeit = action
        elif isinstance(action, RollOpening):
            opening = action.opening
            kept.append(RollOpening(OpeningRoll(opening.first, opening.roll,
                                                (opening.throws[-1],))))
        elif isinstance(action, RollDice | OfferDouble | Take | Drop | Beaver | OfferResign
                        | AcceptResign | RejectResign):
            kept.append(action)
        elif not isinstance(action, PlayMove | MoveChecker | UndoStep | ConfirmPlay):
            raise MatchRecordError(f"action {index}: not a match action: {action!r}")
        if isinstance(action, RollOpening | RollDice) and match.game.phase is Phase.MOVING:
            plays = match.game.plays
        for event in events:
            if isinstance(event, TurnEnded) and event.moves:
                reached = match.game.board(event.player)
                found = [play for play in plays if play.position == reached]
                assert found, "the core ended a turn on a position that is not a legal play"
                kept.append(PlayMove(event.player, found[0]))
        ended = [event for event in events if isinstance(event, GameEnded)]
        if games and (kept or ended):
            current += kept
            games[-1] = replace(
                games[-1], actions=tuple(current), result=ended[0] if ended else games[-1].result
            )
    return tuple(games), forfeit, match


# -- plays from files ---------------------------------------------------------------------


def play_from_steps(
    position: Position, roll: Roll, steps: Sequence[tuple[int, int]]
) -> Play:
    """The legal play of ``roll`` that moves single checkers ``(source, destination)`` one
    die at a time, in order (``25`` is the bar, ``0`` off), as match files write plays.

    Hits need not be marked: the board says where they happen. Raises
    :class:`~gammon.core.moves.IllegalPlayError` if the steps are not, together, a legal
    play of the whole roll.

    >>> from gammon.core.position import Position
    >>> str(play_from_steps(Position.initial(), Roll(3, 1), [(8, 5), (6, 5)]))
    '8/5 6/5'
    """
    plays = legal_plays(position, roll)
    walked = play_steps(position, steps, roll.moves())
    reached = None if walked is None else walked[-1][2] if walked else position
    if reached is None:
        text = " ".join(f"{_name(a)}/{_name(b, off=True)}" for a, b in steps) or "no move"
        raise IllegalPlayError(f"{text!r} cannot be played step by step with {roll}")
    for play in plays:
        if play.position == reached:
            return play
    text = " ".join(f"{_name(a)}/{_name(b, off=True)}" for a, b in steps) or "no move"
    raise IncompletePlayError(
        f"{text!r} is not a legal play of {roll}: as much of the roll as possible must be "
        f"played (both dice if possible, else the higher)"
    )


def _name(point: int, *, off: bool = False) -> str:
    if point == BAR:
        return "bar"
    if point == 0 and off:
        return "off"
    return str(point)


def points_written(result: GameEnded) -> int:
    """The points a match file writes for a finished game (``.mat``'s ``Wins N points``,
    SGF's ``RE``), the same in both: the points the game scored, as GNU Backgammon scores
    it and writes it in SGF (under the Jacoby rule a gammon with the cube never turned
    scores single), except for a resignation: the level resigned times the cube, as both
    formats say the level (GNU Backgammon reads it back as points / cube, and scores it so
    even under the Jacoby rule, where gammon's core counts it single).

    GNU Backgammon's ``.mat`` export writes the level times the cube for every game (a
    Jacoby gammon as 2 points, though the next game's score counts 1); the readers accept
    that too (:mod:`gammon.formats.builder`).

    >>> from gammon.core.cube import Level
    >>> jacoby_gammon = GameEnded(0, 1, EndKind.GAMMON, Level.GAMMON, 1)
    >>> resigned = GameEnded(0, 1, EndKind.RESIGN, Level.GAMMON, 1)
    >>> points_written(jacoby_gammon), points_written(resigned)
    (1, 2)
    """
    if result.kind is EndKind.RESIGN:
        return int(result.level) * result.cube
    return result.points


def rolled(action: RollOpening | RollDice) -> tuple[int, Roll]:
    """Who plays the roll of a record's roll action, and the roll: an opening's winner (with
    ``winner_rolls_anew``, its new roll), or the side that rolled. Both writers write it as
    the turn's dice.

    >>> rolled(RollOpening(OpeningRoll(first=1, roll=Roll(5, 2), throws=((2, 5),))))
    (1, Roll(5, 2))
    """
    if isinstance(action, RollOpening):
        return action.opening.first, action.opening.roll
    return action.player, action.roll


def write_text(text: str, target: str | os.PathLike[str] | IO[str]) -> None:
    """Write a match file's ``text`` to a path (UTF-8, ``\\n`` line ends) or an open text
    file: how both writers' ``dump`` writes."""
    if isinstance(target, str | os.PathLike):
        with open(target, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    else:
        target.write(text)


def _without_open_offers(actions: Sequence[Action]) -> list[Action]:
    """``actions`` without resign offers that were not accepted, and the refusals."""
    kept: list[Action] = []
    for index, action in enumerate(actions):
        if isinstance(action, RejectResign):
            continue
        if (
            isinstance(action, OfferResign)
            and action.level.needs_answer  # a backgammon offer is accepted by itself
            and not (index + 1 < len(actions) and isinstance(actions[index + 1], AcceptResign))
        ):
            continue
        kept.append(action)
    return kept
