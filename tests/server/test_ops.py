"""Operations: Prometheus metrics at /metrics, the readiness and liveness
probes, JSON logs with match and user ids, and graceful shutdown closing sockets with a
reconnect code — in process on both stores, and over real sockets against ``gammon serve``."""

from __future__ import annotations

import contextlib
import json
import random
import re
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gammon.server import ops
from gammon.server.accounts import COOKIE
from gammon.server.bus_messages import Resync
from tests.processes import ServerProcess, free_port
from tests.server.conftest import Browser
from tests.server.helpers import Player, act, following, play_turn, random_play
from tests.server.test_match import register

SAMPLE = re.compile(r'^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? (-?[0-9.e+-]+|\+Inf)$')


def scrape(browser: Browser) -> dict[str, float]:
    """The samples of /metrics, checked line by line against the text format."""
    response = browser.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for line in response.text.splitlines():
        if line.startswith("# "):
            assert re.match(r"^# (HELP|TYPE) gammon_[a-z_]+ ", line), line
            continue
        assert SAMPLE.match(line), line
        name, value = line.rsplit(" ", 1)
        samples[name] = float(value)
    return samples


def test_metrics_count_matches_sockets_and_actions(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    register(a, "alice")
    register(b, "bobby")
    before = scrape(a)
    assert before["gammon_sockets"] == 0 and before["gammon_active_matches"] == 0
    match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
    rng = random.Random(1)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "alice"), Player.over_testclient(wb, "bobby")
        assert b.post(f"/api/games/{match_id}/join", json={}).status_code == 200
        players = following(match_id, pa, pb)
        for _ in range(4):
            play_turn(players, rng)
        waiting = players[1 - pa.game["turn"]] if pa.game else pa  # type: ignore[index]
        assert act(players, waiting, {"type": "roll"})["type"] == "error"  # not their turn
        during = scrape(a)
    after = scrape(a)
    assert during["gammon_sockets"] == 2 and after["gammon_sockets"] == 0
    assert during["gammon_active_matches"] == 1
    ok = 'gammon_actions_total{result="ok"}'
    assert during[ok] - before.get(ok, 0) == 4
    assert during['gammon_actions_total{result="not_your_turn"}'] >= 1
    assert during["gammon_action_seconds_count"] - before["gammon_action_seconds_count"] == 5
    assert during['gammon_action_seconds_bucket{le="+Inf"}'] == during[
        "gammon_action_seconds_count"]
    assert during["gammon_database_errors_total"] == 0 and during["gammon_bus_errors_total"] == 0
    assert during["gammon_bot_queue"] == 0 and during["gammon_draining"] == 0


def test_probes_answer_and_readiness_fails_when_the_database_does(
        clients: tuple[Browser, Browser], client: Any, store: str) -> None:
    a, _ = clients
    assert a.get("/healthz").json() == {"ok": True}
    ready = a.get("/readyz")
    assert ready.status_code == 200, ready.text
    checks = ready.json()["checks"]
    assert checks["database"] == "ok"
    assert ("redis" in checks) is (store == "postgresql")
    # the database goes away: not ready, and the failure is counted
    from sqlalchemy.ext.asyncio import create_async_engine
    hub = client.app.state.hub
    real = hub.repo.engine
    gone = create_async_engine(f"postgresql+asyncpg://nobody@127.0.0.1:{free_port()}/x")
    hub.repo.engine = gone
    try:
        down = a.get("/readyz")
    finally:
        hub.repo.engine = real
        client.portal.call(gone.dispose)
    assert down.status_code == 503 and down.json()["checks"]["database"] != "ok"
    assert a.get("/readyz").status_code == 200


def test_readiness_fails_when_redis_does() -> None:
    """Scale-out mode (PostgreSQL + Redis): Redis unreachable makes the process not ready."""
    import redis.asyncio as redis
    from fastapi.testclient import TestClient

    from gammon.server.app import create_app
    from tests.server.conftest import make_settings, postgres_database, redis_reachable

    with postgres_database() as url, TestClient(create_app(make_settings(
            url, redis_reachable()))) as client:
        browser, state = Browser(client), client.app.state.ops  # type: ignore[attr-defined]
        assert browser.get("/readyz").json()["checks"]["redis"] == "ok"
        real, state.redis = state.redis, redis.from_url(f"redis://127.0.0.1:{free_port()}/0")
        try:
            down = browser.get("/readyz")
        finally:
            client.portal.call(state.redis.aclose)
            state.redis = real
        assert down.status_code == 503 and down.json()["checks"]["redis"] != "ok"
        assert browser.get("/readyz").status_code == 200


