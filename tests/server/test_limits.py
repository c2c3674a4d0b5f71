"""Limits that hold: every socket has a message rate and a subscribe
rate; the message size limit counts bytes (UTF-8), not characters; and with Redis (several
server processes) the rate limits are shared through Redis instead of multiplying."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.limits import RateLimiter, RedisRateLimiter
from gammon.server.protocol import ProtocolError, parse_client_message
from tests.server.conftest import Browser, make_settings, redis_reachable, run_async


def _next(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] != "ping":
            return message


def test_the_size_limit_counts_bytes_not_characters() -> None:
    """2,100 two-byte characters are 4,200 bytes: over the 4,096-byte limit, though fewer
    than 4,096 characters."""
    raw = json.dumps({"type": "chat", "match": "m", "text": "é" * 2100}, ensure_ascii=False)
    assert len(raw) < 4096 < len(raw.encode())
    with pytest.raises(ProtocolError) as error:
        parse_client_message(raw)
    assert error.value.code == "too_large"
    fits = json.dumps({"type": "ping", "id": "é" * 20}, ensure_ascii=False)
    assert parse_client_message(fits).id == "é" * 20


def test_a_socket_cannot_subscribe_without_limit(database_url: str, redis_url: str) -> None:
    """500 subscribes to missing matches cost seconds of database work: a socket gets a
    burst of subscribes, then ``rate_limited`` without the database being asked."""
    settings = make_settings(database_url, redis_url, rate_limits=True,
                             ws_subscribe_burst=10, ws_subscribes_per_minute=6)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        a.get("/api/me")
        with a.websocket_connect("/ws") as ws:
            _next(ws)
            for n in range(30):
                ws.send_text(json.dumps({"type": "subscribe", "match": f"missing{n}", "id": n}))
            codes = [_next(ws)["code"] for _ in range(30)]
    assert codes[:10] == ["not_found"] * 10
    assert codes[10:].count("rate_limited") >= 19


def test_a_socket_cannot_send_without_limit(database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, rate_limits=True,
                             ws_message_burst=20, ws_messages_per_second=1)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        a.get("/api/me")
        with a.websocket_connect("/ws") as ws:
            _next(ws)
            for n in range(60):
                ws.send_text(json.dumps({"type": "ping", "id": n}))
            replies = [_next(ws) for _ in range(60)]
    assert [r["type"] for r in replies[:20]] == ["pong"] * 20
    limited = [r for r in replies[20:] if r["type"] == "error"]
    assert len(limited) >= 35 and {r["code"] for r in limited} == {"rate_limited"}
    assert all("id" in r for r in limited)  # each refusal names its message


def test_without_rate_limits_a_socket_is_not_limited(database_url: str, redis_url: str
                                                     ) -> None:
    settings = make_settings(database_url, redis_url, ws_message_burst=5)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        a.get("/api/me")
        with a.websocket_connect("/ws") as ws:
            _next(ws)
            for n in range(20):
                ws.send_text(json.dumps({"type": "ping", "id": n}))
            assert {_next(ws)["type"] for _ in range(20)} == {"pong"}


def test_the_redis_limiter_is_one_bucket_for_every_process() -> None:
    """Two limiters on one Redis (two server processes) share one bucket; the in-process
    limiter of each would give each its own."""
    url = redis_reachable()
    prefix = f"gammon-test:{secrets.token_hex(4)}:"

    async def main() -> tuple[list[bool], list[bool]]:
        one, two = RedisRateLimiter(url, prefix), RedisRateLimiter(url, prefix)
        try:
            shared = [await limiter.allow("login:1.2.3.4", 1, 10)
                      for limiter in (one, two) * 8]
        finally:
            await one.close()
            await two.close()
        local_one, local_two = RateLimiter(), RateLimiter()
        apart = [await limiter.allow("login:1.2.3.4", 1, 10)
                 for limiter in (local_one, local_two) * 8]
        return shared, apart

    shared, apart = run_async(main)
    assert shared.count(True) == 10 and shared[10:] == [False] * 6
    assert apart.count(True) == 16


def test_two_server_processes_on_redis_share_the_login_limit(tmp_path: Path) -> None:
    """Behind Redis, the processes share one login bucket (not 10 tries each)."""
    url = redis_reachable()
    prefix = f"gammon-test:{secrets.token_hex(4)}:"
    database = f"sqlite+aiosqlite:///{tmp_path}/shared.db"
    apps = [create_app(make_settings(database, url, rate_limits=True,
                                     rate_limit_prefix=prefix)) for _ in range(2)]
    with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
        started = time.monotonic()
        codes = [client.post("/api/login", json={"name": "who", "password": "pw-pw-pw"}
                             ).status_code for client in (one, two) * 10]
        elapsed = time.monotonic() - started
    # one bucket of 10, refilled by one every 6 s (separate buckets would answer 20 times)
    assert codes[:10] == [401] * 10
    assert codes.count(401) <= 10 + elapsed / 6 + 1 and set(codes) == {401, 429}
    assert 429 in codes[10::2] and 429 in codes[11::2]  # both processes refuse
