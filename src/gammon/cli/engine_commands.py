"""The engine's commands: ``gammon hint``, ``gammon rollout`` and ``gammon play``.

``gammon hint POSITION_ID DICE`` ranks the legal plays, best first (the first is the play
the bot makes), each with its cubeless equity, the five probabilities and the ply it was
evaluated at; without a position it reads ``POSITION_ID DICE`` lines from standard input and
answers each with one JSON array, flushed per line, as ``gammon moves`` does.
``gammon rollout POSITION_ID`` plays the position out many times (0-ply play) and reports
the mean probabilities with their standard errors. ``gammon play`` is a game (or match)
against the bot in the terminal, played through the core's :class:`~gammon.core.match.Match`
state machine.

The engine is imported only when one of these commands runs, so that the rest of the
``gammon`` command starts without loading numba.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from gammon.cli.main import UsageError, answer_lines
from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.formats.match_id import MatchKey, Resignation
from gammon.views import CLI_DIGITS, PROBABILITIES, RankedPlayView, ranked_play_view

if TYPE_CHECKING:
    from gammon.core.events import Event
    from gammon.core.match import Match
    from gammon.engine.cube import CubeInfo
    from gammon.engine.player import BotLevel, Engine, RankedPlay
    from gammon.engine.rollout import RolloutResult

LEVEL_NAMES = ("beginner", "casual", "intermediate", "expert", "world-class")
"""The engine's levels for ``--help`` (kept equal to ``gammon.engine.player.LEVELS`` by a test;
listed here so that building the parser does not import the engine)."""


def add_engine_commands(subparsers: Any) -> None:
    """Add ``hint``, ``rollout`` and ``play`` to the ``gammon`` command's subparsers."""
    hint = subparsers.add_parser(
        "hint", help="rank the legal plays of a position and roll, best first")
    hint.add_argument("position_id", metavar="POSITION_ID", nargs="?",
                      help="omit to read 'POSITION_ID DICE' lines from standard input")
    hint.add_argument("dice", metavar="DICE", nargs="?", help="e.g. 31 or 3-1")
    hint.add_argument("--ply", type=int, default=2,
                      help="search depth, 0 to 2 (default 2, as the world-class level)")
    hint.add_argument("--json", action="store_true", help="print a JSON array")
    hint.add_argument("--match-id", metavar="MATCH_ID",
                      help="GNU Backgammon Match ID: score, cube and whose turn; the plays "
                           "are then ranked by their cubeful value at that score and cube "
                           "(without it: cubeless money equity); with the dice not rolled "
                           "(and no DICE given) the cube decision is shown")
    _weights_option(hint)
    hint.set_defaults(handler=cmd_hint)

    rollout = subparsers.add_parser(
        "rollout", help="roll a position out (0-ply play) and report its probabilities")
    rollout.add_argument("position_id", metavar="POSITION_ID",
                         help="the side on roll is about to roll")
    rollout.add_argument("--games", type=int, default=1296, help="games to play (default 1296)")
    rollout.add_argument("--truncate", type=int, default=0, metavar="PLIES",
                         help="stop each game after PLIES plies and evaluate (default 0: "
                              "play every game to the end)")
    rollout.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    rollout.add_argument("--json", action="store_true", help="print one JSON object")
    _weights_option(rollout)
    rollout.set_defaults(handler=cmd_rollout)

    play = subparsers.add_parser(
        "play", help="play against the bot in the terminal",
        description="Play a game (or a match to --length points) against the bot in the "
                    "terminal, entering moves in standard notation ('24/18 13/11*', "
                    "'bar/22', '6/off', '8/5(2)'). The cube is not played yet: it comes "
                    "with a later version.")
    play.add_argument("--level", default="expert",
                      help=f"the bot's strength: {', '.join(LEVEL_NAMES)} (default expert)")
    play.add_argument("--seed", type=int, default=None,
                      help="seed the dice (and the bot's noise) to replay a game")
    play.add_argument("--length", type=int, default=0,
                      help="match length in points, cube off (default 0: a single game)")
    play.add_argument("--hint-ply", type=int, default=2,
                      help="search depth of 'hint' during the game (default 2)")
    _weights_option(play)
    play.set_defaults(handler=cmd_play)


