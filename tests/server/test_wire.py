"""Every message and answer the server sends is of its type, exactly (gammon.server.protocol
and gammon.views, validated strictly: no field missing, none unknown, none of a wrong type),
and the HTTP API's OpenAPI document shows those types.

The views are checked over every state a game passes through (random walks of the core's
match state machine, every event type met) and the messages over a match played through the
real app: each of the ten server messages and every HTTP answer of the API."""

from __future__ import annotations

import json
import random
from typing import Any, get_args

import httpx
import pytest
from fastapi.testclient import TestClient

from gammon import views
from gammon.core import actions as A
from gammon.core.clock import Clock
from gammon.core.events import Event
from gammon.core.game import Rules
from gammon.core.match import Match, Phase
from gammon.core.moves import legal_plays
from gammon.server import protocol
from gammon.server.app import create_app
from gammon.server.fairness import FairDice, new_seed
from gammon.server.rooms import clock_settings
from tests.server.conftest import Browser
from tests.server.helpers import Player, play_turn

UPDATE = protocol.SERVER_MESSAGES


def update_errors(events: list[Any], game: Any = None, clock: Any = None) -> list[str]:
    return protocol.server_message_errors({"type": "update", "match": "m", "v": 0,
                                           "events": events, "game": game, "clock": clock})


def walk(rules: Rules, seed: int, steps: int = 1500) -> tuple[set[str], list[str]]:
    """A random walk of a match from its start (every legal action may be chosen): the
    event types met, and every problem of a game view or an event view on the way."""
    rng = random.Random(seed)
    dice = FairDice(new_seed(), ["", ""])
    match = Match.new(rules)
    rolls = 0
    seen: set[str] = set()
    problems: list[str] = []
    for _ in range(steps):
        if match.is_over:
            break
        game = match.game
        action: A.Action
        if match.phase in (Phase.OPENING, Phase.GAME_OVER):
            action, rolls = match.opening_action(dice.source(rolls)), rolls + 1
        else:
            options = list(game.legal_actions())
            if match.phase is Phase.BEFORE_ROLL and (not options or rng.random() < 0.8):
                action, rolls = game.roll_action(dice.source(rolls)), rolls + 1
            elif match.phase is Phase.MOVING and not game.steps and rng.random() < 0.5:
                plays = legal_plays(game.position, game.roll)  # type: ignore[arg-type]
                action = A.PlayMove(game.turn, rng.choice(plays))
            else:
                # resignations end games fast: seldom offered, mostly refused
                offers = [o for o in options if not isinstance(o, A.OfferResign)]
                if offers and rng.random() < 0.97:
                    options = offers
                action = rng.choice(options)
        match, events = match.apply(action)
        views_ = [views.event_view(e, v=1) for e in events]
        seen |= {e["type"] for e in views_}
        problems += update_errors(list(views_), views.game_view(match))
    if not match.is_over:
        match, events = match.apply(A.Abandon(match.game.turn))
        seen |= {views.event_view(e, v=1)["type"] for e in events}
        problems += update_errors([views.event_view(e, v=1) for e in events],
                                  views.game_view(match))
    return seen, problems


def test_every_game_and_event_view_of_random_matches_is_of_its_type() -> None:
    seen: set[str] = set()
    for seed in range(4):
        for rules in (Rules(length=3), Rules(length=0, beavers=True, jacoby=True),
                      Rules(length=1, cube=False, winner_rolls_anew=True)):
            found, problems = walk(rules, seed)
            assert problems == []
            seen |= found
    core_types = {views.event_type(cls) for cls in get_args(Event)}
    assert seen == core_types  # every event met at least once


def test_a_view_with_a_field_too_many_or_missing_is_refused() -> None:
    match = Match.new(Rules(length=3))
    match, _ = match.apply(match.opening_action(FairDice(new_seed(), ["", ""]).source(0)))
    game = views.game_view(match)
    assert game["phase"] == "moving" and update_errors([], game) == []
    assert update_errors([], {**game, "extra": 1}) != []
    assert update_errors([], {k: v for k, v in game.items() if k != "board"}) != []
    assert update_errors([], {**game, "turn": "0"}) != []
    assert update_errors([], {**game, "can_undo": 1}) != []


@pytest.mark.parametrize("kind", [k for k in views.CLOCK_KINDS if k != "none"])
def test_clock_views_are_of_their_type(kind: Any) -> None:
    clock = Clock.start(clock_settings(kind), match_length=5).start_action(0, 1000.0)
    for now in (1000.0, 1010.0, 1100.0, 5000.0):
        assert update_errors([], None, views.clock_view(clock, kind, now)) == []
    assert update_errors([views.clock_paused_view(0, 12.3456, v=3)]) == []


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
