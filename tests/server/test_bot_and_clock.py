"""Playing the bot, and clocks that end a match on time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.settings import Settings
from tests.server.conftest import Browser
from tests.server.helpers import Player, random_play


@pytest.mark.parametrize("level", [1, 2])
def test_a_single_game_against_the_bot(clients: tuple[Browser, Browser], level: int) -> None:
    a, _ = clients
    game = a.post("/api/games", json={"kind": "single", "bot": level}).json()
    assert game["status"] == "playing" and game["seats"][1]["kind"] == "bot"
    rng = random.Random(level)
    with a.websocket_connect("/ws") as ws:
        me = Player.over_testclient(ws)
        me.subscribe(game["id"])
        for _ in range(1000):
            state = me.game
            assert state is not None
            if state["phase"] == "match_over":
                break
            if state["turn"] == 0 and state["phase"] == "before_roll":
                me.act({"type": "roll", "match": game["id"]})
            elif state["turn"] == 0 and state["phase"] == "moving":
                me.act({"type": "play", "match": game["id"], "play": random_play(state, rng)})
            else:
                me.wait(lambda m: m["type"] == "update")
        assert me.game is not None and me.game["phase"] == "match_over"
    assert a.get(f"/api/games/{game['id']}/fairness").json()["problems"] == []


def test_running_out_of_time_loses_the_match(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/c.db", rate_limits=False,
                        ping_interval=3600, clock_scale=0.01, lag_cap=0.05,
                        _env_file=None)  # type: ignore[call-arg]
    with TestClient(create_app(settings)) as client:
        a, b = Browser(client), Browser(client)
        a.get("/api/me")
        b.get("/api/me")
        game = a.post("/api/games", json={"kind": "match", "length": 3, "clock": "polish"}
                      ).json()
        b.post(f"/api/games/{game['id']}/join")
        with a.websocket_connect("/ws") as ws:
            me = Player.over_testclient(ws)
            state: dict[str, Any] = me.subscribe(game["id"])
            assert state["clock"]["kind"] == "polish" and state["clock"]["running"] is not None
            late = state["clock"]["running"]
            # nobody moves: the 0.3 s move clock runs out, and that side loses the match
            over = me.wait(lambda m: m["type"] == "update" and any(
                e["type"] == "match_ended" for e in m["events"]))
            ended = over["events"][-1]
            assert ended["reason"] == "timeout" and ended["winner"] == 1 - late
            assert over["clock"]["sides"][late]["expired"] is True
