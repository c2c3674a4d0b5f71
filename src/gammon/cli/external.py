"""``gammon external``: play one side for GNU Backgammon, over its external-player protocol.

In gnubg, ``set player 1 external localhost:PORT`` connects to this server; at each decision
of that player gnubg sends one FIBS ``board:`` line (:mod:`gammon.formats.fibs_board`, in
its own dialect) followed by a newline and a NUL byte, and reads one line back:

* a double pending (was-doubled set): ``take``, ``drop``, or ``beaver`` (``--beavers``);
* no dice yet (gnubg asks only when a double is possible): ``double`` or ``roll``, or
  ``resign normal|gammon|backgammon`` when the game is lost at that level;
* dice: the checker play in gnubg's notation (``24/18 13/11*``, ``bar/22``, ``6/off``); an
  empty line when no move is possible.

gnubg never asks an external player about a resignation (``play.c``: it accepts a
backgammon resignation on its behalf and declines every other). An answer that starts with
``Error:`` makes gnubg print it and stop playing until the next ``play``; this server sends
one for every line it cannot read. Every decision is :class:`MatchBot`'s, made as in
gammon's own matches: the checker play at the score and cube of the match, the cube and
resignations at ``--ply``.

gnubg's board line says that either side may double even under ``set cube use off``, so
``--no-cube`` tells the server so: it then values every play cubeless, as a game without a
cube must be played (with a live cube it would weigh gammons and risk as a centred cube
does).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TextIO

from gammon.cli.main import UsageError
from gammon.formats.fibs_board import Dialect, FibsBoard, FibsState

if TYPE_CHECKING:
    from gammon.engine.cube import CubeInfo
    from gammon.engine.matchbot import MatchBot

log = logging.getLogger("gammon.external")

MAX_LINE: Final = 4096
"""Longest line read; a longer one is refused (and skipped up to its newline)."""
MAX_PLY: Final = 2


@dataclass
class ExternalPlayer:
    """The answers to gnubg's board lines: one line in, one line out, never an exception.
    ``bot`` makes every decision, as it does in gammon's own matches."""

    bot: MatchBot
    beavers: bool = False
    jacoby: bool = False
    cube_in_use: bool = True
    _last_resign: str | None = field(default=None, init=False, repr=False)

    def answer(self, line: str) -> str:
        """The reply to one line (without its newline); ``Error: ...`` for a bad line."""
        try:
            state = FibsBoard.parse(line).state(Dialect.GNUBG)
        except ValueError as error:
            return f"Error: {error}"
        try:
            return self.decide(state, line)
        except ValueError as error:  # a state the engine refuses (e.g. a finished game)
            return f"Error: {error}"

    def decide(self, state: FibsState, line: str = "") -> str:
        """The action in ``state``: see the module doc."""
        from gammon.engine.cube import Response
        from gammon.engine.matchbot import DOUBLE

        info = self.cube_info(state)
        if state.doubled:
            response = self.bot.answer_double(state.position, info, may_beaver=self.beavers)
            return {Response.TAKE: "take", Response.PASS: "drop",
                    Response.BEAVER: "beaver"}[response]
        if state.roll is None:
            # a refused resignation brings the same board back: then play on
            choice = self.bot.before_roll(state.position, info, may_double=info.may_double(),
                                          may_resign=lambda level: line != self._last_resign)
            if choice == DOUBLE:
                return "double"
            if choice is not None:
                self._last_resign = line
                return f"resign {choice}"
            return "roll"
        return self.bot.checker_play(state.position, state.roll, info).notation()

    def cube_info(self, state: FibsState) -> CubeInfo:
        """The cube and score as the side on roll (the doubler, if doubled) sees them."""
        from gammon.engine.cube import CubeInfo, Owner

        owner = (Owner.CENTRED if state.cube_owner is None
                 else Owner.ME if state.cube_owner else Owner.OPPONENT)
        if state.is_money:
            return CubeInfo.money(state.cube, owner, jacoby=self.jacoby, beavers=self.beavers,
                                  in_use=self.cube_in_use)
        length = state.match_length
        return CubeInfo.match(length - state.score[0], length - state.score[1], state.cube,
                              owner, crawford=state.crawford,
                              post_crawford=state.post_crawford, in_use=self.cube_in_use)


