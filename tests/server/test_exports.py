"""Match files and dice records of finished matches over the server: a "winner rolls anew"
match exports as ``.mat`` and SGF (it was HTTP 500), the files read back to the match
played, its fairness record says it had the option and verifies, and a tampered opening does
not. Matches that cannot be exported get a JSON 4xx, never 500."""

from __future__ import annotations

import copy
import json
import random

import pytest

from gammon.core.match import Rules
from gammon.formats import mat, sgf
from gammon.server.exports import ExportError, match_file
from gammon.server.fairness import verify
from tests.server.conftest import Browser
from tests.server.helpers import Player, act, following, play_turn, to_move
from tests.server.test_match import register


def test_a_finished_winner_rolls_anew_match_exports_and_verifies(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    register(a, "alice")
    register(b, "bobby")
    created = a.post("/api/games", json={"kind": "match", "length": 5,
                                         "winner_rolls_anew": True})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    waiting = a.get(f"/api/games/{match_id}/export.mat")
    assert waiting.status_code == 409 and waiting.json()["detail"]["code"] == "not_started"
    rng = random.Random(3)
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "alice"), Player.over_testclient(wb, "bobby")
        assert b.post(f"/api/games/{match_id}/join", json={}).status_code == 200
        players = following(match_id, pa, pb)
        for _ in range(6):  # a few turns, then the player on roll resigns a backgammon
            play_turn(players, rng)
        while True:
            game = pa.game
            assert game is not None
            if game["phase"] == "match_over":
                break
            actor = to_move(players)
            if game["phase"] == "before_roll":
                act(players, actor, {"type": "resign", "level": 3})
            else:
                play_turn(players, rng)

    record = a.get(f"/api/games/{match_id}/fairness").json()
    assert record["winner_rolls_anew"] is True and record["problems"] == []
    openings = [x for x in record["actions"] if x["t"] == "opening"]
    assert len(openings) >= 2  # each resigned backgammon wins 3 of the 5 points
    tampered = copy.deepcopy(record)
    roll = tampered["actions"][0]["roll"]
    tampered["actions"][0]["roll"] = [roll[0] % 6 + 1, roll[1] % 6 + 1]
    assert verify(tampered)

    for codec, fmt in ((mat, "mat"), (sgf, "sgf")):
        response = b.get(f"/api/games/{match_id}/export.{fmt}")
        assert response.status_code == 200, response.text
        assert response.headers["content-disposition"].endswith(f'.{fmt}"')
        exported = codec.loads(response.text)
        assert exported.rules.winner_rolls_anew and exported.players == ("alice", "bobby")
        final = exported.replay()
        assert final.is_over
        # each game's first move is the winner's new roll, as the server rolled it
        firsts = [g.actions[0] for g in exported.games]
        assert [[f.opening.roll.die1, f.opening.roll.die2] for f in firsts] == [  # type: ignore[attr-defined]
            o["roll"] for o in openings]


def test_exports_of_missing_matches_and_unknown_formats_are_clear_errors(
        clients: tuple[Browser, Browser]) -> None:
    a, _ = clients
    missing = a.get("/api/games/no-such-match/export.mat")
    assert missing.status_code == 404 and missing.json()["detail"]["code"] == "not_found"
    assert a.get("/api/games/no-such-match/export.sgf").status_code == 404
    assert a.get("/api/games/no-such-match/export.txt").status_code == 422


def test_a_log_the_writers_refuse_is_an_export_error_not_a_crash() -> None:
    """A stored log the rules refuse (here a play before any opening) raises ExportError,
    which the route answers with 409 ``not_exportable``; names are made writable."""
    for fmt in ("mat", "sgf"):
        with pytest.raises(ExportError, match=f"cannot be written as a .{fmt} file"):
            match_file(fmt, match_id="m1", rules=Rules(length=3), names=["a", "b"],  # type: ignore[arg-type]
                       created_at=0.0, actions=[json.dumps({"t": "play", "p": 0,
                                                            "play": "8/5 6/5"})])
    names = ["a:b", ""]
    text = match_file("mat", match_id="m2", rules=Rules(length=3), names=names,
                      created_at=None, actions=[])
    assert '[Player 1 "a_b"]' in text and '[Player 2 "Player 2"]' in text
