"""Moves first under overload (server/shedding.py), on both stores: past the first threshold
(requests in flight, or how far behind the process runs) the requests that can wait are
refused with 503 ``busy`` and ``Retry-After``, changing nothing, while sign-in, a match's
own pages and the sockets go on; past the second, new matches and joins too; the bulkhead
on the first group; counted in /metrics; off, nothing is refused. The shedding order names
real routes, and no match action."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.shedding import FIRST, SECOND
from tests.server.conftest import Browser, make_settings
from tests.server.test_puzzles import refused

HINT = {"position_id": "4HPwATDgc/ABMA", "dice": "31", "plies": 0}


class Behind:
    """A stand-in for ``Ops.behind``: the seconds the test says."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds

    def __call__(self) -> float:
        return self.seconds


def busy(response: Any) -> None:
    refused(response, 503, "busy")
    assert response.headers["retry-after"] == "2"


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
    never = [r for r in first | second
             if r.startswith(("POST /api/login", "GET /api/me", "GET /healthz"))
             or ("/api/games/" in r and r.split()[0] in ("DELETE",))]
    assert never == []
