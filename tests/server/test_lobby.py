"""The lobby: open games are capped per player and cancellable; the open public games are
a feed on the socket. A private match is never listed and is seen only by its players, the
player it is reserved for, and the holders of its invite link (which carries a secret key):
not in public history, and its state, chat, files and dice are "no such match" to anyone
else. Runs on every store."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.server.conftest import Browser
from tests.server.helpers import Player


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
    """A private match is not in ``/api/users/{name}/history`` for anyone else."""
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
    """The state (with the chat), the files and the dice of a private match are not
    readable by anyone else who has its id."""
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


def test_open_games_are_capped_and_cancellable(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    ids = [a.post("/api/games", json={"kind": "single"}).json()["id"] for _ in range(3)]
    assert a.post("/api/games", json={"kind": "single"}).status_code == 429
    assert a.delete(f"/api/games/{ids[0]}").status_code == 200
    assert a.post("/api/games", json={"kind": "single"}).status_code == 201
    assert a.post(f"/api/games/{ids[1]}/join").status_code == 409  # own game
    private = a.post("/api/games", json={"kind": "money", "private": True})
    assert private.status_code == 429


def test_private_games_are_not_listed(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    game = a.post("/api/games", json={"kind": "match", "length": 25, "private": True}).json()
    assert game["invite"].startswith(f"/#/match/{game['id']}?key=")
    assert all(g["id"] != game["id"] for g in b.get("/api/games").json())
    key = game["invite"].split("key=")[1]
    assert b.post(f"/api/games/{game['id']}/join?key={key}").status_code == 200
    assert a.post("/api/games", json={"kind": "match", "length": 26}).status_code == 422


def test_the_lobby_is_a_feed_on_the_socket(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    a.get("/api/me")
    b.get("/api/me")

    def listed(*ids: str) -> None:
        """The feed comes to list ``ids`` (a burst of changes may be told once)."""
        watcher.wait(lambda m: m["type"] == "lobby"
                     and [g["id"] for g in m["games"]] == list(ids))

    with b.websocket_connect("/ws") as wb:
        watcher = Player.over_testclient(wb, "b")
        watcher.send({"type": "subscribe_lobby"})
        listed()
        first = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
        listed(first)
        second = a.post("/api/games", json={"kind": "single"}).json()["id"]
        listed(first, second)
        # private games and games against the computer are never listed
        a.post("/api/games", json={"kind": "single", "private": True})
        a.post("/api/games", json={"kind": "single", "bot": 1})
        assert b.post(f"/api/games/{first}/join").status_code == 200
        listed(second)
        assert a.delete(f"/api/games/{second}").status_code == 200
        listed()
        # unsubscribed: no more lobby messages (the pong comes first and alone)
        watcher.send({"type": "unsubscribe_lobby"})
        watcher.send({"type": "ping", "id": "after"})
        watcher.wait(lambda m: m["type"] == "pong")
        a.post("/api/games", json={"kind": "single"})
        watcher.send({"type": "ping", "id": "last"})
        seen = watcher.wait(lambda m: m["type"] in ("lobby", "pong"))
        assert seen["type"] == "pong" and seen["id"] == "last"
