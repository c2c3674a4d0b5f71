"""A scripted client for the tests: the same code over the in-process test client and over
real sockets (``websockets.sync``)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position


class Player:
    """One player's socket and what it has seen of one match."""

    def __init__(self, send: Callable[[str], None], recv: Callable[[], str], name: str = ""):
        self._send = send
        self._recv = recv
        self.name = name
        self.v = 0
        self.game: dict[str, Any] | None = None
        self.info: dict[str, Any] | None = None
        self.you: int | None = None
        self.events: list[dict[str, Any]] = []
        self.base = 0  # the version before the first of ``events``
        self.log: list[dict[str, Any]] = []
        self.clock: dict[str, Any] | None = None

    @classmethod
    def over_testclient(cls, ws: Any, name: str = "") -> Player:
        return cls(ws.send_text, ws.receive_text, name)

    @classmethod
    def over_websockets(cls, ws: Any, name: str = "") -> Player:
        return cls(ws.send, lambda: ws.recv(timeout=20), name)

    def send(self, message: dict[str, Any] | str) -> None:
        self._send(message if isinstance(message, str) else json.dumps(message))

    def recv(self) -> dict[str, Any]:
        message = json.loads(self._recv())
        self.log.append(message)
        kind = message.get("type")
        if kind == "state":
            if message["v"] != self.base + len(self.events):
                self.base, self.events = message["v"], []
            self.v = message["v"]
            self.game = message["game"]
            self.info = message["info"]
            self.you = message["you"]
            self.clock = message["clock"]
        elif kind == "update":
            for event in message["events"]:
                if event["v"] == self.base + len(self.events) + 1:
                    self.events.append(event)
            self.v = message["v"]
            self.game = message["game"]
            self.clock = message["clock"]
        return message

    def wait(self, predicate: Callable[[dict[str, Any]], bool], limit: int = 500
             ) -> dict[str, Any]:
        for _ in range(limit):
            message = self.recv()
            if predicate(message):
                return message
        raise AssertionError(f"{self.name}: no expected message in {limit}")

    def sync(self, v: int) -> None:
        if self.v < v:
            self.wait(lambda m: m.get("type") in ("update", "state") and self.v >= v)

    def subscribe(self, match_id: str, since: int | None = None) -> dict[str, Any]:
        self.send({"type": "subscribe", "match": match_id, "since": since})
        return self.wait(lambda m: m.get("type") in ("state", "update"))

    def act(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send an action; the update it caused, or the error."""
        self.send(message)
        return self.wait(lambda m: m.get("type") in ("update", "error"))


def random_play(game: dict[str, Any], rng: random.Random) -> str:
    position = Position.from_id(game["position_id"])
    plays = legal_plays(position, Roll(*game["dice"]))
    return rng.choice(plays).notation()


def to_move(players: dict[int, Player]) -> Player:
    """The player who must act now (the turn, or the answer to an offer)."""
    game = next(iter(players.values())).game
    assert game is not None
    seat = game["turn"]
    if game["phase"] in ("cube_offered", "resign_offered"):
        seat = 1 - seat
    return players[seat]


def act(players: dict[int, Player], actor: Player, message: dict[str, Any]
        ) -> dict[str, Any]:
    """``actor`` sends ``message``; every other player catches up to the new version."""
    message = {**message, "match": players_match(players)}
    reply = actor.act(message)
    for other in players.values():
        if other is not actor:
            other.sync(actor.v)
    return reply


def players_match(players: dict[int, Player]) -> str:
    info = next(iter(players.values())).info
    assert info is not None
    return str(info["id"])


def play_turn(players: dict[int, Player], rng: random.Random) -> dict[str, Any]:
    """Whoever must act rolls, or plays a random legal play."""
    actor = to_move(players)
    game = actor.game
    assert game is not None
    if game["phase"] == "before_roll":
        return act(players, actor, {"type": "roll"})
    if game["phase"] == "moving":
        return act(players, actor, {"type": "play", "play": random_play(game, rng)})
    raise AssertionError(f"unexpected phase {game['phase']}")
