"""Server load: N simulated players on loopback playing real matches against each other.

Starts ``--processes`` ``gammon serve`` processes (unless ``--url`` points at a running
server) on a fresh store: ``--store sqlite`` (a database file in a temporary folder) or
``--store postgresql`` (a database created for the run on ``--postgres`` and dropped after
it; the servers migrate it at start-up as in production). Several processes share the store
and a Redis bus (``--redis``); the two players of a match sit on different processes, so
every action crosses the bus. Then it signs in 2 × ``--matches`` guests, pairs them into
matches to ``--length`` points (ramping up at ``--ramp`` new matches a second), and lets
them play for ``--duration`` seconds: each player thinks ``--think`` seconds (±50 %) and
then rolls or sends a random legal play over its WebSocket. A finished match is followed at
once by a new one, so the number of matches in play stays at N.

The servers run with their default rate limits. Real players come from many addresses, so
the simulated ones do too: each group of 25 players uses its own loopback source address
(127.0.0.2, 127.0.0.3, ...; Linux routes all of 127.0.0.0/8 to the loopback), which keeps
the guest sign-ins of each address within the per-address limit (30 a minute).

Prints progress on stderr, then: sustained concurrent matches (in play at every sample after
the ramp), actions per second, p50 / p99 latency from a player's action to the opponent's
update carrying it, the server processes' CPU seconds per action (psutil, every process),
their resident memory per match, the errors by kind, the simulator's own event-loop lag,
the servers' own event-loop lag and garbage-collection pauses (their ``/metrics``), and
the load average at the start and at the end; the last line is the same as one JSON
object.

With ``--analyses K`` the servers also analyse matches while the players play (the
post-match review's worker, issue 12): before the ramp, K more pairs play matches to
``--length`` points quickly (0.1 s a move) to the end; each end queues its analysis at the
server's default depth, and the simulator asks for each one at ``--analysis-plies`` too
(``GET /api/games/{id}/analysis``), so the analysis workers are busy while the latency is
measured. The report adds how many of those analyses finished during the measurement, how
many were still waiting or running at its end (more than 0: the workers never idled), the
CPU the servers' analysis processes used, and, from the processes' ``/metrics``, every
analysis ended done while measuring (those of the matches the players finish too, quick and
deep) as analyses a minute, and the deployment's queue at the end.

With ``--analysis-workers N`` (PostgreSQL only) the servers run no analyses
(``GAMMON_ANALYSIS_WORKERS=0``): N separate ``gammon worker`` processes on the same settings
take them from the job queue (started as benchmarks/analysis_throughput.py starts them:
worker_processes.py). The servers' CPU per action still counts the ``gammon serve``
processes alone; the report adds the workers' CPU seconds (with their analysis child
processes) and share of a core. ``--compare-workers N`` runs the comparison in one go: a
round as with ``--analyses K`` alone (the analyses in the servers' own child processes),
then a round with N workers, each on a fresh database, and prints the two reports side by
side (p99, p50, actions a second, server CPU per action and analyses a minute first), then
both as one JSON object.

A soak run: ``--report-every S`` prints a line per window of S seconds during the
measurement (stdout): the matches in play (and those stalled: no player read a new version
for 30 s, or 10 × ``--think``), the actions, p50 / p99 latency and the errors by kind in the
window, and the resident memory (psutil) of each server and worker process (and of its
analysis child processes together) at the window's end. The report adds the p99 and the
actions of each window; every run's report has each process's memory at the start and at
the end of the measurement and the matches stalled at its end.

``--restart-postgres-at T`` and ``--restart-redis-at T`` restart this machine's PostgreSQL
cluster (``pg_ctlcluster ... main restart``) or Redis server (``redis-cli shutdown nosave``,
then ``redis-server`` as ``.ci/run`` starts it: :data:`RESTART_COMMANDS`, run as the current
user) T seconds into the measurement, and print when they began and when the service was
back. The players behave as the web client does (net.js): a closed socket is reconnected
(after 0.3 s, doubling up to 5 s) and the match resumed with ``subscribe`` from the last
version seen; a refused action is tried again after a moment from the match as the server
has it. The report says for each restart how many matches were in play before it, how many
continued (both players read a new version after the service was back, or the match
finished), how many did not (ended by an error; no action after it), and the errors by kind
from its start until 30 s after the service was back.

Run: ``python benchmarks/load.py [--matches 500] [--duration 60] [--think 2.0]
[--store sqlite|postgresql] [--processes 1] [--analyses 0] [--analysis-workers 0]
[--compare-workers 0] [--report-every 0] [--restart-postgres-at T] [--restart-redis-at T]``
(also ``gammon bench load ...``), e.g. an hour's soak on PostgreSQL with two workers::

    python benchmarks/load.py --store postgresql --processes 2 --matches 500 --duration 3600 \\
        --analyses 20 --analysis-workers 2 --report-every 300 \\
        --restart-postgres-at 1200 --restart-redis-at 2400

Needs ``ulimit -n`` above 2 × matches + 100 (3 × with several processes).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import math
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psutil
import websockets

import puzzle_load
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from worker_processes import Worker, free_port, start_workers, stop_workers

COOKIE = "gammon_session"
PLAYERS_PER_ADDRESS = 25  # guest sign-ins: 30 a minute per address (burst 30)
# uvicorn closes a keep-alive connection idle for 5 s; a client that reuses one at that
# moment gets ReadError / RemoteProtocolError. Idle connections are dropped sooner here.
KEEPALIVE_EXPIRY = 2.0


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    finished: int = 0
    in_play: int = 0
    samples: list[int] = field(default_factory=list)
    pending: dict[str, tuple[float, Any]] = field(default_factory=dict)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    lag: list[float] = field(default_factory=list)
    deadline: float = float("inf")
    """When the players stop: set once the ramp and the settling time are over (a ramp that
    takes longer than planned does not shorten the measurement)."""
    playing: set[str] = field(default_factory=set)
    """The matches in play now."""
    started_at: dict[str, float] = field(default_factory=dict)
    """When each match was opened (``time.monotonic``)."""
    updated_at: dict[tuple[str, int], float] = field(default_factory=dict)
    """When each player (match, seat) last read an update of a new version."""
    ended: dict[str, tuple[str, float]] = field(default_factory=dict)
    """How each match left play (finished, failed: an error ended its players' loop, or
    unfinished at the deadline) and when."""


def source_address(index: int) -> str:
    """The loopback source address of player ``index`` (127.0.0.2 for the first 25)."""
    group = index // PLAYERS_PER_ADDRESS
    return f"127.0.{group // 250}.{2 + group % 250}"


class Clients:
    """One HTTP client per (server, source address)."""

    def __init__(self) -> None:
        self._clients: dict[tuple[str, str], httpx.AsyncClient] = {}

    def get(self, base_url: str, address: str) -> httpx.AsyncClient:
        key = (base_url, address)
        if key not in self._clients:
            transport = httpx.AsyncHTTPTransport(
                local_address=address, retries=0,
                limits=httpx.Limits(max_connections=8, keepalive_expiry=KEEPALIVE_EXPIRY))
            self._clients[key] = httpx.AsyncClient(base_url=base_url, transport=transport,
                                                   timeout=120)
        return self._clients[key]

    async def close(self) -> None:
        for client in self._clients.values():
            await client.aclose()


class Seat:
    """One simulated player: a session cookie and a socket, on one server."""

    def __init__(self, http: httpx.AsyncClient, ws_url: str, address: str) -> None:
        self.http = http
        self.ws_url = ws_url
        self.address = address
        self.cookie = ""
        self.ws: Any = None

    async def sign_in(self) -> None:
        response = await self.http.post("/api/guest")
        response.raise_for_status()
        self.cookie = response.cookies[COOKIE]

    async def connect(self) -> None:
        self.ws = await websockets.connect(
            self.ws_url, additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
            max_size=2**22, ping_interval=None, open_timeout=60,
            local_addr=(self.address, 0))

    async def post(self, path: str, body: dict[str, Any] | None = None,
                   params: dict[str, str] | None = None) -> dict[str, Any]:
        response = await self.http.post(path, json=body or {}, params=params,
                                        cookies={COOKIE: self.cookie})
        response.raise_for_status()
        return response.json()  # type: ignore[no-any-return]


def error_kind(error: BaseException) -> str:
    if isinstance(error, httpx.HTTPStatusError):
        return f"http {error.response.status_code} {error.request.url.path.split('/')[-1]}"
    return f"client {type(error).__name__}"


def retry_after(error: BaseException) -> float | None:
    """The seconds a refusal asks the client to wait (503 ``busy`` and 429 carry
    ``Retry-After``), or None for any other failure."""
    if isinstance(error, httpx.HTTPStatusError) and \
            error.response.status_code in (429, 503):
        with contextlib.suppress(KeyError, ValueError):
            return float(error.response.headers["retry-after"])
    return None


async def as_a_client_would(call: Callable[[], Awaitable[dict[str, Any]]], stats: Stats
                            ) -> dict[str, Any]:
    """``call``, tried again after the wait each refusal asks for, as the web client does
    (each refusal counted); any other failure is raised."""
    while True:
        try:
            return await call()
        except httpx.HTTPStatusError as error:
            wait = retry_after(error)
            if wait is None or time.monotonic() + wait >= stats.deadline:
                raise
            stats.errors[error_kind(error)] += 1
            await asyncio.sleep(wait)


async def open_match(first: Seat, second: Seat, args: argparse.Namespace, stats: Stats
                     ) -> tuple[str, str]:
    """The first player opens a private match, the second joins it by its invite key (each
    waiting as long as a refusal asks); the match's id and key."""
    game = await as_a_client_would(lambda: first.post("/api/games", {
        "kind": "match", "length": args.length, "private": True}), stats)
    match_id = game["id"]
    key = parse_qs(urlsplit(game["invite"].replace("#", "", 1)).query)["key"][0]
    await as_a_client_would(
        lambda: second.post(f"/api/games/{match_id}/join", params={"key": key}), stats)
    return match_id, key


