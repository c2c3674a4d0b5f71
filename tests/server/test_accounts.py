"""Accounts and guests (argon2id, signed cookies, sign-in that does not reveal names), the
limits on sign-in and sign-up, options, and the socket's session and Origin checks."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gammon.server.accounts import hasher
from gammon.server.app import create_app
from tests.server.conftest import Browser, make_settings


def test_register_login_and_sign_in_that_reveals_no_names(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    assert a.post("/api/register", json={"name": "carol", "password": "long-enough"}
                  ).status_code == 201
    taken = b.post("/api/register", json={"name": "CAROL", "password": "long-enough"})
    assert taken.status_code == 409
    assert b.post("/api/register", json={"name": "x", "password": "long-enough"}
                  ).status_code == 422
    assert b.post("/api/register", json={"name": "dave", "password": "short"}
                  ).status_code == 422
    wrong = b.post("/api/login", json={"name": "carol", "password": "nope-nope"})
    nobody = b.post("/api/login", json={"name": "nobody", "password": "nope-nope"})
    assert wrong.status_code == nobody.status_code == 401
    assert wrong.json() == nobody.json()
    ok = b.post("/api/login", json={"name": "Carol", "password": "long-enough"})
    assert ok.status_code == 200 and ok.json()["user"]["name"] == "carol"
    assert b.get("/api/me").json()["user"]["name"] == "carol"
    assert hasher.hash("x").startswith("$argon2id$")  # how passwords are stored
    b.post("/api/logout")
    b.cookie = None
    assert b.get("/api/me").json()["user"]["kind"] == "guest"


def test_a_forged_cookie_is_a_new_guest(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    me = a.get("/api/me").json()["user"]
    assert me["kind"] == "guest"
    a.cookie = (a.cookie or "") + "x"
    assert a.get("/api/me").json()["user"]["id"] != me["id"]


def test_options_are_stored_per_player(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    assert a.get("/api/me/options").json()["confirm_turn"] is False
    options = {"confirm_turn": True, "auto_roll": False, "graphics": "low", "flip": True,
               "auto_bearoff": True, "sound": False, "language": "it", "numbering": False,
               "tap_longest": True}
    assert a.put("/api/me/options", json=options).json() == options
    assert a.get("/api/me/options").json() == options
    assert a.put("/api/me/options", json={"graphics": "ultra"}).status_code == 422


def test_rate_limits_on_login_and_registration(database_url: str, redis_url: str) -> None:
    """Login: a burst of 10, then 10 a minute; registration: a burst of 5, then 5 a minute.
    The buckets refill while the requests run (argon2 takes its time on a loaded machine),
    so the allowed count may exceed the burst by what refilled meanwhile, never more."""

    def attempts(post: Callable[[int], httpx.Response], count: int,
                 per_minute: float) -> tuple[list[int], float]:
        started = time.monotonic()
        codes = [post(i).status_code for i in range(count)]
        return codes, (time.monotonic() - started) * per_minute / 60.0

    settings = make_settings(database_url, redis_url, rate_limits=True)
    with TestClient(create_app(settings)) as client:
        codes, refilled = attempts(lambda i: client.post(
            "/api/login", json={"name": "who", "password": "pw-pw-pw"}), 14, 10)
        assert codes[:10] == [401] * 10 and 429 in codes
        assert set(codes) == {401, 429} and codes.count(401) <= 10 + refilled + 1
        codes, refilled = attempts(lambda i: client.post(
            "/api/register", json={"name": f"user{i}", "password": "pw-pw-pw1"}), 9, 5)
        assert codes[:5] == [201] * 5 and 429 in codes
        assert set(codes) == {201, 429} and codes.count(201) <= 5 + refilled + 1


def test_websocket_needs_a_session_and_a_good_origin(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    with b.websocket_connect("/ws") as ws:  # no session yet
        assert ws.receive_json()["code"] == "unauthenticated"
    a.get("/api/me")
    with pytest.raises(WebSocketDisconnect) as closed, a.websocket_connect(
            "/ws", headers={"origin": "https://evil.example"}) as ws:
        ws.receive_json()
    assert closed.value.code == 4403
    with a.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "welcome"
