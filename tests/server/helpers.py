"""A scripted client for the tests: the same code over the in-process test client and over
real sockets (``websockets.sync``)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, Protocol

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


def play_out_against_bot(me: Player, match_id: str, rng: random.Random) -> None:
    """``me``, in seat 0 of ``match_id`` against a bot, plays the match to its end: rolls,
    random legal plays, taking every double and accepting every resignation."""
    for _ in range(3000):
        state = me.game
        assert state is not None
        if state["phase"] == "match_over":
            return
        mine = state["turn"] == 0
        if mine and state["phase"] == "before_roll":
            me.act({"type": "roll", "match": match_id})
        elif mine and state["phase"] == "moving":
            me.act({"type": "play", "match": match_id, "play": random_play(state, rng)})
        elif not mine and state["phase"] == "cube_offered":  # the bot doubled
            me.act({"type": "take", "match": match_id})
        elif not mine and state["phase"] == "resign_offered":  # the bot resigned
            me.act({"type": "accept_resign", "match": match_id})
        else:
            me.wait(lambda m: m["type"] == "update")
    raise AssertionError("the match did not end")


def following(match_id: str, first: Player, second: Player) -> dict[int, Player]:
    """Seat 0's ``first`` and seat 1's ``second`` subscribed to ``match_id``, the first
    caught up with the second."""
    players = {0: first, 1: second}
    for player in players.values():
        player.subscribe(match_id)
    players[0].sync(players[1].v)
    return players


def kinds(message: dict[str, Any]) -> list[str]:
    """The types of an update's events."""
    return [e["type"] for e in message.get("events", [])]


def until_turn(players: dict[int, Player], seat: int, phase: str, rng: random.Random
               ) -> None:
    """Play on (random whole plays) until ``seat`` is on turn in ``phase``."""
    for _ in range(40):
        game = players[seat].game
        assert game is not None
        if game["turn"] == seat and game["phase"] == phase:
            return
        play_turn(players, rng)
    raise AssertionError(f"seat {seat} never reached {phase}")


def step_to_the_end(players: dict[int, Player], seat: int) -> dict[str, Any]:
    """``seat`` plays legal steps, one by one, until the play is complete or the turn
    passed; the update of the last step."""
    player = players[seat]
    for _ in range(4):
        game = player.game
        assert game is not None and game["phase"] == "moving" and game["turn"] == seat
        source, dice = next(iter(game["legal"].items()))
        reply = act(players, player, {"type": "step", "from": int(source),
                                      "die": int(next(iter(dice)))})
        assert reply["type"] == "update", reply
        after = player.game
        assert after is not None
        if after["turn"] != seat or after["phase"] != "moving" or after["can_confirm"]:
            return reply
    raise AssertionError("a turn of more than four steps")


OPTIONS = {"confirm_turn": False, "auto_roll": False}
"""A player's confirm and auto-roll options, both off."""


class _Client(Protocol):
    def put(self, url: str, *, json: Any) -> Any: ...


def set_options(client: _Client, **options: bool) -> None:
    """Store the player's options through ``client`` (a test client's browser or an HTTP
    client of a running server): :data:`OPTIONS` with ``options`` changed."""
    response = client.put("/api/me/options", json={**OPTIONS, **options})
    assert response.status_code == 200, response.text


def auto_roll_on_while_to_roll(players: dict[int, Player], rng: random.Random,
                               client: _Client) -> dict[str, Any]:
    """Seat 0's auto-roll, switched off through ``client``, leaves seat 0 to roll on its
    next turn; switched on through ``client`` while seat 0 is to roll, the server rolls for
    it at once: the update of that roll (seat 0's player has it)."""
    set_options(client, auto_roll=False)
    until_turn(players, 1, "before_roll", rng)
    act(players, players[1], {"type": "roll"})
    game = players[1].game
    if game is not None and (game["turn"], game["phase"]) == (1, "moving"):
        play_turn(players, rng)  # (a roll with no legal play ended the turn by itself)
    game = players[0].game
    assert game is not None and (game["turn"], game["phase"]) == (0, "before_roll")
    set_options(client, auto_roll=True)
    rolled = players[0].wait(lambda m: m["type"] == "update")
    assert [e["player"] for e in rolled["events"] if e["type"] == "dice_rolled"] == [0]
    return rolled
