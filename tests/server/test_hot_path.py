"""The per-action path of the server, kept cheap (docs/server.md § Load): ``legal`` and
``reach`` go only to the player on turn, a played match leaves no reference cycles for the
garbage collector, and the fast JSON encoder writes what the standard one writes."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon.core.match import Phase
from gammon.server import app, jsontext
from gammon.views import moves_view
from tests.server.conftest import Browser, run_async
from tests.server.helpers import Player, play_turn, to_move
from tests.server.test_rooms import a_move, seated_room


def test_legal_and_reach_go_only_to_the_player_on_turn(client: TestClient) -> None:
    a, b, watcher = Browser(client), Browser(client), Browser(client)
    for browser in (a, b, watcher):
        browser.get("/api/me")
    match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
    assert b.post(f"/api/games/{match_id}/join").status_code == 200
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb, \
            watcher.websocket_connect("/ws") as ww:
        pa, pb = Player.over_testclient(wa, "a"), Player.over_testclient(wb, "b")
        spectator = Player.over_testclient(ww, "watcher")
        for player in (pa, pb, spectator):
            player.subscribe(match_id)
        players = {0: pa, 1: pb}
        rng = random.Random(5)
        moving = 0
        for _ in range(12):  # rolls and plays: each update seen by all three
            mover = to_move(players)
            other = pb if mover is pa else pa
            spectator.sync(mover.v)
            for player in (mover, other, spectator):
                assert player.game is not None
            if mover.game["phase"] == "moving":  # type: ignore[index]
                moving += 1
                assert "legal" in mover.game and "reach" in mover.game  # type: ignore[operator]
                for viewer in (other, spectator):
                    assert "legal" not in viewer.game and "reach" not in viewer.game  # type: ignore[operator]
                    # otherwise the same view, can_confirm and can_undo included
                    assert viewer.game == {k: v for k, v in mover.game.items()  # type: ignore[union-attr]
                                           if k not in ("legal", "reach")}
            else:
                assert all("legal" not in p.game for p in (mover, other, spectator))  # type: ignore[operator]
            play_turn(players, rng)
        assert moving >= 4
        # a new subscriber on turn (a reload) gets them in its state too
        mover = to_move(players)
        if mover.game["phase"] == "moving":  # type: ignore[index]
            state = mover.subscribe(match_id)
            assert "legal" in state["game"] and "reach" in state["game"]


def _played_messages() -> Iterator[dict[str, Any]]:
    """A whole match played through a room: every update, for the player on turn and for
    everyone else, as the hub builds them."""
    room = seated_room(clock="polish")
    at = 1000.0
    events = [e for step in room.plan(None, at, at) for e in room.commit(step)]
    while True:
        for user in (1, 2):
            yield room.update_message(events, at, on_turn=room.on_turn(user))
        assert room.match is not None
        if room.match.is_over:
            return
        at += 1.0
        events = [e for step in room.plan(a_move(room), at, at) for e in room.commit(step)]


def test_a_played_match_leaves_no_reference_cycles() -> None:
    """Cyclic garbage waits for a collection: the server collects on a timer, and a reach
    search that was a reference cycle left ~200 objects per move to it, which made the
    collections of a loaded server take 0.2-1 s (docs/server.md § Load)."""
    gc.collect()
    gc.disable()
    try:
        moving = sum(1 for m in _played_messages()
                     if m["game"]["phase"] == Phase.MOVING.value and "reach" in m["game"])
        assert moving > 10
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_the_timer_collects_the_young_and_middle_generations_together(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every timed collection takes the middle generation with the young one, so each room's
    state is walked once, while young, and never all at once by a middle-generation
    collection every 10 s (60-135 ms at 1,000 rooms); everything every 5 minutes
    (docs/server.md § Where the time goes)."""
    collected: list[int] = []
    slept: list[float] = []
    full = round(300 / app.COLLECT_EVERY)

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) > full + 1:
            raise asyncio.CancelledError

    monkeypatch.setattr(app.asyncio, "sleep", sleep)
    monkeypatch.setattr(app.gc, "collect", collected.append)
    with pytest.raises(asyncio.CancelledError):  # in a thread of its own: a test before
        run_async(app._collect_on_a_timer)  # may leave an event loop running in this one
    assert app.COLLECT_EVERY <= 0.5 and set(slept) == {app.COLLECT_EVERY}
    assert collected == [1] * (full - 1) + [2, 1]


def test_the_player_on_turn_gets_the_cores_moves() -> None:
    room = seated_room()
    at = 1000.0
    for step in room.plan(None, at, at):
        room.commit(step)
    assert room.match is not None and room.match.phase is Phase.MOVING
    mover = room.players[room.match.game.turn]
    assert room.on_turn(mover) and not room.on_turn(room.players[1 - room.match.game.turn])
    assert not room.on_turn(None) and not room.on_turn(99)
    full = room.game_json(on_turn=True)
    shared = room.game_json()
    assert full is not None and shared is not None
    moves = moves_view(room.match.game)
    assert full["legal"] == moves["legal"] and full["reach"] == moves["reach"]
    assert "legal" not in shared and "reach" not in shared
    assert room.game_json() is shared  # built once per state


@pytest.mark.parametrize("message", list(_played_messages())[::40])
def test_fast_json_writes_what_json_writes(message: dict[str, Any]) -> None:
    text = jsontext.dumps(message)
    assert json.loads(text) == json.loads(json.dumps(message))
    assert jsontext.loads(text) == json.loads(json.dumps(message))


def _metric(text: str, name: str) -> float:
    return float(next(line.split()[-1] for line in text.splitlines()
                      if line.startswith(name + " ")))


def test_metrics_show_the_event_loops_lag_and_the_collections(client: TestClient) -> None:
    """The server measures its own event loop: a timer's lateness, and each collection."""
    before = client.get("/metrics").text
    gc.collect()
    time.sleep(0.35)  # the loop (the test client's thread) reads its lag every 0.1 s
    after = client.get("/metrics").text
    assert _metric(after, "gammon_gc_seconds_count") > _metric(before, "gammon_gc_seconds_count")
    assert _metric(after, "gammon_event_loop_lag_seconds_count") >= \
        _metric(before, "gammon_event_loop_lag_seconds_count") + 2
