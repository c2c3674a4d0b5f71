"""``gammon ubgi``: the engine over UBGI, the Universal Backgammon Interface, on stdin/stdout.

UBGI is a UCI-like line protocol between a controller (a GUI, a tournament runner such as
bgci) and an engine; this is version 0.2 of its specification (bungogood/bgci,
``docs/ubgi-v0.2-spec.md``), with v0.1's ``setoption name N value V`` accepted too.
One command a line; every answer is flushed at once::

    ubgi                    -> id name/author/version, proto 0.2, the keys, ubgiok
    isready                 -> readyok (the networks are loaded by then)
    set KEY VALUE           -> (nothing; error bad_value when refused)
    get KEY                 -> value KEY VALUE
    keys                    -> a key line for each key
    newgame                 -> forgets the position and dice
    position gnubgid ID     -> a GNU Backgammon Position ID, optionally ID:MATCHID
    position xgid XGID      -> an eXtreme Gammon XGID (with or without "XGID=")
    dice D1 D2              -> the roll of the side on roll
    go | go chequer         -> bestmove 24/18 13/12  (bestmove pass: no legal move)
    go cube                 -> bestcube double|nodouble, or take|drop|beaver when the
                               position has a double pending
    go turn                 -> bestturn cube=double|nodouble move=24/18,13/12
    stop                    -> (nothing: every answer is made before the next command)
    quit                    -> exit

``go`` alone answers what the position asks: the checker play once the dice are known, else
the cube. The position carries its context: a Match ID or XGID gives the match score, the
cube and its owner, Crawford, Jacoby, the dice and a pending double; a bare Position ID is
money play with the cube centred. Every decision is :class:`MatchBot`'s at that score and
cube (checker play at the score, cube decisions by the cubeful evaluation), as in gammon's
own matches. Moves are written as the specification asks: a from/to pair per die (a
checker that moves twice is written twice, ``24/18 18/13``), no ``*`` for hits and no
``(2)`` for repeats, ``bar`` and ``off``.

Every line that cannot be obeyed gets ``error CODE DETAIL`` (``bad_command``,
``bad_value``, ``bad_state``, ``unsupported``) and changes nothing; the engine goes on.
``engine.ply`` is UBGI's root-inclusive depth: UBGI 1-ply is gammon's (and GNU
Backgammon's) 0-ply.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TextIO

from gammon.core.dice import Roll
from gammon.core.position import Position

if TYPE_CHECKING:
    from gammon.core.moves import Play
    from gammon.engine.cube import CubeInfo
    from gammon.engine.evaluator import Evaluator
    from gammon.engine.matchbot import MatchBot
    from gammon.formats.match_id import MatchKey

PROTOCOL: Final = "0.2"
LEVELS: Final = ("beginner", "casual", "intermediate", "expert", "world-class")
MAX_PLY: Final = 3
"""UBGI's root-inclusive depth: 3 is gammon's deepest search, 2-ply."""
MAX_LINE: Final = 4096


class UbgiError(Exception):
    """A command that cannot be obeyed: ``error CODE DETAIL``."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code} {detail}")
        self.code, self.detail = code, detail


@dataclass(frozen=True, slots=True)
class Key:
    """One ``set``/``get`` key as the ``keys`` command announces it."""

    name: str
    kind: str
    """``int LO..HI``, ``bool``, ``enum a|b``, as the key line writes the type."""
    default: str
    description: str
    minor: bool = False

    def line(self) -> str:
        return (f"key {self.name} {self.kind} {self.default}"
                f"{' !' if self.minor else ''} {self.description}")

    def parse(self, text: str) -> str:
        """``text`` as this key's value (normalised), or :class:`UbgiError` bad_value."""
        kind, _, domain = self.kind.partition(" ")
        if kind == "bool":
            if text not in ("true", "false"):
                raise UbgiError("bad_value", f"{self.name} must_be true|false")
            return text
        if kind == "enum":
            if text not in domain.split("|"):
                raise UbgiError("bad_value", f"{self.name} must_be {domain}")
            return text
        try:
            value = int(text)
        except ValueError:
            raise UbgiError("bad_value", f"{self.name} must_be an integer") from None
        if domain != "*":
            low, _, high = domain.partition("..")
            if not int(low) <= value <= int(high):
                raise UbgiError("bad_value", f"{self.name} must_be {domain}")
        return str(value)


