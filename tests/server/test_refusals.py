"""Every refusal carries a reason code (PROTOCOL.md, *Error codes* and *HTTP error codes*):
over HTTP ``{"detail": {"code", "message"}}`` with the status of its code, on the socket an
``error`` message; the codes are those the wire's types list."""

from __future__ import annotations

from typing import Any, get_args

import httpx

from gammon.server import protocol
from gammon.server.routes.deps import status_of
from tests.server.conftest import Browser


def refused(response: httpx.Response, code: str) -> None:
    assert response.json() == {"detail": {"code": code, "message": response.json()[
        "detail"]["message"]}}, response.text
    assert code in get_args(protocol.HTTPErrorCode)
    assert response.status_code == status_of(code)
    assert response.json()["detail"]["message"]


def test_every_http_refusal_has_its_code_and_status(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    refused(a.post("/api/register", json={"name": "x", "password": "long-enough"}), "bad_name")
    refused(a.post("/api/register", json={"name": "erin", "password": "short"}),
            "weak_password")
    assert a.post("/api/register", json={"name": "erin", "password": "long-enough"}
                  ).status_code == 201
    refused(b.post("/api/register", json={"name": "Erin", "password": "long-enough"}),
            "name_taken")
    refused(b.post("/api/login", json={"name": "erin", "password": "not-the-one"}),
            "bad_credentials")
    refused(b.post("/api/logout-all"), "unauthenticated")
    refused(b.post("/api/games", json={"kind": "match", "length": 99}), "bad_input")
    refused(b.get("/api/games/nosuchmatch0000"), "not_found")
    refused(b.get("/api/users/nobody/history"), "not_found")
    created = a.post("/api/games", json={"kind": "match", "length": 3})
    assert created.status_code == 201
    match_id = created.json()["id"]
    refused(a.post(f"/api/games/{match_id}/join"), "own_game")
    refused(a.get(f"/api/games/{match_id}/export.mat"), "not_started")
    refused(a.post(f"/api/games/{match_id}/rematch"), "not_finished")
    refused(b.post(f"/api/games/{match_id}/rematch"), "not_a_player")
    refused(b.delete(f"/api/games/{match_id}"), "not_found")  # not b's to cancel
    assert b.post(f"/api/games/{match_id}/join").status_code == 200
    refused(b.post(f"/api/games/{match_id}/join"), "not_open")
    refused(a.post("/api/hint", json={"position_id": "AAAAAAAAAAAAAA", "dice": "31"}),
            "bad_input")
    # no route, or not this method: refused like any refusal, under /api/
    refused(a.get("/api/no-such-route"), "not_found")
    refused(a.request("PATCH", "/api/games"), "method_not_allowed")


def test_socket_refusals_carry_a_listed_code(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    a.get("/api/me")
    with a.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "welcome"
        sent: list[dict[str, Any]] = [
            {"type": "roll", "match": "nosuchmatch0000", "id": 1},
            {"type": "subscribe", "match": "nosuchmatch0000", "id": 2},
            {"type": "no_such_type", "id": 3},
            {"type": "chat", "match": "nosuchmatch0000", "text": "  ", "id": 4},
        ]
        for message in sent:
            ws.send_json(message)
        codes = {}
        while len(codes) < len(sent):
            reply = ws.receive_json()
            if reply["type"] == "error":
                codes[reply["id"]] = reply["code"]
    assert codes == {1: "not_found", 2: "not_found", 3: "unknown_type", 4: "malformed"}
    assert set(codes.values()) <= set(get_args(protocol.ErrorCode))