def _weights_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--weights", metavar="PATH", default=None,
                        help="a weights file (.npz) instead of the shipped networks")


def _engine(args: argparse.Namespace) -> Engine:
    from gammon.engine.player import Engine

    try:
        return Engine.load(args.weights)
    except OSError as error:
        raise UsageError(f"cannot read the weights file {args.weights}: "
                         f"{error.strerror or error}") from error


def _position(position_id: str) -> Position:
    """The position of an ID, refusing one where the game is already over."""
    position = Position.from_id(position_id)
    if position.winner() is not None:
        raise UsageError(f"the game is over in {position.id()}: a side has borne off all "
                         f"15 checkers")
    return position


# -- hint -----------------------------------------------------------------------------------


def ranked_json(ranked: RankedPlay) -> RankedPlayView:
    """One ranked play as ``gammon hint --json`` prints it: the shape of ``POST /api/hint``
    (:func:`gammon.views.ranked_play_view`), to 6 decimals."""
    return ranked_play_view(ranked, CLI_DIGITS)


def format_ranked(ranked: Sequence[RankedPlay]) -> list[str]:
    """Aligned lines, one per play, best first; every line reads on its own.

    The equity difference to the first play is shown from the second line on.
    """
    if not ranked:
        return []
    width = max(len(r.play.notation() or "(no legal play)") for r in ranked)
    best = ranked[0].equity
    lines = []
    for number, r in enumerate(ranked, 1):
        p = r.probabilities
        diff = "" if number == 1 else f"({r.equity - best:+.3f})"
        lines.append(
            f"{number:>2}. {r.play.notation() or '(no legal play)':<{width}}  {r.ply}-ply  "
            f"equity {r.equity:+.3f} {diff:<8}  "
            f"win {p.win:.3f} (g {p.win_gammon:.3f}, bg {p.win_backgammon:.3f})  "
            f"lose {1 - p.win:.3f} (g {p.lose_gammon:.3f}, bg {p.lose_backgammon:.3f})"
        )
    return lines


def _hint(engine: Engine, position_id: str, dice: str, plies: int,
          context: CubeInfo | None = None) -> list[RankedPlay]:
    return engine.rank_plays(_position(position_id), Roll.parse(dice), plies=plies,
                             context=context)


