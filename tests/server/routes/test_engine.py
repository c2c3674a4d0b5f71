"""The engine over HTTP (``/api/hint``, ``/api/eval``): the plays of a roll ranked by the
engine, the value and the cube decision of a position, at the score of a Match ID; bad
positions, ids and depths are a clear 422."""

from __future__ import annotations

import pytest

from tests.server.conftest import Browser


def test_engine_api_hint_and_eval(clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    hint = a.post("/api/hint", json={"position_id": "4HPwATDgc/ABMA", "dice": "31"}).json()
    assert hint["engine"] == "gammon" and hint["plies"] == 2
    assert len(hint["plays"]) == 16 and hint["plays"][0]["play"] == "8/5 6/5"
    best = hint["plays"][0]
    assert set(best["probabilities"]) == {"win", "win_gammon", "win_backgammon",
                                          "lose_gammon", "lose_backgammon"}
    assert 0.5 < best["probabilities"]["win"] < 0.6 and best["equity"] > 0
    equities = [p["equity"] for p in hint["plays"] if p["ply"] == best["ply"]]
    assert equities == sorted(equities, reverse=True)
    quick = a.post("/api/hint", json={"position_id": "4HPwATDgc/ABMA", "dice": "31",
                                      "plies": 0}).json()
    assert quick["plies"] == 0 and {p["ply"] for p in quick["plays"]} == {0}
    assert a.post("/api/hint", json={"position_id": "4HPwATDgc/ABMA", "dice": "31",
                                     "plies": 3}).status_code == 422
    assert a.post("/api/hint", json={"position_id": "nonsense", "dice": "31"}
                  ).status_code == 422
    value = a.post("/api/eval", json={"position_id": "4HPwATDgc/ABMA", "plies": 1}).json()
    assert value["pips"] == [167, 167] and value["plies"] == 1
    assert 0.45 < value["probabilities"]["win"] < 0.6 and abs(value["equity"]) < 0.2
    assert "cube" not in value
    # with a Match ID (money, centred cube, player 0 to roll): the cube decision
    cubed = a.post("/api/eval", json={"position_id": "4HPwATDgc/ABMA",
                                      "match_id": "MAEAAAAAAAAE", "plies": 0}).json()
    assert cubed["cube"]["action"] == "no-double"
    assert a.post("/api/eval", json={"position_id": "4HPwATDgc/ABMA",
                                     "match_id": "not-an-id"}).status_code == 422
    assert "/api/hint" in a.get("/openapi.json").json()["paths"]


def test_engine_api_hint_at_the_score_of_a_match_id(clients: tuple[Browser, Browser]) -> None:
    """With a Match ID the plays are valued at its score: at double match point (a 1-point
    match, MIElAAAAAAAE) a play is worth its winning chance, 2 * win - 1."""
    a, _ = clients
    body = {"position_id": "4HPwATDgc/ABMA", "dice": "31", "plies": 0}
    money = a.post("/api/hint", json=body).json()["plays"]
    dmp = a.post("/api/hint", json={**body, "match_id": "MIElAAAAAAAE"}).json()["plays"]
    assert {p["play"] for p in dmp} == {p["play"] for p in money}
    for play in dmp:
        assert play["equity"] == pytest.approx(2 * play["probabilities"]["win"] - 1, abs=2e-4)
    wins = [p["probabilities"]["win"] for p in dmp]
    assert wins == sorted(wins, reverse=True)
    assert a.post("/api/hint", json={**body, "match_id": "not-an-id"}).status_code == 422
