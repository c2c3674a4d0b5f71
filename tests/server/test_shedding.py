"""Moves first under overload (server/shedding.py), on both stores: past the first threshold
(requests in flight, or how far behind the process runs) the requests that can wait are
refused with 503 ``busy`` and ``Retry-After``, changing nothing, while sign-in, a match's
own pages and the sockets go on; past the second, new matches and joins too; the bulkhead
on the first group; counted in /metrics; off, nothing is refused. A process full of matches
(admission by the matches in play) refuses new matches and joins, pairs nobody in Play now,
and lets its moves go on. The shedding order names real routes, and no match action."""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any

from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.shedding import FIRST, SECOND, STARTS_A_MATCH
from tests.server.conftest import Browser, make_settings
from tests.server.helpers import Player, random_play, to_move
from tests.server.test_matchmaking import MATCH3, guest, lobby, pair_now, until, waiting
from tests.server.test_puzzles import refused

FULL = range(5, 11)  # a full process spreads its refused clients' returns over 5-10 s
HINT = {"position_id": "4HPwATDgc/ABMA", "dice": "31", "plies": 0}


class Behind:
    """A stand-in for ``Ops.behind``: the seconds the test says."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds

    def __call__(self) -> float:
        return self.seconds


def busy(response: Any, retry_after: range = range(2, 3)) -> None:
    refused(response, 503, "busy")
    assert int(response.headers["retry-after"]) in retry_after


def started(client: TestClient) -> tuple[str, Browser, Browser]:
    """A match in play between two new browsers: its id and its players."""
    first, second = Browser(client), Browser(client)
    created = first.post("/api/games", json={"kind": "single"})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    joined = second.post(f"/api/games/{match_id}/join", json={})
    assert joined.status_code == 200, joined.text
    return match_id, first, second


def test_a_process_full_of_matches_admits_none_until_one_ends_and_its_moves_go_on(
        database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, shed_load=True, shed_matches_in_play=2,
                             shed_in_flight_first=10**6, shed_in_flight_second=10**6,
                             shed_lag_first=10.0, shed_lag_second=10.0)
    with TestClient(create_app(settings)) as client:
        waiting_one = Browser(client).post("/api/games", json={"kind": "single"}).json()
        match_id, first, second = started(client)
        started(client)  # two in play: the process is full
        time.sleep(0.15)  # past the count's 0.1 s
        busy(first.post("/api/games", json={"kind": "single"}), retry_after=FULL)
        busy(second.post(f"/api/games/{waiting_one['id']}/join", json={}), retry_after=FULL)
        busy(first.post(f"/api/games/{match_id}/rematch", json={}), retry_after=FULL)
        # nothing else is refused: a guest, a hint, the match's own page
        assert Browser(client).post("/api/guest").status_code == 200
        assert first.post("/api/hint", json=HINT).status_code == 200
        assert first.get(f"/api/games/{match_id}").status_code == 200
        assert waiting_one["id"] in [g["id"] for g in first.get("/api/games").json()]
        # Play now pairs nobody here meanwhile: its seekers wait
        seekers = [guest(client), guest(client)]
        with contextlib.ExitStack() as stack:
            sockets = []
            for seeker in seekers:
                sockets.append(lobby(seeker))
                stack.callback(sockets[-1].__exit__, None, None, None)
            for ws in sockets:
                ws.send_json(MATCH3)
                until(ws, "seeking")
            assert pair_now(client) == []
            assert all(waiting(client, seeker) is not None for seeker in seekers)
            # the moves of the matches in play go on, and one match ends
            with first.websocket_connect("/ws") as w0, second.websocket_connect("/ws") as w1:
                p0, p1 = Player.over_testclient(w0), Player.over_testclient(w1)
                for player in (p0, p1):
                    player.subscribe(match_id)
                players = {p0.you: p0, p1.you: p1}
                game = p0.game
                assert game is not None and game["phase"] == "moving"
                mover = to_move(players)  # type: ignore[arg-type]
                played = mover.act({"type": "play", "match": match_id,
                                    "play": random_play(game, random.Random(1))})
                assert played["type"] == "update", played
                for player in (p0, p1):
                    player.sync(mover.v)
                resigner = to_move(players)  # type: ignore[arg-type]
                offer = resigner.act({"type": "resign", "level": 3, "match": match_id})
                assert offer["type"] == "update", offer
                if offer["game"]["phase"] == "resign_offered":
                    other = p1 if resigner is p0 else p0
                    other.sync(resigner.v)
                    offer = other.act({"type": "accept_resign", "match": match_id})
                assert offer["game"]["phase"] == "match_over", offer
            time.sleep(0.15)
            pair_now(client)  # one place free: the seekers are paired (now, or by a pass)
            assert len({until(ws, "paired")["match"] for ws in sockets}) == 1
        metrics = first.get("/metrics").text
        assert 'gammon_shed_requests_total{step="full"} 3' in metrics
        time.sleep(0.15)
        busy(first.post("/api/games", json={"kind": "single"}), retry_after=FULL)  # full again


def test_the_requests_that_can_wait_are_refused_first(database_url: str,
                                                      redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, shed_load=True,
                             shed_in_flight_first=10**6, shed_lag_first=0.5,
                             shed_in_flight_second=10**6, shed_lag_second=2.0,
                             shed_first_at_once=10**6, shed_lag_in_flight=0)
    with TestClient(create_app(settings)) as client:
        ops = client.app.state.ops  # type: ignore[attr-defined]
        # how far behind the process runs, set by the test (the loop's own readings would
        # overwrite a lag set directly)
        behind = Behind()
        ops.behind = behind
        b = Browser(client)
        game = b.post("/api/games", json={"kind": "single"}).json()
        behind.seconds = 0.0
        assert b.post("/api/hint", json=HINT).status_code == 200

        behind.seconds = 1.0  # the loop runs a second late: the first step
        busy(b.post("/api/hint", json=HINT))
        busy(b.get("/api/puzzles/next"))
        busy(b.get("/api/deck"))
        busy(b.post("/api/explorer/position", json={}))
        busy(b.get(f"/api/games/{game['id']}/analysis"))
        assert b.get("/api/me").status_code == 200
        assert b.get(f"/api/games/{game['id']}").status_code == 200
        second = b.post("/api/games", json={"kind": "single"})
        assert second.status_code == 201, second.text  # not yet: the second step
        with b.websocket_connect("/ws") as ws:  # the sockets are never refused here
            assert ws.receive_json()["type"] == "welcome"

        behind.seconds = 3.0  # the second step: new matches and joins too
        busy(b.post("/api/games", json={"kind": "single"}))
        busy(Browser(client).post(f"/api/games/{second.json()['id']}/join", json={}))
        assert b.get("/api/me").status_code == 200
        metrics = b.get("/metrics").text
        assert 'gammon_shed_requests_total{step="first"} 5' in metrics
        assert 'gammon_shed_requests_total{step="second"} 2' in metrics

        behind.seconds = 0.0
        assert b.post("/api/hint", json=HINT).status_code == 200
        # its own creator's join: refused by the lobby, not by the shedding
        refused(b.post(f"/api/games/{second.json()['id']}/join", json={}), 409, "own_game")


def test_a_lag_alone_does_not_refuse_a_lone_request(database_url: str, redis_url: str
                                                     ) -> None:
    settings = make_settings(database_url, redis_url, shed_load=True, shed_lag_first=0.01)
    with TestClient(create_app(settings)) as client:
        client.app.state.ops.behind = Behind(1.0)  # type: ignore[attr-defined]
        assert Browser(client).post("/api/hint", json=HINT).status_code == 200


def test_requests_in_flight_count_and_shedding_off_refuses_nothing(database_url: str,
                                                                   redis_url: str) -> None:
    on = make_settings(database_url, redis_url, shed_load=True, shed_in_flight_first=0)
    with TestClient(create_app(on)) as client:
        busy(Browser(client).post("/api/hint", json=HINT))  # 0 in flight reaches 0
    # the bulkhead: no request of the first group at once (0) refuses each, whatever the lag
    walled = make_settings(database_url, redis_url, shed_load=True, shed_first_at_once=0,
                           shed_lag_first=10.0, shed_lag_second=10.0)
    with TestClient(create_app(walled)) as client:
        b = Browser(client)
        busy(b.post("/api/hint", json=HINT))
        assert b.post("/api/games", json={"kind": "single"}).status_code == 201
    off = make_settings(database_url, redis_url, shed_load=False, shed_in_flight_first=0,
                        shed_lag_first=0.0, shed_in_flight_second=0, shed_lag_second=0.0)
    with TestClient(create_app(off)) as client:
        b = Browser(client)
        assert b.post("/api/hint", json=HINT).status_code == 200
        assert b.post("/api/games", json={"kind": "single"}).status_code == 201


def test_the_shedding_order_names_real_routes_and_no_match_action(database_url: str,
                                                                  redis_url: str) -> None:
    app = create_app(make_settings(database_url, redis_url))
    routes = [f"{method.upper()} {path}" for path, methods in app.openapi()["paths"].items()
              for method in methods]
    first = {r for r in routes if FIRST.search(r.replace("{", "").replace("}", ""))}
    second = {r for r in routes if SECOND.search(r)}
    assert {"POST /api/hint", "POST /api/eval", "GET /api/v1/move", "GET /api/puzzles/next",
            "GET /api/deck", "POST /api/explorer/rollouts",
            "GET /api/games/{match_id}/analysis", "GET /api/leaderboard"} <= first
    assert second >= {"POST /api/games", "POST /api/register", "POST /api/guest"}
    assert {r for r in routes if STARTS_A_MATCH.search(r)} == {
        "POST /api/games", "POST /api/games/{match_id}/join",
        "POST /api/games/{match_id}/rematch"}
    never = [r for r in first | second
             if r.startswith(("POST /api/login", "GET /api/me", "GET /healthz"))
             or ("/api/games/" in r and r.split()[0] in ("DELETE",))]
    assert never == []
