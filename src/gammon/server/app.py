"""The ASGI app: :func:`create_app` builds it (FastAPI), with the HTTP API (OpenAPI at
``/docs``), the WebSocket at ``/ws`` (PROTOCOL.md) and the web client's static files.

Sessions are a signed cookie (``gammon_session``, itsdangerous, signed with the database's
secret key or ``GAMMON_SECRET_KEY``) holding a random token; the ``sessions`` table holds
the token's SHA-256, so signing out (one session, or all of a user's) revokes it for good.
A browser without one becomes a guest on its first request to ``/api/me`` (or any call that
needs a player), so guests can play at once.

Client input is refused at this edge with one clear error: HTTP bodies and parameters are
strict (422 ``bad_input``), socket messages go through :mod:`gammon.server.protocol`; each
socket has rate limits of its own, and the per-address/user limits are shared through Redis
when several processes run.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, cast
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Depends, FastAPI, HTTPException, Query, Request, Response, WebSocket
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy.exc import IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.websockets import WebSocketDisconnect

from gammon import views
from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.player import Probabilities
from gammon.formats.match_id import MatchKey
from gammon.server import analysis_api, bots, exports, ops, protocol
from gammon.server.analysis_worker import AnalysisWorker
from gammon.server.db import Repository, User, make_engine, migrate, secret_key
from gammon.server.fairness import verify
from gammon.server.hub import Hub, LiveRoom, ServiceError
from gammon.server.lobby import Lobby
from gammon.server.play import Play
from gammon.server.protocol import (
    RESPONSES,
    Credentials,
    EvalRequest,
    HintRequest,
    Join,
    NewGame,
    Options,
    ProtocolError,
    Text,
    first_error,
)
from gammon.server.pubsub import LocalBus, RedisBus, channel_for
from gammon.server.rooms import PAUSE, MatchConfig
from gammon.server.settings import Settings

log = logging.getLogger(__name__)
COOKIE = "gammon_session"
_SIGNED_OUT = protocol.error_message(
    "unauthenticated", "no session: call /api/me, /api/login or /api/guest first")
SESSION_AGE = 30 * 24 * 3600
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{2,19}$")
# argon2id with the library's RFC 9106 "low memory" profile
hasher = PasswordHasher()


# -- rate limits -----------------------------------------------------------------------


class TokenBucket:
    """``burst`` tokens, refilled at ``per_second``; :meth:`take` spends one if any."""

    __slots__ = ("at", "burst", "per_second", "tokens")

    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class RateLimiter:
    """Token buckets by key, in this process: ``await allow(key, per_minute, burst)``."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._buckets: dict[str, TokenBucket] = {}

    async def allow(self, key: str, per_minute: float, burst: int) -> bool:
        if not self.enabled:
            return True
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) > 100_000:
                self._buckets.clear()
            bucket = self._buckets[key] = TokenBucket(per_minute / 60.0, burst)
        return bucket.take()

    async def close(self) -> None:
        pass


