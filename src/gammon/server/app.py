"""The ASGI app: :func:`create_app` builds it (FastAPI) from its parts — the process's
services, made by the app's lifespan (sessions, the hub with its play and lobby, the rate
limiter, the analysis worker and, on PostgreSQL, its job queue), and the routers that serve
them (:mod:`gammon.server.routes`: accounts, lobby, history, engine, the WebSocket at
``/ws``; :mod:`gammon.server.analysis_api`;
:mod:`gammon.server.ops`), with the OpenAPI document at ``/docs`` and the web client's static
files at ``/``.

Client input is refused at this edge with one clear error: HTTP bodies and parameters are
strict (422 ``bad_input``), socket messages go through :mod:`gammon.server.protocol`; each
socket has rate limits of its own, and the per-address/user limits are shared through Redis
when several processes run. Every refusal carries a reason code (PROTOCOL.md, *Error
codes*): a :class:`~gammon.server.hub.ServiceError` raised by a route or a service is
answered here as ``{"detail": {"code", "message"}}`` with the status of its code.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.server import analysis_api, bots, jobs, ops, protocol
from gammon.server.accounts import COOKIE, Sessions
from gammon.server.analysis_worker import AnalysisWorker
from gammon.server.db import Repository, asyncpg_exceptions, make_engine, migrate, secret_key
from gammon.server.deck import DeckStore
from gammon.server.explorer import ChoiceStore, Rollouts
from gammon.server.hub import Hub, ServiceError
from gammon.server.limits import RateLimiter, RedisRateLimiter
from gammon.server.lobby import Lobby
from gammon.server.matchmaking import Matchmaker
from gammon.server.play import Play
from gammon.server.protocol import first_error
from gammon.server.pubsub import LocalBus, RedisBus, channel_for
from gammon.server.puzzles import PuzzleStore
from gammon.server.routes import accounts as account_routes
from gammon.server.routes import bot_api as bot_api_routes
from gammon.server.routes import deck as deck_routes
from gammon.server.routes import engine as engine_routes
from gammon.server.routes import explorer as explorer_routes
from gammon.server.routes import history as history_routes
from gammon.server.routes import lobby as lobby_routes
from gammon.server.routes import puzzles as puzzle_routes
from gammon.server.routes import socket as socket_routes
from gammon.server.routes import tournaments as tournament_routes
from gammon.server.routes import wildbg as wildbg_routes
from gammon.server.routes.deps import returns, status_of
from gammon.server.settings import Settings
from gammon.server.tournaments.scheduler import Tournaments

log = logging.getLogger(__name__)


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
        app.state.repo = repo = Repository(engine)
        app.state.sessions = sessions = Sessions(repo, key, secure=settings.cookie_secure)
        channel = settings.bus_channel or channel_for(settings.database_url)
        the_bus = bus or (RedisBus(settings.redis_url, channel) if settings.redis_url
                          else LocalBus())
        app.state.hub = hub = Hub(settings, repo, the_bus, observer=app.state.ops)
        app.state.play = Play(hub)  # before the hub starts: it resumes matches
        invite_secret = hashlib.sha256(f"gammon-invite:{key}".encode()).digest()
        app.state.lobby = lobby = Lobby(hub, invite_secret)
        app.state.matchmaker = matchmaker = Matchmaker(lobby)
        if settings.redis_url and settings.rate_limits:  # several processes: one budget
            app.state.limiter = RedisRateLimiter(settings.redis_url,
                                                 settings.rate_limit_prefix)
        _warm_kernels()  # before hub.start replays matches, before the port is served
        await hub.start()
        hub.spawn(matchmaker.run())  # Play now's pairing passes (stopped with the hub)
        app.state.tournaments = tournaments = Tournaments(lobby, engine)
        hub.finish_listeners.append(tournaments.match_finished)
        hub.spawn(tournaments.run())  # the scheduler's passes, where it holds the lock
        # the analyses: procrastinate's job queue on PostgreSQL, the process itself on SQLite
        queue = jobs.JobQueue(settings, engine, pool_size=settings.analysis_workers + 4) \
            if jobs.is_postgres(settings.database_url) else None
        app.state.analysis = analysis = AnalysisWorker(settings, engine, hub, jobs=queue)
        app.state.ops.analysis = jobs.analysis_metrics(analysis.runner, queue)
        app.state.puzzles = PuzzleStore(engine, repo.operations)
        app.state.deck = DeckStore(engine)
        app.state.rollouts = rollouts = Rollouts(bots.engine)
        app.state.choices = ChoiceStore(engine)
        await analysis.start()
        # Long-lived objects (modules, compiled kernels, resumed matches) leave the
        # collector's view, so full collections stay short.
        gc.collect()
        gc.freeze()
        collector = None if gc.isenabled() else asyncio.create_task(_collect_on_a_timer())
        session_checks = asyncio.create_task(sessions.watch(settings.ping_interval))
        try:
            yield
        finally:
            session_checks.cancel()
            if collector is not None:
                collector.cancel()
            for name, step in (("analysis", analysis.stop), ("rollouts", rollouts.close),
                               ("hub", hub.stop), ("limiter", app.state.limiter.close),
                               ("repository", repo.close), ("engine", engine.dispose)):
                await _bounded(name, step())

    app = FastAPI(title="gammon", version="0.1.0", lifespan=lifespan,
                  description="The gammon backgammon server: accounts, lobby, matches, "
                              "history, leaderboard and the engine. Play is over the "
                              "WebSocket at /ws (PROTOCOL.md).")
    app.state.settings = settings
    # shared through Redis when processes share a Redis bus (lifespan), else per process
    app.state.limiter = RateLimiter(settings.rate_limits)
    app.add_exception_handler(RequestValidationError, _bad_input)
    app.add_exception_handler(PoolTimeout, _busy)
    for unreachable in (DBAPIError, ConnectionError, *_asyncpg_connection_errors()):
        app.add_exception_handler(unreachable, _database_error)
    app.add_exception_handler(ServiceError, _refused)
    app.add_exception_handler(StarletteHTTPException, _no_route)
    for router in (account_routes.router, bot_api_routes.router, lobby_routes.router,
                   history_routes.router, analysis_api.router, engine_routes.router,
                   puzzle_routes.router, deck_routes.router, explorer_routes.router,
                   wildbg_routes.router, tournament_routes.router, socket_routes.router):
        app.include_router(router)
    app.add_api_route("/healthz", _healthz, methods=["GET"], tags=["server"],
                      **returns("ok"))
    _document_sign_in(app)
    ops.install(app)  # /metrics, /readyz, socket tracking, graceful shutdown
    static = client_dir(settings)
    if static is not None and static.is_dir():
        app.mount("/", StaticFiles(directory=static, html=True), name="client")
    return app


def _document_sign_in(app: FastAPI) -> None:
    """The OpenAPI document names the two ways to sign in: the session cookie of a browser
    and, for a program (the Bot API), ``Authorization: Bearer <API token>``; either, or
    none (a guest is made where a player is needed)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = build()
            document.setdefault("components", {})["securitySchemes"] = {
                "session": {"type": "apiKey", "in": "cookie", "name": COOKIE,
                            "description": "a browser's session (POST /api/login)"},
                "apiToken": {"type": "http", "scheme": "bearer",
                             "description": "a bot account's API token (POST /api/tokens; "
                                            "PROTOCOL.md, The Bot API)"}}
            document["security"] = [{"session": []}, {"apiToken": []}, {}]
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]


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


