"""Playing the bot, and clocks that end a match on time."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon import views
from gammon.core.clock import Clock, GameAndMoveClock
from gammon.core.game import Game
from gammon.core.match import Match
from gammon.core.position import Position
from gammon.server.app import create_app
from tests.server.conftest import Browser, make_settings
from tests.server.helpers import Player, play_out_against_bot, random_play


@pytest.mark.parametrize(("level", "kind"), [(1, "single"), (5, "single"), (4, "match")])
def test_a_game_against_the_bot(clients: tuple[Browser, Browser], level: int,
                                kind: str) -> None:
    a, _ = clients
    game = a.post("/api/games", json={"kind": kind, "length": 3, "bot": level}).json()
    assert game["status"] == "playing" and game["seats"][1]["kind"] == "bot"
    assert game["seats"][1]["name"] == f"bot-{level}"
    rng = random.Random(level)
    with a.websocket_connect("/ws") as ws:
        me = Player.over_testclient(ws)
        me.subscribe(game["id"])
        play_out_against_bot(me, game["id"], rng)
        assert me.game is not None and me.game["phase"] == "match_over"
    assert a.get(f"/api/games/{game['id']}/fairness").json()["problems"] == []


def test_bot_levels_are_one_to_five(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    assert a.post("/api/games", json={"kind": "single", "bot": 6}).status_code == 422
    assert a.post("/api/games", json={"kind": "single", "bot": 0}).status_code == 422


# A short bear-off race: two rolls at most, 94% to win, no gammons: double/pass for money.
CRUSHING = Position.from_points({3: 2, 2: 2}, {6: 2, 5: 2})


def _set_position(client: TestClient, match_id: str, turn: int) -> None:
    """Put the bot match at CRUSHING for ``turn``, about to roll (the bot acts if it is its
    turn). Only the live room changes: a test device, the stored log no longer replays."""
    hub = client.app.state.hub  # type: ignore[attr-defined]

    async def put() -> None:
        room = hub.rooms[match_id]
        async with room.lock:
            rules = room.match.rules
            room.match = Match(rules, Game.from_position(CRUSHING, turn, rules=rules))
            room.clock = None
        hub.after_change(room, local=True)

    assert client.portal is not None
    client.portal.call(put)


def test_the_bot_takes_drops_and_doubles(client: TestClient) -> None:
    a = Browser(client)
    game = a.post("/api/games", json={"kind": "money", "bot": 4}).json()
    with a.websocket_connect("/ws") as ws:
        me = Player.over_testclient(ws)
        state = me.subscribe(game["id"])["game"]
        while not (state["turn"] == 0 and state["phase"] == "before_roll"):
            if state["turn"] == 0 and state["phase"] == "moving":
                me.act({"type": "play", "match": game["id"],
                        "play": random_play(state, random.Random(1))})
            else:
                me.wait(lambda m: m["type"] == "update")
            assert me.game is not None
            state = me.game
        # early in the game: a double is taken
        reply = me.act({"type": "double", "match": game["id"]})
        if not any(e["type"] == "cube_taken" for e in reply["events"]):
            reply = me.wait(lambda m: m["type"] == "update")
        assert [e["type"] for e in reply["events"]] == ["cube_taken"]
        # a crushing position: the bot drops our double ...
        _set_position(client, game["id"], 0)
        me.act({"type": "double", "match": game["id"]})
        dropped = me.wait(lambda m: m["type"] == "update" and any(
            e["type"] == "cube_dropped" for e in m["events"]))
        assert any(e["type"] == "game_ended" and e["winner"] == 0 for e in dropped["events"])
        # ... and doubles us in it
        _set_position(client, game["id"], 1)
        offered = me.wait(lambda m: m["type"] == "update" and any(
            e["type"] == "cube_offered" for e in m["events"]))
        assert offered["game"]["phase"] == "cube_offered" and offered["game"]["turn"] == 1


def test_running_out_of_time_loses_the_match(database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, clock_scale=0.01, lag_cap=0.05)
    with TestClient(create_app(settings)) as client:
        a, b = Browser(client), Browser(client)
        a.get("/api/me")
        b.get("/api/me")
        game = a.post("/api/games", json={"kind": "match", "length": 3, "clock": "polish"}
                      ).json()
        with a.websocket_connect("/ws") as ws:
            me = Player.over_testclient(ws)
            me.subscribe(game["id"])  # before the join: the 0.3 s may run out before a reply
            b.post(f"/api/games/{game['id']}/join")
            started: dict[str, Any] = me.wait(lambda m: m["type"] == "update" and (
                m.get("clock") or {}).get("running") is not None)
            assert started["clock"]["kind"] == "polish"
            late = started["clock"]["running"]
            # nobody moves: the 0.3 s move clock runs out, and that side loses the match
            over = me.wait(lambda m: m["type"] == "update" and any(
                e["type"] == "match_ended" for e in m["events"]))
            ended = over["events"][-1]
            assert ended["reason"] == "timeout" and ended["winner"] == 1 - late
            assert over["clock"]["sides"][late]["expired"] is True
            # the move clock ran out (0.3 s), not the game clock (3 s), which ran with it:
            # the lost side's game clock shows what is left of it, also after a reload
            assert over["clock"]["sides"][late]["bank_left"] == pytest.approx(2.7, abs=0.001)
        reloaded = a.get(f"/api/games/{game['id']}").json()["clock"]
        assert reloaded["sides"][late] == over["clock"]["sides"][late]
        assert reloaded["running"] is None


def test_the_clock_view_after_a_polish_move_time_out_shows_the_game_time_left() -> None:
    # 100 s of the game clock used in four moves, then a move that ran out of its 30 s move
    # clock (the time-out processed 5 s late): the game clock shows the 170 s left, not 0:00
    clock = Clock.start(GameAndMoveClock())
    for n in range(4):  # four moves of 25 s each, and the other side's of 2.5 s
        clock = clock.start_action(0, 27.5 * n).end_action(0, 27.5 * n + 25.0)
        clock = clock.start_action(1, 27.5 * n + 25.0).end_action(1, 27.5 * (n + 1))
    ended = clock.start_action(0, 110.0).end_action(0, 145.0)
    view = views.clock_view(ended, "polish", 200.0)
    assert view["running"] is None and view["flag_at"] is None
    assert view["sides"][0] == {"action_left": 0.0, "bank_left": 170.0, "low": False,
                                "expired": True}
    assert view["sides"][1] == {"action_left": 30.0, "bank_left": 290.0, "low": False,
                                "expired": False}
    # lost on the game clock itself: nothing left
    short = Clock.start(GameAndMoveClock(game_time=20.0)).start_action(0, 0.0)
    assert views.clock_view(short.end_action(0, 25.0), "polish", 30.0)["sides"][0][
        "bank_left"] == 0.0
