"""What the game object tells the client beyond the board: ``reach`` (every point a checker
can get to with the dice left), ``can_double``, ``can_beaver``, ``can_undo``,
``resign_floor``, the clock's ``low_at``, and the info's opening rule (``winner_rolls_anew``)."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from gammon.core import actions as A
from gammon.core.dice import Roll
from gammon.core.game import Game, Phase
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.server.app import create_app
from gammon.server.rooms import reach
from tests.server.conftest import Browser, make_settings
from tests.server.helpers import Player, act, following, to_move


def _chains(game: Game) -> set[tuple[int, int]]:
    """(source, point) for every point a checker passes in a remaining full play (a checker
    entering from the bar goes on only once no other is left there)."""
    out = set()
    crowded_bar = game.position.board[25] > 1
    for play in game.remaining_plays():
        moves = list(play.moves)
        for i, first in enumerate(moves):
            used = {i}
            point = first.destination
            out.add((first.source, point))
            while point != 0 and not (first.source == 25 and crowded_bar):
                nxt = next((j for j, m in enumerate(moves)
                            if j not in used and m.source == point), None)
                if nxt is None:
                    break
                used.add(nxt)
                point = moves[nxt].destination
                out.add((first.source, point))
    return out


def test_reach_is_exactly_what_the_rules_allow() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        position = Position.initial()
        for _ in range(rng.randrange(0, 30)):  # a random position of a random game
            plays = legal_plays(position, Roll(rng.randint(1, 6), rng.randint(1, 6)))
            position = rng.choice(plays).position.swap()
            if position.winner() is not None or position.swap().winner() is not None:
                break
        if position.winner() is not None or position.swap().winner() is not None:
            continue
        game, _ = Game.from_position(position).apply(
            A.RollDice(0, Roll(rng.randint(1, 6), rng.randint(1, 6))))
        if game.phase is not Phase.MOVING:
            continue
        found = reach(game)
        steps = game.legal_steps()
        assert set(found) == set(steps)
        starts = set(steps)
        assert {(s, d) for s, r in found.items() for d in r} == {
            (s, d) for s, d in _chains(game) if s in starts}
        for source, points in found.items():
            for destination, dice in points.items():
                g, checker = game, source
                for die in dice:  # the core takes every step, in this order
                    g, events = g.apply(A.MoveChecker(0, checker, die))
                    checker = events[0].move.destination  # type: ignore[attr-defined]
                assert checker == destination
                checked += 1
    assert checked > 100


def _two_players(client: TestClient, body: dict[str, Any]) -> tuple[str, Browser, Browser]:
    a, b = Browser(client), Browser(client)
    a.get("/api/me")
    b.get("/api/me")
    match_id = a.post("/api/games", json=body).json()["id"]
    assert b.post(f"/api/games/{match_id}/join").status_code == 200
    return match_id, a, b


def test_the_game_says_what_may_be_done(client: TestClient) -> None:
    match_id, a, b = _two_players(client, {"kind": "money", "beavers": True})
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa, "a"), Player.over_testclient(wb, "b")
        players = following(match_id, pa, pb)
        mover = to_move(players)
        game = mover.game
        assert game is not None and game["phase"] == "moving"
        assert game["can_undo"] is False and game["can_double"] is False
        assert game["resign_floor"] == 0 and game["can_beaver"] is False
        # reach holds every legal single step, with its die
        for source, steps in game["legal"].items():
            for destination in steps.values():
                assert len(game["reach"][source][str(destination)]) == 1
            assert all(1 <= len(dice) <= 4 for dice in game["reach"][source].values())
        # a two-dice destination is played by sending its steps in order
        source, points = next((s, p) for s, p in game["reach"].items()
                              if any(len(d) == 2 for d in p.values()))
        destination, dice = next((d, p) for d, p in points.items() if len(p) == 2)
        act(players, mover, {"type": "step", "from": int(source), "die": dice[0]})
        assert mover.game is not None and mover.game["can_undo"] is True
        act(players, mover, {"type": "undo"})
        assert mover.game is not None and mover.game["can_undo"] is False
        # play the turn to its end; the opponent may double before rolling
        act(players, mover, {"type": "step", "from": int(source), "die": dice[0]})
        while mover.game is not None and mover.game["phase"] == "moving" \
                and mover.game["turn"] == mover.you:
            s, steps = next(iter(mover.game["legal"].items()))
            act(players, mover, {"type": "step", "from": int(s), "die": int(next(iter(steps)))})
        doubler = to_move(players)
        assert doubler.game is not None and doubler.game["phase"] == "before_roll"
        assert doubler.game["can_double"] is True and "reach" not in doubler.game
        act(players, doubler, {"type": "double"})
        assert doubler.game["can_beaver"] is True  # money with beavers, first double
        taker = to_move(players)
        act(players, taker, {"type": "take"})
        # the doubler rolls; resigns a single, refused: the floor is 1 for the rest of the turn
        assert doubler.game["can_double"] is False  # the taker owns the cube now
        act(players, doubler, {"type": "roll"})
        act(players, doubler, {"type": "resign", "level": 1})
        act(players, taker, {"type": "reject_resign"})
        assert doubler.game["resign_floor"] == 1 and taker.game["resign_floor"] == 1  # type: ignore[index]


def test_the_clock_says_when_it_runs_low(database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, clock_scale=0.5)
    with TestClient(create_app(settings)) as client:
        for kind in ("italian", "polish"):
            match_id, a, _ = _two_players(client, {"kind": "match", "length": 3,
                                                   "clock": kind})
            state = a.get(f"/api/games/{match_id}").json()
            assert state["clock"]["kind"] == kind and state["clock"]["low_at"] == 5.0


def test_the_match_info_says_whether_the_winner_rolls_anew(client: TestClient) -> None:
    # the client reads the opening rule from the info: with "winner rolls anew" a new roll
    # equal to the opening dice (1 time in 18) cannot be told from the dice
    a = Browser(client)
    for anew in (True, False):
        created = a.post("/api/games", json={"kind": "single",
                                             "winner_rolls_anew": anew}).json()
        assert created["winner_rolls_anew"] is anew
        state = a.get(f"/api/games/{created['id']}").json()
        assert state["info"]["winner_rolls_anew"] is anew
    assert a.post("/api/games", json={"kind": "single"}).json()["winner_rolls_anew"] is False
