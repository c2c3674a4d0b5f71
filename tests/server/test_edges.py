"""The HTTP and WebSocket edge refuses bad input of every kind with a clear 4xx error (or
one socket error) and changes nothing: bodies that are not valid text, booleans where
numbers belong, impossible boards, a foreign Origin, and errors that echo the message id."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gammon.core.position import Position
from gammon.server.accounts import COOKIE
from gammon.server.app import create_app
from gammon.server.protocol import ProtocolError, parse_client_message
from gammon.server.settings import Settings
from tests.processes import ServerProcess
from tests.server.conftest import Browser


@pytest.fixture
def lenient(settings: Settings) -> Iterator[TestClient]:
    """A client that reports server errors as HTTP 500 (as a browser sees them) instead of
    raising them in the test."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def _post_raw(client: TestClient, url: str, body: str | bytes, cookie: str | None = None
              ) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if cookie:
        headers["cookie"] = f"{COOKIE}={cookie}"
    return client.post(url, content=body.encode() if isinstance(body, str) else body,
                       headers=headers)


def _next(ws: Any) -> dict[str, Any]:
    """The next message on a test socket that is not the server's ping."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] != "ping":
            return message


def _clear_4xx(response: httpx.Response) -> dict[str, Any]:
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    detail = response.json()["detail"]
    assert detail["code"] and detail["message"], detail
    return detail  # type: ignore[no-any-return]


# -- a lone surrogate in a JSON body ---------------------------------------------------------

SURROGATE_BODIES = [
    ("/api/login", '{"name": "\\ud800", "password": "password-1"}'),
    ("/api/login", '{"name": "carol", "password": "\\udfff"}'),
    ("/api/register", '{"name": "ab\\ud800c", "password": "password-1"}'),
    ("/api/register", '{"name": "carol", "password": "x\\ud83dyyyyyyyy"}'),
    ("/api/games", '{"kind": "match", "client_seed": "\\ud800"}'),
    ("/api/games", '{"kind": "\\ud800"}'),
    ("/api/games", '{"\\ud800": 1}'),
    ("/api/hint", '{"position_id": "\\ud800", "dice": "31"}'),
    ("/api/hint", '{"position_id": "4HPwATDgc/ABMA", "dice": "\\udc00"}'),
    ("/api/eval", '{"position_id": "4HPwATDgc/ABMA", "match_id": "\\ud800"}'),
]


def test_a_lone_surrogate_in_a_body_is_a_clear_4xx_not_a_500(lenient: TestClient) -> None:
    """A JSON string with a lone UTF-16 surrogate escape is not text (it was once
    echoed by the validation-error handler (or reached the database) and gave HTTP 500."""
    cookie = lenient.get("/api/me").cookies.get(COOKIE)
    lenient.cookies.clear()
    for url, body in SURROGATE_BODIES:
        detail = _clear_4xx(_post_raw(lenient, url, body, cookie))
        assert detail["code"] == "bad_input", (url, body)
    assert lenient.get("/api/games").json() == []


def test_bodies_that_are_not_the_expected_object_are_a_clear_4xx(lenient: TestClient) -> None:
    for body in ["{", "[]", "42", "null", '"text"', b"\xff\xfe", "{}"]:
        detail = _clear_4xx(_post_raw(lenient, "/api/login", body))
        assert detail["code"] == "bad_input", body


# -- booleans are not numbers, and impossible boards are refused ---------------------------


@pytest.mark.parametrize("raw", [
    '{"type": "resign", "match": "m", "level": true}',
    '{"type": "resign", "match": "m", "level": 1.0}',
    '{"type": "resign", "match": "m", "level": false}',
    '{"type": "step", "match": "m", "from": 24, "die": true}',
    '{"type": "roll", "match": "m", "v": true}',
    '{"type": "subscribe", "match": "m", "since": false}',
    '{"type": "mute", "match": "m", "muted": 1}',
    '{"type": "pong", "n": true}',
    '{"type": "ping", "id": false}',
])
def test_json_true_is_not_the_number_one(raw: str) -> None:
    """``true`` is not resign level 1 (nor is ``1.0``), nor any other number."""
    with pytest.raises(ProtocolError) as error:
        parse_client_message(raw)
    assert error.value.code == "malformed"


def test_a_resignation_with_level_true_changes_nothing(clients: tuple[Browser, Browser]
                                                       ) -> None:
    a, b = clients
    match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
    b.post(f"/api/games/{match_id}/join")
    before = a.get(f"/api/games/{match_id}").json()
    seat = before["game"]["turn"]
    actor = a if before["you"] == seat or (before["you"] is None and seat == 0) else b
    with actor.websocket_connect("/ws") as ws:
        ws.receive_json()  # welcome
        ws.send_text(json.dumps({"type": "resign", "match": match_id, "level": True,
                                 "id": 5}))
        reply = _next(ws)
        assert reply["type"] == "error" and reply["code"] == "malformed" and reply["id"] == 5
    after = a.get(f"/api/games/{match_id}").json()
    assert after["v"] == before["v"] and after["game"] == before["game"]


def test_new_game_fields_take_their_own_type_only(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    for body in [{"kind": "match", "length": True}, {"kind": "match", "bot": True},
                 {"kind": "match", "length": 3.0}, {"kind": "match", "private": 1},
                 {"kind": "match", "client_seed": 7}]:
        assert _clear_4xx(a.post("/api/games", json=body))["code"] == "bad_input", body
    assert a.get("/api/games").json() == []


ALL_OFF = Position.from_points({}, {6: 15})  # the side on roll has borne off all 15
THEY_WON = Position.from_points({6: 15}, {})
IMPOSSIBLE_BOARDS = [
    ("AAAAAAAAAAAAAA", "over"),  # the empty board: both sides have borne off
    (ALL_OFF.id(), "over"),
    (THEY_WON.id(), "over"),
    ("//////////AAAA", "checkers"),  # more than 15 checkers
    ("nonsense", "characters"),
    (12, "valid string"),
    (True, "valid string"),
]


def test_the_engine_refuses_impossible_boards(clients: tuple[Browser, Browser]) -> None:
    """/api/hint and /api/eval refuse an empty board (and a finished game) with the
    reason the core's position rules give."""
    a, _ = clients
    for position_id, reason in IMPOSSIBLE_BOARDS:
        for url, extra in (("/api/hint", {"dice": "31"}), ("/api/eval", {})):
            detail = _clear_4xx(a.post(url, json={"position_id": position_id, "plies": 0,
                                                  **extra}))
            assert detail["code"] == "bad_input" and reason in detail["message"], detail


def _position_id(opponent: list[int], player: list[int]) -> str:
    """A GNU Backgammon Position ID written bit by bit (25 slots a side, the opponent
    first), so that it may describe what no :class:`Position` can hold."""
    bits, at = 0, 0
    for counts in (opponent, player):
        for count in counts:
            bits |= ((1 << count) - 1) << at
            at += count + 1
    return base64.b64encode(bits.to_bytes(10, "little")).decode()[:14]


def test_the_engine_refuses_both_sides_on_one_point(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    opponent, player = [0] * 25, [0] * 25
    opponent[5], player[5] = 2, 2
    assert Position.from_id(_position_id(opponent, player)).board[6] == 2  # a real position
    opponent[0], player[23] = 1, 1  # the opponent's 1-point is the player's 24-point
    both = _position_id(opponent, player)
    for url, extra in (("/api/hint", {"dice": "31"}), ("/api/eval", {})):
        detail = _clear_4xx(a.post(url, json={"position_id": both, "plies": 0, **extra}))
        assert detail["code"] == "bad_input" and "both sides" in detail["message"]


# -- the server does what PROTOCOL.md says -----------------------------------------------


@pytest.mark.parametrize(("raw", "code", "echo"), [
    ('{"type": "fly", "id": 7}', "unknown_type", 7),
    ('{"type": "roll", "match": "m", "extra": 1, "id": "abc"}', "malformed", "abc"),
    ('{"id": 9}', "malformed", 9),
    ('{"type": "step", "match": "m", "from": 99, "die": 1, "id": 10}', "malformed", 10),
    ('{"type": 5, "id": 11}', "malformed", 11),
    ('{"type": "fly", "id": true}', "unknown_type", None),  # not a valid id: not echoed
    ('{"type": "fly", "id": "' + "x" * 41 + '"}', "unknown_type", None),
    ("not json", "malformed", None),
])
def test_refusals_of_the_parser_echo_the_message_id(raw: str, code: str, echo: Any) -> None:
    """``malformed`` and ``unknown_type`` errors echo a valid ``id``."""
    with pytest.raises(ProtocolError) as error:
        parse_client_message(raw)
    assert error.value.code == code and error.value.id == echo


def test_a_socket_error_echoes_the_id(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    a.get("/api/me")
    with a.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_text('{"type": "teleport", "id": "t-1"}')
        reply = _next(ws)
        assert reply == {"type": "error", "code": "unknown_type", "id": "t-1",
                         "message": reply["message"]}


def test_a_foreign_origin_is_closed_with_4403_after_the_handshake(
        sqlite_server: ServerProcess) -> None:
    """A real server (uvicorn) closes a socket of a foreign Origin with code 4403 after the
    handshake, as PROTOCOL.md promises (an HTTP 403 at the handshake a browser cannot read)."""
    server = sqlite_server
    cookie = httpx.get(f"{server.url}/api/me").cookies[COOKIE]
    headers = {"Cookie": f"{COOKIE}={cookie}"}
    with connect(server.ws_url, additional_headers=headers, origin="https://evil.example",
                 open_timeout=20) as ws, pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    with connect(server.ws_url, additional_headers=headers,
                 origin=f"http://127.0.0.1:{server.port}", open_timeout=20) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"


def test_bad_ids_and_names_in_the_path_are_a_clear_4xx(lenient: TestClient) -> None:
    """A NUL (PostgreSQL cannot hold it), a lone surrogate or an overlong id in the URL
    path was HTTP 500 on PostgreSQL: every path parameter is checked like a body."""
    lenient.get("/api/me")
    for bad in ("%00", "a%00b", "%ED%A0%80", "x" * 300, "a.b"):
        for method, path in (("GET", "/api/games/{}"), ("POST", "/api/games/{}/join"),
                             ("DELETE", "/api/games/{}"), ("POST", "/api/games/{}/rematch"),
                             ("GET", "/api/games/{}/export.mat"),
                             ("GET", "/api/games/{}/fairness")):
            response = lenient.request(method, path.format(bad))
            assert response.status_code in (404, 422), (method, path, bad, response.text)
            assert response.json()["detail"]["code"] in ("bad_input", "not_found")
    for bad in ("%00", "%ED%A0%80", "x" * 300):
        for path in ("/api/users/{}/history", "/api/users/{}/ratings"):
            response = lenient.get(path.format(bad))
            assert response.status_code in (404, 422), (path, bad, response.text)


@pytest.mark.parametrize("raw", [
    '{"type": "ping", "n": 1}',  # the server's ping's field: not the client's
    '{"type": "ping", "id": true}',
    '{"type": "ping", "id": {"a": 1}}',
    '{"type": "ping", "id": "' + "x" * 41 + '"}',
    '{"type": "ping", "match": "m"}',
    '{"type": "pong"}',
    '{"type": "pong", "n": -1}',
    '{"type": "pong", "n": "1"}',
    '["ping"]',
])
def test_a_malformed_ping_is_refused_and_the_socket_still_answers(
        clients: tuple[Browser, Browser], raw: str) -> None:
    """The client's liveness check (PROTOCOL.md, *Liveness*): a bad ping or pong is one
    ``malformed`` error; the socket stays open and a good ping gets its pong."""
    a, _ = clients
    a.get("/api/me")
    with a.websocket_connect("/ws") as ws:
        assert _next(ws)["type"] == "welcome"
        ws.send_text(raw)
        reply = _next(ws)
        assert reply["type"] == "error" and reply["code"] == "malformed", reply
        assert reply["message"]
        ws.send_text('{"type": "ping", "id": 12}')
        pong = _next(ws)
        assert pong["type"] == "pong" and pong["id"] == 12 and pong["server_time"] > 0