def _asyncpg_connection_errors() -> tuple[type[Exception], ...]:
    """asyncpg's errors of a connection lost (none without asyncpg: SQLite alone)."""
    pg = asyncpg_exceptions()
    if pg is None:
        return ()
    return (pg.PostgresConnectionError, pg.OperatorInterventionError, pg.InterfaceError)


async def _database_error(request: Request, error: Exception) -> JSONResponse:
    """A database error: 503 ``busy`` when its server could not be reached (a restart:
    nothing changed, and the request may succeed a moment later), else a 500."""
    if ops.refusal_code(error) == "busy":
        log.warning("a database (or other service) could not be reached: a request "
                    "refused as busy: %s", error)
        return JSONResponse({"detail": {"code": "busy", "message":
                                        "the server is busy: try again in a moment"}},
                            503, headers={"Retry-After": "1"})
    log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    return JSONResponse({"detail": {"code": "internal", "message":
                                    "the server could not handle this request"}}, 500)


async def _refused(_request: Request, error: Exception) -> JSONResponse:
    """A refusal (:class:`~gammon.server.hub.ServiceError`): its reason code and message,
    with the status of the code (:data:`gammon.server.routes.deps.STATUS`)."""
    assert isinstance(error, ServiceError)
    return JSONResponse({"detail": {"code": error.code, "message": error.message}},
                        status_of(error.code))