async def pair_loop(first: Seat, second: Seat, args: argparse.Namespace, stats: Stats,
                    rng: random.Random) -> None:
    """Two players play matches back to back until the deadline. A failure is counted by
    kind; the pair reconnects a closed socket and starts a new match."""
    while time.monotonic() < stats.deadline:
        try:
            for seat in (first, second):
                if seat.ws is None or seat.ws.state is not websockets.State.OPEN:
                    stats.errors["client reconnect"] += 1
                    await seat.connect()
            match_id, _ = await open_match(first, second, args, stats)
        except Exception as error:
            stats.errors[error_kind(error)] += 1
            await asyncio.sleep(1)
            continue
        stats.in_play += 1
        stats.playing.add(match_id)
        stats.started_at[match_id] = time.monotonic()
        outcome = "failed"
        try:
            done = await asyncio.gather(
                play(first, match_id, args, stats, random.Random(rng.random())),
                play(second, match_id, args, stats, random.Random(rng.random())))
            outcome = "finished" if all(done) else "unfinished"
            if all(done):
                stats.finished += 1
        except Exception as error:
            stats.errors[error_kind(error)] += 1
            await asyncio.sleep(1)
        finally:
            stats.in_play -= 1
            stats.playing.discard(match_id)
            stats.ended[match_id] = (outcome, time.monotonic())
            stats.pending.pop(match_id, None)


async def finished_match(first: Seat, second: Seat, args: argparse.Namespace,
                         rng: random.Random) -> tuple[str, str]:
    """Two players play one match quickly to the end; its id and invite key."""
    stats = Stats(deadline=time.monotonic() + 300)
    match_id, key = await open_match(first, second, args, stats)
    # 0.1 s a move keeps within the socket's rate limit (20 messages a second)
    quick = argparse.Namespace(**{**vars(args), "think": 0.1})
    done = await asyncio.gather(play(first, match_id, quick, stats, random.Random(rng.random())),
                                play(second, match_id, quick, stats,
                                     random.Random(rng.random())))
    if not all(done) or stats.errors:
        raise RuntimeError(f"a match to analyse did not finish: {dict(stats.errors)}")
    return match_id, key