class ExternalServer:
    """A TCP server of gnubg's external-player protocol; one :class:`ExternalPlayer` answers
    every connection, one line at a time (the engine runs on a worker thread)."""

    def __init__(self, player: ExternalPlayer) -> None:
        self.player = player
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="external")

    async def serve(self, host: str, port: int, ready: TextIO | None = None) -> None:
        server = await asyncio.start_server(self._connection, host, port)
        bound = server.sockets[0].getsockname()
        log.info("listening on %s:%d", bound[0], bound[1])
        if ready is not None:  # for scripts and tests that ask for port 0
            print(f"listening on {bound[0]}:{bound[1]}", file=ready, flush=True)
        async with server:
            await server.serve_forever()

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        log.info("connection from %s", peer)
        try:
            async for line in _lines(reader):
                reply = await self._reply(line)
                log.debug("<- %r", line)
                log.debug("-> %r", reply)
                writer.write(reply.encode("utf-8") + b"\n")
                await writer.drain()
        except (ConnectionError, OSError) as error:
            log.info("connection from %s lost: %s", peer, error)
        finally:
            writer.close()
            log.info("connection from %s closed", peer)

    async def _reply(self, line: bytes | str) -> str:
        if isinstance(line, str):  # _lines' own complaint about the raw bytes
            return line
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            return f"Error: the line is not UTF-8 text ({error.reason} at byte {error.start})"
        if not text.strip("\x00\r "):
            return "Error: an empty line; expected a FIBS board line"
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._worker, self.player.answer, text)
        except Exception as error:  # a bug must not end the server: report it, keep going
            log.exception("no answer to %r", text)
            return f"Error: internal error ({type(error).__name__}: {error})"


async def _lines(reader: asyncio.StreamReader) -> Any:
    """Each line from ``reader`` without its newline or gnubg's trailing NUL bytes; a line
    over :data:`MAX_LINE` comes as an ``Error:`` string instead, once skipped."""
    buffer = b""
    skipping = False
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, _, buffer = buffer.partition(b"\n")
            if skipping:
                skipping = False
                continue
            line = line.lstrip(b"\x00").rstrip(b"\r\x00")
            if len(line) > MAX_LINE:
                yield f"Error: the line is over {MAX_LINE} bytes"
            else:
                yield line
        buffer = buffer.lstrip(b"\x00")
        if len(buffer) > MAX_LINE:
            if not skipping:
                yield f"Error: the line is over {MAX_LINE} bytes"
            skipping = True
            buffer = b""


def add_external_command(subparsers: Any) -> None:
    """Add ``external`` to the ``gammon`` command's subparsers."""
    external = subparsers.add_parser(
        "external", help="play for GNU Backgammon: serve its external-player protocol",
        description="A TCP server that GNU Backgammon connects to with 'set player 1 "
                    "external HOST:PORT': it answers each FIBS board line with the engine's "
                    "move, cube action or resignation (docs/external.md).")
    external.add_argument("--port", type=int, required=True,
                          help="TCP port to listen on (0: any free port, printed)")
    external.add_argument("--bind", metavar="HOST", default="127.0.0.1",
                          help="address to listen on (default 127.0.0.1)")
    external.add_argument("--level", default="expert",
                          help="checker-play level: beginner, casual, intermediate, expert, "
                               "world-class (default expert)")
    external.add_argument("--ply", type=int, default=0,
                          help=f"depth of the cube evaluations, 0 to {MAX_PLY} (default 0)")
    external.add_argument("--beavers", action="store_true",
                          help="money play: beavers are allowed (as set in gnubg)")
    external.add_argument("--jacoby", action="store_true",
                          help="money play: the Jacoby rule is on (as set in gnubg)")
    external.add_argument("--no-cube", dest="cube", action="store_false",
                          help="the cube is off in gnubg (set cube use off): value every play "
                               "cubeless (gnubg's board line does not say so)")
    external.add_argument("--no-resign", dest="resign", action="store_false",
                          help="never offer a resignation")
    external.add_argument("--seed", type=int, default=None,
                          help="seed of the noise of the weaker levels")
    external.add_argument("--weights", metavar="PATH", default=None,
                          help="a weights file (.npz) instead of the shipped networks")
    external.add_argument("--verbose", action="store_true",
                          help="log every line read and written")
    external.set_defaults(handler=cmd_external)


def cmd_external(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.engine.evaluator import bot_level
    from gammon.engine.matchbot import MatchBot
    from gammon.engine.player import Engine

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port is 0 to 65535, got {args.port}")
    if not 0 <= args.ply <= MAX_PLY:
        raise UsageError(f"--ply is 0 to {MAX_PLY}, got {args.ply}")
    bot_level(args.level)  # an unknown level is a ValueError: the usage message
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    bot = MatchBot(Engine.load(args.weights), args.level, plies=args.ply, resign=args.resign,
                   rng=random.Random(args.seed))
    player = ExternalPlayer(bot, beavers=args.beavers, jacoby=args.jacoby,
                            cube_in_use=args.cube)
    try:
        asyncio.run(ExternalServer(player).serve(args.bind, args.port, ready=out))
    except KeyboardInterrupt:
        return 0
    return 0