KEYS: Final = {key.name: key for key in (
    Key("engine.ply", f"int 1..{MAX_PLY}", "1",
        "root-inclusive decision depth (1 = gammon's 0-ply)"),
    Key("engine.level", f"enum {'|'.join(LEVELS)}", "expert",
        "playing level: the noise of the weaker ones (setting it sets engine.ply too)"),
    Key("engine.seed", "int *", "0", "seed of the weaker levels' noise", minor=True),
    Key("game.variant", "enum backgammon", "backgammon", "the game played"),
    Key("game.jacoby", "bool", "false", "money play: the Jacoby rule (a bare Position ID)"),
    Key("game.beavers", "bool", "false", "money play: beavers allowed"),
)}


@dataclass
class State:
    """What the controller has said about the position to decide."""

    position: Position | None = None
    key: MatchKey | None = None
    """None: money play, the cube centred, nothing pending."""
    roll: Roll | None = None


class UbgiEngine:
    """The answers to UBGI commands: :meth:`handle` takes one line and gives the lines to
    write back, never raising. ``load`` gives the evaluator, called once, at the first
    command that needs it (``ubgi`` or ``isready``: the specification wants nothing heavy
    before the handshake)."""

    def __init__(self, load: Callable[[], Evaluator]) -> None:
        self._load = load
        self._engine: Evaluator | None = None
        self.values = {name: key.default for name, key in KEYS.items()}
        self.state = State()
        self.quit = False
        self._bot: MatchBot | None = None

    # -- the command loop --------------------------------------------------------------------

    def handle(self, line: str) -> list[str]:
        words = line.split()
        if not words:
            return []
        command, args = words[0], words[1:]
        handler = self._COMMANDS.get(command)
        try:
            if handler is None:
                raise UbgiError("bad_command", f"unknown command {_quote(command)}")
            return handler(self, args)
        except UbgiError as error:
            return [f"error {error.code} {error.detail}"]
        except Exception as error:  # a bug must not end the engine: say so, keep going
            return [f"error bad_state internal error ({type(error).__name__}: {error})"]

    def _ubgi(self, args: list[str]) -> list[str]:
        _no_arguments("ubgi", args)
        from gammon import __version__

        self.engine()
        return ["id name gammon", "id author the gammon developers",
                f"id version {__version__}", f"proto {PROTOCOL}",
                *(key.line() for key in KEYS.values()), "ubgiok"]

    def _isready(self, args: list[str]) -> list[str]:
        _no_arguments("isready", args)
        self.engine()
        return ["readyok"]

    def _newgame(self, args: list[str]) -> list[str]:
        _no_arguments("newgame", args)
        self.state = State()
        return []

    def _stop(self, args: list[str]) -> list[str]:
        return []  # nothing runs between commands

    def _quit(self, args: list[str]) -> list[str]:
        self.quit = True
        return []

    def _keys(self, args: list[str]) -> list[str]:
        _no_arguments("keys", args)
        return [key.line() for key in KEYS.values()]

    def _get(self, args: list[str]) -> list[str]:
        if len(args) != 1:
            raise UbgiError("bad_command", "expected: get <key>")
        return [f"value {args[0]} {self.values[self._key(args[0]).name]}"]

    def _set(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise UbgiError("bad_command", "expected: set <key> <value>")
        self._assign(args[0], args[1])
        return []

    def _setoption(self, args: list[str]) -> list[str]:
        """v0.1's ``setoption name <key> value <value>``."""
        if len(args) != 4 or args[0] != "name" or args[2] != "value":
            raise UbgiError("bad_command", "expected: setoption name <key> value <value>")
        self._assign(args[1], args[3])
        return []

    def _position(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise UbgiError("bad_command", "expected: position gnubgid <id> | position xgid <xgid>")
        kind, text = args
        if kind == "gnubgid":
            state = _from_gnubg_id(text)
        elif kind == "xgid":
            state = _from_xgid(text)
        else:
            raise UbgiError("unsupported", f"position {_quote(kind)}: gnubgid or xgid")
        self.state = state
        return []

    def _dice(self, args: list[str]) -> list[str]:
        if len(args) != 2 or not all(a in "123456" and len(a) == 1 for a in args):
            raise UbgiError("bad_value", "expected: dice <1-6> <1-6>")
        if self.state.key is not None and self.state.key.double_offered:
            raise UbgiError("bad_state", "a double is pending: answer it before the roll")
        self.state.roll = Roll(int(args[0]), int(args[1]))
        return []

    def _go(self, args: list[str]) -> list[str]:
        if len(args) > 1:
            raise UbgiError("bad_command", "expected: go [chequer|cube|turn]")
        what = args[0] if args else None
        if what not in (None, "chequer", "checker", "cube", "turn"):
            raise UbgiError("bad_command", f"go {_quote(what or '')}: chequer, cube or turn")
        state = self.state
        if state.position is None:
            raise UbgiError("bad_state", "missing position")
        if state.position.winner() is not None:
            raise UbgiError("bad_state", "the game is over in this position")
        pending = state.key is not None and state.key.double_offered
        if what is None:
            what = "cube" if pending or state.roll is None else "chequer"
        if what == "cube":
            return [f"bestcube {self._cube()}"]
        if pending:
            raise UbgiError("bad_state", "a double is pending: go cube answers it")
        if state.roll is None:
            raise UbgiError("bad_state", "missing dice")
        move = _ubgi_move(self.bot().checker_play(state.position, state.roll, self.context()))
        if what == "turn":
            return [f"bestturn cube={self._cube()} move={move.replace(' ', ',')}"]
        return [f"bestmove {move}"]

    _COMMANDS: Final[dict[str, Callable[[UbgiEngine, list[str]], list[str]]]] = {
        "ubgi": _ubgi, "isready": _isready, "newgame": _newgame, "stop": _stop,
        "quit": _quit, "keys": _keys, "get": _get, "set": _set, "setoption": _setoption,
        "position": _position, "dice": _dice, "go": _go,
    }

    # -- the decisions --------------------------------------------------------------------------

    def engine(self) -> Evaluator:
        if self._engine is None:
            self._engine = self._load()
        return self._engine

    def bot(self) -> MatchBot:
        """The decider for the present keys (made again when one changes)."""
        if self._bot is None:
            from gammon.engine.evaluator import BotLevel, bot_level
            from gammon.engine.matchbot import MatchBot

            level = bot_level(self.values["engine.level"])
            plies = int(self.values["engine.ply"]) - 1
            self._bot = MatchBot(self.engine(), BotLevel(level.name, plies, level.noise),
                                 plies=plies, resign=False,
                                 rng=random.Random(int(self.values["engine.seed"])))
        return self._bot

    def context(self) -> CubeInfo:
        """The score and cube as the side on roll (the doubler, if doubled) sees them."""
        from gammon.engine.cube import CubeInfo

        beavers = self.values["game.beavers"] == "true"
        key = self.state.key
        if key is None:
            return CubeInfo.money(jacoby=self.values["game.jacoby"] == "true", beavers=beavers)
        return CubeInfo.from_match_key(key, beavers=beavers)

    def _cube(self) -> str:
        """The cube action before the roll, or the answer to a pending double."""
        from gammon.engine.cube import Response
        from gammon.engine.matchbot import DOUBLE

        state, info = self.state, self.context()
        assert state.position is not None
        if state.key is not None and state.key.double_offered:
            response = self.bot().answer_double(state.position, info, may_beaver=info.beavers)
            return {Response.TAKE: "take", Response.PASS: "drop",
                    Response.BEAVER: "beaver"}[response]
        if not info.may_double():
            return "nodouble"
        choice = self.bot().before_roll(state.position, info, may_double=True)
        return "double" if choice == DOUBLE else "nodouble"

    def _key(self, name: str) -> Key:
        key = KEYS.get(name)
        if key is None:
            raise UbgiError("unsupported", f"key {_quote(name)}")
        return key

    def _assign(self, name: str, text: str) -> None:
        key = self._key(name)
        value = key.parse(text)
        self.values[name] = value
        if name == "engine.level":
            from gammon.engine.evaluator import bot_level

            self.values["engine.ply"] = str(bot_level(value).plies + 1)
        self._bot = None


# -- positions and moves ------------------------------------------------------------------------


def _from_gnubg_id(text: str) -> State:
    from gammon.formats.match_id import MatchKey

    position_id, _, match_id = text.partition(":")
    try:
        position = Position.from_id(position_id)
    except ValueError as error:
        raise UbgiError("bad_value", f"Position ID {_quote(position_id)}: {error}") from None
    if not match_id:
        return State(position)
    try:
        key = MatchKey.from_id(match_id)
    except ValueError as error:
        raise UbgiError("bad_value", f"Match ID {_quote(match_id)}: {error}") from None
    return _with_key(position, key)


def _from_xgid(text: str) -> State:
    from gammon.formats.xgid import PendingDouble, Xgid

    try:
        xgid = Xgid.from_id(text if text.startswith("XGID=") else f"XGID={text}")
        if xgid.cube_action not in (PendingDouble.NONE, PendingDouble.DOUBLED):
            raise UbgiError("unsupported", f"a {xgid.cube_action.name.lower()} cube")
        key = xgid.match_key()
    except ValueError as error:
        raise UbgiError("bad_value", f"XGID {_quote(text)}: {error}") from None
    return _with_key(xgid.position, key)


def _with_key(position: Position, key: MatchKey) -> State:
    """The state of a position and its Match ID, refusing those with no decision here."""
    from gammon.core.cube import MAX_CUBE
    from gammon.engine.cube import CubeInfo
    from gammon.formats.match_id import GameState, Resignation

    if key.game_state != GameState.PLAYING:
        raise UbgiError("bad_state", f"no game in play (game state: {key.game_state.name.lower()})")
    if key.resignation != Resignation.NONE:
        raise UbgiError("unsupported", "a pending resignation")
    if key.cube > MAX_CUBE:
        raise UbgiError("bad_value", f"the cube stops at {MAX_CUBE}")
    if key.double_offered and key.dice is not None:
        raise UbgiError("bad_value", "a double is pending with the dice rolled")
    try:
        info = CubeInfo.from_match_key(key)
    except ValueError as error:
        raise UbgiError("bad_value", str(error)) from None
    if key.double_offered and not info.may_double():
        raise UbgiError("bad_value", f"a double is pending that the doubler may not make "
                                     f"({info.describe()})")
    if position.winner() is not None:
        raise UbgiError("bad_state", "the game is over in this position")
    return State(position, key, key.roll)


def _ubgi_move(play: Play) -> str:
    """A play in UBGI's notation: a from/to pair per die, ``bar``/``off``, no ``*`` or
    ``(n)``; ``pass`` when it has no moves."""
    if not play.moves:
        return "pass"
    return " ".join(f"{'bar' if m.source == 25 else m.source}/"
                    f"{'off' if m.destination == 0 else m.destination}" for m in play.moves)


def _no_arguments(command: str, args: list[str]) -> None:
    if args:
        raise UbgiError("bad_command", f"{command} takes no arguments")


def _quote(text: str) -> str:
    """``text`` for an error line: printable, one line, short."""
    shown = text.encode("ascii", "backslashreplace").decode("ascii")
    return repr(shown[:40] + ("..." if len(shown) > 40 else ""))


# -- the command --------------------------------------------------------------------------------


def serve(engine: UbgiEngine, stdin: TextIO, out: TextIO) -> int:
    """Answer ``stdin``'s commands on ``out`` until ``quit`` or the end of the input."""
    while not engine.quit:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            break
        if len(line) > MAX_LINE and not line.endswith("\n"):
            while line and not line.endswith("\n"):  # skip the rest of the long line
                line = stdin.readline(MAX_LINE + 1)
            replies = [f"error bad_command the line is over {MAX_LINE} characters"]
        else:
            replies = engine.handle(line)
        for reply in replies:
            out.write(reply + "\n")
        out.flush()
    return 0


def add_ubgi_command(subparsers: Any) -> None:
    """Add ``ubgi`` to the ``gammon`` command's subparsers."""
    ubgi = subparsers.add_parser(
        "ubgi", help="play over UBGI (the Universal Backgammon Interface) on stdin/stdout",
        description="The engine as a UBGI 0.2 engine: commands on stdin, answers on stdout "
                    "(docs/ubgi.md).")
    ubgi.add_argument("--weights", metavar="PATH", default=None,
                      help="a weights file (.npz) instead of the shipped networks")
    ubgi.set_defaults(handler=cmd_ubgi)


def cmd_ubgi(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.engine.player import Engine

    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:  # bytes that are not UTF-8 become an unknown command
        reconfigure(errors="replace")
    return serve(UbgiEngine(lambda: Engine.load(args.weights)), stdin, out)
