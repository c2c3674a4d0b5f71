"""deploy/compose.yaml and deploy/nginx.conf, run as far as this machine can (no container
runtime here): the two ``gammon serve`` services and the ``gammon worker`` service are
started with the commands and environment the compose file declares (its database and Redis
swapped for the test ones), the real nginx runs the proxy config (its upstream names swapped
for the local ports), and two players play through the proxy; one process is then stopped
with SIGTERM and its players reconnect through the proxy to the other, where the match goes
on to its end; its analysis, which the servers leave to the workers, is then done by the
worker."""

from __future__ import annotations

import contextlib
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gammon.server import ops
from gammon.server.accounts import COOKIE
from tests.processes import free_port, start, wait_ready
from tests.server.conftest import postgres_database, redis_reachable
from tests.server.helpers import Player, act, play_turn, to_move

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())  # type: ignore[no-any-return]


def test_the_compose_file_declares_two_servers_on_postgresql_redis_behind_a_proxy() -> None:
    services = _compose()["services"]
    servers = [s for s in services.values() if s.get("command", [])[:2] == ["gammon", "serve"]]
    assert len(servers) >= 2
    for server in servers:
        env = server["environment"]
        assert env["GAMMON_DATABASE_URL"].startswith("postgresql+asyncpg://")
        assert env["GAMMON_REDIS_URL"].startswith("redis://")
        assert "/readyz" in " ".join(server["healthcheck"]["test"])
        assert server["stop_signal"] == "SIGTERM"
    assert {"postgres", "redis", "proxy"} <= set(services)
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in services["proxy"]["volumes"]


def test_the_compose_file_declares_analysis_workers_the_servers_leave_the_analyses_to(
        ) -> None:
    """A ``gammon worker`` service, the servers' image, on their database and bus, scaled to
    several replicas (``--scale worker=N`` for more), its health checked on the metrics it
    serves, stopped with SIGTERM (its analyses go back in the queue); the servers run no
    analyses themselves."""
    services = _compose()["services"]
    servers = [s for s in services.values() if s.get("command", [])[:2] == ["gammon", "serve"]]
    [worker] = [s for s in services.values() if s.get("command", [])[:2] == ["gammon", "worker"]]
    assert worker["image"] == servers[0]["image"] and worker["build"] == servers[0]["build"]
    for key in ("GAMMON_DATABASE_URL", "GAMMON_REDIS_URL"):
        assert worker["environment"][key] == servers[0]["environment"][key]
    assert int(worker["environment"]["GAMMON_WORKER_CONCURRENCY"]) >= 1
    assert worker["deploy"]["replicas"] >= 2
    assert worker["stop_signal"] == "SIGTERM"
    bind = worker["command"][worker["command"].index("--metrics-bind") + 1]
    assert f"127.0.0.1:{bind.rpartition(':')[2]}/metrics" in " ".join(
        worker["healthcheck"]["test"])
    assert all(server["environment"]["GAMMON_ANALYSIS_WORKERS"] == "0" for server in servers)


def _socket(stack: contextlib.ExitStack, port: int, client: httpx.Client) -> Any:
    return stack.enter_context(connect(
        f"ws://127.0.0.1:{port}/ws", open_timeout=20,
        additional_headers={"Cookie": f"{COOKIE}={client.cookies[COOKIE]}"}))


