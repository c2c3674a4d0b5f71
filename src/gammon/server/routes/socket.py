"""The WebSocket at ``/ws`` (PROTOCOL.md): one :class:`WSConnection` per browser socket (a
send queue drained by a writer task, lag measured by ping/pong, limits of its own), and
:class:`Dispatch`, which sends each parsed client message to the hub or to play and turns
any refusal into an ``error`` message."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from gammon import views
from gammon.server import protocol
from gammon.server.accounts import COOKIE, SIGNED_OUT, TOKEN_KEY, token_user
from gammon.server.db import User
from gammon.server.hub import Hub, ServiceError
from gammon.server.limits import RateLimiter, RedisRateLimiter, TokenBucket
from gammon.server.lobby import Lobby
from gammon.server.matchmaking import Matchmaker
from gammon.server.ops import refusal_code
from gammon.server.play import Play
from gammon.server.protocol import ProtocolError
from gammon.server.routes.deps import (
    HubDep,
    LimiterDep,
    LobbyDep,
    MatchmakerDep,
    PlayDep,
    SessionsDep,
    SettingsDep,
    limit_chat,
)
from gammon.server.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter()


class WSConnection:
    """One browser socket: a send queue drained by a writer task, and lag measurement."""

    QUEUE_LIMIT = 2000

    def __init__(self, websocket: WebSocket, user: User, session_id: str,
                 settings: Settings) -> None:
        self.websocket = websocket
        self.user = user
        self.session_id = session_id
        self.lag = 0.0
        self.muted: set[str] = set()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.pings: dict[int, float] = {}
        self.closed = False
        self.close_code = 1008
        # this socket's own limits (a subscribe loads a match: it has a budget of its own)
        limited = settings.rate_limits
        self.messages = TokenBucket(settings.ws_messages_per_second,
                                    settings.ws_message_burst) if limited else None
        self.subscribes = TokenBucket(settings.ws_subscribes_per_minute / 60.0,
                                      settings.ws_subscribe_burst) if limited else None

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() > self.QUEUE_LIMIT:  # a client that does not read: drop it
            self.close(1008)
            return
        self.queue.put_nowait(text)

    def close(self, code: int, last: protocol.ServerMessage | None = None) -> None:
        """Close the socket with ``code`` once what is queued (and ``last``) is sent."""
        if self.closed:
            return
        if last is not None:
            self.queue.put_nowait(json.dumps(last))
        self.closed = True
        self.close_code = code
        self.queue.put_nowait(None)

    def send(self, message: protocol.ServerMessage) -> None:
        self.send_text(json.dumps(message))

    async def writer(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.websocket.close(self.close_code)
                return
            await self.websocket.send_text(text)

    def pong(self, n: int) -> None:
        sent = self.pings.pop(n, None)
        if sent is not None:
            half = (time.monotonic() - sent) / 2
            self.lag = half if self.lag == 0.0 else 0.7 * self.lag + 0.3 * half


def _origin_ok(websocket: WebSocket, settings: Settings) -> bool:
    """Browsers send Origin: it must be this host or one of ``allowed_origins``."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser
    if origin in settings.allowed_origins:
        return True
    host = websocket.headers.get("host", "")
    return urlsplit(origin).netloc == host


@router.websocket("/ws")
async def socket(websocket: WebSocket, settings: SettingsDep, sessions: SessionsDep,
                 hub: HubDep, lobby: LobbyDep, play: PlayDep, limiter: LimiterDep,
                 matchmaker: MatchmakerDep) -> None:
    """The socket (PROTOCOL.md): the Origin checked, the session's user welcomed, then
    one client message after another, each answered or refused."""
    if not _origin_ok(websocket, settings):
        # accepted first: a close before the handshake is HTTP 403, which a browser's
        # script cannot tell from a network failure; 4403 it can read (PROTOCOL.md)
        await websocket.accept()
        await websocket.close(code=4403)
        return
    header = websocket.headers.get("authorization")
    session: tuple[str, User] | None = None
    refused: protocol.ErrorMessage = SIGNED_OUT
    if header is not None:  # a program's API token (the Bot API): the cookie is not read
        try:
            token_id, token_owner = await token_user(sessions.repo, header)
            session = (f"{TOKEN_KEY}{token_id}", token_owner)
        except ServiceError as error:
            refused = protocol.error_message("bad_token", error.message)
    else:
        session = await sessions.session(websocket.cookies.get(COOKIE))
    await websocket.accept()
    if session is None:  # none, expired or revoked; a refused token
        await websocket.send_text(json.dumps(refused))
        await websocket.close(code=4401)
        return
    session_id, user = session
    conn = WSConnection(websocket, user, session_id, settings)
    sessions.opened(session_id, conn)
    dispatch = Dispatch(settings, hub, lobby, play, limiter, matchmaker)
    writer = asyncio.create_task(conn.writer())
    pinger = asyncio.create_task(_pinger(conn, settings.ping_interval))
    conn.send(protocol.welcome_message(views.user_view(user), time.time()))
    try:
        while not conn.closed:
            frame = await websocket.receive()
            received = time.time()
            if frame["type"] == "websocket.disconnect" or conn.closed:
                break  # closed meanwhile (a revoked session): not acted on
            raw = frame.get("text")
            if raw is None:
                raw = frame.get("bytes") or b""
            await dispatch.handle(conn, raw, received)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        matchmaker.gone(conn)
        hub.disconnect(conn)
        sessions.closed(session_id, conn)
        pinger.cancel()
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await pinger
        writer.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await writer


