"""Every message and answer the server sends is of its type, exactly (gammon.server.protocol
and gammon.views, validated strictly: no field missing, none unknown, none of a wrong type),
and the HTTP API's OpenAPI document shows those types.

The messages are checked over a match played through the real app: each of the ten server
messages and every HTTP answer of the API (the views alone, over every state a game passes
through, in tests/test_views.py)."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
from fastapi.testclient import TestClient

from gammon import views
from gammon.server import protocol
from gammon.server.app import create_app
from tests.server.conftest import Browser
from tests.server.helpers import Player, play_turn

# -- the messages and answers of a match played through the app ------------------------------


class Checked:
    """A browser whose every HTTP answer is validated against its route's type."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.answers = 0

    def call(self, method: str, url: str, kind: str, status: int = 200,
             **kwargs: Any) -> Any:
        response: httpx.Response = self.browser.request(method, url, **kwargs)
        assert response.status_code == status, response.text
        body = response.json()
        protocol.response_adapter(kind).validate_python(body)
        self.answers += 1
        return body


def test_every_message_and_answer_of_a_match_is_of_its_type(
        clients: tuple[Browser, Browser]) -> None:
    a, b = Checked(clients[0]), Checked(clients[1])
    a.call("GET", "/api/me", "me")  # a guest first
    a.call("POST", "/api/guest", "user")
    a.call("POST", "/api/register", "user", 201, json={"name": "wire-a", "password": "pw-wire-a"})
    b.call("POST", "/api/register", "user", 201, json={"name": "wire-b", "password": "pw-wire-b"})
    a.call("POST", "/api/login", "user", json={"name": "wire-a", "password": "pw-wire-a"})
    created = a.call("POST", "/api/games", "created", 201, json={
        "kind": "match", "length": 1, "clock": "italian", "client_seed": "w"})
    match_id = created["id"]
    assert [g["id"] for g in a.call("GET", "/api/games", "open_games")] == [match_id]
    assert "invite" in a.call("GET", f"/api/games/{match_id}", "state")
    assert "invite" not in b.call("GET", f"/api/games/{match_id}", "state")

    with a.browser.websocket_connect("/ws") as wa, b.browser.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "a"), Player.over_testclient(wb, "b")
        pa.wait(lambda m: m["type"] == "ping")  # the first ping goes at once
        pa.send({"type": "ping", "id": "p1"})
        assert pa.wait(lambda m: m["type"] == "pong")["id"] == "p1"
        pa.send({"type": "subscribe_lobby"})
        assert [g["id"] for g in pa.wait(lambda m: m["type"] == "lobby")["games"]] == [match_id]
        pa.send("not json")
        pa.wait(lambda m: m["type"] == "error" and m["code"] == "malformed")
        pa.subscribe(match_id)
        pa.send({"type": "roll", "match": match_id, "id": 4})
        assert pa.wait(lambda m: m["type"] == "error")["code"] == "not_started"
        b.call("POST", f"/api/games/{match_id}/join", "info", json={"client_seed": "x"})
        pb.subscribe(match_id)
        pa.wait(lambda m: m["type"] == "update")
        pa.send({"type": "mute", "match": match_id, "muted": False})
        pa.wait(lambda m: m["type"] == "muted")
        pa.send({"type": "chat", "match": match_id, "text": "good luck"})
        pb.wait(lambda m: m["type"] == "chat")
        rng = random.Random(3)
        players = {pa.you: pa, pb.you: pb}
        for _ in range(4):
            play_turn(players, rng)  # type: ignore[arg-type]
        pb.send({"type": "abandon", "match": match_id})
        pa.wait(lambda m: m["type"] == "update" and any(
            e["type"] == "match_ended" for e in m["events"]))
        fairness = a.call("GET", f"/api/games/{match_id}/fairness", "fairness")
        assert fairness["problems"] == []
        new = a.call("POST", f"/api/games/{match_id}/rematch", "info", 201)
        pb.wait(lambda m: m["type"] == "rematch")
        pa.subscribe(new["id"])
        a.call("DELETE", f"/api/games/{new['id']}", "ok")
        pa.wait(lambda m: m["type"] == "cancelled")
        seek = {"type": "seek", "kind": "match", "length": 3, "rated": True}
        pa.send(seek)  # Play now: both in one pool, paired
        pa.wait(lambda m: m["type"] == "seeking" and m["seek"] is not None)
        pb.send(seek)
        paired = pa.wait(lambda m: m["type"] == "paired")["match"]
        assert pb.wait(lambda m: m["type"] == "paired")["match"] == paired
        pa.subscribe(paired)  # (over: no rated match left live for the engine's refusal)
        pb.send({"type": "abandon", "match": paired})
        pa.wait(lambda m: m["type"] == "update" and any(
            e["type"] == "match_ended" for e in m["events"]))
        for player in (pa, pb):
            problems = {json.dumps(m): protocol.server_message_errors(m) for m in player.log}
            assert {m: p for m, p in problems.items() if p} == {}
        kinds = {m["type"] for m in pa.log + pb.log}
        # every message but ``analysis`` (test servers analyse no finished match)
        assert kinds == protocol.SERVER_TYPES - {"analysis"}

    a.call("GET", "/api/users/wire-a/history", "history")
    a.call("GET", "/api/users/wire-a/ratings", "ratings")
    a.call("GET", "/api/leaderboard", "leaderboard")
    a.call("GET", "/api/dice-stats", "dice_stats")
    a.call("GET", "/healthz", "ok")
    a.call("POST", "/api/hint", "hint", json={"position_id": "4HPwATDgc/ABMA", "dice": "31",
                                              "plies": 0})
    evaluated = a.call("POST", "/api/eval", "eval", json={
        "position_id": "4HPwATDgc/ABMA", "match_id": "cAkAAAAAAAAA", "plies": 0})
    assert evaluated["cube"]["action"] == "no-double"
    b.call("POST", "/api/logout", "ok")
    assert a.call("POST", "/api/logout-all", "logout_all")["revoked"] >= 1
    assert a.answers == 18


