"""Sign-in sessions live on the server: signing out revokes the session for good (its
cookie stops working at once, on every endpoint and on the socket), and "sign out
everywhere" revokes all of a user's sessions. Runs on every store."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gammon.server.app import create_app
from gammon.server.settings import Settings
from tests.server.conftest import Browser, make_settings


def _sign_up(browser: Browser, name: str) -> int:
    response = browser.post("/api/register", json={"name": name, "password": "password-1"})
    assert response.status_code == 201, response.text
    return int(response.json()["user"]["id"])


def _socket_refused(browser: Browser) -> None:
    """The socket of ``browser``'s cookie is refused: ``unauthenticated``, then 4401."""
    with browser.websocket_connect("/ws") as ws:
        assert ws.receive_json()["code"] == "unauthenticated"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401


def test_a_signed_out_cookie_stops_working(clients: tuple[Browser, Browser]) -> None:
    """``POST /api/logout`` revokes the session: a copy of the cookie signs nobody in (it
    once kept signing in for 30 days)."""
    a, thief = clients
    uid = _sign_up(a, "carol")
    thief.cookie = a.cookie  # a copy taken before signing out
    assert thief.get("/api/me").json()["user"]["id"] == uid
    assert a.post("/api/logout").json() == {"ok": True}
    me = thief.get("/api/me").json()["user"]
    assert me["id"] != uid and me["kind"] == "guest"  # the copy is nobody now
    thief.cookie = a.cookie = None
    a.cookie = None
    a.post("/api/login", json={"name": "carol", "password": "password-1"})
    assert a.get("/api/me").json()["user"]["id"] == uid  # signing in again works


def test_a_signed_out_cookie_opens_no_socket(clients: tuple[Browser, Browser]) -> None:
    a, thief = clients
    _sign_up(a, "carol")
    thief.cookie = a.cookie
    a.post("/api/logout")
    _socket_refused(thief)


def test_sign_out_everywhere_revokes_every_session(clients: tuple[Browser, Browser]) -> None:
    a, laptop = clients
    uid = _sign_up(a, "carol")
    assert laptop.post("/api/login", json={"name": "carol", "password": "password-1"}
                       ).status_code == 200
    assert laptop.cookie != a.cookie
    kept = Browser(a.client)
    kept.cookie = laptop.cookie
    response = a.post("/api/logout-all")
    assert response.status_code == 200 and response.json() == {"ok": True, "revoked": 2}
    for browser in (a, kept):
        assert browser.get("/api/me").json()["user"]["id"] != uid
    _socket_refused(laptop)
    assert laptop.post("/api/login", json={"name": "carol", "password": "password-1"}
                       ).status_code == 200
    assert laptop.get("/api/me").json()["user"]["id"] == uid


def test_sign_out_everywhere_needs_a_session(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    response = a.post("/api/logout-all")
    assert response.status_code == 401 and response.json()["detail"]["code"] == \
        "unauthenticated"


def _next(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] != "ping":
            return message


def test_an_open_socket_is_closed_when_its_session_is_revoked(
        clients: tuple[Browser, Browser]) -> None:
    """Signing out here closes this process's sockets of that session at once."""
    a, other = clients
    _sign_up(a, "carol")
    other.get("/api/me")
    with a.websocket_connect("/ws") as ws, other.websocket_connect("/ws") as bystander:
        assert _next(ws)["type"] == "welcome"
        assert _next(bystander)["type"] == "welcome"
        a.post("/api/logout")
        assert _next(ws)["code"] == "unauthenticated"
        with pytest.raises(WebSocketDisconnect) as closed:
            _next(ws)
        assert closed.value.code == 4401
        bystander.send_text(json.dumps({"type": "ping", "id": 1}))
        assert _next(bystander)["type"] == "pong"  # other sessions are untouched


def test_a_socket_of_a_session_revoked_elsewhere_is_closed_at_its_next_ping(
        database_url: str, redis_url: str) -> None:
    """Another process revoked the session (here: the database row is deleted directly):
    the socket finds out at its next ping, every ``ping_interval`` seconds."""
    settings: Settings = make_settings(database_url, redis_url, ping_interval=0.2)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        uid = _sign_up(a, "carol")
        with a.websocket_connect("/ws") as ws:
            assert _next(ws)["type"] == "welcome"
            started = time.monotonic()
            client.portal.call(client.app.state.repo.revoke_sessions, uid)  # type: ignore[attr-defined]
            assert _next(ws)["code"] == "unauthenticated"
            with pytest.raises(WebSocketDisconnect) as closed:
                _next(ws)
            assert closed.value.code == 4401
            assert time.monotonic() - started < 5


def test_a_cookie_of_the_old_kind_signs_nobody_in(clients: tuple[Browser, Browser]) -> None:
    """A cookie that holds only a signed user id (before sessions were stored) is refused:
    it could not be revoked."""
    a, forger = clients
    uid = _sign_up(a, "carol")
    signer = a.client.app.state.sessions.signer  # type: ignore[attr-defined]
    forger.cookie = signer.dumps({"uid": uid})
    assert forger.get("/api/me").json()["user"]["id"] != uid