def cmd_hint(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    if not 0 <= args.ply <= 2:
        raise UsageError(f"--ply is 0, 1 or 2, got {args.ply}")
    context: CubeInfo | None = None  # money, cubeless, unless a Match ID says where
    if args.match_id is not None:
        if args.position_id is None:
            raise UsageError("--match-id goes with a POSITION_ID")
        from gammon.engine.cube import CubeInfo

        key = MatchKey.from_id(args.match_id)
        context = CubeInfo.from_match_key(key)
        if args.dice is None:
            if key.dice is None or key.double_offered or key.resignation != Resignation.NONE:
                return _cube_hint(args, key, out)
            args.dice = f"{key.dice[0]}{key.dice[1]}"
    if args.position_id is not None and args.dice is None:
        raise UsageError("hint needs DICE after the Position ID, e.g. 'gammon hint ID 31'")
    engine = _engine(args)
    if args.position_id is None:
        return answer_lines(
            stdin, out,
            lambda fields: [ranked_json(r)
                            for r in _hint(engine, fields[0], fields[1], args.ply)],
            usage="POSITION_ID DICE", fields=2)
    ranked = _hint(engine, args.position_id, args.dice, args.ply, context)
    if args.json:
        out.write(json.dumps([ranked_json(r) for r in ranked]) + "\n")
    else:
        out.writelines(line + "\n" for line in format_ranked(ranked))
    return 0


def _cube_hint(args: argparse.Namespace, key: MatchKey, out: TextIO) -> int:
    """``hint --match-id`` before the roll: the cube decision (or the answer pending)."""
    from gammon.cli.cube_commands import cube_hint_lines
    from gammon.views import cube_view

    engine = _engine(args)
    position = _position(args.position_id)
    if args.json:
        out.write(json.dumps(cube_view(engine, position, key, plies=args.ply)) + "\n")
    else:
        out.writelines(line + "\n" for line in
                       cube_hint_lines(engine, position, key, plies=args.ply))
    return 0


# -- rollout --------------------------------------------------------------------------------


def rollout_summary(result: RolloutResult) -> dict[str, object]:
    """Means, standard errors and 95% intervals of the probabilities and the equity."""
    means = (*result.mean.as_tuple(), result.equity)
    errors = (*result.standard_error.as_tuple(), result.equity_standard_error)
    summary: dict[str, object] = {"games": result.count}
    for name, mean, error in zip((*PROBABILITIES, "equity"), means, errors, strict=True):
        summary[name] = {"mean": round(mean, 6), "standard_error": round(error, 6),
                         "interval_95": [round(mean - 1.96 * error, 6),
                                         round(mean + 1.96 * error, 6)]}
    return summary


def cmd_rollout(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    if args.games < 2:
        raise UsageError(f"a rollout needs at least 2 games, got {args.games}")
    if args.truncate < 0:
        raise UsageError(f"--truncate is a number of plies (0: none), got {args.truncate}")
    if args.seed < 0:
        raise UsageError(f"--seed is a number from 0 up, got {args.seed}")
    position = _position(args.position_id)
    engine = _engine(args)
    depth = f"truncated after {args.truncate} plies" if args.truncate else "played to the end"
    from gammon.engine.rollout import CHUNK

    chunks = math.ceil(args.games / CHUNK)
    started = time.perf_counter()
    last_print = started

    def progress(result: RolloutResult) -> None:
        nonlocal last_print
        now = time.perf_counter()
        final = result.count == args.games
        if args.json or chunks == 1 or (now - last_print < 1.0 and not final):
            return
        last_print = now
        out.write(f"  {result.count:>{len(str(args.games))}}/{args.games} games  "
                  f"equity {result.equity:+.3f} ± {1.96 * result.equity_standard_error:.3f} "
                  f"(95%)  ({result.count / (now - started):,.0f} games/s)\n")
        out.flush()

    if not args.json:
        out.write(f"Rollout of {position.id()} (X on roll, before rolling): {args.games} games "
                  f"{depth}, 0-ply play, seed {args.seed}\n")
        out.flush()
    result = engine.rollout(position, games=args.games, truncate=args.truncate,
                            seed=args.seed, progress=progress)
    summary = rollout_summary(result)
    if args.json:
        out.write(json.dumps({"position_id": position.id(), "truncate": args.truncate,
                              "seed": args.seed, **summary}) + "\n")
        return 0
    out.write(f"  {'':<16}{'mean':>8}{'std err':>10}   95% interval\n")
    for name in (*PROBABILITIES, "equity"):
        row = summary[name]
        assert isinstance(row, dict)
        sign = "+" if name == "equity" else ""
        low, high = row["interval_95"]
        out.write(f"  {name.replace('_', ' '):<16}{row['mean']:>{sign}8.3f}"
                  f"{row['standard_error']:>10.4f}   {low:{sign}.3f} to {high:{sign}.3f}\n")
    return 0


# -- play -----------------------------------------------------------------------------------

HUMAN, BOT = 0, 1
_NAMES = ("you", "bot")


def cmd_play(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.engine.player import LEVELS

    if args.level not in LEVELS:
        raise UsageError(f"unknown level {args.level!r}; levels: {', '.join(LEVELS)}")
    if args.length < 0:
        raise UsageError(f"--length is a number of points (0: a single game), got {args.length}")
    if not 0 <= args.hint_ply <= 2:
        raise UsageError(f"--hint-ply is 0, 1 or 2, got {args.hint_ply}")
    engine = _engine(args)
    # The dice and the bot's noise come from two streams, so that the dice of a seeded
    # game do not depend on how many noise draws the bot's level makes.
    dice = random.Random(args.seed)
    noise = random.Random(None if args.seed is None else f"bot-noise-{args.seed}")
    session = TerminalGame(engine, LEVELS[args.level], out=out, stdin=stdin, dice=dice,
                           noise=noise, length=args.length, hint_ply=args.hint_ply)
    session.run()
    return 0


class TerminalGame:
    """A game or match between a person (player 0, X) and the bot (player 1, O) on text
    streams. Everything about the game itself is the core :class:`Match`'s business: this
    class only rolls the dice it is asked for, relays the moves and describes the events.
    """

    HELP = ("Enter your move in notation, e.g. '24/18 13/11*', 'bar/22', '6/off', '8/5(2)'; "
            "or 'hint' (the bot's top 3), 'moves' (every legal play), 'quit'.")

    def __init__(self, engine: Engine, level: BotLevel, *, out: TextIO, stdin: TextIO,
                 dice: random.Random, noise: random.Random, length: int = 0,
                 hint_ply: int = 2) -> None:
        self.engine = engine
        self.level = level
        self.out = out
        self.stdin = stdin
        self.dice = dice
        self.noise = noise
        self.length = length
        self.hint_ply = hint_ply
        self._bot_roll: Roll | None = None

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def run(self) -> Match:
        """Play until the match ends (a single game when ``length`` is 0) or the person
        quits; returns the final state."""
        from gammon.core.actions import Abandon, PlayMove
        from gammon.core.match import Match, Phase, Rules

        match = Match.new(Rules(length=self.length, cube=False))
        what = f"a match to {self.length}" if self.length else "a single game"
        self.say(f"You (X) against the bot (O) at level {self.level.name}: {what}, "
                 f"cube off (the cube comes later).")
        self.say(self.HELP)
        while not match.is_over:
            game = match.game
            if match.phase is Phase.GAME_OVER and match.is_money:
                break  # a single game
            if match.phase in (Phase.OPENING, Phase.GAME_OVER):
                match = self._apply(match, match.opening_action(self.dice))
            elif match.phase is Phase.BEFORE_ROLL:
                match = self._apply(match, game.roll_action(self.dice))
            elif match.phase is Phase.MOVING and game.turn == BOT:
                assert game.roll is not None
                play = self.engine.choose(game.position, game.roll, self.level, self.noise)
                match = self._apply(match, PlayMove(BOT, play))
            elif match.phase is Phase.MOVING:
                answer = self._ask(match)
                match = self._apply(match, Abandon(HUMAN)) if answer is None else answer
            else:  # pragma: no cover - no cube and no resignations in this game
                raise AssertionError(f"unexpected phase {match.phase}")
        return match

    def _apply(self, match: Match, action: Any) -> Match:
        match, events = match.apply(action)
        self._describe(match, events)
        return match

    def _ask(self, match: Match) -> Match | None:
        """Read the person's input until a legal play; ``None`` when they quit."""
        from gammon.core.actions import PlayMove

        game = match.game
        assert game.roll is not None
        if len(game.plays) == 1:
            self.say(f"Your roll {_dice(game.roll)}: the only play is {game.plays[0]}.")
            return self._apply(match, PlayMove(HUMAN, game.plays[0]))
        while True:
            self.out.write(f"Your roll {_dice(game.roll)}. Your move: ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:
                self.say()
                return None
            text = line.strip()
            if not self.stdin.isatty():
                self.say(text)  # a transcript reads like the terminal session
            command = text.lower()
            if not text:
                continue
            if command in ("quit", "q", "exit"):
                return None
            if command in ("help", "?"):
                self.say(self.HELP)
            elif command == "hint":
                ranked = self.engine.rank_plays(game.position, game.roll, plies=self.hint_ply)
                for line_text in format_ranked(ranked[:3]):
                    self.say(line_text)
            elif command == "moves":
                for number, play in enumerate(game.plays, 1):
                    self.say(f"{number:>3}. {play}")
            else:
                try:
                    return self._apply(match, PlayMove(HUMAN, text))
                except ValueError as error:
                    reason = error.__cause__ or error  # the notation's reason, if any
                    self.say(f"Not a legal play: {reason}. Nothing has changed; try again "
                             f"('moves' lists the legal plays).")

    def _board(self, match: Match) -> str:
        from gammon.formats.text_board import draw

        game = match.game
        if self.length:
            score = f"Match to {self.length}: you {match.score[HUMAN]}, bot {match.score[BOT]}"
        else:
            score = "Single game, cube off"
        notes = [score, f"Bot level: {self.level.name}"]
        text = draw(game.board(HUMAN), notes=notes, names=("you", "bot"))
        if game.turn != HUMAN or game.is_over:
            # draw() labels X as the side on roll; here X is not on roll
            text = text.replace(" on roll:", ":", 1)
        return text

    def _describe(self, match: Match, events: Iterable[Event]) -> None:
        from gammon.core import events as ev
        from gammon.core.notation import format_play

        for event in events:
            match event:
                case ev.GameStarted(number=number, crawford=crawford) if self.length:
                    self.say(f"Game {number}: you {match.score[HUMAN]}, bot {match.score[BOT]} "
                             f"in a match to {self.length}"
                             f"{' (the Crawford game)' if crawford else ''}.")
                case ev.OpeningRolled(first=first, throws=throws, roll=roll):
                    ties = "".join(f"{a}-{b} tie, " for a, b in throws[:-1])
                    mine, bots = throws[-1]
                    who = "you move" if first == HUMAN else "the bot moves"
                    self.say(f"Opening roll: {ties}you {mine}, bot {bots}: {who} first "
                             f"with {_dice(roll)}.")
                    if first == HUMAN:
                        self.say(self._board(match))
                case ev.NoLegalMove(player=player, roll=roll):
                    who = "You" if player == HUMAN else "The bot"
                    self.say(f"{who} rolled {_dice(roll)} and cannot move.")
                case ev.DiceRolled(player=player, roll=roll) if player == BOT:
                    self._bot_roll = roll
                case ev.TurnEnded(player=player, moves=moves) if moves:
                    if player == BOT:
                        rolled = f"rolls {_dice(self._bot_roll)} and " if self._bot_roll else ""
                        self.say(f"The bot {rolled}plays {format_play(moves)}.")
                    else:
                        self.say(f"You play {format_play(moves)}.")
                    if not match.game.is_over:
                        self.say(self._board(match))
                case ev.GameEnded(winner=winner, points=points, kind=kind):
                    if kind is not ev.EndKind.ABANDON:
                        self.say(self._board(match))
                    who = "You win" if winner == HUMAN else "The bot wins"
                    how = {ev.EndKind.GAMMON: " a gammon", ev.EndKind.BACKGAMMON:
                           " a backgammon", ev.EndKind.ABANDON: " (you left)"}.get(kind, "")
                    self.say(f"{who}{how}: {points} point{'s' if points != 1 else ''}.")
                case ev.MatchEnded(winner=winner, score=score) if self.length:
                    who = "You win" if winner == HUMAN else "The bot wins"
                    self.say(f"{who} the match, {score[HUMAN]}-{score[BOT]} "
                             f"(you-bot).")
                case _:
                    pass


def _dice(roll: Roll) -> str:
    return f"{roll.die1}-{roll.die2}"

