"""A whole match between two clients, in process: opening roll to match end, with the cube,
resignations, the Crawford game, step play with undo, chat, spectators, reconnects, export,
provably fair dice and ratings."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from gammon.server.fairness import verify
from tests.server.conftest import Browser
from tests.server.helpers import Player, act, play_turn, to_move


def register(client: Browser, name: str) -> dict[str, Any]:
    response = client.post("/api/register", json={"name": name, "password": "secret-pass"})
    assert response.status_code == 201, response.text
    return response.json()["user"]  # type: ignore[no-any-return]


def until_phase(players: dict[int, Player], phases: tuple[str, ...], rng: random.Random,
                limit: int = 400) -> None:
    for _ in range(limit):
        game = players[0].game
        assert game is not None
        if game["phase"] in phases:
            return
        play_turn(players, rng)
    raise AssertionError(f"never reached {phases}")


def test_a_whole_match_with_cube_resignations_and_crawford(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    register(a, "alice")
    register(b, "bobby")
    created = a.post("/api/games", json={"kind": "match", "length": 5, "client_seed": "a-seed"})
    assert created.status_code == 201
    match_id = created.json()["id"]
    assert a.get("/api/games").json()[0]["id"] == match_id  # listed in the lobby
    rng = random.Random(5)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "alice"), Player.over_testclient(wb, "bobby")
        pa.subscribe(match_id)
        joined = b.post(f"/api/games/{match_id}/join", json={"client_seed": "b-seed"})
        assert joined.status_code == 200, joined.text
        assert joined.json()["rated"] is True
        pb.subscribe(match_id)
        players = {0: pa, 1: pb}
        pa.sync(pb.v)
        assert pb.you == 1 and pa.you == 0
        # the opening roll was made by the server, and the winner is moving
        kinds = [e["type"] for e in pa.events]
        assert kinds[:3] == ["game_started", "opening_rolled", "dice_rolled"]
        assert pb.game is not None and pb.game["phase"] == "moving"

        # step play with undo until confirmed (the play ends with its last step)
        mover = to_move(players)
        game = mover.game
        assert game is not None
        source, dice = next(iter(game["legal"].items()))
        die = next(iter(dice))
        version = mover.v
        reply = act(players, mover, {"type": "step", "from": int(source), "die": int(die)})
        assert reply["events"][0]["type"] == "checker_moved"
        reply = act(players, mover, {"type": "undo"})
        assert reply["events"][0]["type"] == "step_undone"
        assert mover.v == version + 2
        while mover.game is not None and mover.game["phase"] == "moving" \
                and mover.game["turn"] == mover.you:
            game = mover.game
            source, dice = next(iter(game["legal"].items()))
            act(players, mover, {"type": "step", "from": int(source), "die": int(next(iter(dice)))})
        assert pa.game is not None and pa.game["phase"] == "before_roll"

        # game 1: double, take; a refused single resignation, then an accepted gammon one
        q = to_move(players)
        r = players[1 - q.you]  # type: ignore[operator]
        assert act(players, q, {"type": "double"})["events"][0]["type"] == "cube_offered"
        assert act(players, r, {"type": "take"})["events"][0]["value"] == 2
        wrong = act(players, q, {"type": "take"})
        assert wrong["type"] == "error"
        act(players, q, {"type": "resign", "level": 1})
        act(players, r, {"type": "reject_resign"})
        lower = act(players, q, {"type": "resign", "level": 1})
        assert lower["type"] == "error" and lower["code"] == "illegal"
        act(players, q, {"type": "resign", "level": 2})
        reply = act(players, r, {"type": "accept_resign"})
        ended = next(e for e in reply["events"] if e["type"] == "game_ended")
        assert ended["points"] == 4 and ended["winner"] == r.you
        # the next game starts by itself: the Crawford game, without the cube
        started = next(e for e in reply["events"] if e["type"] == "game_started")
        assert started == {"type": "game_started", "number": 2, "crawford": True,
                           "v": started["v"]}
        assert pa.game is not None and pa.game["cube"]["enabled"] is False
        until_phase(players, ("before_roll",), rng)
        doubler = to_move(players)
        refused = act(players, doubler, {"type": "double"})
        assert refused["type"] == "error" and refused["code"] == "illegal"
        # q wins the Crawford game: r resigns a single game on r's turn
        until_r = 0
        while to_move(players) is not r or r.game["phase"] != "before_roll":  # type: ignore[index]
            play_turn(players, rng)
            until_r += 1
            assert until_r < 50
        act(players, r, {"type": "resign", "level": 1})
        reply = act(players, q, {"type": "accept_resign"})
        started = next(e for e in reply["events"] if e["type"] == "game_started")
        assert started["number"] == 3 and started["crawford"] is False
        assert pa.game is not None and pa.game["cube"]["enabled"] is True  # post-Crawford
        assert pa.game["score"][q.you] == 1 and pa.game["score"][r.you] == 4  # type: ignore[index]

        # chat, and muting it
        pa.send({"type": "chat", "match": match_id, "text": "good luck"})
        assert pb.wait(lambda m: m["type"] == "chat")["text"] == "good luck"
        pa.wait(lambda m: m["type"] == "chat")
        pb.send({"type": "mute", "match": match_id, "muted": True})
        pb.wait(lambda m: m["type"] == "muted")

        # game 3 ends the match: r on roll doubles and q drops, or q resigns a backgammon
        until_phase(players, ("before_roll",), rng)
        actor = to_move(players)
        if actor is r:
            act(players, r, {"type": "double"})
            reply = act(players, q, {"type": "drop"})
        else:
            reply = act(players, q, {"type": "resign", "level": 3})
        over = next(e for e in reply["events"] if e["type"] == "match_ended")
        assert over["winner"] == r.you and over["reason"] == "points"
        assert pa.game is not None and pa.game["phase"] == "match_over"
        # nothing after the end
        assert act(players, q, {"type": "roll"})["type"] == "error"
        assert [e["v"] for e in pa.events] == list(range(1, len(pa.events) + 1))
        assert pb.events == pa.events[len(pa.events) - len(pb.events):]

    # the seed is revealed and every roll checks out; ratings moved once
    record = a.get(f"/api/games/{match_id}/fairness").json()
    assert record["server_seed"] and record["problems"] == []
    assert record["client_seeds"] == ["a-seed", "b-seed"]
    assert verify(record) == []
    tampered = {**record, "actions": [dict(x) for x in record["actions"]]}
    tampered["actions"][0]["throws"] = [[7, 1]]
    assert verify(tampered)
    board = a.get("/api/leaderboard").json()
    winner_name = "alice" if r is pa else "bobby"
    assert board[0]["name"] == winner_name and board[0]["rating"] > 1500
    assert board[1]["rating"] < 1500 and board[0]["experience"] == 5
    history = a.get("/api/users/alice/ratings").json()["history"]
    assert len(history) == 1 and history[0]["match"] == match_id
    games = a.get("/api/users/alice/history").json()
    assert games[0]["id"] == match_id and games[0]["status"] == "finished"
    mat = a.get(f"/api/games/{match_id}/export.mat")
    assert mat.status_code == 200
    assert "\n 5 point match\n" in mat.text and " Game 3" in mat.text
    assert '; [Player 1 "alice"]' in mat.text and f"match {match_id}" in mat.text
    assert mat.headers["content-disposition"] == f'attachment; filename="{match_id}.mat"'
    from gammon.formats import mat as matfmt  # the same file reads back
    assert matfmt.loads(mat.text).players == ("alice", "bobby")
    assert "Doubles => 2" in mat.text and "Takes" in mat.text
    stats = a.get("/api/dice-stats").json()
    assert stats["dice"] > 0 and sum(stats["faces"]) == stats["dice"]


def test_reconnect_mid_turn_gets_what_was_missed(clients: tuple[Browser, Browser]
                                                 ) -> None:
    a, b = clients
    a.get("/api/me")
    b.get("/api/me")  # two guests
    match_id = a.post("/api/games", json={"kind": "money"}).json()["id"]
    assert b.post(f"/api/games/{match_id}/join").status_code == 200
    rng = random.Random(2)
    with b.websocket_connect("/ws") as wb:
        pb = Player.over_testclient(wb, "b")
        pb.subscribe(match_id)
        with a.websocket_connect("/ws") as wa:
            pa = Player.over_testclient(wa, "a")
            pa.subscribe(match_id)
            players = {0: pa, 1: pb}
            for _ in range(3):
                play_turn(players, rng)
            while not (pb.game["phase"] == "before_roll"  # type: ignore[index]
                       and pb.game["turn"] == 1):  # type: ignore[index]
                play_turn(players, rng)
            seen = pa.v
        # a is gone; b rolls and, mid-turn, plays a first step
        pb.act({"type": "roll", "match": match_id})
        if pb.game["phase"] == "moving" and pb.game["turn"] == 1:  # type: ignore[index]
            source, dice = next(iter(pb.game["legal"].items()))  # type: ignore[index]
            pb.act({"type": "step", "match": match_id, "from": int(source),
                    "die": int(next(iter(dice)))})
        assert pb.v > seen
        with a.websocket_connect("/ws") as wa:
            pa2 = Player.over_testclient(wa, "a")
            reply = pa2.subscribe(match_id, since=seen)
            assert reply["type"] == "update"
            assert [e["v"] for e in reply["events"]] == list(range(seen + 1, pb.v + 1))
            # the same game, less what only the player on turn gets (PROTOCOL.md)
            assert reply["game"] == {k: v for k, v in pb.game.items()  # type: ignore[union-attr]
                                     if k not in ("legal", "reach")}
            # and the seat is still a's
            full = pa2.subscribe(match_id)
            assert full["you"] == 0


def test_spectators_watch_but_cannot_act(clients: tuple[Browser, Browser],
                                         client: TestClient) -> None:
    a, b = clients
    a.get("/api/me")
    b.get("/api/me")
    match_id = a.post("/api/games", json={"kind": "single"}).json()["id"]
    b.post(f"/api/games/{match_id}/join")
    c = Browser(client)
    c.get("/api/me")
    with c.websocket_connect("/ws") as wc:
        watcher = Player.over_testclient(wc, "c")
        state = watcher.subscribe(match_id)
        assert state["you"] is None and state["game"]["phase"] == "moving"
        for message in ({"type": "roll"}, {"type": "abandon"}, {"type": "take"},
                        {"type": "chat", "text": "hi"}):
            reply = watcher.act({**message, "match": match_id}) if message["type"] != \
                "chat" else (watcher.send({**message, "match": match_id})
                             or watcher.wait(lambda m: m["type"] == "error"))
            assert reply["type"] == "error" and reply["code"] == "not_a_player"


def test_abandon_loses_the_match_and_rematch(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    a.get("/api/me")
    b.get("/api/me")
    match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
    b.post(f"/api/games/{match_id}/join")
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa), Player.over_testclient(wb)
        pa.subscribe(match_id)
        pb.subscribe(match_id)
        players = {0: pa, 1: pb}
        reply = act(players, pb, {"type": "abandon"})
        over = reply["events"][-1]
        assert over["type"] == "match_ended" and over["winner"] == 0
        assert over["reason"] == "abandon"
        rematch = a.post(f"/api/games/{match_id}/rematch")
        assert rematch.status_code == 201
        offer = pb.wait(lambda m: m["type"] == "rematch")
        assert offer["new"] == rematch.json()["id"]
    # reserved for b: not listed, and only b may take it
    assert all(g["id"] != offer["new"] for g in a.get("/api/games").json())
    assert b.post(f"/api/games/{offer['new']}/join").status_code == 200