async def _pinger(conn: WSConnection, interval: float) -> None:
    """Ping every ``interval`` seconds (:meth:`Sessions.watch
    <gammon.server.accounts.Sessions.watch>` closes the socket if its session ends)."""
    n = 0
    while True:
        n += 1
        conn.pings = {k: v for k, v in conn.pings.items() if k > n - 5}
        conn.pings[n] = time.monotonic()
        conn.send(protocol.ping_message(n, time.time()))
        await asyncio.sleep(interval)


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Where a socket's messages go: subscriptions to the hub, actions and chat to play."""

    settings: Settings
    hub: Hub
    lobby: Lobby
    play: Play
    limiter: RateLimiter | RedisRateLimiter
    matchmaker: Matchmaker

    async def handle(self, conn: WSConnection, raw: str | bytes, received: float) -> None:
        """One client message: parsed in the one place, then dispatched; any refusal becomes an
        error message and changes nothing."""
        settings, hub = self.settings, self.hub
        message: protocol.ClientMessage | None = None
        try:
            within_rate = conn.messages is None or conn.messages.take()  # every message counts
            message = protocol.parse_client_message(raw, max_bytes=settings.max_message_bytes)
            if not within_rate:
                raise ServiceError("rate_limited", "too many messages on this socket")
            match message:
                case protocol.SubscribeMessage():
                    if conn.subscribes is not None and not conn.subscribes.take():
                        raise ServiceError("rate_limited", "too many subscribes on this socket")
                    room = await hub.room(message.match)
                    if room is None or not self.lobby.may_see(room, conn.user.id, message.key):
                        raise ServiceError("not_found", f"no match {message.match}")
                    await hub.subscribe(conn, message.match, message.since)
                case protocol.UnsubscribeMessage():
                    hub.unsubscribe(conn, message.match)
                case protocol.ChatMessage():
                    text = message.text.strip()[: settings.max_chat_length]
                    if not text:
                        raise ProtocolError("malformed", "empty chat message")
                    await limit_chat(self.limiter, conn.user.id)
                    await self.play.chat(conn, message.match, text)
                case protocol.LobbyFeedMessage():
                    if message.type == "subscribe_lobby":
                        self.lobby.watch(conn)
                        await self.matchmaker.watch(conn)
                    else:
                        self.matchmaker.gone(conn)
                        self.lobby.unwatch(conn)
                case protocol.SeekMessage():
                    await self.matchmaker.seek(conn, message)
                case protocol.UnseekMessage():
                    await self.matchmaker.unseek(conn)
                case protocol.MuteMessage():
                    (conn.muted.add if message.muted else conn.muted.discard)(message.match)
                    conn.send(protocol.muted_message(message.match, message.muted))
                case protocol.PingMessage():
                    conn.send(protocol.pong_message(message.id, time.time()))
                case protocol.PongMessage():
                    conn.pong(message.n)
                case _:
                    await self.play.act(conn, message, received)
        except (ProtocolError, ServiceError) as error:
            _send_error(hub, conn, message, error)
        except Exception as error:
            if refusal_code(error) == "busy":  # no database connection: nothing changed
                log.warning("a socket message refused as busy: %s", error or type(error))
                _send_error(hub, conn, message, ServiceError(
                    "busy", "the server is busy: send it again in a moment"))
            else:
                log.exception("message failed")
                _send_error(hub, conn, message, ServiceError(
                    "internal", "the server could not handle this message"))


def _send_error(hub: Hub, conn: WSConnection, message: protocol.ClientMessage | None,
                error: ProtocolError | ServiceError) -> None:
    out = protocol.error_message(cast(protocol.ErrorCode, error.code), error.message)
    if isinstance(error, ServiceError) and error.reason is not None:
        out["reason"] = error.reason
    if message is None:  # refused by the parser: the id, if it read a valid one
        if isinstance(error, ProtocolError) and error.id is not None:
            out["id"] = error.id
    else:
        out["id"] = message.id
        match_id = getattr(message, "match", None)
        if match_id is not None:
            out["match"] = match_id
            room = hub.rooms.get(match_id)
            if room is not None:
                out["v"] = room.version
    conn.send(out)
