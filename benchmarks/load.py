"""Server load: N simulated players on loopback playing real matches against each other.

Starts ``gammon serve`` in a child process (a fresh SQLite database in a temporary folder)
unless ``--url`` points at a running server, signs in 2 × ``--matches`` guests, pairs them
into matches to ``--length`` points (ramping up at ``--ramp`` new matches a second), and lets
them play for ``--duration`` seconds: each player thinks ``--think`` seconds (±50 %) and
then rolls or sends a random legal play over its WebSocket. A finished match is followed at
once by a new one, so the number of matches in play stays at N.

Prints: sustained concurrent matches (in play at every sample after the ramp), actions per
second, p50 / p99 latency from a player's action to the opponent's update carrying it, the
server's resident memory per match (RSS growth from the idle server to full load, divided
by N), and the errors seen.

Run: ``python benchmarks/load.py [--matches 500] [--duration 60] [--think 2.0]``
(also ``gammon bench load``). Needs ``ulimit -n`` above 2 × matches + 100.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import psutil
import websockets

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position

COOKIE = "gammon_session"


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: int = 0
    finished: int = 0
    in_play: int = 0
    samples: list[int] = field(default_factory=list)
    pending: dict[str, tuple[float, Any]] = field(default_factory=dict)
    error_codes: dict[str, int] = field(default_factory=dict)


class Seat:
    """One simulated player: a session cookie and a socket."""

    def __init__(self, http: httpx.AsyncClient, ws_url: str) -> None:
        self.http = http
        self.ws_url = ws_url
        self.cookie = ""
        self.ws: Any = None

    async def sign_in(self) -> None:
        response = await self.http.post("/api/guest")
        response.raise_for_status()
        self.cookie = response.cookies[COOKIE]

    async def connect(self) -> None:
        self.ws = await websockets.connect(
            self.ws_url, additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
            max_size=2**22, ping_interval=None, open_timeout=60)

    async def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        response = await self.http.post(path, json=body or {},
                                        cookies={COOKIE: self.cookie})
        response.raise_for_status()
        return response.json()  # type: ignore[no-any-return]


async def pair_loop(first: Seat, second: Seat, args: argparse.Namespace, stats: Stats,
                    deadline: float, rng: random.Random) -> None:
    """Two players play matches back to back until the deadline."""
    while time.monotonic() < deadline:
        game = await first.post("/api/games", {"kind": "match", "length": args.length,
                                               "private": True})
        match_id = game["id"]
        await second.post(f"/api/games/{match_id}/join")
        stats.in_play += 1
        try:
            done = await asyncio.gather(
                play(first, match_id, args, stats, deadline, random.Random(rng.random())),
                play(second, match_id, args, stats, deadline, random.Random(rng.random())))
            if all(done):
                stats.finished += 1
        finally:
            stats.in_play -= 1


def _runner(game: dict[str, Any]) -> int:
    seat = int(game["turn"])
    return 1 - seat if game["phase"] in ("cube_offered", "resign_offered") else seat


async def play(seat: Seat, match_id: str, args: argparse.Namespace, stats: Stats,
               deadline: float, rng: random.Random) -> bool:
    """One player's side of a match: read the socket, act (after thinking) on its turns.
    The opponent's update is timed here, when it is read (a player never thinks while it
    waits for the opponent)."""
    await seat.ws.send(json.dumps({"type": "subscribe", "match": match_id}))
    you: int | None = None
    game: dict[str, Any] | None = None
    acted = -1
    version = 0
    while time.monotonic() < deadline:
        try:
            raw = await asyncio.wait_for(seat.ws.recv(), max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            return False
        received = time.perf_counter()
        message = json.loads(raw)
        if message.get("match") != match_id:
            continue
        kind = message["type"]
        if kind == "state":
            you, game, version = message["you"], message["game"], message["v"]
        elif kind == "update":
            game, version = message["game"], message["v"]
            pending = stats.pending.get(match_id)
            if pending is not None and pending[1] is not seat:
                del stats.pending[match_id]
                stats.latencies.append(received - pending[0])
        elif kind == "error":
            stats.errors += 1
            code = message.get("code", "?")
            stats.error_codes[code] = stats.error_codes.get(code, 0) + 1
            acted = -1
            continue
        else:
            continue
        if game is None or you is None:
            continue
        if game["phase"] == "match_over":
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
        await seat.ws.send(json.dumps(action))
        stats.actions += 1
    return False


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, folder: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "GAMMON_DATABASE_URL": f"sqlite+aiosqlite:///{folder}/load.db",
           "GAMMON_PORT": str(port), "GAMMON_RATE_LIMITS": "false",
           "GAMMON_MAX_OPEN_GAMES": "1000"}
    return subprocess.Popen([sys.executable, "-m", "gammon.server.cli", "serve",
                             "--log-level", "warning"], env=env,
                            stdout=subprocess.DEVNULL)


async def wait_up(url: str) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(f"{url}/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise RuntimeError("the server did not start")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = tempfile.mkdtemp(prefix="gammon-load-")
    server = None
    url = args.url
    if not url:
        port = args.port or free_port()
        server = start_server(port, folder)
        url = f"http://127.0.0.1:{port}"
    try:
        await wait_up(url)
        if server is not None and server.poll() is not None:
            raise RuntimeError("the server exited (is the port taken?)")
        process = psutil.Process(server.pid) if server is not None else None
        ws_url = url.replace("http", "ws", 1) + "/ws"
        limits = httpx.Limits(max_connections=200)
        async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
            seats = [Seat(http, ws_url) for _ in range(2 * args.matches)]
            for i in range(0, len(seats), 100):
                await asyncio.gather(*(s.sign_in() for s in seats[i:i + 100]))
            for i in range(0, len(seats), 100):
                await asyncio.gather(*(s.connect() for s in seats[i:i + 100]))
            stats = Stats()
            await asyncio.sleep(1)
            idle_rss = process.memory_info().rss if process is not None else 0
            start = time.monotonic()
            ramp = args.matches / args.ramp
            deadline = start + ramp + args.settle + args.duration
            rng = random.Random(args.seed)
            tasks = []
            for k in range(args.matches):
                pair = (seats[2 * k], seats[2 * k + 1])
                tasks.append(asyncio.create_task(pair_loop(
                    *pair, args, stats, deadline, random.Random(rng.random()))))
                await asyncio.sleep(1 / args.ramp)
            # measure after the ramp and a settling time (samples end before the deadline)
            deadline_samples = deadline - 1
            await asyncio.sleep(args.settle)
            stats.latencies.clear()
            measured_from = time.monotonic()
            actions_from = stats.actions
            peak_rss = 0
            window = 0
            while time.monotonic() < deadline_samples:
                await asyncio.sleep(1)
                stats.samples.append(stats.in_play)
                if process is not None:
                    peak_rss = max(peak_rss, process.memory_info().rss)
                if args.progress:
                    lat = sorted(stats.latencies[window:])
                    window = len(stats.latencies)
                    p99 = lat[int(0.99 * (len(lat) - 1))] * 1000 if lat else 0
                    print(f"  {time.monotonic() - measured_from:5.0f} s  in play "
                          f"{stats.in_play}  actions {stats.actions}  p99 {p99:.1f} ms",
                          file=sys.stderr, flush=True)
            elapsed = time.monotonic() - measured_from
            failures = [t.exception() for t in tasks if t.done() and not t.cancelled()
                        and t.exception() is not None]
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            for seat in seats:
                await seat.ws.close()
        lat = sorted(stats.latencies)
        return {
            "matches": args.matches,
            "sustained_concurrent_matches": min(stats.samples[3:] or stats.samples or [0]),
            "actions_per_second": round((stats.actions - actions_from) / elapsed, 1),
            "latency_p50_ms": round(statistics.median(lat) * 1000, 2) if lat else None,
            "latency_p99_ms": round(lat[int(0.99 * (len(lat) - 1))] * 1000, 2) if lat else None,
            "latency_max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "latency_samples": len(lat),
            "rss_per_match_kib": round((peak_rss - idle_rss) / args.matches / 1024, 1)
            if process is not None else None,
            "server_rss_mib": round(peak_rss / 2**20, 1) if process is not None else None,
            "matches_finished": stats.finished,
            "errors": stats.errors, "error_codes": stats.error_codes,
            "client_failures": [repr(f) for f in failures[:3]],
            "think_s": args.think, "duration_s": round(elapsed, 1),
        }
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()


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
    parser.add_argument("--url", default="", help="a running server (default: start one)")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    gc.set_threshold(50_000, 20, 100)  # the simulator must not pause more than the server
    gc.freeze()
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:30} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
