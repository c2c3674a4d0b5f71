"""``/api/v1/move`` and ``/api/v1/eval`` in wildbg's shapes, checked against what wildbg's
own documentation and tests show (crates/web: the starting position's cube, the forced and
the double-roll plays, the error messages of its four error cases), the plays against the
core's generator, and the order at DMP against the match equity table's one fact there
(the value is the chance of winning the game). Both stores."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.server.routes.wildbg import EvalResponse, MoveResponse

START = "p1=-2&p6=5&p8=3&p12=-5&p13=5&p17=-3&p19=-5&p24=2"  # wildbg's documented example


def query(position: Position) -> str:
    """wildbg's ``p0``..``p25`` of a position: the core's board, point by point."""
    return "&".join(f"p{i}={c}" for i, c in enumerate(position.board) if c)


def ends(position: Position, play: list[dict[str, int]]) -> tuple[int, ...]:
    """The points of the side on roll's checkers after a wildbg play's moves (0: off),
    one entry a checker."""
    board = list(position.board)
    off = 0
    for step in play:
        board[step["from"]] -= 1
        if step["to"]:
            board[step["to"]] += 1
        else:
            off += 1
    return (0,) * off + tuple(p for p in range(1, 26) for _ in range(max(board[p], 0)))


def moves(client: TestClient, params: str) -> list[dict[str, Any]]:
    answer = client.get(f"/api/v1/move?{params}")
    assert answer.status_code == 200, answer.text
    TypeAdapter(MoveResponse).validate_python(answer.json(), strict=True)
    return answer.json()["moves"]  # type: ignore[no-any-return]


def test_the_starting_position_is_wildbgs_example_with_every_legal_play_best_first(
        client: TestClient) -> None:
    assert query(Position.initial()) == START  # the two layouts agree
    listed = moves(client, f"die1=3&die2=1&{START}")
    plays = legal_plays(Position.initial(), Roll(3, 1))
    assert len(listed) == len({p.position for p in plays})
    first = listed[0]
    assert sorted((s["from"], s["to"]) for s in first["play"]) == [(6, 5), (8, 5)]  # 8/5 6/5
    p = first["probabilities"]
    assert 0 <= p["loseBg"] <= p["loseG"] <= 1 - p["win"]
    assert 0 <= p["winBg"] <= p["winG"] <= p["win"]
    evaluation = client.get(f"/api/v1/eval?{START}")
    assert evaluation.status_code == 200
    TypeAdapter(EvalResponse).validate_python(evaluation.json(), strict=True)
    assert evaluation.json()["cube"] == {"double": False, "accept": True}  # as wildbg shows


def test_the_forced_and_the_double_roll_plays_of_wildbgs_tests(client: TestClient) -> None:
    forced = moves(client, "die1=3&die2=1&p5=1&p24=-1")
    assert len(forced) == 1 and len(forced[0]["play"]) == 2  # wildbg: 5/4 4/1
    assert forced[0]["play"][-1]["to"] == 1
    position = Position.from_board([0, 0, 0, 0, 0, 2] + [0] * 18 + [-1, 0])
    doubles = moves(client, "die1=1&die2=1&p5=2&p24=-1")
    assert all(len(m["play"]) == 4 for m in doubles)
    # wildbg lists three: one checker to the 1-point, 4 and 2, both on 3
    assert sorted(ends(position, m["play"]) for m in doubles) == [(1, 5), (2, 4), (3, 3)]


def test_a_blocked_roll_is_one_entry_with_an_empty_play(client: TestClient) -> None:
    closed = Position.from_points({25: 1, 6: 14}, {n: 2 for n in range(1, 7)} | {13: 3})
    listed = moves(client, f"die1=6&die2=5&{query(closed)}")
    assert len(listed) == 1 and listed[0]["play"] == []


def test_the_cube_of_a_hopeless_race_and_the_order_at_dmp(client: TestClient) -> None:
    race = Position.from_points({1: 2, 2: 2, 3: 2}, {14: 1, 15: 1, 16: 1, 17: 1, 18: 1})
    answer = client.get(f"/api/v1/eval?{query(race)}").json()
    assert answer["cube"] == {"double": True, "accept": False}
    # at double match point a game's value is its winning chance: the list is in its order
    middle = Position.from_points({6: 5, 8: 3, 13: 4, 24: 3},
                                  {6: 4, 7: 2, 8: 2, 13: 5, 24: 2})
    listed = moves(client, f"die1=6&die2=4&x_away=1&o_away=1&{query(middle)}")
    wins = [m["probabilities"]["win"] for m in listed]
    assert wins == sorted(wins, reverse=True) and len(wins) > 3


def test_bad_positions_and_dice_are_400_with_wildbgs_message(client: TestClient) -> None:
    for path, message in [
        ("/api/v1/eval?p0=1&p4=4&p5=-5",
         "Index 0 is the bar for player o, number of checkers needs to be negative."),
        ("/api/v1/move?die1=2&die2=1&p4=4&p5=-5&p25=-2",
         "Index 25 is the bar for player x, number of checkers needs to be positive."),
        ("/api/v1/move?die1=2&die2=0&p4=4&p5=-5", "Dice values must be between 1 and 6."),
        ("/api/v1/move", "Failed to deserialize query string: missing field `die1`"),
        ("/api/v1/eval?p3=16&p4=-1", "p3 must be an integer from -15 to 15"),
        ("/api/v1/eval?p3=12&p4=4&p5=-1", "Player x has more than 15 checkers on the board."),
    ]:
        answer = client.get(path)
        assert answer.status_code == 400, path
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["message"] == message, path
        assert answer.json()["detail"] == {"code": "bad_input", "message": message}
    for path in ["/api/v1/eval?p3=x", "/api/v1/eval?p3=1&p3=-1&p4=%00", "/api/v1/eval",
                 "/api/v1/eval?p3=2&p4=-2&x_away=3", "/api/v1/eval?p3=2&p4=-2&x_away=0&o_away=3",
                 "/api/v1/move?die1=a&die2=1&p3=1&p4=-1", "/api/v1/eval?p3=1&p3=-1"]:
        answer = client.get(path)
        assert answer.status_code == 400, (path, answer.text)
        assert answer.json()["message"], path