def test_the_command_line_and_the_api_rank_plays_in_one_shape(
        clients: tuple[Browser, Browser]) -> None:
    from gammon.cli.engine_commands import ranked_json
    from gammon.core.dice import Roll
    from gammon.core.position import Position
    from gammon.server import bots

    answer = clients[0].post("/api/hint", json={"position_id": "4HPwATDgc/ABMA", "dice": "31",
                                                 "plies": 0}).json()
    cli = [ranked_json(r) for r in bots.engine().rank_plays(Position.initial(), Roll(3, 1),
                                                             plies=0)]
    assert [list(p) for p in answer["plays"]] == [list(p) for p in cli]
    for api, line in zip(answer["plays"], cli, strict=True):
        assert (api["play"], api["position_id"], api["ply"]) == \
            (line["play"], line["position_id"], line["ply"])
        assert api["equity"] == round(line["equity"], 4)


def test_the_openapi_document_shows_every_json_answer_s_type() -> None:
    document = create_app().openapi()
    schemas = document["components"]["schemas"]
    missing = []
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            for status, response in operation["responses"].items():
                if not status.startswith("2"):
                    continue
                content = response.get("content", {})
                if "application/json" not in content:
                    continue  # text answers: exports, metrics
                schema = content["application/json"]["schema"]
                ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
                if ref is None:
                    missing.append(f"{method.upper()} {path}")
                else:
                    assert ref.rsplit("/", 1)[1] in schemas
    assert missing == []
    game = schemas["GameState"]
    assert {"type", "match", "v", "you", "info", "game", "clock", "chat", "invite"} == \
        set(game["properties"])
    assert set(schemas["GameView"]["required"]) == {
        k for k in views.GameView.__annotations__ if k not in
        ("legal", "reach", "can_confirm", "can_undo")}


def test_the_openapi_document_of_a_running_app_is_served(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    hint = document["paths"]["/api/hint"]["post"]["responses"]["200"]
    assert hint["content"]["application/json"]["schema"]["$ref"].endswith("/HintView")