def test_two_servers_behind_nginx_play_a_match_and_survive_a_restart(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    services = _compose()["services"]
    names = [n for n, s in services.items() if s.get("command", [])[:2] == ["gammon", "serve"]]
    gammon = str(Path(sys.executable).parent / "gammon")
    processes: list[subprocess.Popen[bytes]] = []
    with postgres_database() as database_url, contextlib.ExitStack() as stack:
        try:
            ports = {}
            secret = secrets.token_hex(32)
            # the servers started together, then each waited for (a start-up is seconds of
            # CPU: one after the other they took twice as long on two cores)
            for name in names:
                declared = services[name]
                env = {k: str(v) for k, v in declared["environment"].items()}
                env.update(GAMMON_DATABASE_URL=database_url, GAMMON_REDIS_URL=redis_reachable(),
                           GAMMON_SECRET_KEY=secret, GAMMON_RATE_LIMITS="false")
                command = [gammon if part == "gammon" else part for part in declared["command"]]
                ports[name] = free_port()
                command[command.index("--bind") + 1] = f"127.0.0.1:{ports[name]}"
                processes.append(start(command, env, tmp_path / f"{name}.log"))
            # one analysis worker (the service is scaled to several: one is enough here)
            declared = services["worker"]
            env = {k: str(v) for k, v in declared["environment"].items()}
            env.update(GAMMON_DATABASE_URL=database_url, GAMMON_REDIS_URL=redis_reachable(),
                       GAMMON_SECRET_KEY=secret, GAMMON_ANALYSIS_NICE="0")
            command = [gammon if part == "gammon" else part for part in declared["command"]]
            worker_port = free_port()
            command[command.index("--metrics-bind") + 1] = f"127.0.0.1:{worker_port}"
            worker = start(command, env, tmp_path / "worker.log")
            processes.append(worker)
            for name, process in zip(names, processes, strict=False):
                wait_ready(f"http://127.0.0.1:{ports[name]}/readyz", process,
                            tmp_path / f"{name}.log")
            wait_ready(f"http://127.0.0.1:{worker_port}/metrics", worker,
                       tmp_path / "worker.log")
            proxy_port = free_port()
            conf = (DEPLOY / "nginx.conf").read_text().replace(
                "listen 8080;", f"listen 127.0.0.1:{proxy_port};")
            for name, port in ports.items():
                conf = conf.replace(f"server {name}:8000", f"server 127.0.0.1:{port}")
            (tmp_path / "logs").mkdir()
            (tmp_path / "nginx.conf").write_text(conf)
            processes.append(start(
                [nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                 "-g", f"daemon off; pid {tmp_path}/nginx.pid; error_log stderr;"],
                {}, tmp_path / "nginx.log"))
            base = f"http://127.0.0.1:{proxy_port}"
            wait_ready(f"{base}/readyz", processes[-1], tmp_path / "nginx.log")
            assert httpx.get(f"{base}/metrics").status_code == 404  # scraped per process

            one = stack.enter_context(httpx.Client(base_url=base, timeout=20))
            two = stack.enter_context(httpx.Client(base_url=base, timeout=20))
            for client, name in ((one, "alice"), (two, "bobby")):
                assert client.post("/api/register", json={"name": name,
                                                          "password": "password-1"}).is_success
            match_id = one.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
            assert two.post(f"/api/games/{match_id}/join", json={}).is_success

            sockets: list[Any] = []

            def players() -> dict[int, Player]:
                seated = {}
                for client, name in ((one, "alice"), (two, "bobby")):
                    sockets.append(_socket(stack, proxy_port, client))
                    player = Player.over_websockets(sockets[-1], name)
                    player.subscribe(match_id)
                    assert player.you is not None
                    seated[player.you] = player
                for player in seated.values():  # the opening may reach a socket via Redis
                    while player.game is None or player.game["phase"] == "opening":
                        player.recv()
                return seated

            rng = random.Random(4)
            seated = players()
            for _ in range(4):
                play_turn(seated, rng)
            version = seated[0].v

            # one process restarts: its sockets are told to reconnect, and do, to the other
            first = processes[0]
            first.send_signal(signal.SIGTERM)
            assert first.wait(30) in (0, -signal.SIGTERM)
            closed = [ws for ws in sockets if _closed_for_restart(ws)]
            assert closed, "no socket was on the stopped process"
            seated = players()
            assert all(p.v == version for p in seated.values())
            for _ in range(4):
                play_turn(seated, rng)
            assert seated[0].v > version

            # the match ends (a backgammon resigned: 3 points); the servers queue its
            # analysis and run none (GAMMON_ANALYSIS_WORKERS 0): the worker does it
            act(seated, to_move(seated), {"type": "resign", "level": 3})
            act(seated, to_move(seated), {"type": "accept_resign"})
            deadline = time.monotonic() + 180
            while (answer := one.get(f"/api/games/{match_id}/analysis")).status_code != 200:
                assert answer.status_code == 202, answer.text
                assert time.monotonic() < deadline, "the worker did not analyse the match"
                time.sleep(0.5)
            assert answer.json()["plies"] == 1
        finally:
            for process in reversed(processes):
                if process.poll() is None:
                    process.terminate()
                    try:
                        process.wait(20)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        process.wait()


def _closed_for_restart(ws: Any) -> bool:
    """Whether a socket was closed by a server restart (1012), reading what was still in
    flight; False if it is still open."""
    try:
        while True:
            ws.recv(timeout=3)
    except ConnectionClosed as closed:
        return closed.rcvd is not None and closed.rcvd.code == ops.RESTART_CODE
    except TimeoutError:
        return False