# One token bucket in a Redis hash, updated atomically; Redis's clock is the only clock.
_REDIS_BUCKET = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1e6
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return allowed
"""


class RedisRateLimiter:
    """The same token buckets, kept in Redis: every server process sharing the Redis shares
    them (else each process would allow the whole rate). If Redis fails, requests are
    allowed (and the failure logged): the limiter must not take the server down."""

    def __init__(self, url: str, prefix: str = "gammon:rate:") -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self._script = self._redis.register_script(_REDIS_BUCKET)
        self._prefix = prefix
        self.enabled = True

    async def allow(self, key: str, per_minute: float, burst: int) -> bool:
        try:
            return bool(await self._script(keys=[self._prefix + key],
                                           args=[per_minute / 60.0, burst]))
        except Exception:
            log.exception("rate limiter: Redis failed; allowing")
            return True

    async def close(self) -> None:
        await self._redis.aclose()


async def _limit(request: Request, kind: str, per_minute: float, burst: int) -> None:
    client = request.client.host if request.client else "?"
    if not await request.app.state.limiter.allow(f"{kind}:{client}", per_minute, burst):
        raise HTTPException(429, {"code": "rate_limited", "message": f"too many {kind} requests"})


# -- responses -------------------------------------------------------------------------


def _returns(kind: str, status: int = 200) -> dict[str, Any]:
    """The route options that show the answer's type (``protocol.RESPONSES[kind]``) in the
    OpenAPI document. The route returns a plain dict of that type: shown, not re-validated
    on each request (the tests validate every answer they get, strictly)."""
    return {"response_model": None,
            "responses": {status: {"model": RESPONSES[kind], "description": "OK"},
                          "4XX": {"model": protocol.HTTPError, "description": "refused: "
                                  "detail.code says why (PROTOCOL.md)"}}}


# -- sessions --------------------------------------------------------------------------


def _serializer(request: Request | WebSocket) -> URLSafeTimedSerializer:
    return request.app.state.signer  # type: ignore[no-any-return]


def _session_id(request: Request | WebSocket) -> str | None:
    """The stored id of the session whose token the request's cookie holds (its SHA-256),
    or None without a well-signed cookie of this kind (one holding a bare user id, from
    before sessions were stored, is refused: it could not be revoked)."""
    cookie = request.cookies.get(COOKIE)
    if not cookie:
        return None
    try:
        data = _serializer(request).loads(cookie, max_age=SESSION_AGE)
    except BadSignature:
        return None
    token = data.get("sid") if isinstance(data, dict) else None
    return _stored_id(token) if isinstance(token, str) else None


def _stored_id(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _session(request: Request | WebSocket) -> tuple[str, User] | None:
    """The live session of the request (its stored id and user), or None."""
    session_id = _session_id(request)
    if session_id is None:
        return None
    user = await request.app.state.repo.session_user(session_id)
    return None if user is None else (session_id, user)


async def _set_session(request: Request, response: Response, user: User) -> None:
    """Sign ``user`` in: a new stored session, its random token in the cookie. The
    session the request came with (a guest's, say) is revoked."""
    previous = _session_id(request)
    if previous is not None:
        await _revoke(request.app, [previous])
    token = secrets.token_urlsafe(32)
    await request.app.state.repo.create_session(_stored_id(token), user.id,
                                                time.time() + SESSION_AGE)
    response.set_cookie(COOKIE, _serializer(request).dumps({"sid": token}),
                        max_age=SESSION_AGE, httponly=True, samesite="lax",
                        secure=request.app.state.settings.cookie_secure)


async def _revoke(app: Any, session_ids: list[str] | None = None, *,
                  user_id: int | None = None) -> int:
    """Revoke sessions (by stored id, or every one of ``user_id``) and close this process's
    sockets opened with them; other processes close theirs at their next ping. How many
    sessions of ``user_id`` there were (0 when revoking by id)."""
    repo: Repository = app.state.repo
    count = 0
    if user_id is not None:
        count = await repo.revoke_sessions(user_id)
    for session_id in session_ids or ():
        await repo.revoke_session(session_id)
    sockets: dict[str, set[WSConnection]] = app.state.sockets
    for session_id, conns in list(sockets.items()):
        if session_id in (session_ids or ()) or any(c.user.id == user_id for c in conns):
            for conn in list(conns):
                conn.close(4401, _SIGNED_OUT)
    return count


async def current_user(request: Request) -> User | None:
    session = await _session(request)
    return None if session is None else session[1]


async def player(request: Request, response: Response) -> User:
    """The signed-in user, or a new guest (whose session cookie is set on the response)."""
    user = await current_user(request)
    if user is None:
        user = await _new_guest(request)
        await _set_session(request, response, user)
    return user


async def _new_guest(request: Request) -> User:
    await _limit(request, "guest", 30, 30)
    repo: Repository = request.app.state.repo
    for _ in range(5):
        try:
            return await repo.create_user(f"guest-{secrets.token_hex(4)}", "guest")
        except IntegrityError:
            continue
    raise HTTPException(500, "could not name a guest")


Player = Annotated[User, Depends(player)]


def _hub(request: Request) -> Hub:
    return request.app.state.hub  # type: ignore[no-any-return]


def _lobby(request: Request) -> Lobby:
    return request.app.state.lobby  # type: ignore[no-any-return]


# -- private matches --------------------------------------------------------------------
#
# A private match is seen only by its players, the player it is reserved for (a rematch)
# and whoever holds its invite link, ``/#/match/ID?key=KEY``. KEY is a keyed hash of the
# match id (HMAC-SHA256 under a secret derived from the server's secret key, first 128 bits,
# base64url): nothing to store, unguessable, and the id alone (in logs, in the players'
# history) gives no access. To anyone else the match does not exist (404 / not_found).


def invite_key(app: Any, match_id: str) -> str:
    digest = hmac.new(app.state.invite_secret, match_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def _may_see(app: Any, room: LiveRoom, user_id: int | None, key: str | None) -> bool:
    if not room.private:
        return True
    if user_id is not None and (room.seat_of(user_id) is not None
                                or room.reserved_for == user_id):
        return True
    return key is not None and hmac.compare_digest(key.encode(),
                                                   invite_key(app, room.id).encode())


async def _visible_room(request: Request, match_id: str, key: str | None) -> LiveRoom:
    """The room of a match the request may see, or 404 — the same for a private match
    without the key as for no match at all."""
    room = await _hub(request).room(match_id)
    user = None if room is None or not room.private else await current_user(request)
    if room is None or not _may_see(request.app, room, None if user is None else user.id,
                                    key):
        raise HTTPException(404, {"code": "not_found", "message": "no such match"})
    return room


# Path parameters are client input like a body: checked the same way (422 bad_input).
MatchId = Annotated[str, PathParam(pattern=protocol.MATCH_ID, description="a match id")]
UserName = Annotated[Text, PathParam(max_length=40, description="a player's name")]
InviteKey = Annotated[Text | None, Query(max_length=64, description=
                                         "the key of a private match's invite link")]


def _error(error: ServiceError) -> HTTPException:
    status = {"not_found": 404, "not_a_player": 403, "reserved": 403,
              "too_many_games": 429}.get(error.code, 409)
    return HTTPException(status, {"code": error.code, "message": error.message})


# -- WebSocket connections -------------------------------------------------------------


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


async def _socket(websocket: WebSocket) -> None:
    app = websocket.app
    settings: Settings = app.state.settings
    if not _origin_ok(websocket, settings):
        # accepted first: a close before the handshake is HTTP 403, which a browser's
        # script cannot tell from a network failure; 4403 it can read (PROTOCOL.md)
        await websocket.accept()
        await websocket.close(code=4403)
        return
    session = await _session(websocket)
    await websocket.accept()
    if session is None:  # none, expired or revoked
        await websocket.send_text(json.dumps(_SIGNED_OUT))
        await websocket.close(code=4401)
        return
    session_id, user = session
    conn = WSConnection(websocket, user, session_id, settings)
    sockets: dict[str, set[WSConnection]] = app.state.sockets
    sockets.setdefault(session_id, set()).add(conn)
    hub: Hub = app.state.hub
    writer = asyncio.create_task(conn.writer())
    pinger = asyncio.create_task(_pinger(app, conn, settings.ping_interval))
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
            await _handle(app, hub, conn, raw, received)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        hub.disconnect(conn)
        same_session = sockets.get(session_id, set())
        same_session.discard(conn)
        if not same_session:
            sockets.pop(session_id, None)
        pinger.cancel()
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await pinger
        writer.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await writer


async def _pinger(app: Any, conn: WSConnection, interval: float) -> None:
    """Ping every ``interval`` seconds (:func:`_check_sessions` closes the socket if its
    session ends)."""
    n = 0
    while True:
        n += 1
        conn.pings = {k: v for k, v in conn.pings.items() if k > n - 5}
        conn.pings[n] = time.monotonic()
        conn.send(protocol.ping_message(n, time.time()))
        await asyncio.sleep(interval)


async def _check_sessions(app: Any, interval: float) -> None:
    """Every ``interval`` seconds, check that the sessions of this process's open sockets
    still live (another process may have revoked one, or it expired) and close the sockets
    of those that do not (4401). One query for all of them: a query per socket and ping
    (2,000 sockets: 200 queries a second) exhausted the connection pool at 1,000 matches."""
    sockets: dict[str, set[WSConnection]] = app.state.sockets
    while True:
        await asyncio.sleep(interval)
        checked = list(sockets)
        if not checked:
            continue
        try:
            alive = await app.state.repo.live_sessions(checked)
        except Exception:  # the database is away: the next round checks again
            log.exception("session check failed")
            continue
        for session_id in checked:
            if session_id not in alive:
                for conn in list(sockets.get(session_id, ())):
                    conn.close(4401, _SIGNED_OUT)


async def _handle(app: Any, hub: Hub, conn: WSConnection, raw: str | bytes,
                  received: float) -> None:
    """One client message: parsed in the one place, then dispatched; any refusal becomes an
    error message and changes nothing."""
    settings: Settings = app.state.settings
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
                if room is None or not _may_see(app, room, conn.user.id, message.key):
                    raise ServiceError("not_found", f"no match {message.match}")
                await hub.subscribe(conn, message.match, message.since)
            case protocol.UnsubscribeMessage():
                hub.unsubscribe(conn, message.match)
            case protocol.ChatMessage():
                text = message.text.strip()[: settings.max_chat_length]
                if not text:
                    raise ProtocolError("malformed", "empty chat message")
                if not await app.state.limiter.allow(f"chat:{conn.user.id}", 20, 5):
                    raise ServiceError("rate_limited", "too many chat messages")
                await app.state.play.chat(conn, message.match, text)
            case protocol.MuteMessage():
                (conn.muted.add if message.muted else conn.muted.discard)(message.match)
                conn.send(protocol.muted_message(message.match, message.muted))
            case protocol.PingMessage():
                conn.send(protocol.pong_message(message.id, time.time()))
            case protocol.PongMessage():
                conn.pong(message.n)
            case _:
                await app.state.play.act(conn, message, received)
    except (ProtocolError, ServiceError) as error:
        _send_error(hub, conn, message, error)
    except PoolTimeout:
        log.warning("no free database connection: a socket message refused as busy")
        _send_error(hub, conn, message, ServiceError(
            "busy", "the server is busy: send it again in a moment"))
    except Exception:
        log.exception("message failed")
        _send_error(hub, conn, message,
                    ServiceError("internal", "the server could not handle this message"))


def _send_error(hub: Hub, conn: WSConnection, message: protocol.ClientMessage | None,
                error: ProtocolError | ServiceError) -> None:
    out = protocol.error_message(cast(protocol.ErrorCode, error.code), error.message)
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


# -- the app ---------------------------------------------------------------------------


def client_dir(settings: Settings) -> Path | None:
    if settings.static_dir:
        return Path(settings.static_dir)
    try:
        path = Path(str(resources.files("gammon") / "client"))
    except (ModuleNotFoundError, TypeError):
        return None
    return path if (path / "index.html").is_file() else None


def create_app(settings: Settings | None = None, *, bus: Any = None) -> FastAPI:
    """The server app. ``bus`` overrides the bus (tests share a :class:`LocalBus` between
    two apps); otherwise Redis when ``redis_url`` is set, else in-process."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, pool_size=settings.db_pool_size,
                             max_overflow=settings.db_max_overflow,
                             pool_timeout=settings.db_pool_timeout)
        await migrate(engine)
        key = settings.secret_key or await secret_key(engine)
        app.state.signer = URLSafeTimedSerializer(key, salt="gammon-session")
        app.state.invite_secret = hashlib.sha256(f"gammon-invite:{key}".encode()).digest()
        app.state.repo = repo = Repository(engine)
        channel = settings.bus_channel or channel_for(settings.database_url)
        the_bus = bus or (RedisBus(settings.redis_url, channel) if settings.redis_url
                          else LocalBus())
        app.state.hub = hub = Hub(settings, repo, the_bus)
        app.state.play = Play(hub)  # before the hub starts: it resumes matches
        app.state.lobby = Lobby(hub)
        if settings.redis_url and settings.rate_limits:  # several processes: one budget
            app.state.limiter = RedisRateLimiter(settings.redis_url,
                                                 settings.rate_limit_prefix)
        _warm_kernels()  # before hub.start replays matches, before the port is served
        await hub.start()
        app.state.analysis = analysis = AnalysisWorker(settings, engine, hub)
        await analysis.start()
        # Long-lived objects (modules, compiled kernels, resumed matches) leave the
        # collector's view, so full collections stay short.
        gc.collect()
        gc.freeze()
        collector = None if gc.isenabled() else asyncio.create_task(_collect_on_a_timer())
        session_checks = asyncio.create_task(_check_sessions(app, settings.ping_interval))
        try:
            yield
        finally:
            session_checks.cancel()
            if collector is not None:
                collector.cancel()
            await analysis.stop()
            await hub.stop()
            await app.state.limiter.close()
            await repo.close()
            await engine.dispose()

    app = FastAPI(title="gammon", version="0.1.0", lifespan=lifespan,
                  description="The gammon backgammon server: accounts, lobby, matches, "
                              "history, leaderboard and the engine. Play is over the "
                              "WebSocket at /ws (PROTOCOL.md).")
    app.state.settings = settings
    # shared through Redis when processes share a Redis bus (lifespan), else per process
    app.state.limiter = RateLimiter(settings.rate_limits)
    app.state.sockets = {}  # session id -> the sockets of this process opened with it
    app.add_exception_handler(RequestValidationError, _bad_input)
    app.add_exception_handler(PoolTimeout, _busy)
    app.add_api_websocket_route("/ws", _socket)
    _routes(app)
    analysis_api.install(app, _visible_room)  # GET /api/games/{id}/analysis
    ops.install(app)  # /metrics, /readyz, socket tracking, graceful shutdown
    static = client_dir(settings)
    if static is not None and static.is_dir():
        app.mount("/", StaticFiles(directory=static, html=True), name="client")
    return app


def _routes(app: FastAPI) -> None:
    # accounts

    @app.get("/api/me", tags=["accounts"], **_returns("me"))
    async def me(user: Player) -> protocol.MeResponse:
        options: Any = Options(**user.options).model_dump()
        return {"user": views.user_view(user), "options": options}

    @app.post("/api/guest", tags=["accounts"], **_returns("user"))
    async def guest(request: Request, response: Response) -> protocol.UserResponse:
        user = await _new_guest(request)
        await _set_session(request, response, user)
        return {"user": views.user_view(user)}

    @app.post("/api/register", status_code=201, tags=["accounts"], **_returns("user", 201))
    async def register(body: Credentials, request: Request,
                       response: Response) -> protocol.UserResponse:
        await _limit(request, "register", 5, 5)
        if not NAME.match(body.name) or body.name.lower().startswith(("guest-", "bot-")):
            raise HTTPException(422, {"code": "bad_name", "message":
                                      "a name is 3-20 letters, digits, '_' or '-', "
                                      "starting with a letter"})
        if len(body.password) < 8:
            raise HTTPException(422, {"code": "weak_password",
                                      "message": "a password has at least 8 characters"})
        digest = await asyncio.to_thread(hasher.hash, body.password)
        try:
            user = await request.app.state.repo.create_user(body.name, "user", digest)
        except IntegrityError:
            raise HTTPException(409, {"code": "name_taken",
                                      "message": "that name is taken"}) from None
        await _set_session(request, response, user)
        return {"user": views.user_view(user)}

    @app.post("/api/login", tags=["accounts"], **_returns("user"))
    async def login(body: Credentials, request: Request,
                    response: Response) -> protocol.UserResponse:
        """Wrong name and wrong password get the same answer in the same time."""
        await _limit(request, "login", 10, 10)
        found = await request.app.state.repo.user_by_name(body.name)
        digest = found[1] if found is not None and found[1] else _DUMMY_HASH
        ok: bool
        try:
            ok = await asyncio.to_thread(hasher.verify, digest, body.password)
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok or found is None or not found[1]:
            raise HTTPException(401, {"code": "bad_credentials",
                                      "message": "wrong name or password"})
        user = found[0]
        if hasher.check_needs_rehash(digest):
            await request.app.state.repo.set_password(
                user.id, await asyncio.to_thread(hasher.hash, body.password))
        await _set_session(request, response, user)
        return {"user": views.user_view(user)}

    @app.post("/api/logout", tags=["accounts"], **_returns("ok"))
    async def logout(request: Request, response: Response) -> protocol.OkResponse:
        """Sign out: this session is revoked on the server (a copy of the cookie signs
        nobody in) and its sockets are closed."""
        session_id = _session_id(request)
        if session_id is not None:
            await _revoke(request.app, [session_id])
        response.delete_cookie(COOKIE)
        return {"ok": True}

    @app.post("/api/logout-all", tags=["accounts"], **_returns("logout_all"))
    async def logout_all(request: Request, response: Response) -> protocol.LogoutAllResponse:
        """Sign out everywhere: every session of this user is revoked (this one too)."""
        session = await _session(request)
        if session is None:
            raise HTTPException(401, {"code": "unauthenticated",
                                      "message": "no session to sign out of"})
        revoked = await _revoke(request.app, user_id=session[1].id)
        response.delete_cookie(COOKIE)
        return {"ok": True, "revoked": revoked}

    @app.get("/api/me/options", tags=["accounts"])
    async def get_options(user: Player) -> Options:
        return Options(**user.options)

    @app.put("/api/me/options", tags=["accounts"])
    async def put_options(body: Options, user: Player, request: Request) -> Options:
        await request.app.state.repo.set_options(user.id, body.model_dump())
        return body

    # lobby

    @app.get("/api/games", tags=["lobby"], **_returns("open_games"))
    async def open_games(request: Request) -> list[protocol.OpenGame]:
        rows = await request.app.state.repo.open_matches()
        creators = await request.app.state.repo.users([r.player0 for r in rows])
        out: list[protocol.OpenGame] = []
        for row in rows:
            config: views.ConfigView = json.loads(row.config)  # as stored
            creator = creators.get(row.player0)
            out.append({"id": row.id, "created_at": row.created_at,
                        **config, "creator": views.user_view(creator) if creator else None})
        return out

    @app.post("/api/games", status_code=201, tags=["lobby"], **_returns("created", 201))
    async def create_game(body: NewGame, user: Player,
                          request: Request) -> protocol.CreatedGame:
        if not await request.app.state.limiter.allow(f"create:{user.id}", 10, 10):
            raise HTTPException(429, {"code": "rate_limited",
                                      "message": "too many games created"})
        config = MatchConfig(
            kind=body.kind, length=body.length if body.kind == "match" else 1,
            cube=body.cube, clock="none" if body.bot is not None else body.clock,
            bot=body.bot, jacoby=body.jacoby, beavers=body.beavers,
            winner_rolls_anew=body.winner_rolls_anew, private=body.private,
            clock_scale=request.app.state.settings.clock_scale)
        try:
            room = await _lobby(request).create(user, config, client_seed=body.client_seed)
        except ServiceError as error:
            raise _error(error) from None
        return {**room.info_json(), "invite": _invite(request.app, room)}

    @app.get("/api/games/{match_id}", tags=["lobby"], **_returns("state"))
    async def game(match_id: MatchId, request: Request,
                   key: InviteKey = None) -> protocol.GameState:
        """A match's ``state``; a private match's needs a seat or the invite ``key`` (its
        players also get the ``invite`` link)."""
        room = await _visible_room(request, match_id, key)
        user = await current_user(request)
        state = cast(protocol.GameState,
                     room.state_message(None if user is None else user.id, time.time()))
        if state["you"] is not None:
            state["invite"] = _invite(request.app, room)
        return state

    @app.post("/api/games/{match_id}/join", tags=["lobby"], **_returns("info"))
    async def join(match_id: MatchId, user: Player, request: Request, key: InviteKey = None,
                   body: Join | None = None) -> views.InfoView:
        """Take the free seat; a private match needs the invite ``key`` (or a reservation
        for this user: a rematch)."""
        room = await _hub(request).room(match_id)
        if room is None or not _may_see(request.app, room, user.id, key):
            raise HTTPException(404, {"code": "not_found", "message": "no such match"})
        try:
            room = await _lobby(request).join(user, match_id, body.client_seed if body else "")
        except ServiceError as error:
            raise _error(error) from None
        return room.info_json()

    @app.delete("/api/games/{match_id}", tags=["lobby"], **_returns("ok"))
    async def cancel(match_id: MatchId, user: Player, request: Request) -> protocol.OkResponse:
        try:
            await _lobby(request).cancel(user, match_id)
        except ServiceError as error:
            raise _error(error) from None
        return {"ok": True}

    @app.post("/api/games/{match_id}/rematch", status_code=201, tags=["lobby"],
              **_returns("info", 201))
    async def rematch(match_id: MatchId, user: Player, request: Request) -> views.InfoView:
        try:
            room = await _lobby(request).rematch(user, match_id)
        except ServiceError as error:
            raise _error(error) from None
        return room.info_json()

    # history, export, fairness

    @app.get("/api/games/{match_id}/export.{fmt}", response_class=PlainTextResponse,
             tags=["history"])
    async def export(match_id: MatchId, fmt: exports.Format, request: Request,
                     key: InviteKey = None) -> PlainTextResponse:
        """The match as a Jellyfish / GNU Backgammon ``.mat`` file or an SGF file
        (:mod:`gammon.server.exports`), built from the match's stored actions."""
        room = await _visible_room(request, match_id, key)
        if room.rules is None:
            raise HTTPException(409, {"code": "not_started",
                                      "message": "the match has not started yet"})
        row, rows = await request.app.state.repo.match_with_actions(match_id)
        names = [room.users[p].name if p in room.users else "" for p in room.players]
        try:
            text = await asyncio.to_thread(
                exports.match_file, fmt, match_id=match_id, rules=room.rules, names=names,
                created_at=None if row is None else row.created_at,
                actions=[r.action for r in rows if r.kind != PAUSE])
        except exports.ExportError as error:
            raise HTTPException(409, {"code": "not_exportable", "message": str(error)}) from None
        return PlainTextResponse(text, headers={
            "content-disposition": f'attachment; filename="{match_id}.{fmt}"'})

    @app.get("/api/games/{match_id}/fairness", tags=["history"], **_returns("fairness"))
    async def fairness(match_id: MatchId, request: Request, key: InviteKey = None
                       ) -> protocol.FairnessRecord:
        """The dice commitment and, once the match is over, the seed that proves it."""
        await _visible_room(request, match_id, key)
        row, rows = await request.app.state.repo.match_with_actions(match_id)
        if row is None:
            raise HTTPException(404, {"code": "not_found", "message": "no such match"})
        record: protocol.FairnessRecord = {
            "match": match_id, "seed_hash": row.seed_hash,
            "client_seeds": [row.client_seed0, row.client_seed1],
            "winner_rolls_anew": MatchConfig.from_json(row.config).winner_rolls_anew,
            "server_seed": row.server_seed if row.status == "finished" else None,
            "actions": [json.loads(r.action) for r in rows
                        if r.kind in ("opening", "roll")],
        }
        if record["server_seed"]:
            record["problems"] = verify(dict(record))
        return record

    @app.get("/api/users/{name}/history", tags=["history"], **_returns("history"))
    async def history(name: UserName, request: Request) -> list[protocol.HistoryEntry]:
        found = await request.app.state.repo.user_by_name(name)
        if found is None:
            raise HTTPException(404, {"code": "not_found", "message": "no such player"})
        viewer = await current_user(request)
        rows = [r for r in await request.app.state.repo.history(found[0].id)
                if not r.private or (viewer is not None
                                     and viewer.id in (r.player0, r.player1))]
        ids = {p for r in rows for p in (r.player0, r.player1) if p is not None}
        users = await request.app.state.repo.users(list(ids))
        return [{"id": r.id, "status": r.status, "config": json.loads(r.config),
                 "players": [users[p].name if p in users else None
                             for p in (r.player0, r.player1)],
                 "winner": r.winner, "result": json.loads(r.result) if r.result else None,
                 "rated": bool(r.rated), "created_at": r.created_at,
                 "finished_at": r.finished_at} for r in rows]

    @app.get("/api/users/{name}/ratings", tags=["history"], **_returns("ratings"))
    async def ratings(name: UserName, request: Request) -> protocol.RatingsResponse:
        found = await request.app.state.repo.user_by_name(name)
        if found is None:
            raise HTTPException(404, {"code": "not_found", "message": "no such player"})
        return {"user": views.user_view(found[0]),
                "history": await request.app.state.repo.rating_history(found[0].id)}

    @app.get("/api/leaderboard", tags=["history"], **_returns("leaderboard"))
    async def leaderboard(request: Request) -> list[protocol.LeaderboardEntry]:
        users = await request.app.state.repo.leaderboard()
        return [{"rank": i + 1, **views.user_view(u)} for i, u in enumerate(users)]

    @app.get("/api/dice-stats", tags=["history"], **_returns("dice_stats"))
    async def dice_stats(request: Request) -> protocol.DiceStats:
        """How often each face and each roll came up on this server (public)."""
        cache = request.app.state.__dict__.setdefault("dice_cache", {})
        if cache.get("at", 0) > time.monotonic() - 30:
            return cache["value"]  # type: ignore[no-any-return]
        faces = [0] * 6
        rolls: dict[str, int] = {}
        for text in await request.app.state.repo.dice_actions():
            action = json.loads(text)
            dice = [d for pair in action["throws"] for d in pair] if action["t"] == "opening" \
                else action["roll"]
            for die in dice:
                faces[die - 1] += 1
            if action["t"] == "roll":
                key = "".join(map(str, sorted(action["roll"], reverse=True)))
                rolls[key] = rolls.get(key, 0) + 1
        value: protocol.DiceStats = {"faces": faces, "dice": sum(faces), "rolls": rolls}
        cache.update(at=time.monotonic(), value=value)
        return value

    # the engine

    @app.post("/api/hint", tags=["engine"], **_returns("hint"))
    async def hint(body: HintRequest, request: Request) -> views.HintView:
        """Every legal play of ``dice`` in the position (the side on roll's view), ranked by
        the neural engine at ``plies`` (0-2), best first, with its cubeless equity and the
        five probabilities."""
        await _limit(request, "engine", 120, 30)
        position = _playable(body.position_id)
        await analysis_api.refuse_in_live_rated(request.app, await current_user(request),
                                                position)
        try:
            roll = Roll.parse(body.dice)
        except ValueError as error:
            raise HTTPException(422, {"code": "bad_input", "message": str(error)}) from None
        ranked = await asyncio.to_thread(bots.engine().rank_plays, position, roll,
                                         plies=body.plies)
        return {"engine": "gammon", "plies": body.plies,
                "plays": [views.ranked_play_view(r) for r in ranked]}

    @app.post("/api/eval", tags=["engine"], **_returns("eval"))
    async def evaluate(body: EvalRequest, request: Request) -> views.EvalView:
        """The engine's evaluation of the position before the side on roll rolls: the five
        probabilities and the cubeless equity at ``plies``; with a GNU Backgammon
        ``match_id`` (score, cube, turn), also the cube decision (or the answer to a pending
        double or resignation), as ``gammon cube --json`` gives it."""
        await _limit(request, "engine", 120, 30)
        position = _playable(body.position_id)
        await analysis_api.refuse_in_live_rated(request.app, await current_user(request),
                                                position)
        try:
            key = None if body.match_id is None else MatchKey.from_id(body.match_id)
        except ValueError as error:
            raise HTTPException(422, {"code": "bad_input", "message": str(error)}) from None

        def work() -> tuple[Probabilities, views.CubeView | None]:
            engine = bots.engine()
            probabilities = engine.evaluate(position, plies=body.plies)
            cube = None if key is None else views.cube_view(
                engine, position, key, plies=body.plies, beavers=body.beavers)
            return probabilities, cube

        try:
            probabilities, cube = await asyncio.to_thread(work)
        except ValueError as error:
            raise HTTPException(422, {"code": "bad_input", "message": str(error)}) from None
        pips = position.pips()
        out: views.EvalView = {
            "engine": "gammon", "plies": body.plies, "position_id": position.id(),
            "probabilities": views.probabilities_view(probabilities),
            "equity": round(probabilities.equity, 4),
            "pips": list(pips), "pip_lead": pips[1] - pips[0], "race": position.is_race()}
        if cube is not None:
            out["cube"] = cube
        return out

    @app.get("/healthz", tags=["server"], **_returns("ok"))
    async def healthz() -> protocol.OkResponse:
        return {"ok": True}


async def _bad_input(_request: Request, error: Exception) -> JSONResponse:
    """A body (or parameter) that does not validate: 422 with the first problem, in the
    API's one error form. The input is not echoed: it may not even be encodable."""
    assert isinstance(error, RequestValidationError)
    message = first_error(error.errors(), skip=1)
    return JSONResponse({"detail": {"code": "bad_input", "message": message}}, 422)


async def _busy(_request: Request, _error: Exception) -> JSONResponse:
    """No free database connection within ``db_pool_timeout``: 503 ``busy`` with
    ``Retry-After``: a refusal to retry, not a 500 with a traceback."""
    log.warning("no free database connection: a request refused as busy")
    return JSONResponse({"detail": {"code": "busy", "message":
                                    "the server is busy: try again in a moment"}},
                        503, headers={"Retry-After": "1"})


def _invite(app: Any, room: LiveRoom) -> str:
    """The link that shows a match to whoever holds it (PROTOCOL.md, *Private matches*)."""
    link = f"/#/match/{room.id}"
    return f"{link}?key={invite_key(app, room.id)}" if room.private else link


def _playable(position_id: str) -> Position:
    """The position of a Position ID the engine may be asked about: one the core's rules
    allow (at most 15 checkers a side, never both sides on one point, bars the right way)
    in a game not over (neither side has borne off all 15 — the empty board is both)."""
    try:
        position = Position.from_id(position_id)
    except ValueError as error:
        raise HTTPException(422, {"code": "bad_input", "message": str(error)}) from None
    if position.winner() is not None:
        raise HTTPException(422, {"code": "bad_input", "message":
                                  "the game is over in this position: a side has borne off "
                                  "all 15 checkers"})
    return position


def _warm_kernels() -> None:
    """Compile (or load from numba's cache) the move generator's kernels at start-up. On
    first use they took 1.3 s from the cache and 39 s with a cold one (2 busy cores): in
    the first player's join, with the event loop, every socket and every request waiting."""
    from gammon.core.moves import legal_plays

    for roll in (Roll(3, 1), Roll(6, 6)):
        legal_plays(Position.initial(), roll)


async def _collect_on_a_timer() -> None:
    """With automatic garbage collection off (``gammon serve`` turns it off), collect on a
    timer: the young generation every second, the middle one every 10 s, everything every
    5 minutes — short, predictable pauses instead of long ones at random."""
    ticks = 0
    while True:
        await asyncio.sleep(1.0)
        ticks += 1
        gc.collect(2 if ticks % 300 == 0 else 1 if ticks % 10 == 0 else 0)


_DUMMY_HASH = hasher.hash("not a password of anyone")
