"""``gammon bot``: the reference client of the Bot API (PROTOCOL.md, *The Bot API*;
docs/bot-api.md).

It signs in to a gammon server with a bot account's API token (``Authorization: Bearer``
on HTTP and on the ``/ws`` upgrade), resumes the matches the account is playing, accepts
every challenge (the open games reserved for it, ``GET /api/challenges``, polled; those
longer than ``--max-length`` it declines) — and, with ``--accept-open``, joins the lobby's
open games too — and plays every decision of every
match with the engine, until it is interrupted (or has finished ``--matches`` matches).

Each decision is the server's own bots' (:func:`gammon.server.bots.decide`, the engine's
:class:`~gammon.engine.matchbot.MatchBot` at the named level) on a core
:class:`~gammon.core.match.Match` rebuilt from the match's ``info`` and ``game`` views
(:func:`match_from_view`): the same doubles, takes, resignations and checker plays at the
score. A lost connection is retried with a growing pause; a refused token ends the client.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from gammon.cli.main import UsageError

if TYPE_CHECKING:
    from gammon.core.actions import Action
    from gammon.core.match import Match

log = logging.getLogger("gammon.bot")


class TokenRefused(Exception):
    """The server refused the token (401 ``bad_token`` or ``not_a_bot``, close 4401)."""


# -- a match rebuilt from its views ------------------------------------------------------


def match_from_view(info: Mapping[str, Any], game: Mapping[str, Any]) -> Match:
    """The core match a player sees in ``info`` (the match's settings) and ``game`` (the
    game view of ``state`` and ``update``): its rules, score, Crawford state, cube, board,
    dice and any offer pending, which is all a decision needs (not the games before)."""
    from gammon.core import actions as A
    from gammon.core.cube import Cube, Level
    from gammon.core.dice import Roll
    from gammon.core.game import Game
    from gammon.core.match import Match, Rules
    from gammon.core.position import Position

    length = int(info["length"])
    rules = Rules(length=length, cube=bool(info["cube"]) and info["kind"] != "single",
                  jacoby=bool(info["jacoby"]), beavers=bool(info["beavers"]),
                  winner_rolls_anew=bool(info["winner_rolls_anew"]))
    score = (int(game["score"][0]), int(game["score"][1]))
    crawford = bool(game["crawford"])
    turn = int(game["turn"])
    cube = Cube(int(game["cube"]["value"]), game["cube"]["owner"])
    state = Game.from_position(Position.from_id(game["position_id"]), turn, rules=rules,
                               cube=cube, crawford=crawford)
    if game["resign_floor"]:
        state = dataclasses.replace(state, refused=Level(int(game["resign_floor"])))
    phase = game["phase"]
    offer = game["resign_offer"]
    if game["dice"] and phase in ("moving", "resign_offered"):
        state, _ = state.apply(A.RollDice(turn, Roll(*game["dice"])))
    if phase == "cube_offered":
        state, _ = state.apply(A.OfferDouble(turn))
    if phase == "resign_offered" and offer is not None:
        state, _ = state.apply(A.OfferResign(int(offer["player"]), Level(int(offer["level"]))))
    reached = crawford or (length > 1 and length - 1 in score)
    return Match(rules=rules, game=state, score=score, number=int(game["game"]),
                 crawford_reached=reached)


def message_of(action: Action) -> dict[str, Any]:
    """The client message that proposes a core action."""
    from gammon.core import actions as A

    match action:
        case A.PlayMove(play=play):
            return {"type": "play", "play": play if isinstance(play, str) else play.notation()}
        case A.OfferResign(level=level):
            return {"type": "resign", "level": int(level)}
    names: dict[type[Any], str] = {
        A.OfferDouble: "double", A.Take: "take", A.Drop: "drop", A.Beaver: "beaver",
        A.AcceptResign: "accept_resign", A.RejectResign: "reject_resign"}
    return {"type": names[type(action)]}


def next_message(info: Mapping[str, Any], game: Mapping[str, Any] | None, seat: int,
                 level: str) -> dict[str, Any] | None:
    """What the player in ``seat`` sends now (without ``match`` and ``v``), or None when it
    is not theirs to act."""
    from gammon.server import bots

    if game is None or game["phase"] in ("opening", "game_over", "match_over"):
        return None
    phase = game["phase"]
    if phase == "moving" and game["turn"] == seat:
        if game.get("can_confirm"):
            return {"type": "confirm"}
        if game.get("can_undo"):  # steps of another client of this account: start again
            return {"type": "undo"}
    match = match_from_view(info, game)
    if match.to_act != seat:
        return None
    action = bots.decide(match, seat, level)
    if action is None:
        return {"type": "roll"} if phase == "before_roll" else None
    return message_of(action)


# -- the client --------------------------------------------------------------------------


@dataclass
class Seat:
    """A match the bot plays: what it has seen of it."""

    info: dict[str, Any]
    you: int
    v: int
    game: dict[str, Any] | None
    deciding: bool = False
    refused: int | None = None
    """The version at which an action of the bot was last refused."""


@dataclass
class BotClient:
    """One bot account's client: ``server`` is the site's base URL (``http(s)://HOST``)."""

    server: str
    token: str
    level: str = "expert"
    poll: float = 2.0
    accept_open: bool = False
    matches: int = 0
    """Stop after finishing this many matches (0: never)."""
    max_length: int = 0
    """Decline challenges to matches longer than this (0: accept every length)."""
    out: TextIO | None = None
    seats: dict[str, Seat] = field(default_factory=dict)
    finished: int = 0
    name: str = ""
    _joined: set[str] = field(default_factory=set)
    _done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def ws_url(self) -> str:
        base = self.server.rstrip("/")
        return ("wss://" + base[8:] if base.startswith("https://")
                else "ws://" + base.removeprefix("http://")) + "/ws"

    def say(self, text: str) -> None:
        log.info("%s", text)
        if self.out is not None:
            print(text, file=self.out, flush=True)

    async def run(self) -> None:
        """Play until cancelled (or ``matches`` are done); reconnect after a lost
        connection; :class:`TokenRefused` when the server refuses the token."""
        pause = 1.0
        while not self._done.is_set():
            try:
                await self.session()
                pause = 1.0
            except TokenRefused:
                raise
            except (OSError, EOFError, _ws_errors()) as error:  # TimeoutError: an OSError
                self.say(f"connection lost ({error!r}); again in {pause:.0f} s")
            except _http_errors() as error:
                self.say(f"server error ({error!r}); again in {pause:.0f} s")
            if self._done.is_set():
                return
            await asyncio.sleep(pause)
            pause = min(pause * 2, 60.0)

    async def session(self) -> None:
        """One connection: sign in, resume, then play and poll until it drops."""
        import httpx
        from websockets.asyncio.client import connect

        async with httpx.AsyncClient(base_url=self.server, headers=self.headers,
                                     timeout=20) as http:
            me = await http.get("/api/me")
            if me.status_code in (401, 403):
                raise TokenRefused(_detail(me))
            me.raise_for_status()
            user = me.json()["user"]
            if not user.get("bot"):
                raise TokenRefused("the token's account is not a bot account")
            self.name = user["name"]
            async with connect(self.ws_url, additional_headers=self.headers,
                               max_size=2**22, open_timeout=20) as ws:
                self.say(f"signed in as {self.name} (level {self.level})")
                history = (await http.get(f"/api/users/{self.name}/history")).json()
                self.seats.clear()
                for entry in history:
                    if entry["status"] == "playing":
                        await ws.send(json.dumps({"type": "subscribe", "match": entry["id"]}))
                poller = asyncio.create_task(self._poll(http, ws))
                try:
                    await self._read(ws)
                finally:
                    poller.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await poller

    async def _poll(self, http: Any, ws: Any) -> None:
        """Accept every challenge (and open game, with ``accept_open``) as it comes."""
        while True:
            challenges = (await http.get("/api/challenges")).json()
            wanted = [(game, True) for game in challenges]
            if self.accept_open:
                wanted += [(g, False) for g in (await http.get("/api/games")).json()
                           if (g.get("creator") or {}).get("name") != self.name]
            for game, challenge in wanted:
                if game["id"] in self._joined:
                    continue
                self._joined.add(game["id"])
                creator = (game.get("creator") or {}).get("name", "?")
                if self.max_length and game["kind"] == "match" \
                        and game["length"] > self.max_length:
                    if challenge:  # reserved for the bot: declined (an open game: left)
                        await http.post(f"/api/games/{game['id']}/decline")
                        self.say(f"declined {game['id']} ({game['length']} points) "
                                 f"of {creator}")
                    continue
                joined = await http.post(f"/api/games/{game['id']}/join")
                if joined.status_code == 200:
                    self.say(f"joined {game['id']} ({game['kind']} {game['length']}) "
                             f"of {creator}")
                    await ws.send(json.dumps({"type": "subscribe", "match": game["id"]}))
                else:
                    self.say(f"could not join {game['id']}: {_detail(joined)}")
            await asyncio.sleep(self.poll)

    async def _read(self, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in ws:
                message = json.loads(raw)
                await self._handle(ws, message)
                if self._done.is_set():
                    return
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == 4401:
                raise TokenRefused("the server closed the socket: the token was "
                                   "revoked") from None
            raise

    async def _handle(self, ws: Any, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "ping":
            await ws.send(json.dumps({"type": "pong", "n": message["n"]}))
        elif kind == "error":
            if message.get("code") in ("bad_token", "unauthenticated"):
                raise TokenRefused(message.get("message", ""))
            self.say(f"refused: {message.get('code')} {message.get('message')}")
            match_id = message.get("match")
            seat = self.seats.get(match_id) if isinstance(match_id, str) else None
            if seat is not None and seat.refused != seat.v:
                # stale or refused: see the match afresh, once a version (a refusal of the
                # same decision again waits for the next change, not a loop of retries)
                seat.refused = seat.v
                await ws.send(json.dumps({"type": "subscribe", "match": match_id}))
        elif kind == "state" and message.get("you") is not None:
            before = self.seats.get(message["match"])
            self.seats[message["match"]] = Seat(message["info"], message["you"],
                                                message["v"], message["game"],
                                                refused=before.refused if before else None)
            await self._act(ws, message["match"])
        elif kind == "update" and message["match"] in self.seats:
            seat = self.seats[message["match"]]
            seat.v, seat.game = message["v"], message["game"]
            if "info" in message:
                seat.info = message["info"]
            await self._act(ws, message["match"])
        elif kind == "rematch":
            pass  # a rematch reserved for the bot comes through /api/challenges

    async def _act(self, ws: Any, match_id: str) -> None:
        seat = self.seats[match_id]
        game = seat.game
        if game is not None and game["phase"] == "match_over":
            del self.seats[match_id]
            won = game["winner"] == seat.you
            self.say(f"match {match_id} over: {'won' if won else 'lost'} "
                     f"{game['score'][seat.you]}-{game['score'][1 - seat.you]}")
            await ws.send(json.dumps({"type": "unsubscribe", "match": match_id}))
            self.finished += 1
            if self.matches and self.finished >= self.matches:
                self._done.set()
            return
        if seat.deciding:
            return
        seat.deciding = True
        try:
            v = seat.v
            reply = await asyncio.to_thread(next_message, seat.info, game, seat.you,
                                            self.level)
        finally:
            seat.deciding = False
        if reply is None:
            return
        if seat.v != v:  # the match moved on meanwhile: decide again
            await self._act(ws, match_id)
            return
        await ws.send(json.dumps({**reply, "match": match_id, "v": v}))


def _detail(response: Any) -> str:
    try:
        detail = response.json()["detail"]
        return f"{detail['code']}: {detail['message']}"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


def _ws_errors() -> type[Exception]:
    from websockets.exceptions import WebSocketException

    return WebSocketException


def _http_errors() -> type[Exception]:
    import httpx

    return httpx.HTTPError


# -- the command -------------------------------------------------------------------------


def add_bot_command(subparsers: Any) -> None:
    """Add ``bot`` to the ``gammon`` command's subparsers."""
    bot = subparsers.add_parser(
        "bot", help="play on a gammon server as a bot account (the Bot API)",
        description="Sign in to a gammon server with a bot account's API token, accept "
                    "its challenges and play every match with the engine, until "
                    "interrupted (docs/bot-api.md).")
    bot.add_argument("--server", required=True, metavar="URL",
                     help="the server's base URL, e.g. https://gammon.example.org")
    bot.add_argument("--token", required=True,
                     help="an API token of the bot account (POST /api/tokens)")
    bot.add_argument("--level", default="expert",
                     help="beginner, casual, intermediate, expert or world-class "
                          "(default expert)")
    bot.add_argument("--accept-open", action="store_true",
                     help="also join the lobby's open games, not only challenges")
    bot.add_argument("--poll", type=float, default=2.0,
                     help="seconds between two looks for challenges (default 2)")
    bot.add_argument("--max-length", type=int, default=0, metavar="N",
                     help="decline challenges to matches longer than N points "
                          "(default 0: accept all)")
    bot.add_argument("--matches", type=int, default=0,
                     help="stop after this many matches (default 0: never)")
    bot.add_argument("--verbose", action="store_true", help="log every step")
    bot.set_defaults(handler=cmd_bot)


def cmd_bot(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.server.bots import level_name

    if not args.server.startswith(("http://", "https://")):
        raise UsageError(f"--server is an http:// or https:// URL, got {args.server!r}")
    if not 0.1 <= args.poll <= 3600:
        raise UsageError(f"--poll is 0.1 to 3600 seconds, got {args.poll}")
    if args.matches < 0 or args.max_length < 0:
        raise UsageError("--matches and --max-length are 0 or more")
    level = level_name(args.level)  # an unknown level is a ValueError: the usage message
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    client = BotClient(args.server, args.token.strip(), level, poll=args.poll,
                       accept_open=args.accept_open, matches=args.matches,
                       max_length=args.max_length, out=out)
    try:
        asyncio.run(client.run())
    except TokenRefused as error:
        print(f"gammon: error: the server refused the token: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0
