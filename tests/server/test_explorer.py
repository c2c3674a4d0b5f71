"""The position explorer on the server (routes/explorer.py, server/explorer.py), on both
stores: a pasted Position ID, Position ID with Match ID or XGID read as GNU Backgammon's
published examples say; the best plays rolled out on request, followed to the end with the
results an independent rollout of the same seed gives, one at a time per player, readable
only by the player, cancelled between chunks; bad input refused, changing nothing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.events import EndKind, GameEnded
from gammon.core.notation import parse_play
from gammon.core.position import Position
from gammon.engine.analysis import CheckerDecision
from gammon.engine.player import Engine
from gammon.formats.match_id import MatchKey
from gammon.server import explorer, protocol
from gammon.server.app import create_app
from gammon.server.db import make_engine
from tests.server.conftest import Browser, make_settings, run_async
from tests.server.test_puzzles import refused, valid

START = "4HPwATDgc/ABMA"  # the opening position (GNU Backgammon's manual)
XGID = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:2:4:0:9:10"  # xgid.py's doctest: doubled


def accepted(response: Any) -> Any:
    """A rollout started: 202 with its state."""
    assert response.status_code == 202, response.text
    body = response.json()
    protocol.response_adapter("rollout").validate_python(body)
    return body


def wait(who: Browser, job: str, status: str = "done", timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = valid("rollout", who.get(f"/api/explorer/rollouts/{job}"))
        if state["status"] != "running":
            assert state["status"] == status, state
            return state
        time.sleep(0.05)
    raise AssertionError(f"rollout {job} still running")


def test_a_pasted_position_is_read_as_the_explorer_takes_it(database_url: str,
                                                            redis_url: str) -> None:
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        b = Browser(client)
        start = valid("explorer_position", b.post("/api/explorer/position", json={}))
        assert start == {"position_id": START, "match_id": None, "dice": None,
                         "board": list(Position.initial().board)}
        alone = valid("explorer_position", b.post("/api/explorer/position",
                                                  json={"text": f" {START} "}))
        assert alone["position_id"] == START
        key = MatchKey(match_length=7, score=(2, 4), dice=(2, 5)).id()  # 5-2 to play
        with_match = valid("explorer_position", b.post("/api/explorer/position",
                                                       json={"text": f"{START}:{key}"}))
        assert (with_match["match_id"], with_match["dice"]) == (key, [5, 2])
        xgid = valid("explorer_position", b.post("/api/explorer/position",
                                                 json={"text": XGID}))
        assert xgid["match_id"] == "QREgAUAAEAAE" and xgid["dice"] is None  # a double pending
        for bad in ("nonsense", "XGID=-b----E", f"{START}:zzz", "A" * 14 + ":"):
            refused(b.post("/api/explorer/position", json={"text": bad}), 422, "bad_input")
        refused(b.post("/api/explorer/position", json={"text": "x" * 81}), 422, "bad_input")


def rolled_out(position: Position, play: str, games: int, truncate: int) -> float:
    """The mover's cubeless equity after ``play`` (3-1), by the engine's own rollout."""
    after = parse_play(position, Roll(3, 1), play).next_position
    result = Engine.load().rollout(after, games=games, truncate=truncate, seed=1, pruned=True)
    return result.mean.inverted().equity


def test_plays_rolled_out_on_request_followed_and_cancelled(database_url: str,
                                                           redis_url: str) -> None:
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        ann, bob = Browser(client), Browser(client)
        body = {"position_id": START, "dice": "31", "plays": ["8/5 6/5", "24/23 13/10"],
                "games": 36, "truncate": 2}
        started = accepted(ann.post("/api/explorer/rollouts", json=body))
        job = started["id"]
        assert (started["games"], started["status"]) == (72, "running")
        refused(bob.get(f"/api/explorer/rollouts/{job}"), 404, "not_found")
        refused(bob.delete(f"/api/explorer/rollouts/{job}"), 404, "not_found")
        done = wait(ann, job)
        assert done["games_done"] == 72
        for row in done["plays"]:
            assert row["games"] == 36 and row["standard_error"] > 0
            assert row["equity"] == pytest.approx(
                rolled_out(Position.initial(), row["play"], 36, 2), abs=1e-4)

        # a long one, cancelled after its first chunk; meanwhile no second one
        long = dict(body, games=1296, truncate=0, plays=["8/5 6/5"])
        job = accepted(ann.post("/api/explorer/rollouts", json=long))["id"]
        refused(ann.post("/api/explorer/rollouts", json=body), 409, "rollout_running")
        deadline = time.monotonic() + 60
        while valid("rollout", ann.get(f"/api/explorer/rollouts/{job}"))["games_done"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        valid("rollout", ann.delete(f"/api/explorer/rollouts/{job}"))
        cancelled = wait(ann, job, "cancelled")
        assert 0 < cancelled["games_done"] < 1296
        wait(ann, accepted(ann.post("/api/explorer/rollouts", json=body))["id"])  # free again

        # bad input: nothing started
        for bad in (dict(body, plays=["24/18 24/18 24/18"]), dict(body, plays=["8/5 6/5"] * 2),
                    dict(body, plays=["6/5 8/5", "8/5 6/5"]), dict(body, games=10),
                    dict(body, plays=[]), dict(body, plays=["8/5 6/5"] * 5),
                    dict(body, dice="37"), dict(body, position_id="nonsense"),
                    dict(body, match_id="zzz"), dict(body, extra=1)):
            refused(bob.post("/api/explorer/rollouts", json=bad), 422, "bad_input")
        refused(bob.get("/api/explorer/rollouts/not-a-job"), 404, "not_found")
        refused(bob.get("/api/explorer/rollouts/../x"), 404, "not_found")


def decision(game: int, player: int, roll: str, played: str, forced: bool = False
             ) -> CheckerDecision:
    return CheckerDecision(game=game, move_number=1, player=player, position_id=START,
                           roll=roll, played=played, best=played, played_equity=0.0,
                           best_equity=0.0, forced=forced, luck=0.0, win_chance=0.5)


def test_the_plays_of_an_analysis_become_the_sites_choices() -> None:
    """Each unforced play with its player's points in that game (won positive, lost
    negative), the dice high first; a forced play, and a game not finished, left out."""
    won_by_1 = GameEnded(winner=1, points=2, kind=EndKind.GAMMON, level=Level.GAMMON, cube=1)
    found = explorer.choices_of(
        [decision(1, 0, "13", "8/5 6/5"), decision(1, 1, "64", "24/18 13/9"),
         decision(1, 0, "66", "25/19(4)", forced=True), decision(2, 0, "31", "8/5 6/5")],
        [won_by_1, None])
    assert found == [explorer.Choice(START, "31", "8/5 6/5", -2),
                     explorer.Choice(START, "64", "24/18 13/9", 2)]


def test_the_sites_choices_of_a_position_from_public_matches_only(database_url: str,
                                                                  redis_url: str) -> None:
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        b = Browser(client)
        shown = b.post("/api/games", json={"kind": "single"}).json()
        other = b.post("/api/games", json={"kind": "single"}).json()
        hidden = b.post("/api/games", json={"kind": "single", "private": True}).json()
        made = {shown["id"]: [explorer.Choice(START, "31", "8/5 6/5", 1),
                              explorer.Choice(START, "31", "24/23 13/10", -2),
                              explorer.Choice(START, "31", "8/5 6/5", -1)],
                other["id"]: [explorer.Choice(START, "31", "8/5 6/5", 3),
                              explorer.Choice(START, "42", "8/4 6/4", 1)],
                hidden["id"]: [explorer.Choice(START, "31", "13/10 6/5", 1)]}

        async def store() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                for match_id, found in made.items():
                    await explorer.store_choices(conn, match_id, found)
            await engine.dispose()

        run_async(store)
        url = f"/api/explorer/choices?position_id={START}&dice="
        assert valid("choices", b.get(url + "13")) == [
            {"play": "8/5 6/5", "times": 3, "matches": 2, "won": 2, "points": 1.0},
            {"play": "24/23 13/10", "times": 1, "matches": 1, "won": 0, "points": -2.0}]
        assert valid("choices", b.get(url + "4-2"))[0]["times"] == 1
        assert valid("choices", b.get(url + "55")) == []
        refused(b.get(url + "77"), 422, "bad_input")
        refused(b.get("/api/explorer/choices?position_id=nonsense&dice=31"), 422, "bad_input")
        refused(b.get("/api/explorer/choices?dice=31"), 422, "bad_input")
