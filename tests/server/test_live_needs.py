"""What the browser client takes from the server alone (docs/client.md, *From the server*):
the match info in the update that ends a match, the cube rules in ``info``, and a player's
confirm and auto-roll options read at each turn, so that a change mid-match applies from
the next action. Each on both stores."""

from __future__ import annotations

import random
from typing import Any

from tests.server.conftest import Browser
from tests.server.helpers import (
    Player,
    act,
    auto_roll_on_while_to_roll,
    following,
    kinds,
    play_turn,
    set_options,
    step_to_the_end,
    until_turn,
)


def start(a: Browser, b: Browser, **config: Any) -> str:
    """A match created by ``a`` and joined by ``b`` (``a`` sits in seat 0)."""
    for browser in (a, b):
        browser.get("/api/me")
    created = a.post("/api/games", json={"kind": "match", "length": 3, **config})
    assert created.status_code == 201, created.text
    match_id = str(created.json()["id"])
    assert b.post(f"/api/games/{match_id}/join").status_code == 200
    return match_id


def test_confirm_switched_on_and_off_mid_match_applies_from_the_next_action(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    match_id = start(a, b)
    rng = random.Random(3)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        players = following(match_id, Player.over_testclient(wa, "a"),
                            Player.over_testclient(wb, "b"))
        # confirm off (as the match began): the last step ends the turn by itself
        until_turn(players, 0, "moving", rng)
        assert "turn_ended" in kinds(step_to_the_end(players, 0))
        # switched on mid-match: the next turn waits for the confirmation
        set_options(a, confirm_turn=True)
        until_turn(players, 0, "moving", rng)
        reply = step_to_the_end(players, 0)
        game = players[0].game
        assert game is not None
        assert "turn_ended" not in kinds(reply)
        assert game["phase"] == "moving" and game["turn"] == 0 and game["can_confirm"]
        assert "turn_ended" in kinds(act(players, players[0], {"type": "confirm"}))
        # and off again while a complete play waits: the turn ends at once
        until_turn(players, 0, "moving", rng)
        step_to_the_end(players, 0)
        assert players[0].game is not None and players[0].game["can_confirm"]
        set_options(a, confirm_turn=False)
        ended = players[0].wait(lambda m: m["type"] == "update")
        assert "turn_ended" in kinds(ended)
        assert ended["game"]["turn"] == 1


def test_auto_roll_switched_on_and_off_mid_match_applies_from_the_next_action(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    match_id = start(a, b)
    rng = random.Random(4)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        players = following(match_id, Player.over_testclient(wa, "a"),
                            Player.over_testclient(wb, "b"))
        # switched on during the opponent's turn: the server rolls when the turn passes
        until_turn(players, 1, "before_roll", rng)
        set_options(a, auto_roll=True)
        rolled = act(players, players[1], {"type": "roll"})
        game = players[1].game
        if game is not None and (game["turn"], game["phase"]) == (1, "moving"):
            passed, before = play_turn(players, rng), []  # seat 1's play
        else:  # seat 1's roll left no play: its turn passed by itself, in the same update
            passed, before = rolled, [1]
        assert [e["player"] for e in passed["events"] if e["type"] == "dice_rolled"] == [
            *before, 0]
        game = players[0].game
        no_play = any(e["type"] == "no_legal_move" and e["player"] == 0
                      for e in passed["events"])  # the roll left no play: the turn passed
        assert game is not None and (no_play or (game["turn"] == 0 and game["phase"] in (
            "moving", "before_roll")))
        # switched off: the next turn waits for the player's roll; switched on while the
        # player is to roll: the server rolls at once
        auto_roll_on_while_to_roll(players, rng, a)


def test_the_update_that_ends_a_match_carries_the_info(clients: tuple[Browser, Browser]
                                                       ) -> None:
    a, b = clients
    for browser, name in ((a, "info-a"), (b, "info-b")):
        response = browser.post("/api/register", json={"name": name, "password": "pw-needs-1"})
        assert response.status_code == 201
    match_id = start(a, b, length=1)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "a"), Player.over_testclient(wb, "b")
        before = pa.subscribe(match_id)
        pb.subscribe(match_id)
        assert before["info"]["server_seed"] is None
        ended = act({0: pa, 1: pb}, pb, {"type": "abandon"})
        assert "match_ended" in kinds(ended)
        seen = next(m for m in pa.log if m["type"] == "update" and "info" in m)
        for message in (ended, seen):
            info = message["info"]
            assert info["status"] == "finished" and info["result"]["winner"] == 0
            assert info["server_seed"] is not None
            ratings = [seat["rating"] for seat in info["seats"]]
            assert ratings[0] > 1500 > ratings[1]  # the ratings after the match
        # a resync over the end gets it too; a later update (none here) would not
        again = pb.subscribe(match_id, since=before["v"])
        assert again["type"] == "update" and again["info"]["status"] == "finished"
        assert "info" not in pb.subscribe(match_id, since=again["v"])


def test_the_cube_rules_are_in_the_info(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    a.get("/api/me")
    money = a.post("/api/games", json={"kind": "money", "jacoby": True, "beavers": True})
    assert (money.json()["jacoby"], money.json()["beavers"]) == (True, True)
    plain = a.post("/api/games", json={"kind": "money"}).json()
    assert (plain["jacoby"], plain["beavers"]) == (False, False)
    # both are money-play rules: a match is played without them whatever was asked
    match = a.post("/api/games", json={"kind": "match", "jacoby": True, "beavers": True})
    assert (match.json()["jacoby"], match.json()["beavers"]) == (False, False)
    state = a.get(f"/api/games/{money.json()['id']}").json()
    assert (state["info"]["jacoby"], state["info"]["beavers"]) == (True, True)


def test_a_refusal_by_the_rules_says_which_rule(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    match_id = start(a, b)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        players = {0: Player.over_testclient(wa, "a"), 1: Player.over_testclient(wb, "b")}
        for player in players.values():
            player.subscribe(match_id)
        game = players[0].game
        assert game is not None and game["phase"] == "moving"
        mover = players[game["turn"]]
        rolled = mover.act({"type": "roll", "match": match_id})
        assert (rolled["code"], rolled["reason"]) == ("illegal", "wrong_phase")
        blocked = mover.act({"type": "step", "match": match_id, "from": 1, "die": 6})
        assert (blocked["code"], blocked["reason"]) == ("illegal", "illegal_move")
        other = players[1 - game["turn"]].act({"type": "roll", "match": match_id})
        assert other["code"] == "not_your_turn" and "reason" not in other