async def analysis_status(seat: Seat, match_id: str, key: str, plies: int) -> str:
    """Ask for a finished match's analysis at ``plies`` (a first request queues it); its
    status: done, queued, running or failed."""
    response = await seat.http.get(f"/api/games/{match_id}/analysis",
                                   params={"ply": str(plies), "key": key},
                                   cookies={COOKIE: seat.cookie})
    if response.status_code == 200:
        return "done"
    if response.status_code == 202:
        return str(response.json()["status"])
    return f"http {response.status_code}"


def _runner(game: dict[str, Any]) -> int:
    seat = int(game["turn"])
    return 1 - seat if game["phase"] in ("cube_offered", "resign_offered") else seat


def subscribe(match_id: str, version: int | None) -> str:
    """A match's subscribe message, from ``version`` when one is held (PROTOCOL.md,
    *Versions and resync*: an update with the events after it), else for its state."""
    message: dict[str, Any] = {"type": "subscribe", "match": match_id}
    if version is not None:
        message["since"] = version
    return json.dumps(message)


async def resume(seat: Seat, match_id: str, version: int | None, stats: Stats) -> None:
    """A closed socket, as the web client takes it (net.js): reconnect after 0.3 s, doubling
    up to 5 s while it fails, then subscribe again from the version held."""
    stats.errors["client socket closed"] += 1
    attempt = 0
    while time.monotonic() < stats.deadline:
        await asyncio.sleep(min(5.0, 0.3 * 2 ** attempt))
        attempt += 1
        try:
            await seat.connect()
            await seat.ws.send(subscribe(match_id, version))
        except Exception as error:
            stats.errors[f"reconnect {error_kind(error)}"] += 1
            continue
        return


async def play(seat: Seat, match_id: str, args: argparse.Namespace, stats: Stats,
               rng: random.Random) -> bool:
    """One player's side of a match: read the socket, act (after thinking) on its turns.
    The opponent's update is timed here, when it is read (a player never thinks while it
    waits for the opponent).

    As a browser does, a closed socket is reconnected and the match resumed from the last
    version seen (:func:`resume`); a refused action is retried after a moment from the
    match as the server has it (subscribed again from that version: the answer is an
    update, and the player acts on it)."""
    you: int | None = None
    game: dict[str, Any] | None = None
    acted = -1
    version: int | None = None
    try:
        await seat.ws.send(subscribe(match_id, None))
    except websockets.ConnectionClosed:
        await resume(seat, match_id, version, stats)
    while time.monotonic() < stats.deadline:
        try:
            raw = await asyncio.wait_for(seat.ws.recv(),
                                         min(5.0, max(0.1, stats.deadline - time.monotonic())))
        except TimeoutError:
            continue
        except websockets.ConnectionClosed:
            await resume(seat, match_id, version, stats)
            acted = -1
            continue
        received = time.perf_counter()
        message = json.loads(raw)
        if message.get("match") != match_id:
            continue
        kind = message["type"]
        if kind == "state":
            you, game, version = message["you"], message["game"], message["v"]
        elif kind == "update":
            if message["v"] != version and you is not None:
                stats.updated_at[(match_id, you)] = time.monotonic()
            game, version = message["game"], message["v"]
            pending = stats.pending.get(match_id)
            if pending is not None and pending[1] is not seat:
                del stats.pending[match_id]
                stats.latencies.append(received - pending[0])
        elif kind == "error":
            stats.errors[f"server {message.get('code', '?')}"] += 1
            acted = -1
            await asyncio.sleep(rng.uniform(0.5, 1.5))
            try:
                await seat.ws.send(subscribe(match_id, version))
            except websockets.ConnectionClosed:
                await resume(seat, match_id, version, stats)
            continue
        else:
            continue
        if game is None or you is None:
            continue
        if game["phase"] == "match_over":  # the player leaves the match's page, and
            with contextlib.suppress(websockets.ConnectionClosed):  # net.js unsubscribes
                await seat.ws.send(json.dumps({"type": "unsubscribe", "match": match_id}))
            return True
        if game["phase"] == "opening" or _runner(game) != you or acted == version:
            continue
        await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
        if game["phase"] == "before_roll":
            action: dict[str, Any] = {"type": "roll", "match": match_id}
        elif game["phase"] == "moving":
            plays = legal_plays(Position.from_id(game["position_id"]), Roll(*game["dice"]))
            action = {"type": "play", "match": match_id, "play": rng.choice(plays).notation()}
        else:
            action = {"type": "take", "match": match_id}
        acted = version
        stats.pending[match_id] = (time.perf_counter(), seat)
        try:
            await seat.ws.send(json.dumps(action))
        except websockets.ConnectionClosed:
            await resume(seat, match_id, version, stats)
            acted = -1
            continue
        stats.actions += 1
    return False


