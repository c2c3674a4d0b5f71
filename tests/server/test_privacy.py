"""A private match is seen only by its players, the player it is reserved for, and the
holders of its invite link (which carries a secret key): not in public history, and its
state, chat, files and dice are "no such match" to anyone else (issue 9, defect 9). Runs on
every store."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.server.conftest import Browser


def _sign_up(browser: Browser, name: str) -> None:
    assert browser.post("/api/register", json={"name": name, "password": "password-1"}
                        ).status_code == 201


def _private_match(a: Browser, b: Browser) -> tuple[str, str]:
    """A private match of carol (a) and dave (b), started; its id and invite key."""
    _sign_up(a, "carol")
    _sign_up(b, "dave")
    created = a.post("/api/games", json={"kind": "match", "length": 3, "private": True}).json()
    invite = urlsplit(created["invite"].replace("/#", "", 1))
    key = parse_qs(invite.query)["key"][0]
    assert invite.path == f"/match/{created['id']}" and len(key) >= 22
    assert b.post(f"/api/games/{created['id']}/join?key={key}").status_code == 200
    return created["id"], key


def _next(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] != "ping":
            return message


def test_private_matches_are_not_in_public_history(clients: tuple[Browser, Browser]) -> None:
    """Defect 9: a private match appeared in ``/api/users/{name}/history`` for anyone."""
    a, b = clients
    match_id, _ = _private_match(a, b)
    public = a.post("/api/games", json={"kind": "match", "length": 1}).json()["id"]
    b.post(f"/api/games/{public}/join")
    stranger = Browser(a.client)
    seen = [r["id"] for r in stranger.get("/api/users/carol/history").json()]
    assert seen == [public]
    for player in (a, b):  # the players see their own private match
        mine = {r["id"] for r in player.get("/api/users/carol/history").json()}
        assert mine == {public, match_id}


def test_a_private_match_is_no_such_match_without_the_key(clients: tuple[Browser, Browser]
                                                          ) -> None:
    """Defect 9: the state (with the chat), the files and the dice of a private match were
    readable by anyone with its id."""
    a, b = clients
    match_id, key = _private_match(a, b)
    stranger = Browser(a.client)
    paths = [f"/api/games/{match_id}", f"/api/games/{match_id}/export.mat",
             f"/api/games/{match_id}/fairness"]
    for path in paths:
        for suffix in ("", "?key=wrong", f"?key={key[:-1]}"):
            response = stranger.get(path + suffix)
            assert response.status_code == 404, (path, suffix, response.text)
            assert response.json()["detail"]["code"] == "not_found"
        assert stranger.get(f"{path}?key={key}").status_code == 200, path
        for player in (a, b):
            assert player.get(path).status_code == 200, path
    assert a.get(f"/api/games/{match_id}").json()["invite"].endswith(f"key={key}")
    assert "invite" not in stranger.get(f"/api/games/{match_id}?key={key}").json()


def test_a_private_match_cannot_be_watched_without_the_key(clients: tuple[Browser, Browser]
                                                           ) -> None:
    a, b = clients
    match_id, key = _private_match(a, b)
    with a.websocket_connect("/ws") as ws:
        _next(ws)
        ws.send_text(json.dumps({"type": "chat", "match": match_id, "text": "secret"}))
    stranger = Browser(a.client)
    stranger.get("/api/me")
    with stranger.websocket_connect("/ws") as ws:
        assert _next(ws)["type"] == "welcome"
        for message in ({"type": "subscribe", "match": match_id},
                        {"type": "subscribe", "match": match_id, "key": "x" * 22},
                        {"type": "subscribe", "match": match_id, "since": 0}):
            ws.send_text(json.dumps(message))
            reply = _next(ws)
            assert reply["type"] == "error" and reply["code"] == "not_found", reply
        ws.send_text(json.dumps({"type": "subscribe", "match": match_id, "key": key}))
        state = _next(ws)
        assert state["type"] == "state" and state["you"] is None
        assert [line["text"] for line in state["chat"]] == ["secret"]


def test_joining_a_private_match_needs_the_key(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    _sign_up(a, "carol")
    match_id = a.post("/api/games", json={"kind": "single", "private": True}).json()["id"]
    assert b.post(f"/api/games/{match_id}/join").status_code == 404
    assert b.post(f"/api/games/{match_id}/join?key=nope").status_code == 404
    assert a.get(f"/api/games/{match_id}").json()["info"]["status"] == "open"


def test_a_rematch_is_seen_and_joined_by_the_player_it_is_reserved_for(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    match_id, _ = _private_match(a, b)
    with a.websocket_connect("/ws") as ws:
        _next(ws)
        ws.send_text(json.dumps({"type": "subscribe", "match": match_id}))
        assert _next(ws)["type"] == "state"
        ws.send_text(json.dumps({"type": "abandon", "match": match_id}))
        assert _next(ws)["type"] == "update"
    rematch = a.post(f"/api/games/{match_id}/rematch")
    assert rematch.status_code == 201, rematch.text
    new = rematch.json()["id"]
    assert b.get(f"/api/games/{new}").status_code == 200
    assert Browser(a.client).get(f"/api/games/{new}").status_code == 404
    assert b.post(f"/api/games/{new}/join").status_code == 200


def test_public_matches_stay_public(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    match_id = a.post("/api/games", json={"kind": "single"}).json()["id"]
    stranger = Browser(a.client)
    assert stranger.get(f"/api/games/{match_id}").status_code == 200
    assert b.post(f"/api/games/{match_id}/join").status_code == 200
    assert stranger.get(f"/api/games/{match_id}/fairness").status_code == 200