_NO_ROUTE: dict[int, protocol.HTTPErrorCode] = {404: "not_found", 405: "method_not_allowed"}


async def _no_route(request: Request, error: Exception) -> Response:
    """An ``/api/`` path with no route (404) or none for this method (405) is refused with
    a reason code like any refusal; the framework answers any other path (the static
    client's) as it does."""
    assert isinstance(error, StarletteHTTPException)
    code = _NO_ROUTE.get(error.status_code)
    if code is None or not isinstance(error.detail, str) \
            or not request.url.path.startswith("/api/"):
        return await http_exception_handler(request, error)
    return JSONResponse({"detail": {"code": code, "message": error.detail}},
                        error.status_code, headers=error.headers)


async def _healthz() -> protocol.OkResponse:
    return {"ok": True}


SHUTDOWN_STEP_TIMEOUT = 10.0
"""Seconds each step of the shutdown may take before the next one starts."""


async def _bounded(name: str, step: Awaitable[None]) -> None:
    """Run a shutdown step, giving up after :data:`SHUTDOWN_STEP_TIMEOUT` (logged): a
    stop that never ends must not keep the process from exiting. Apps stopped right
    after they started hung so, rarely, in the test suite (cause not found)."""
    task = asyncio.ensure_future(step)
    done, _ = await asyncio.wait({task}, timeout=SHUTDOWN_STEP_TIMEOUT)
    if not done:
        log.error("shutdown: %s did not stop within %.0f s", name, SHUTDOWN_STEP_TIMEOUT)
        task.cancel()
    elif task.exception() is not None:
        log.error("shutdown: %s failed", name, exc_info=task.exception())


def _warm_kernels() -> None:
    """Compile (or load from numba's cache) the move generator's kernels at start-up. On
    first use they took 1.3 s from the cache and 39 s with a cold one (2 busy cores): in
    the first player's join, with the event loop, every socket and every request waiting.
    The engine's evaluation too (0.3 s from the cache): paid by the first hint, bot move
    or puzzle answer the engine grades, it was the whole tail of the puzzle answers'
    latency (p99 110-3,000 ms in 30 s runs at 200 requests a second, 25 ms after it)."""
    from gammon.core.moves import legal_plays

    for roll in (Roll(3, 1), Roll(6, 6)):
        legal_plays(Position.initial(), roll)
    bots.engine().rank_plays(Position.initial(), Roll(3, 1), plies=0)


COLLECT_EVERY = 0.25
"""Seconds between two timed collections of the young and middle generations."""


async def _collect_on_a_timer() -> None:
    """With automatic garbage collection off (``gammon serve`` turns it off), collect on a
    timer: the young and middle generations together every :data:`COLLECT_EVERY` seconds,
    everything every 5 minutes — short, predictable pauses instead of long ones at random.

    Play makes almost no cyclic garbage; what a collection costs is walking the objects
    still alive, above all each room's current state (replaced about every 2 s). Collected
    together and often, each such object is walked once, while young, then leaves for the
    old generation where it dies by reference counting; a middle generation collected every
    10 s walked every room's state again at once: 60-135 ms pauses at 1,000 rooms in a
    process, against at most 12 ms now, for no more collection time in all
    (docs/server.md, *Where the time goes*)."""
    ticks = 0
    full_every = round(300 / COLLECT_EVERY)
    while True:
        await asyncio.sleep(COLLECT_EVERY)
        ticks += 1
        gc.collect(2 if ticks % full_every == 0 else 1)