async def watch_lag(stats: Stats, period: float = 0.05) -> None:
    """The simulator's own event-loop lag: how late a short sleep wakes up. A late client
    reads updates late, which would show as server latency."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(period)
        stats.lag.append(time.perf_counter() - before - period)


# -- the servers and the store --------------------------------------------------------------


async def _postgres_admin(admin_url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(admin_url, timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@dataclass
class Deployment:
    """The server processes of one run (and its ``gammon worker`` processes), and what to
    remove afterwards."""

    urls: list[str]
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: list[Worker] = field(default_factory=list)
    folder: str = ""
    database: str = ""
    admin_url: str = ""
    database_url: str = ""

    @property
    def logs(self) -> list[str]:
        return [os.path.join(self.folder, f"server{i}.log") for i in range(len(self.processes))
                ] + [os.path.join(self.folder, f"worker-{i}.log")
                     for i in range(len(self.workers))]

    def log_tails(self, lines: int = 5) -> str:
        out = []
        for path in self.logs:
            with contextlib.suppress(OSError), open(path, encoding="utf-8",
                                                    errors="replace") as handle:
                tail = handle.read().splitlines()[-lines:]
                if tail:
                    out.append(f"{path}:\n  " + "\n  ".join(tail))
        return "\n".join(out)

    async def stop(self) -> None:
        await asyncio.to_thread(stop_workers, self.workers)
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.database:
            await _postgres_admin(self.admin_url,
                                  f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


async def deploy(args: argparse.Namespace) -> Deployment:
    """Start ``args.processes`` servers on a fresh store; return once all answer."""
    folder = tempfile.mkdtemp(prefix="gammon-load-")
    run_id = secrets.token_hex(4)
    ports = [free_port() for _ in range(args.processes)]
    deployment = Deployment(urls=[f"http://127.0.0.1:{port}" for port in ports], folder=folder)
    env = {**os.environ, "GAMMON_SECRET_KEY": secrets.token_hex(16),
           "GAMMON_RATE_LIMIT_PREFIX": f"gammon:load-{run_id}:"}
    if args.store == "postgresql":
        name = f"gammon_load_{run_id}"
        admin = args.postgres.replace("postgresql+asyncpg://", "postgresql://")
        await _postgres_admin(admin, f'CREATE DATABASE "{name}"')
        deployment.database, deployment.admin_url = name, admin
        base = args.postgres.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
        env["GAMMON_DATABASE_URL"] = f"{base}/{name}"
    else:
        env["GAMMON_DATABASE_URL"] = f"sqlite+aiosqlite:///{folder}/load.db"
    deployment.database_url = env["GAMMON_DATABASE_URL"]
    if args.processes > 1 or args.store == "postgresql":
        env["GAMMON_REDIS_URL"] = args.redis
    serve_env = env
    if args.analysis_workers:  # the servers leave every analysis to the workers
        serve_env = {**env, "GAMMON_ANALYSIS_WORKERS": "0"}
    for i, port in enumerate(ports):
        with open(os.path.join(folder, f"server{i}.log"), "wb") as log:
            deployment.processes.append(subprocess.Popen(
                [sys.executable, "-m", "gammon.server.cli", "serve", "--log-level", "warning"],
                env={**serve_env, "GAMMON_PORT": str(port)}, stdout=subprocess.DEVNULL,
                stderr=log))
    try:
        for url, process in zip(deployment.urls, deployment.processes, strict=True):
            await wait_up(url, process)
        if args.analysis_workers:  # on the servers' settings, once they have migrated
            deployment.workers = await asyncio.to_thread(
                start_workers, args.analysis_workers, env, Path(folder))
    except BaseException:
        tails = deployment.log_tails()
        await deployment.stop()
        raise RuntimeError(f"a server or worker did not start\n{tails}") from None
    return deployment


async def wait_up(url: str, process: subprocess.Popen[bytes] | None = None) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(600):
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the server at {url} exited")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(f"{url}/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise RuntimeError(f"the server at {url} did not start")


def cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def workers(servers: list[psutil.Process]) -> list[psutil.Process]:
    """The servers' child processes (their analysis workers)."""
    children = []
    for server in servers:
        with contextlib.suppress(psutil.Error):
            children += server.children(recursive=True)
    return children


async def analyses_done(seats: list[Seat], analysed: list[tuple[str, str]],
                        args: argparse.Namespace) -> tuple[int, int]:
    """Of the analyses asked for (each match at the server's default depth and at
    ``--analysis-plies``): how many are done, and how many are queued or running."""
    if not analysed:
        return 0, 0
    asker = seats[2 * args.matches]
    statuses = []
    for match_id, key in analysed:
        for plies in sorted({args.default_analysis_plies, args.analysis_plies}):
            statuses.append(await analysis_status(asker, match_id, key, plies))
    return statuses.count("done"), sum(s in ("queued", "running") for s in statuses)


def rss(processes: list[psutil.Process]) -> int:
    total = 0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            total += process.memory_info().rss
    return total


def tree_cpu_seconds(processes: list[psutil.Process]) -> float:
    """The CPU seconds of ``processes`` and of all their descendants (those alive, and
    those ended and waited for)."""
    total = 0.0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            for member in (process, *process.children(recursive=True)):
                with contextlib.suppress(psutil.Error):
                    times = member.cpu_times()
                    total += times.user + times.system + times.children_user \
                        + times.children_system
    return total


def rss_by_process(named: dict[str, psutil.Process]) -> dict[str, float]:
    """The resident memory (MiB) of each named process, and of its children together
    (``NAME children``: the analyses' child processes) when it has any; a process gone
    counts 0."""
    out: dict[str, float] = {}
    for name, process in named.items():
        try:
            out[name] = round(process.memory_info().rss / 2**20, 1)
            children = process.children(recursive=True)
        except psutil.Error:
            out[name] = 0.0
            continue
        if children:
            out[f"{name} children"] = round(rss(children) / 2**20, 1)
    return out


def samples(text: str, name: str) -> dict[str, float]:
    """The samples of the metric ``name`` in a Prometheus text, by their labels as written.

    >>> samples('a_total{k="x"} 2\\na_total{k="y"} 3.0\\nab 1', "a_total")
    {'{k="x"}': 2.0, '{k="y"}': 3.0}
    """
    out = {}
    for line in text.splitlines():
        if line.startswith((name + "{", name + " ")):
            labels, _, value = line.rpartition(" ")
            out[labels[len(name):]] = float(value)
    return out


def label(labels: str, key: str) -> str:
    """The value of ``key`` in labels as written (``{kind="quick",result="done"}``)."""
    return labels.split(f'{key}="', 1)[1].split('"', 1)[0] if f'{key}="' in labels else ""


async def analysis_counts(metrics_urls: list[str]
                          ) -> tuple[collections.Counter[str], dict[str, int]]:
    """The analyses ended done by the processes serving ``metrics_urls`` (servers and
    workers: ``gammon_analysis_ended_total``), summed by kind (quick, deep), and the
    deployment's queue (``gammon_analysis_queue``, the same in every process: the first
    that answers) as ``{"quick queued": n, ...}``."""
    done: collections.Counter[str] = collections.Counter()
    queue: dict[str, int] = {}
    async with httpx.AsyncClient(timeout=30) as client:
        for url in metrics_urls:
            try:
                text = (await client.get(url)).text
            except httpx.HTTPError:
                continue
            for labels, value in samples(text, "gammon_analysis_ended_total").items():
                if label(labels, "result") == "done":
                    done[label(labels, "kind")] += int(value)
            if not queue:
                queue = {f"{label(labels, 'kind')} {label(labels, 'status')}": int(value)
                         for labels, value in samples(text, "gammon_analysis_queue").items()}
    return done, queue


# -- restarting PostgreSQL or Redis during the measurement ----------------------------------

