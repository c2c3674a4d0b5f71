"""Operations: Prometheus metrics, structured logs, health probes and graceful shutdown.

:func:`install` adds all of it to the app of :func:`gammon.server.app.create_app`:

* ``GET /metrics``: the Prometheus text format (version 0.0.4) of this process —
  ``gammon_active_matches``, ``gammon_sockets``, ``gammon_actions_total{result}`` (an
  action's result is ``ok`` or the error code it got; its rate is actions per second),
  ``gammon_action_seconds`` (a histogram of the time from receiving an action to its
  broadcast, storage included), ``gammon_database_errors_total``, ``gammon_bus_errors_total``,
  ``gammon_bot_queue`` (bot turns waiting for or in the engine), ``gammon_draining``,
  ``gammon_event_loop_lag_seconds`` (how late a 0.1 s timer of the event loop fires: the
  time every socket and request of the process waits behind the work in hand) and
  ``gammon_gc_seconds`` (each garbage collection, which stops the loop while it runs);
  the analyses' (:class:`AnalysisMetrics`): ``gammon_analysis_queue{kind,status}`` and
  ``gammon_analysis_oldest_queued_seconds{kind}`` (the deployment's queue, read from the
  database), ``gammon_analysis_ended_total{kind,result}`` and
  ``gammon_analysis_recovered_total{how}`` (this process's). Each process serves its own
  numbers: scrape every process, not the proxy (a ``gammon worker`` serves its own with
  ``--metrics-bind``: :func:`serve_metrics`).
* ``GET /readyz``: 200 when the database answers a query and, in scale-out mode, Redis
  answers a PING; 503 with what failed otherwise, and while the process shuts down (so a
  proxy sends new players elsewhere). ``GET /healthz`` (liveness) only says the process runs.
* :func:`configure_logging`: one JSON object per line (``GAMMON_LOG_FORMAT=json`` or
  ``gammon serve --log-format json``) with the match and user ids of the action being
  handled, or plain text.
* :class:`GracefulServer`: on SIGTERM or SIGINT the process stops accepting connections,
  marks itself not ready, closes every WebSocket with code 1012 and a reason asking the
  client to reconnect, waits for the actions in flight to be stored, and only then stops
  (PROTOCOL.md, "Server restarts").
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import json
import logging
import math
import socket
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

import uvicorn
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy import event, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeout
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gammon.server import protocol
from gammon.server.db import database_unreachable
from gammon.server.observer import Observer
from gammon.server.shedding import Shedding

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from gammon.server.hub import Hub

log = logging.getLogger("gammon.server.ops")

RESTART_CODE = 1012
"""The WebSocket close code of a server restart (RFC 6455's "Service Restart")."""
RESTART_REASON = "server restarting: reconnect"

# -- metrics --------------------------------------------------------------------------------


def _labels(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    pairs = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


class Metric:
    """One metric family: a name, its help text, its type and its label names."""

    kind = "untyped"

    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        self.name = name
        self.help = help
        self.label_names = tuple(labels)

    def samples(self) -> Iterable[str]:
        raise NotImplementedError

    def render(self) -> str:
        head = f"# HELP {self.name} {self.help}\n# TYPE {self.name} {self.kind}\n"
        return head + "".join(line + "\n" for line in self.samples())


class Counter(Metric):
    """A count that only goes up."""

    kind = "counter"

    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        super().__init__(name, help, labels)
        self.values: dict[tuple[str, ...], float] = {} if labels else {(): 0.0}

    def inc(self, amount: float = 1.0, *labels: str) -> None:
        self.values[labels] = self.values.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        return self.values.get(labels, 0.0)

    def samples(self) -> Iterable[str]:
        for labels, value in sorted(self.values.items()):
            yield f"{self.name}{_labels(self.label_names, labels)} {_number(value)}"


class Gauge(Metric):
    """A value read when scraped (``read``), or set and moved by hand."""

    kind = "gauge"

    def __init__(self, name: str, help: str, read: Callable[[], float] | None = None) -> None:
        super().__init__(name, help)
        self.read = read
        self.current = 0.0

    def add(self, amount: float) -> None:
        self.current += amount

    def value(self) -> float:
        return float(self.read()) if self.read is not None else self.current

    def samples(self) -> Iterable[str]:
        yield f"{self.name} {_number(self.value())}"


class Histogram(Metric):
    """Observations counted into cumulative buckets (upper bounds in seconds)."""

    kind = "histogram"

    def __init__(self, name: str, help: str, buckets: Sequence[float]) -> None:
        super().__init__(name, help)
        self.bounds = (*sorted(buckets), math.inf)
        self.counts = [0] * len(self.bounds)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.sum += value
        for index, bound in enumerate(self.bounds):
            if value <= bound:
                self.counts[index] += 1
                break

    @property
    def count(self) -> int:
        return sum(self.counts)

    def samples(self) -> Iterable[str]:
        running = 0
        for bound, count in zip(self.bounds, self.counts, strict=True):
            running += count
            yield f'{self.name}_bucket{{le="{_number(bound)}"}} {running}'
        yield f"{self.name}_sum {_number(self.sum)}"
        yield f"{self.name}_count {running}"


class Family(Metric):
    """A labelled gauge or counter whose values are read when scraped (``read``: label
    values to value)."""

    def __init__(self, name: str, help: str, labels: Sequence[str], kind: str,
                 read: Callable[[], Mapping[tuple[str, ...], float]]) -> None:
        super().__init__(name, help, labels)
        self.kind = kind
        self.read = read

    def samples(self) -> Iterable[str]:
        for labels, value in sorted(self.read().items()):
            yield f"{self.name}{_labels(self.label_names, labels)} {_number(value)}"


QueueStats = Mapping[tuple[str, str], tuple[int, float | None]]
"""The analyses queued and running by kind and status: how many, when the oldest was
queued (:meth:`gammon.server.analysis_worker.AnalysisStore.queue_stats`)."""


class AnalysisMetrics:
    """The analyses' metrics: the queue — the deployment's, read from the database at each
    scrape (every process serves the same numbers: aggregate them with ``max``, not
    ``sum``) — and the analyses this process ended (``counts``: by kind and result) and
    the jobs it recovered (``recovered``: by how)."""

    def __init__(self, stats: Callable[[], Awaitable[QueueStats]],
                 counts: Callable[[], Mapping[tuple[str, str], int]],
                 recovered: Callable[[], Mapping[tuple[str, ...], int]] = dict) -> None:
        self._read_stats = stats
        self.stats: QueueStats = {}
        self.queue = Family(
            "gammon_analysis_queue",
            "Analyses queued or running in the deployment, by kind (quick, deep) and status.",
            ("kind", "status"), "gauge",
            lambda: {key: float(count) for key, (count, _) in self.stats.items()})
        self.oldest = Family(
            "gammon_analysis_oldest_queued_seconds",
            "Seconds the oldest queued analysis of each kind has waited (0: none waits).",
            ("kind",), "gauge", self._oldest)
        self.ended = Family(
            "gammon_analysis_ended_total",
            "Analyses this process ended, by kind and result (done, failed, requeued: back "
            "in the queue unfinished).", ("kind", "result"), "counter",
            lambda: {key: float(n) for key, n in counts().items()})
        self.recovered = Family(
            "gammon_analysis_recovered_total",
            "Analyses' jobs this process queued again: a dead worker's (stalled), one "
            "without a job (swept).", ("how",), "counter",
            lambda: {key: float(n) for key, n in recovered().items()})

    def _oldest(self) -> dict[tuple[str, ...], float]:
        now = time.time()
        found: dict[tuple[str, ...], float] = {}
        for (kind, status), (_, oldest) in self.stats.items():
            if status == "queued":
                found[(kind,)] = 0.0 if oldest is None else max(0.0, now - oldest)
        return found

    async def refresh(self) -> None:
        """Read the queue (at most 5 s; on failure its families are left out)."""
        try:
            self.stats = await asyncio.wait_for(self._read_stats(), 5)
        except Exception:
            log.exception("the analysis queue could not be read for the metrics")
            self.stats = {}

    def all(self) -> list[Metric]:
        return [self.queue, self.oldest, self.ended, self.recovered]

    async def render_async(self) -> str:
        await self.refresh()
        return "".join(metric.render() for metric in self.all())


async def serve_metrics(host: str, port: int, render: Callable[[], Awaitable[str]]
                        ) -> asyncio.Server:
    """Serve ``GET /metrics`` (``render``, the Prometheus text format) on ``host:port``
    for a process with no web server (``gammon worker``); any other path is 404."""
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, path = [*head.split(b" ", 2), b"", b""][:2]
            if method == b"GET" and path.split(b"?")[0] == b"/metrics":
                status, body = "200 OK", (await render()).encode()
                kind = "text/plain; version=0.0.4; charset=utf-8"
            else:
                status, body, kind = "404 Not Found", b"not found\n", "text/plain"
            writer.write(f"HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: "
                         f"{len(body)}\r\nconnection: close\r\n\r\n".encode() + body)
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                TimeoutError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(answer, host or "127.0.0.1", port)


class Metrics:
    """The metrics of one app (one server process)."""

    def __init__(self) -> None:
        self.sockets = Gauge("gammon_sockets", "Open WebSocket connections.")
        self.bot_queue = Gauge("gammon_bot_queue",
                               "Bot turns waiting for the engine or being decided.")
        self.active_matches = Gauge("gammon_active_matches",
                                    "Matches being played that this process holds.")
        self.draining = Gauge("gammon_draining", "1 while the process shuts down.")
        self.actions = Counter("gammon_actions_total",
                               "Player actions handled, by result (ok or the error code).",
                               ("result",))
        self.action_seconds = Histogram(
            "gammon_action_seconds",
            "Seconds from receiving a player action to its broadcast (storage included).",
            (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
        self.database_errors = Counter(
            "gammon_database_errors_total",
            "Database statements that raised an error (refused constraints included: a name "
            "taken, two processes storing the same move of a match).")
        self.bus_errors = Counter("gammon_bus_errors_total",
                                  "Messages the bus (Redis in scale-out mode) failed to publish.")
        pauses = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
        self.loop_lag = Histogram(
            "gammon_event_loop_lag_seconds",
            f"How late a {LAG_PERIOD} s timer of the event loop fires (every socket and "
            "request waits as long).", pauses)
        self.gc_seconds = Histogram("gammon_gc_seconds",
                                    "Garbage collections, each stopping the process.", pauses)
        self.shed = Counter("gammon_shed_requests_total",
                            "HTTP requests refused as busy to keep the matches in play moving, "
                            "by step of the shedding order (first, second).", ("step",))

    def all(self) -> list[Metric]:
        return [self.active_matches, self.sockets, self.actions, self.action_seconds,
                self.database_errors, self.bus_errors, self.bot_queue, self.draining,
                self.loop_lag, self.gc_seconds, self.shed]

    def render(self) -> str:
        return "".join(metric.render() for metric in self.all())


LAG_PERIOD = 0.1
"""Seconds between two readings of the event loop's lag."""


async def watch_loop_lag(histogram: Histogram, period: float = LAG_PERIOD,
                         latest: Callable[[float], None] | None = None) -> None:
    """Observe forever how late a ``period`` sleep wakes up: the event loop's lag (each
    reading also to ``latest``, when given)."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(period)
        lag = max(0.0, loop.time() - before - period)
        histogram.observe(lag)
        if latest is not None:
            latest(lag)


def time_collections(histogram: Histogram) -> Callable[[str, dict[str, int]], None]:
    """A :data:`gc.callbacks` entry observing the duration of every collection."""
    started = [0.0]

    def callback(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            histogram.observe(time.perf_counter() - started[0])

    return callback


# -- structured logs ------------------------------------------------------------------------

current_match: contextvars.ContextVar[str | None] = contextvars.ContextVar("match", default=None)
current_user: contextvars.ContextVar[int | None] = contextvars.ContextVar("user", default=None)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the match and user ids of
    the action being handled (when there is one) and the traceback of an exception."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3), "level": record.levelname.lower(),
            "logger": record.name, "message": record.getMessage(),
        }
        match, user = current_match.get(), current_user.get()
        if match is not None:
            out["match"] = match
        if user is not None:
            out["user"] = user
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


LOG_FORMATS = ("text", "json")


def configure_logging(fmt: str, level: str = "info") -> None:
    """Send every log record (the server's and uvicorn's) to stderr as ``fmt``: ``text``
    or ``json`` (one object per line)."""
    if fmt not in LOG_FORMATS:
        raise ValueError(f"the log format is one of {', '.join(LOG_FORMATS)}, got {fmt!r}")
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    # ``level`` is the server's own (gammon, uvicorn); libraries say at least INFO
    root.setLevel(max(logging.INFO, logging.getLevelName(level.upper())))
    for name in ("gammon", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(level.upper())


# -- hooks into the app ---------------------------------------------------------------------


def refusal_code(error: Exception) -> str:
    """The ``error`` code a failed request or socket message is answered with: a
    refusal's own code; ``busy`` when the database could not be had (no free connection in
    time, or its server unreachable: send it again a moment later); else ``internal``."""
    if isinstance(error, SQLAlchemyTimeout) or database_unreachable(error):
        return "busy"
    if isinstance(error, SQLAlchemyError):  # its `code` names SQLAlchemy's docs page
        return "internal"
    return str(getattr(error, "code", "internal"))


class Ops(Observer):
    """The operations state of one app: its metrics, its open sockets, whether it drains;
    the hub and play report to it (:class:`~gammon.server.observer.Observer`)."""

    def __init__(self) -> None:
        self.metrics = Metrics()
        self.draining = False
        self.sockets: dict[int, Send] = {}
        self.hub: Hub | None = None
        self.redis: Redis | None = None  # the readiness probe's own Redis client
        self.lag = 0.0  # the event loop's latest lag (seconds): load shedding reads it
        self.action_latency = 0.0  # a moving average of the actions' seconds (note_action)
        self.action_at = 0.0  # when the last action was handled (time.monotonic)
        self.analysis: AnalysisMetrics | None = None  # set by the app once it has a worker

    async def render(self) -> str:
        """The metrics of this process, the analyses' included (the queue read now)."""
        text = self.metrics.render()
        if self.analysis is not None:
            text += await self.analysis.render_async()
        return text

    def note_action(self, seconds: float) -> None:
        """Fold an action's latency into the moving average (each new one a fifth of it)."""
        self.action_latency += 0.2 * (seconds - self.action_latency)
        self.action_at = time.monotonic()

    def behind(self) -> float:
        """How far behind the process runs, in seconds: the event loop's latest lag or the
        recent actions' average latency, whichever is more (the latter forgotten two
        seconds after the last action)."""
        recent = self.action_latency if time.monotonic() - self.action_at < 2.0 else 0.0
        return max(self.lag, recent)

    def attach(self, hub: Hub) -> None:
        """Read the gauges of ``hub``'s rooms, and count the database's errors."""
        self.hub = hub
        metrics = self.metrics
        metrics.active_matches.read = lambda: hub.in_play(at_most_old=0.0)
        metrics.draining.read = lambda: float(self.draining)
        event.listen(hub.repo.engine.sync_engine, "handle_error",
                     lambda context: metrics.database_errors.inc())

    @contextmanager
    def action(self, match: str, user: int, kind: str, received: float) -> Iterator[None]:
        """Count and time a player's action, and name its match and user in the log
        records written meanwhile."""
        match_token = current_match.set(match)
        user_token = current_user.set(user)
        result = "ok"
        try:
            yield
        except Exception as error:
            result = refusal_code(error)
            if result == "internal":  # logged here, where the match and user are known
                log.exception("action %s failed", kind)
            elif result == "busy":
                log.warning("action %s refused busy: %s", kind, error)
            raise
        finally:
            seconds = max(0.0, time.time() - received)
            self.metrics.actions.inc(1, result)
            self.metrics.action_seconds.observe(seconds)
            self.note_action(seconds)
            log.debug("action %s: %s in %.1f ms", kind, result, 1000 * seconds)
            current_match.reset(match_token)
            current_user.reset(user_token)

    @contextmanager
    def bot_turn(self, match: str) -> Iterator[None]:
        """Count a bot's turn in the queue, naming its match in the log."""
        self.metrics.bot_queue.add(1)
        token = current_match.set(match)
        try:
            yield
        finally:
            self.metrics.bot_queue.add(-1)
            current_match.reset(token)

    def bus_failed(self) -> None:
        self.metrics.bus_errors.inc()

    async def ready(self) -> dict[str, str]:
        """What each dependency answered: ``ok`` or the error."""
        checks: dict[str, str] = {}
        hub = self.hub
        if hub is None:
            return {"server": "starting"}
        try:
            async with hub.repo.engine.connect() as conn:
                await asyncio.wait_for(conn.execute(text("SELECT 1")), 5)
            checks["database"] = "ok"
        except Exception as error:  # any failure means not ready; say which
            checks["database"] = f"{type(error).__name__}: {error}"[:300]
        if hub.settings.redis_url:
            if self.redis is None:
                from gammon.server.pubsub import redis_client

                self.redis = redis_client(hub.settings.redis_url, socket_timeout=5)
            try:
                await asyncio.wait_for(self.redis.ping(), 5)
                checks["redis"] = "ok"
            except Exception as error:
                checks["redis"] = f"{type(error).__name__}: {error}"[:300]
        if self.draining:
            checks["server"] = "shutting down"
        return checks

    async def drain(self) -> None:
        """Graceful shutdown, after the listening sockets are closed: not ready any more,
        every WebSocket closed with :data:`RESTART_CODE`, actions in flight stored."""
        self.draining = True
        for send in list(self.sockets.values()):
            with contextlib.suppress(Exception):  # a socket closing by itself meanwhile
                await send({"type": "websocket.close", "code": RESTART_CODE,
                            "reason": RESTART_REASON})
        if self.hub is not None:
            for room in list(self.hub.rooms.values()):
                async with room.lock:  # an action in flight holds it until stored
                    pass
        log.info("drained: %d sockets closed for a restart", len(self.sockets))


router = APIRouter(tags=["server"])


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(request: Request) -> PlainTextResponse:
    """This process's metrics in the Prometheus text format."""
    return PlainTextResponse(await request.app.state.ops.render(),
                             media_type="text/plain; version=0.0.4; charset=utf-8")


@router.get("/readyz", response_model=None, responses={
    200: {"model": protocol.ReadyResponse, "description": "ready"},
    503: {"model": protocol.ReadyResponse, "description": "not ready: see checks"}})
async def readyz(request: Request) -> JSONResponse:
    """Ready for players: 200 when the database (and Redis, in scale-out mode) answer."""
    checks = await request.app.state.ops.ready()
    ok = all(value == "ok" for value in checks.values())
    return JSONResponse({"ok": ok, "checks": checks}, status_code=200 if ok else 503)


class _TrackSockets:
    """ASGI middleware: counts open WebSockets and keeps their ``send`` so that a
    shutdown can close them with a reason."""

    def __init__(self, app: ASGIApp, ops: Ops) -> None:
        self.app = app
        self.ops = ops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        key = id(scope)
        accepted = False

        async def tracked_send(message: Message) -> None:
            nonlocal accepted
            if message["type"] == "websocket.accept" and not accepted:
                accepted = True
                self.ops.sockets[key] = send
                self.ops.metrics.sockets.add(1)
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        finally:
            if accepted:
                self.ops.sockets.pop(key, None)
                self.ops.metrics.sockets.add(-1)


def install(app: FastAPI) -> Ops:
    """Add metrics, probes and shutdown support to ``app`` (before it starts)."""
    ops = Ops()
    app.state.ops = ops
    app.include_router(router)
    app.add_middleware(_TrackSockets, ops=ops)
    app.add_middleware(Shedding, settings=app.state.settings, lag=lambda: ops.behind(),
                       full=lambda: ops.hub is not None and ops.hub.full(),
                       count=lambda step: ops.metrics.shed.inc(1.0, step))
    lifespan = app.router.lifespan_context

    @asynccontextmanager
    async def attached(app: FastAPI) -> AsyncIterator[None]:
        async with lifespan(app):  # the app's lifespan keeps no state (app.state)
            ops.attach(app.state.hub)
            lag = asyncio.create_task(watch_loop_lag(
                ops.metrics.loop_lag, latest=lambda seconds: setattr(ops, "lag", seconds)))
            collections = time_collections(ops.metrics.gc_seconds)
            gc.callbacks.append(collections)
            try:
                yield
            finally:
                gc.callbacks.remove(collections)
                lag.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await lag
                if ops.redis is not None:
                    await ops.redis.aclose()

    app.router.lifespan_context = attached
    return ops


class GracefulServer(uvicorn.Server):
    """uvicorn's server with gammon's shutdown: stop accepting, then :meth:`Ops.drain`,
    then uvicorn's own (remaining connections, tasks, the app's lifespan end)."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.ops: Ops = app.state.ops

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        try:
            await asyncio.wait_for(self.ops.drain(), 10)
        except TimeoutError:
            log.error("draining took more than 10 s; stopping anyway")
        await super().shutdown(sockets)