def test_json_log_lines_carry_the_match_and_user_ids(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    ops.configure_logging("json", "debug")
    logger = __import__("logging").getLogger("gammon.test")
    try:
        match, user = ops.current_match.set("m1"), ops.current_user.set(7)
        logger.info("hello %s", "there")
        ops.current_match.reset(match)
        ops.current_user.reset(user)
        logger.warning("outside")
    finally:
        ops.configure_logging("text", "warning")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert lines[0]["message"] == "hello there" and lines[0]["match"] == "m1"
    assert lines[0]["user"] == 7 and lines[0]["level"] == "info"
    assert "match" not in lines[1] and lines[1]["level"] == "warning"
    with pytest.raises(ValueError, match="log format"):
        ops.configure_logging("xml")


def test_sigterm_closes_sockets_with_a_reconnect_code_and_logs_are_json(
        database_url: str, redis_url: str, tmp_path: Path) -> None:
    """A real ``gammon serve``: an action's JSON log line names the match and the user; on
    SIGTERM each socket is closed with 1012 and the reason, then the app shuts down."""
    log = tmp_path / "serve.log"
    server = ServerProcess({"GAMMON_DATABASE_URL": database_url, "GAMMON_REDIS_URL": redis_url,
                            "GAMMON_RATE_LIMITS": "false"}, log=log, log_level="debug",
                           args=["--log-format", "json"]).start(timeout=40, ready="/readyz")
    assert server.process is not None
    process, port = server.process, server.port
    try:
        base = f"http://127.0.0.1:{port}"
        with contextlib.ExitStack() as stack:
            one = stack.enter_context(httpx.Client(base_url=base, timeout=20))
            two = stack.enter_context(httpx.Client(base_url=base, timeout=20))
            for client, name in ((one, "alice"), (two, "bobby")):
                assert client.post("/api/register", json={"name": name,
                                                          "password": "password-1"}).is_success
            match_id = one.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
            assert two.post(f"/api/games/{match_id}/join", json={}).is_success
            user_ids = {c.get("/api/me").json()["user"]["id"] for c in (one, two)}
            sockets = [stack.enter_context(connect(
                f"ws://127.0.0.1:{port}/ws", open_timeout=20,
                additional_headers={"Cookie": f"{COOKIE}={c.cookies[COOKIE]}"}))
                for c in (one, two)]
            players = {}
            for ws, name in zip(sockets, ("alice", "bobby"), strict=True):
                player = Player.over_websockets(ws, name)
                player.subscribe(match_id)
                assert player.you is not None
                players[player.you] = player
            play_turn(players, random.Random(2))
            process.send_signal(signal.SIGTERM)
            closes = []
            for ws in sockets:
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        ws.recv(timeout=20)
                closes.append((closed.value.rcvd.code, closed.value.rcvd.reason)  # type: ignore[union-attr]
                              if closed.value.rcvd else None)
        assert closes == [(ops.RESTART_CODE, ops.RESTART_REASON)] * 2
        # uvicorn re-raises the signal once its shutdown is complete (checked in the log)
        assert process.wait(20) in (0, -signal.SIGTERM)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert lines, "no log lines"
    acted = [line for line in lines if line["message"].startswith("action ")]
    assert acted and all(line["match"] == match_id for line in acted)
    assert all(line["user"] in user_ids for line in acted)
    messages = [line["message"] for line in lines]
    drained = next(i for i, m in enumerate(messages) if m.startswith("drained"))
    assert "Application shutdown complete." in messages[drained:]


def test_database_bus_and_bot_queue_metrics_move(database_url: str, redis_url: str) -> None:
    """The error counters count real failures (a statement the database refuses; with Redis,
    a publish when Redis cannot be reached) and the bot queue counts a bot turn while it
    waits."""
    from fastapi.testclient import TestClient
    from sqlalchemy import text

    from gammon.server.app import create_app
    from tests.server.conftest import make_settings

    app = create_app(make_settings(database_url, redis_url, bot_delay=2.0))
    with TestClient(app) as client:
        browser = Browser(client)
        hub = app.state.hub

        async def bad_statement() -> None:
            async with hub.repo.engine.connect() as conn:
                await conn.execute(text("SELECT * FROM no_such_table"))

        with pytest.raises(Exception, match="no_such_table"):
            client.portal.call(bad_statement)
        assert scrape(browser)["gammon_database_errors_total"] == 1

        if redis_url:  # the in-process bus of SQLite has no connection to lose
            import redis.asyncio as redis

            real = hub.bus._redis
            hub.bus._redis = redis.from_url(f"redis://127.0.0.1:{free_port()}/0")
            try:  # the hub logs the failure and goes on (the log is the truth)
                client.portal.call(hub.publish, Resync())
            finally:
                client.portal.call(hub.bus._redis.aclose)
                hub.bus._redis = real
            assert scrape(browser)["gammon_bus_errors_total"] == 1

        browser.post("/api/guest")
        # the bot (player 1) is to act only if it won the opening: start games until it did
        for _ in range(20):
            game = browser.post("/api/games", json={"kind": "single", "bot": 1}).json()
            if game["status"] == "playing" and scrape(browser)["gammon_bot_queue"] == 1:
                break
            browser.delete(f"/api/games/{game['id']}")
        else:
            raise AssertionError("the bot never had the first move in 20 games")


@pytest.mark.parametrize("failure", ["database gone", "fault"])
def test_an_action_that_fails_is_logged_with_its_match_and_user(
        clients: tuple[Browser, Browser], client: Any, capsys: pytest.CaptureFixture[str],
        failure: str) -> None:
    """An action fails in the middle of a match, and the JSON log line of the failure names
    the match and the user. The database gone (nothing listens where it was): the player
    gets ``busy`` (send it again), a warning. A fault in the server's code: ``internal``,
    an error with its traceback."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from gammon.server.operations import Operations

    a, b = clients
    alice, bobby = register(a, "alice"), register(b, "bobby")
    match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
    hub = client.app.state.hub
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "alice"), Player.over_testclient(wb, "bobby")
        assert b.post(f"/api/games/{match_id}/join", json={}).status_code == 200
        players = following(match_id, pa, pb)
        mover = players[pa.game["turn"]]  # type: ignore[index]
        ops.configure_logging("json", "info")
        capsys.readouterr()
        real = hub.repo.engine, hub.repo._single, hub.repo.operations, hub.repo.append_many
        gone = create_async_engine(f"postgresql+asyncpg://nobody@127.0.0.1:{free_port()}/x")
        if failure == "database gone":
            # every way the repository reaches its store: the engine, its statements
            # outside a transaction, and the store operations (SQLite's own threads)
            hub.repo.engine = hub.repo._single = gone
            hub.repo.operations = Operations(gone)
        else:
            async def fault(*_args: Any, **_kwargs: Any) -> None:
                raise RuntimeError("a fault in the server's code")
            hub.repo.append_many = fault
        try:
            game = mover.game
            assert game is not None
            reply = mover.act({"type": "play", "match": match_id,
                               "play": random_play(game, random.Random(0))})
        finally:
            (hub.repo.engine, hub.repo._single, hub.repo.operations,
             hub.repo.append_many) = real
            client.portal.call(gone.dispose)
            ops.configure_logging("text", "warning")
    code, level, message = (("busy", "warning", "action play refused busy")
                            if failure == "database gone" else
                            ("internal", "error", "action play failed"))
    assert reply["type"] == "error" and reply["code"] == code
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()
             if line.startswith("{")]
    failed = [line for line in lines if line["message"].startswith(message)]
    assert failed and failed[0]["match"] == match_id and failed[0]["level"] == level
    assert failed[0]["user"] == (alice if mover is pa else bobby)["id"]
    if failure == "fault":
        assert "Traceback" in failed[0]["error"]


def test_the_analysis_queue_by_kind_and_its_oldest_wait_are_in_the_metrics(
        database_url: str, redis_url: str) -> None:
    """The deployment's analyses queued and running, by kind (the quick one asked for, the
    deep one behind it), and how long the oldest queued of each kind has waited; a process
    that runs none (``analysis_workers`` 0) leaves them queued and has ended none."""
    import time

    from fastapi.testclient import TestClient

    from gammon.server.app import create_app
    from tests.server.conftest import make_settings
    from tests.server.test_analysis import bot_match

    app = create_app(make_settings(database_url, redis_url, analysis_workers=0))
    with TestClient(app) as client:
        browser = Browser(client)
        empty = scrape(browser)
        for kind in ("quick", "deep"):
            assert empty[f'gammon_analysis_queue{{kind="{kind}",status="queued"}}'] == 0
            assert empty[f'gammon_analysis_oldest_queued_seconds{{kind="{kind}"}}'] == 0
        with bot_match(browser, seed=2) as (game, _):
            pass
        assert browser.get(f"/api/games/{game['id']}/analysis").status_code == 202
        time.sleep(0.5)
        queued = scrape(browser)
    for kind in ("quick", "deep"):
        assert queued[f'gammon_analysis_queue{{kind="{kind}",status="queued"}}'] == 1
        assert queued[f'gammon_analysis_queue{{kind="{kind}",status="running"}}'] == 0
        assert queued[f'gammon_analysis_oldest_queued_seconds{{kind="{kind}"}}'] >= 0.5
    assert not [name for name in queued if name.startswith("gammon_analysis_ended_total")]