RESTART_COMMANDS = {
    "postgresql": ['pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main '
                   "restart"],
    "redis": ["redis-cli -h 127.0.0.1 -p 6379 shutdown nosave",
              'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" '
              "--appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log",
              # up once it answers (the daemon forks before it listens)
              "for i in $(seq 100); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 "
              "&& exit 0; sleep 0.1; done; exit 1"],
}
"""How each service is restarted: the machine's own PostgreSQL cluster and Redis server,
as the current user (root)."""
AROUND = 30.0
"""The errors of a restart: from its start until this many seconds after the service is
back."""


@dataclass
class Restart:
    """A restart of ``service`` at ``at`` seconds into the measurement: the matches in play
    before it, when it started and when the service was back (``time.monotonic``), the
    errors counted by then, and a failed command's output."""

    service: str
    at: float
    before: list[str] = field(default_factory=list)
    started: float = 0.0
    back: float = 0.0
    errors_before: collections.Counter[str] = field(default_factory=collections.Counter)
    errors_after: collections.Counter[str] | None = None
    failed: str = ""


def event(text: str) -> None:
    """A line of the run's own record (a window's figures, a restart) on stdout."""
    print(text, flush=True)


async def restart_service(restart: Restart, measured_from: float, stats: Stats) -> None:
    """At its time, restart the service (the errors after it are taken :data:`AROUND`
    seconds after it is back: :func:`errors_around`)."""
    await asyncio.sleep(max(0.0, measured_from + restart.at - time.monotonic()))
    restart.before = sorted(stats.playing)
    restart.errors_before = collections.Counter(stats.errors)
    restart.started = time.monotonic()
    event(f"[{restart.started - measured_from:6.1f} s] restarting {restart.service} "
          f"({len(restart.before)} matches in play)")
    for command in RESTART_COMMANDS[restart.service]:
        process = await asyncio.create_subprocess_shell(
            command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        output, _ = await process.communicate()
        if process.returncode:
            restart.failed += (f"{command}: exit {process.returncode}: "
                               f"{output.decode(errors='replace').strip()[-300:]}; ")
    restart.back = time.monotonic()
    event(f"[{restart.back - measured_from:6.1f} s] {restart.service} back after "
          f"{restart.back - restart.started:.1f} s"
          + (f" (a command failed: {restart.failed})" if restart.failed else ""))


def errors_around(restarts: list[Restart], stats: Stats, now: float, end: bool = False
                  ) -> None:
    """Take the errors counted by :data:`AROUND` seconds after each restart is back (at the
    end of the measurement, those of the restarts not yet that far)."""
    for restart in restarts:
        if restart.back and restart.errors_after is None \
                and (end or now >= restart.back + AROUND):
            restart.errors_after = collections.Counter(stats.errors)


def stalled(stats: Stats, now: float, think: float) -> int:
    """The matches in play in which no player has read a new version for
    ``max(30, 10 × think)`` seconds (a lost update: both players wait)."""
    quiet = max(30.0, 10 * think)
    return sum(now - max(stats.started_at.get(m, 0.0), stats.updated_at.get((m, 0), 0.0),
                         stats.updated_at.get((m, 1), 0.0)) > quiet for m in stats.playing)


def restart_report(restart: Restart, stats: Stats, measured_from: float) -> dict[str, Any]:
    """Whether every match in play before a restart continued: both its players read a
    new version after the service was back (a player reading only its own action's, the
    other never hearing of it, is a match stopped), or the match finished; the errors
    around it."""
    if not restart.started:
        return {"service": restart.service, "at_s": restart.at, "done": False}
    continued = finished = 0
    failed: list[str] = []
    stalled: list[str] = []
    for match_id in restart.before:
        outcome, _ = stats.ended.get(match_id, ("playing", 0.0))
        if restart.back and min(stats.updated_at.get((match_id, 0), 0.0),
                                stats.updated_at.get((match_id, 1), 0.0)) > restart.back:
            continued += 1
        elif outcome == "finished":
            finished += 1
        elif outcome == "failed":
            failed.append(match_id)
        else:
            stalled.append(match_id)
    after = restart.errors_after or stats.errors
    return {
        "service": restart.service,
        "at_s": round(restart.started - measured_from, 1),
        "down_s": round(restart.back - restart.started, 1) if restart.back else None,
        "command_failed": restart.failed or None,
        "matches_in_play_before": len(restart.before),
        "continued_with_an_action": continued,
        "finished": finished,
        "all_continued": not failed and not stalled and bool(restart.back),
        "ended_by_an_error": len(failed),
        "no_action_after": len(stalled),
        "no_action_after_ids": stalled[:5],
        "errors_around": dict(after - restart.errors_before),
    }


async def server_histograms(urls: list[str]) -> dict[str, collections.Counter[float]]:
    """The cumulative buckets (upper bound -> count) of the servers' event-loop lag and
    garbage-collection histograms (``/metrics``), summed over the processes, and their sums
    (under the bound ``-1``)."""
    out: dict[str, collections.Counter[float]] = {
        name: collections.Counter() for name in ("gammon_event_loop_lag_seconds",
                                                 "gammon_gc_seconds")}
    async with httpx.AsyncClient(timeout=30) as client:
        for url in urls:
            with contextlib.suppress(httpx.HTTPError):
                for line in (await client.get(f"{url}/metrics")).text.splitlines():
                    for name, counts in out.items():
                        if line.startswith(f"{name}_bucket"):
                            bound = line.split('le="')[1].split('"')[0]
                            counts[float(bound)] += int(float(line.split()[-1]))
                        elif line.startswith(f"{name}_sum "):
                            # the sum (seconds) beside the counts
                            counts[-1.0] += float(line.split()[-1])  # type: ignore[assignment]
    return out


def bucket_quantile(before: collections.Counter[float], after: collections.Counter[float],
                    q: float) -> float | None:
    """The upper bound of the bucket holding quantile ``q`` of the observations made
    between two readings of a cumulative histogram (None without any)."""
    bounds = sorted(b for b in after if b >= 0)
    total = after[math.inf] - before[math.inf]
    if total <= 0:
        return None
    for bound in bounds:
        if after[bound] - before[bound] >= q * total:
            return bound
    return math.inf


def progress(args: argparse.Namespace, text: str) -> None:
    if args.progress:
        print(text, file=sys.stderr, flush=True)


async def gather_in_batches(args: argparse.Namespace, what: str, calls: list[Any],
                            batch: int = 50) -> list[BaseException | None]:
    """Run the coroutine functions ``calls``, ``batch`` at a time; return their failures."""
    failures: list[BaseException | None] = []
    started = time.monotonic()
    shown = started
    for i in range(0, len(calls), batch):
        results = await asyncio.gather(*(call() for call in calls[i:i + batch]),
                                       return_exceptions=True)
        failures.extend(r if isinstance(r, BaseException) else None for r in results)
        if time.monotonic() - shown >= 2 or i + batch >= len(calls):
            shown = time.monotonic()
            failed = sum(f is not None for f in failures)
            progress(args, f"  {what}: {len(failures)}/{len(calls)} "
                           f"({failed} failed, {shown - started:.0f} s)")
    return failures


async def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()
    # the simulator's move generator compiles (or loads from numba's cache) now, not while
    # the first players wait for it
    legal_plays(Position.initial(), Roll(3, 1))
    deployment: Deployment | None = None
    urls = [args.url.rstrip("/")] if args.url else []
    clients = Clients()
    try:
        if not urls:
            progress(args, f"starting {args.processes} server process(es) on {args.store}")
            deployment = await deploy(args)
            urls = deployment.urls
        else:
            await wait_up(urls[0])
        servers = [psutil.Process(p.pid) for p in deployment.processes] if deployment else []
        analysers = [psutil.Process(p.pid) for p, _ in deployment.workers] if deployment else []
        named = {**{f"server{i}": p for i, p in enumerate(servers)},
                 **{f"worker{i}": p for i, p in enumerate(analysers)}}
        metrics_urls = [f"{url}/metrics" for url in urls] + [
            metrics for _, metrics in (deployment.workers if deployment else [])]
        ws_urls = [url.replace("http", "ws", 1) + "/ws" for url in urls]
        stats = Stats()
        seats = []
        for k in range(args.matches):  # match k: its first player on server k, the second
            for j in (0, 1):            # on the next one (so every action crosses the bus)
                server = (k + j) % len(urls)
                address = source_address(2 * k + j)
                seats.append(Seat(clients.get(urls[server], address), ws_urls[server], address))
        for k in range(args.analyses):  # pairs that make finished matches to analyse
            address = source_address(2 * args.matches + 2 * k)
            seats += [Seat(clients.get(urls[0], address), ws_urls[0], address)
                      for _ in (0, 1)]
        solvers = []  # the puzzle players (--puzzle-rps), each from an address of its own
        if args.puzzle_rps:
            if deployment is None:
                raise SystemExit("--puzzle-rps seeds the pool: it starts its own servers")
            first = PLAYERS_PER_ADDRESS * (2 * (args.matches + args.analyses)
                                           // PLAYERS_PER_ADDRESS + 1)
            for k in range(args.puzzle_clients):
                address = source_address(first + PLAYERS_PER_ADDRESS * k)
                solvers.append(Seat(clients.get(urls[k % len(urls)], address),
                                    ws_urls[k % len(urls)], address))
        failures = await gather_in_batches(args, "sign-in",
                                           [s.sign_in for s in seats + solvers])
        failures += await gather_in_batches(args, "sockets", [s.connect for s in seats])
        for failure in failures:
            if failure is not None:
                stats.errors[f"setup {error_kind(failure)}"] += 1
        for failure in failures:
            if failure is not None:
                raise RuntimeError(f"set-up failed: {stats.errors}") from failure
        analysed: list[tuple[str, str]] = []
        if args.analyses:
            quick_rng = random.Random(args.seed + 1)
            analysed = await asyncio.gather(*(
                finished_match(seats[2 * (args.matches + k)], seats[2 * (args.matches + k) + 1],
                               args, random.Random(quick_rng.random()))
                for k in range(args.analyses)))
            asker = seats[2 * args.matches]
            statuses = [await analysis_status(asker, m, key, args.analysis_plies)
                        for m, key in analysed]
            progress(args, f"  {len(analysed)} matches finished for analysis: {statuses}")
        if solvers:
            assert deployment is not None
            match = await solvers[0].post("/api/games", {"kind": "single"})
            progress(args, f"  seeding {args.puzzle_count} puzzles")
            await puzzle_load.seed(deployment.database_url, match["id"], args.puzzle_count,
                                   args.puzzle_spread)
        await asyncio.sleep(1)
        idle_rss = rss(servers)
        lag_task = asyncio.create_task(watch_lag(stats))
        rng = random.Random(args.seed)
        tasks = []
        for k in range(args.matches):
            pair = (seats[2 * k], seats[2 * k + 1])
            tasks.append(asyncio.create_task(pair_loop(
                *pair, args, stats, random.Random(rng.random()))))
            await asyncio.sleep(1 / args.ramp)
            if (k + 1) % max(1, int(args.ramp * 2)) == 0:
                progress(args, f"  ramp: {k + 1}/{args.matches} matches started, "
                               f"{stats.in_play} in play, errors {dict(stats.errors)}")
        progress(args, f"  settling {args.settle:.0f} s")
        await asyncio.sleep(args.settle)
        # measure after the ramp and a settling time (samples end before the deadline)
        stats.deadline = time.monotonic() + args.duration + 1
        deadline_samples = stats.deadline - 1
        stats.latencies.clear()
        stats.lag.clear()
        errors_before = collections.Counter(stats.errors)
        measured_from = time.monotonic()
        actions_from = stats.actions
        cpu_from = cpu_seconds(servers)
        analysis_cpu_from = cpu_seconds(workers(servers))
        worker_cpu_from = tree_cpu_seconds(analysers)
        analyses_done_from = await analyses_done(seats, analysed, args)
        ended_from, _ = await analysis_counts(metrics_urls)
        rss_start = rss_by_process(named)
        restarts = [Restart(service, at) for service, at in (
            ("postgresql", args.restart_postgres_at), ("redis", args.restart_redis_at))
            if at is not None]
        restart_tasks = [asyncio.create_task(restart_service(r, measured_from, stats))
                         for r in restarts]
        histograms_from = await server_histograms(urls)
        client_cpu_from = cpu_seconds([psutil.Process()])
        puzzle_stats = puzzle_load.PuzzleStats()
        pace = len(solvers) / args.puzzle_rps if args.puzzle_rps else 0.0
        puzzle_tasks = [asyncio.create_task(puzzle_load.solver(
            seat.http, {COOKIE: seat.cookie}, pace, deadline_samples, puzzle_stats,
            random.Random(args.seed * 1000 + k))) for k, seat in enumerate(solvers)]
        peak_rss = 0
        second = 0  # the latencies of the last second (progress)
        windows: list[dict[str, Any]] = []  # --report-every
        window_from, window_actions, window_latencies, window_errors = (
            measured_from, stats.actions, 0, collections.Counter(stats.errors))
        while time.monotonic() < deadline_samples:
            await asyncio.sleep(1)
            stats.samples.append(stats.in_play)
            peak_rss = max(peak_rss, rss(servers))
            now = time.monotonic()
            errors_around(restarts, stats, now)
            if args.report_every and (now - window_from >= args.report_every
                                      or now >= deadline_samples):
                lat = sorted(stats.latencies[window_latencies:])
                windows.append({
                    "end_s": round(now - measured_from),
                    "actions": stats.actions - window_actions,
                    "latency_p50_ms": round(statistics.median(lat) * 1000, 1) if lat else None,
                    "latency_p99_ms": round(lat[int(0.99 * (len(lat) - 1))] * 1000, 1)
                    if lat else None,
                    "errors": dict(stats.errors - window_errors),
                    "stalled": stalled(stats, now, args.think),
                    "rss_mib": rss_by_process(named)})
                window_from, window_actions, window_latencies, window_errors = (
                    now, stats.actions, len(stats.latencies),
                    collections.Counter(stats.errors))
                w = windows[-1]
                event(f"[{w['end_s']:6.0f} s] in play {stats.in_play} (stalled {w['stalled']})"
                      f"  actions {w['actions']}"
                      f"  p50 {w['latency_p50_ms']} ms  p99 {w['latency_p99_ms']} ms  errors "
                      f"{w['errors']}  rss MiB {w['rss_mib']}")
            if not args.report_every:
                lat = sorted(stats.latencies[second:])
                second = len(stats.latencies)
                p99 = lat[int(0.99 * (len(lat) - 1))] * 1000 if lat else 0
                progress(args, f"  {now - measured_from:5.0f} s  in play "
                               f"{stats.in_play}  actions {stats.actions - actions_from}  "
                               f"p99 {p99:.1f} ms  errors {sum(stats.errors.values())}")
        elapsed = time.monotonic() - measured_from
        stalled_at_end = stalled(stats, time.monotonic(), args.think)
        rss_end = rss_by_process(named)
        for restart, task in zip(restarts, restart_tasks, strict=True):
            if not restart.started:  # not yet begun: left out
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task  # one under way: until the service is back
        errors_around(restarts, stats, time.monotonic(), end=True)
        await asyncio.gather(*puzzle_tasks)
        actions = stats.actions - actions_from
        server_cpu = cpu_seconds(servers) - cpu_from
        analysis_cpu = cpu_seconds(workers(servers)) - analysis_cpu_from
        worker_cpu = tree_cpu_seconds(analysers) - worker_cpu_from
        analyses_after = await analyses_done(seats, analysed, args)
        ended_after, queue_at_end = await analysis_counts(metrics_urls)
        ended_while = ended_after - ended_from
        histograms = await server_histograms(urls)
        lag_before, lag_after = (histograms_from["gammon_event_loop_lag_seconds"],
                                 histograms["gammon_event_loop_lag_seconds"])
        gc_before, gc_after = histograms_from["gammon_gc_seconds"], histograms["gammon_gc_seconds"]
        loop_lag_p99 = bucket_quantile(lag_before, lag_after, 0.99)
        gc_p99 = bucket_quantile(gc_before, gc_after, 0.99)
        client_cpu = cpu_seconds([psutil.Process()]) - client_cpu_from
        load_end = os.getloadavg()
        lag_task.cancel()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for seat in seats:
            if seat.ws is not None:
                with contextlib.suppress(Exception):
                    await seat.ws.close()
        lat = sorted(stats.latencies)
        lag = sorted(stats.lag)
        during = stats.errors - errors_before
        analysing = args.analyses > 0 or args.analysis_workers > 0
        return {
            "store": args.store if deployment else "external",
            "processes": len(urls),
            "matches": args.matches,
            "sustained_concurrent_matches": min(stats.samples[3:] or stats.samples or [0]),
            "actions_per_second": round(actions / elapsed, 1),
            "latency_p50_ms": round(statistics.median(lat) * 1000, 2) if lat else None,
            "latency_p99_ms": round(lat[int(0.99 * (len(lat) - 1))] * 1000, 2) if lat else None,
            "latency_max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "latency_samples": len(lat),
            "server_cpu_ms_per_action": round(server_cpu / actions * 1000, 2)
            if actions and servers else None,
            "server_cpu_share": round(server_cpu / elapsed, 2) if servers else None,
            "client_cpu_share": round(client_cpu / elapsed, 2),
            "client_lag_p99_ms": round(lag[int(0.99 * (len(lag) - 1))] * 1000, 1) if lag else None,
            # the servers' own event loops (/metrics): p99 as the bound of its bucket
            "server_loop_lag_p99_ms_at_most": None if loop_lag_p99 is None
            else loop_lag_p99 * 1000,
            "server_gc_ms_per_s": round((gc_after[-1.0] - gc_before[-1.0]) / elapsed * 1000, 1),
            "server_gc_p99_ms_at_most": None if gc_p99 is None else gc_p99 * 1000,
            "rss_per_match_kib": round((peak_rss - idle_rss) / args.matches / 1024, 1)
            if servers else None,
            "server_rss_mib": round(peak_rss / 2**20, 1) if servers else None,
            "matches_finished": stats.finished,
            "matches_stalled_at_end": stalled_at_end,
            "analyses_requested": len(analysed) * len({args.default_analysis_plies,
                                                       args.analysis_plies}),
            "analyses_done_while_measuring": analyses_after[0] - analyses_done_from[0],
            "analyses_waiting_or_running_at_end": analyses_after[1],
            "analysis_cpu_share": round(analysis_cpu / elapsed, 2) if servers else None,
            **({
                # every analysis ended done while measuring (those of the matches the
                # players finish too, and the deep ones), by the servers and the workers
                "analyses_ended_while_measuring": dict(ended_while),
                "analyses_per_minute": round(sum(ended_while.values()) / elapsed * 60, 1),
                "analysis_queue_at_end": queue_at_end,
            } if analysing else {}),
            **({
                "analysis_workers": len(analysers),
                "worker_cpu_s": round(worker_cpu, 1),
                "worker_cpu_share": round(worker_cpu / elapsed, 2),
            } if analysers else {}),
            **(puzzle_load.report(puzzle_stats, elapsed) if solvers else {}),
            "errors_while_measuring": dict(during),
            **({"rss_mib_start": rss_start, "rss_mib_end": rss_end} if named else {}),
            **({"latency_p99_ms_by_window": [w["latency_p99_ms"] for w in windows],
                "actions_by_window": [w["actions"] for w in windows]}
               if args.report_every else {}),
            **({"restarts": [restart_report(r, stats, measured_from) for r in restarts]}
               if restarts else {}),
            "errors_total": dict(stats.errors),
            "think_s": args.think, "duration_s": round(elapsed, 1),
            "load_average_start": [round(x, 2) for x in load_start],
            "load_average_end": [round(x, 2) for x in load_end],
        }
    finally:
        await clients.close()
        if deployment is not None:
            if args.progress:
                tails = deployment.log_tails()
                if tails:
                    progress(args, f"server log tails:\n{tails}")
            await deployment.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds after the ramp")
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds per action")
    parser.add_argument("--length", type=int, default=3)
    parser.add_argument("--ramp", type=float, default=50.0, help="new matches per second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds after the ramp before measuring")
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--processes", type=int, default=1,
                        help="gammon serve processes sharing the store (and Redis if > 1)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="a PostgreSQL database to connect to for creating the run's")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0",
                        help="the bus (PostgreSQL or several processes)")
    parser.add_argument("--analyses", type=int, default=0,
                        help="finished matches whose analyses run while measuring")
    parser.add_argument("--analysis-plies", type=int, default=2,
                        help="the depth asked for besides the server's default")
    parser.add_argument("--analysis-workers", type=int, default=0, metavar="N",
                        help="PostgreSQL: the servers run no analyses "
                             "(GAMMON_ANALYSIS_WORKERS=0); N gammon worker processes do")
    parser.add_argument("--compare-workers", type=int, default=0, metavar="N",
                        help="two rounds side by side: the analyses in the servers' own "
                             "child processes, then in N gammon worker processes")
    parser.add_argument("--report-every", type=float, default=0.0, metavar="S",
                        help="a line of figures per window of S seconds (a soak run)")
    parser.add_argument("--restart-postgres-at", type=float, default=None, metavar="T",
                        help="restart this machine's PostgreSQL T s into the measurement")
    parser.add_argument("--restart-redis-at", type=float, default=None, metavar="T",
                        help="restart this machine's Redis T s into the measurement")
    parser.add_argument("--default-analysis-plies", type=int, default=1,
                        help=argparse.SUPPRESS)  # the server's GAMMON_ANALYSIS_PLIES
    parser.add_argument("--url", default="", help="a running server (default: start them)")
    parser.add_argument("--puzzle-rps", type=float, default=0.0,
                        help="puzzle requests a second beside the matches (puzzle_load.py)")
    parser.add_argument("--puzzle-clients", type=int, default=50)
    parser.add_argument("--puzzle-spread", type=float, default=350.0,
                        help="the seeded puzzles' rating spread (0: all at 1500)")
    parser.add_argument("--puzzle-count", type=int, default=3000,
                        help="puzzles seeded in the pool")
    parser.add_argument("--quiet", dest="progress", action="store_false",
                        help="no progress lines on stderr")
    parser.add_argument("--progress", action="store_true", help=argparse.SUPPRESS)  # default
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    for option, workers in (("--analysis-workers", args.analysis_workers),
                            ("--compare-workers", args.compare_workers)):
        if workers < 0:
            parser.error(f"{option} must be at least 0")
        if workers and args.store != "postgresql":
            parser.error(f"{option}: gammon worker takes the analyses from PostgreSQL's job "
                         "queue: use --store postgresql")
        if workers and args.url:
            parser.error(f"{option}: the run starts its own servers (no --url)")
    if args.compare_workers and (args.analysis_workers or not args.analyses):
        parser.error("--compare-workers N: with --analyses K and without --analysis-workers")
    if args.restart_postgres_at is not None and args.store != "postgresql" and not args.url:
        parser.error("--restart-postgres-at: the store is SQLite")
    for at in (args.restart_postgres_at, args.restart_redis_at):
        if at is not None and not 0 <= at < args.duration:
            parser.error("a restart's time is within the measurement (0 to --duration)")
    gc.set_threshold(50_000, 20, 100)  # the simulator must not pause more than the server
    gc.freeze()
    if args.compare_workers:
        rounds = {}
        for name, workers in (("servers_own", 0), ("workers", args.compare_workers)):
            progress(args, f"round: {name.replace('_', ' ')} ({workers} gammon worker(s))")
            rounds[name] = asyncio.run(run(argparse.Namespace(
                **{**vars(args), "analysis_workers": workers})))
        print_side_by_side(rounds["servers_own"], rounds["workers"], args.compare_workers)
        print(json.dumps(rounds))
        return 0
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:30} {value}")
    print(json.dumps(result))
    return 0


HEADLINE = ("latency_p99_ms", "latency_p50_ms", "actions_per_second",
            "server_cpu_ms_per_action", "analyses_per_minute")
"""The figures of a comparison first: the players' latency, the servers' work and CPU,
the analyses' throughput."""


def print_side_by_side(own: dict[str, Any], workers: dict[str, Any], count: int) -> None:
    """Two rounds' reports next to each other, the :data:`HEADLINE` figures first."""
    keys = [*HEADLINE, *(k for k in [*own, *workers] if k not in HEADLINE)]
    print(f"{'':34} {'servers own':>20}   {f'{count} gammon worker(s)':>20}")
    for key in dict.fromkeys(keys):
        print(f"{key:34} {own.get(key, '-')!s:>20}   {workers.get(key, '-')!s:>20}")


if __name__ == "__main__":
    sys.exit(main())
