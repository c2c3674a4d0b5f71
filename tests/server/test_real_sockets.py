"""Over real sockets, against ``gammon serve`` processes: a server killed mid-turn and
restarted resumes the match exactly; a hostile client changes nothing; two server processes
share one match, the lobby feed, each player's options and Play now's pools through
PostgreSQL and Redis."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from gammon.server import protocol
from gammon.server.accounts import COOKIE
from tests.processes import ServerProcess
from tests.server.conftest import postgres_database, redis_reachable
from tests.server.helpers import (
    Player,
    act,
    auto_roll_on_while_to_roll,
    following,
    kinds,
    play_turn,
    set_options,
    step_to_the_end,
    to_move,
    until_turn,
)


@pytest.fixture
def stack() -> Iterator[contextlib.ExitStack]:
    with contextlib.ExitStack() as exits:
        yield exits


def session(stack: contextlib.ExitStack, server: ServerProcess, name: str | None = None
            ) -> httpx.Client:
    client = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
    if name:
        client.post("/api/register", json={"name": name, "password": "password-1"})
        response = client.post("/api/login", json={"name": name, "password": "password-1"})
        assert response.status_code == 200, response.text
    else:
        client.get("/api/me")
    return client


def socket(server: ServerProcess, client: httpx.Client) -> ClientConnection:
    cookie = client.cookies[COOKIE]
    return connect(server.ws_url, additional_headers={"Cookie": f"{COOKIE}={cookie}"},
                   open_timeout=20, max_size=2**22)


HEARTBEAT = 0.25
"""Seconds between the server's heartbeats in these tests."""


def test_a_killed_server_resumes_the_match_exactly(database_url: str, redis_url: str,
                                                    stack: contextlib.ExitStack,
                                                    server_processes: list[ServerProcess]
                                                    ) -> None:
    env = {"GAMMON_DATABASE_URL": database_url, "GAMMON_REDIS_URL": redis_url,
           "GAMMON_RATE_LIMITS": "false", "GAMMON_HEARTBEAT_INTERVAL": str(HEARTBEAT)}
    server = ServerProcess(env).start()
    server_processes.append(server)
    a, b = session(stack, server), session(stack, server)
    game = a.post("/api/games", json={"kind": "match", "length": 3, "clock": "italian"}).json()
    assert b.post(f"/api/games/{game['id']}/join").status_code == 200
    rng = random.Random(9)
    with socket(server, a) as wa, socket(server, b) as wb:
        pa, pb = Player.over_websockets(wa, "a"), Player.over_websockets(wb, "b")
        pa.subscribe(game["id"])
        pb.subscribe(game["id"])
        players = {0: pa, 1: pb}
        for _ in range(6):
            play_turn(players, rng)
        # mid-turn: roll and play one step, unconfirmed
        while True:
            actor = to_move(players)
            if actor.game["phase"] == "before_roll":  # type: ignore[index]
                act(players, actor, {"type": "roll"})
            if actor.game["phase"] == "moving" and len(actor.game["legal"]) > 0:  # type: ignore[index]
                break
        source, dice = next(iter(actor.game["legal"].items()))  # type: ignore[index]
        act(players, actor, {"type": "step", "from": int(source), "die": int(next(iter(dice)))})
        time.sleep(1.0)  # the last sign of life is now a heartbeat, not the step
        read_before = time.monotonic()
        before = httpx.get(f"{server.url}/api/games/{game['id']}").json()
        seen = pa.v
    server.kill()  # SIGKILL: no shutdown code runs
    # the running clock's own time: from the reading to the kill (its last heartbeat lies
    # between), and from each start-up (its credit) to the next reading or stop
    ran = time.monotonic() - read_before
    time.sleep(4.0)  # down for a while: the running clock must not pay for it
    starting = time.monotonic()
    server.start()
    after = httpx.get(f"{server.url}/api/games/{game['id']}").json()
    ran_after = ran + time.monotonic() - starting
    assert after["v"] == before["v"] + 1 == seen + 1  # one clock_paused event
    assert after["game"] == before["game"]  # board, dice, steps played, cube, score
    assert after["clock"]["running"] == before["clock"]["running"]
    running = after["clock"]["running"]
    idle = 1 - running

    def left(reading: dict[str, Any]) -> float:
        side = reading["clock"]["sides"][running]
        return float(side["action_left"] + side["bank_left"])

    # what the running player had at the last heartbeat before the kill (the server cannot
    # tell the moments after it from downtime, so they are given back: at most a heartbeat
    # interval more than at the reading just before the kill), less the moments between
    # the credit at start-up and the reading (at most the time the clock could run, as
    # measured here: under load a start-up takes seconds)
    assert left(before) - ran_after - 0.01 <= left(after) <= left(before) + HEARTBEAT + 0.01
    assert after["clock"]["sides"][idle] == before["clock"]["sides"][idle]
    assert after["info"]["seed_hash"] == before["info"]["seed_hash"]
    # a second restart (a clean one this time) replays the same credit, and credits again
    stopping = time.monotonic()
    server.stop()
    ran_again = ran + time.monotonic() - starting
    time.sleep(2.0)
    starting = time.monotonic()
    server.start()
    again = httpx.get(f"{server.url}/api/games/{game['id']}").json()
    ran_again += time.monotonic() - starting
    down = time.monotonic() - stopping  # stop, wait and start: the most it may credit
    assert again["v"] == after["v"] + 1
    assert left(before) - ran_again - 0.01 <= left(again) <= left(before) + HEARTBEAT + 0.01
    assert again["clock"]["sides"][idle] == before["clock"]["sides"][idle]
    with socket(server, a) as wa, socket(server, b) as wb:
        pa, pb = Player.over_websockets(wa, "a"), Player.over_websockets(wb, "b")
        missed = pa.subscribe(game["id"], since=seen)
        assert missed["type"] == "update"
        assert [e["type"] for e in missed["events"]] == ["clock_paused", "clock_paused"]
        assert all(e["player"] == running for e in missed["events"])
        assert missed["events"][0]["seconds"] >= 4.0
        assert 2.0 <= missed["events"][1]["seconds"] <= down + 0.5
        pa.subscribe(game["id"])
        pb.subscribe(game["id"])
        players = {0: pa, 1: pb}
        mover = to_move(players)
        # the same player finishes the same turn, step by step
        while mover.game["phase"] == "moving" and to_move(players) is mover:  # type: ignore[index]
            source, dice = next(iter(mover.game["legal"].items()))  # type: ignore[index]
            act(players, mover, {"type": "step", "from": int(source),
                                 "die": int(next(iter(dice)))})
        for _ in range(4):
            play_turn(players, rng)
        loser = to_move(players)
        act(players, loser, {"type": "abandon"})
        assert pa.game["phase"] == "match_over"  # type: ignore[index]
    record = httpx.get(f"{server.url}/api/games/{game['id']}/fairness").json()
    assert record["problems"] == []


HOSTILE: list[str | bytes] = [
    "", "{", "null", "[]", "42", '"roll"', '{"type": null}', '{"type": ["roll"]}',
    '{"type": "hack", "match": "M"}', '{"type": "roll"}', '{"type": "roll", "match": 5}',
    '{"type": "roll", "match": "M", "v": -1}', '{"type": "roll", "match": "M", "admin": true}',
    '{"type": "step", "match": "M", "from": "24", "die": 1}',
    '{"type": "step", "match": "M", "from": 0, "die": 1}',
    '{"type": "step", "match": "M", "from": 24, "die": 0}',
    '{"type": "step", "match": "M", "from": 24.0, "die": 1}',
    '{"type": "play", "match": "M", "play": "24/1 24/1 24/1 24/1"}',
    '{"type": "play", "match": "M", "play": "bar/off"}', '{"type": "play", "match": "M"}',
    '{"type": "resign", "match": "M", "level": 0}', '{"type": "chat", "match": "M", "text": 5}',
    '{"type": "subscribe", "match": "NOPE-NOT-A-MATCH"}', '{"type": "roll", "match": "nope"}',
    '{"type": "pong", "n": -5}', '{"type": "mute", "match": "M", "muted": "yes"}',
    "\u0000\u0001garbage", '{"type": "roll", "match": "M", "v": 123456}',
    "x" * 10_000, '{"type": "chat", "match": "M", "text": "' + "y" * 5000 + '"}',
    "[" * 50_000, b"\x00\xff\xfe binary", b'{"type": "take", "match": "M"}',
]
SEAT_ACTIONS = ["roll", "double", "take", "drop", "beaver", "undo", "confirm",
                "accept_resign", "reject_resign"]


def test_a_hostile_client_changes_nothing(database_url: str, redis_url: str,
                                          stack: contextlib.ExitStack,
                                          server_processes: list[ServerProcess]) -> None:
    env = {"GAMMON_DATABASE_URL": database_url, "GAMMON_REDIS_URL": redis_url,
           "GAMMON_RATE_LIMITS": "false"}
    server = ServerProcess(env).start()
    server_processes.append(server)
    a, b, c = session(stack, server), session(stack, server), session(stack, server)
    game = a.post("/api/games", json={"kind": "match", "length": 5}).json()
    match_id = game["id"]
    b.post(f"/api/games/{match_id}/join")
    before = httpx.get(f"{server.url}/api/games/{match_id}").json()
    on_turn = before["game"]["turn"]
    waiting = b if on_turn == 0 else a  # the player not on turn
    rng = random.Random(3)
    messages: list[str | bytes] = []
    for _ in range(40):
        for raw in HOSTILE:
            messages.append(raw.replace("M", match_id) if isinstance(raw, str)
                            else raw.replace(b"M", match_id.encode()))
    # out of turn: the waiting player tries everything
    out_of_turn = [json.dumps({"type": kind, "match": match_id}) for kind in SEAT_ACTIONS]
    out_of_turn += [json.dumps({"type": "step", "match": match_id, "from": rng.randint(1, 25),
                                "die": rng.randint(1, 6)}) for _ in range(200)]
    out_of_turn += [json.dumps({"type": "resign", "match": match_id, "level": 2}),
                    json.dumps({"type": "play", "match": match_id, "play": "13/7 8/7"})]
    # other seat: a third user (a spectator) tries to act, also with a stale/future version
    other_seat = [json.dumps({"type": kind, "match": match_id, "v": rng.randint(0, 9)})
                  for kind in [*SEAT_ACTIONS, "abandon"] for _ in range(30)]
    with socket(server, waiting) as ws_waiting, socket(server, c) as ws_other:
        for conn, batch in ((ws_waiting, messages + out_of_turn * 5), (ws_other, other_seat)):
            conn.recv(timeout=10)  # welcome
            conn.recv(timeout=10)  # ping
            errors = 0
            for raw in batch:
                conn.send(raw)
            for _ in batch:
                reply = json.loads(conn.recv(timeout=20))
                if reply["type"] == "error":
                    errors += 1
            assert errors == len(batch)
    after = httpx.get(f"{server.url}/api/games/{match_id}").json()
    assert after["v"] == before["v"] and after["game"] == before["game"]
    assert httpx.get(f"{server.url}/healthz").json() == {"ok": True}
    # the oversized frame (beyond the socket limit) only closes that socket
    with socket(server, waiting) as ws:
        ws.recv(timeout=10)
        ws.recv(timeout=10)
        with pytest.raises(Exception):  # noqa: B017 - the server closes the socket (1009)
            ws.send("z" * 200_000)
            ws.recv(timeout=10)
    assert httpx.get(f"{server.url}/api/games/{match_id}").json()["v"] == before["v"]


# -- scale-out: PostgreSQL and Redis, for real -------------------------------------------


@pytest.fixture(scope="module")
def two_servers() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two ``gammon serve`` processes of one deployment (a PostgreSQL database of their own,
    the Redis bus, one secret key: a session cookie works on both), started once for the
    tests below; no analysis at a match's end (a child process of CPU nothing here needs)."""
    redis_url = redis_reachable()
    with postgres_database() as database_url:
        env = {"GAMMON_DATABASE_URL": database_url, "GAMMON_REDIS_URL": redis_url,
               "GAMMON_RATE_LIMITS": "false", "GAMMON_SECRET_KEY": "shared-test-key",
               "GAMMON_ANALYSIS_ON_FINISH": "false"}
        servers = [ServerProcess(env), ServerProcess(env)]
        try:
            # started together (a start-up is seconds of CPU: one after the other they took
            # twice as long on two cores), each given the time a loaded machine may need
            with concurrent.futures.ThreadPoolExecutor(len(servers)) as pool:
                for started in [pool.submit(server.start, 120) for server in servers]:
                    started.result()
            yield servers[0], servers[1]
        finally:
            for server in servers:
                server.stop()


def test_two_server_processes_share_one_match(
        two_servers: tuple[ServerProcess, ServerProcess], stack: contextlib.ExitStack) -> None:
    first, second = two_servers
    a = session(stack, first, "anna")
    b = session(stack, second, "boris")
    game = a.post("/api/games", json={"kind": "match", "length": 1, "clock": "italian"}).json()
    # b sees the game in the lobby of the other process, and joins there
    assert any(g["id"] == game["id"] for g in b.get("/api/games").json())
    rng = random.Random(4)
    with socket(first, a) as wa, socket(second, b) as wb:
        pa, pb = Player.over_websockets(wa, "anna"), Player.over_websockets(wb, "boris")
        pa.subscribe(game["id"])
        assert b.post(f"/api/games/{game['id']}/join").status_code == 200
        pa.wait(lambda m: m["type"] == "update")  # the opening, made by the other process
        pb.subscribe(game["id"])
        players = {0: pa, 1: pb}
        pa.sync(pb.v)
        # a whole game, every action crossing between the two processes (random plays: a
        # game takes about 180 rolls and plays, 1 of 1,800 tried over 600: server seed 0x707
        # takes 661, and failed the test when it stopped at 600)
        for _ in range(5000):
            if pa.game["phase"] == "match_over":  # type: ignore[index]
                break
            play_turn(players, rng)
        assert pa.game["phase"] == pb.game["phase"] == "match_over"  # type: ignore[index]
        assert pa.events[-len(pb.events):] == pb.events
        # chat crosses too
        pb.send({"type": "chat", "match": game["id"], "text": "gg"})
        assert pa.wait(lambda m: m["type"] == "chat")["text"] == "gg"
    winner = pa.game["winner"]  # type: ignore[index]
    board = httpx.get(f"{second.url}/api/leaderboard").json()
    assert board[0]["name"] == ("anna", "boris")[winner] and board[0]["experience"] == 1
    record = httpx.get(f"{first.url}/api/games/{game['id']}/fairness").json()
    assert record["problems"] == []



def test_the_lobby_feed_and_the_options_cross_between_two_server_processes(
        two_servers: tuple[ServerProcess, ServerProcess], stack: contextlib.ExitStack) -> None:
    """A socket on one process follows the lobby of games opened, withdrawn and taken through
    the other; a player's options changed through one process act at once in a match whose
    room the other holds (alone, or with it)."""
    first, second = two_servers
    a, b = session(stack, first), session(stack, first)
    # a's session, used through the other process
    a_elsewhere = stack.enter_context(httpx.Client(base_url=second.url, timeout=20,
                                                   cookies={COOKIE: a.cookies[COOKIE]}))

    set_options(a)  # confirm and auto-roll off
    with socket(second, session(stack, second)) as ws:
        watcher = Player.over_websockets(ws, "watcher")
        ours: set[str] = set()

        def listed(*ids: str) -> None:
            """The feed comes to list ``ids`` of this test's games (a burst may be told
            once)."""
            watcher.wait(lambda m: m["type"] == "lobby"
                         and [g["id"] for g in m["games"] if g["id"] in ours] == list(ids))

        watcher.send({"type": "subscribe_lobby"})
        listed()
        withdrawn = a.post("/api/games", json={"kind": "single"}).json()["id"]
        ours.add(withdrawn)
        listed(withdrawn)
        match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
        ours.add(match_id)
        listed(withdrawn, match_id)
        assert a.delete(f"/api/games/{withdrawn}").status_code == 200
        listed(match_id)
        assert b.post(f"/api/games/{match_id}/join").status_code == 200
        listed()

    rng = random.Random(5)
    with socket(first, a) as wa, socket(first, b) as wb:
        # the room is held by the first process alone: the second only stores the options
        # and says so on the bus
        players = following(match_id, Player.over_websockets(wa, "a"),
                            Player.over_websockets(wb, "b"))
        # switched on while b is on turn (the bus has b's roll and play, a's roll, to get
        # there): a's next play waits for the confirmation
        until_turn(players, 1, "before_roll", rng)
        set_options(a_elsewhere, confirm_turn=True)
        until_turn(players, 0, "moving", rng)
        step_to_the_end(players, 0)
        game = players[0].game
        assert game is not None and (game["turn"], game["phase"]) == (0, "moving")
        assert game["can_confirm"]
        # switched off while the complete play waits: the first process ends the turn
        set_options(a_elsewhere, confirm_turn=False)
        ended = players[0].wait(lambda m: m["type"] == "update")
        assert "turn_ended" in kinds(ended) and ended["game"]["turn"] == 1
        players[1].sync(players[0].v)

    with socket(first, a) as wa, socket(second, b) as wb:
        # b plays through the second process, which holds the room too now
        players = following(match_id, Player.over_websockets(wa, "a"),
                            Player.over_websockets(wb, "b"))
        # auto-roll switched on through the first process: the second, ending b's turn,
        # rolls for a (in the same update, unless the bus brought the change only after
        # b's play: then the second rolls when it hears it)
        until_turn(players, 1, "before_roll", rng)
        set_options(a, auto_roll=True)
        pa, start = players[0], players[0].v

        def rolled_for_a() -> bool:
            return any(e["type"] == "dice_rolled" and e["player"] == 0
                       for e in pa.events[start - pa.base:])

        act(players, players[1], {"type": "roll"})
        game = players[1].game
        if game is not None and (game["turn"], game["phase"]) == (1, "moving"):
            play_turn(players, rng)  # (a roll with no legal play ended b's turn by itself)
        if not rolled_for_a():  # a never rolls here: the server must (within 20 s)
            pa.wait(lambda m: m["type"] == "update" and rolled_for_a())
        # switched off, then on through the second process while a is to roll: a roll at once
        rolled = auto_roll_on_while_to_roll(players, rng, a_elsewhere)
        assert players[1].wait(lambda m: m["type"] == "update")["v"] == rolled["v"]


def test_a_challenge_made_and_withdrawn_through_one_process_is_told_on_the_other(
        two_servers: tuple[ServerProcess, ServerProcess], stack: contextlib.ExitStack) -> None:
    """The challenged player's socket on one process is told (``challenges``) of a game
    reserved for them through the other, and of its withdrawal (the bus)."""
    first, second = two_servers
    challenger = session(stack, first, "chiara")
    challenged = session(stack, first, "dario")
    with socket(second, challenged) as ws:
        player = Player.over_websockets(ws, "dario")

        def received(*ids: str) -> None:
            player.wait(lambda m: m["type"] == "challenges"
                        and [g["id"] for g in m["received"]] == list(ids))

        player.send({"type": "subscribe_lobby"})
        received()
        made = challenger.post("/api/games", json={"kind": "single", "opponent": "dario"})
        assert made.status_code == 201, made.text
        received(made.json()["id"])
        assert challenger.delete(f"/api/games/{made.json()['id']}").status_code == 200
        received()
        assert not [m for m in player.log if protocol.server_message_errors(m)]


def test_play_now_pairs_players_on_two_processes_once_each(
        two_servers: tuple[ServerProcess, ServerProcess], stack: contextlib.ExitStack) -> None:
    """Four players in one Play now pool, two on each process (one PostgreSQL pool, the
    Redis bus): two matches, every player in exactly one, each told once on their own
    process; the watchers' counts cross too."""
    first, second = two_servers
    seek = {"type": "seek", "kind": "match", "length": 7, "clock": "polish", "rated": True}
    names = ["pia", "quinn", "rosa", "sven"]
    servers = [first, second, first, second]
    players = []
    for name, server in zip(names, servers, strict=True):
        ws = stack.enter_context(socket(server, session(stack, server, name)))
        player = Player.over_websockets(ws, name)
        player.send({"type": "subscribe_lobby"})
        player.wait(lambda m: m["type"] == "seeking")
        players.append(player)
    pia, quinn, rosa, sven = players
    pia.send(seek)
    pia.wait(lambda m: m["type"] == "seeking" and m["seek"] is not None)
    # a watcher on the other process sees one waiting in that pool
    sven.wait(lambda m: m["type"] == "pools" and m["pools"] == [
        {"kind": "match", "length": 7, "clock": "polish", "rated": True, "waiting": 1}])
    for player in (quinn, rosa, sven):
        player.send(seek)
    made = {p.name: p.wait(lambda m: m["type"] == "paired")["match"] for p in players}
    assert len(set(made.values())) == 2
    seats: dict[str, list[str]] = {}
    for match_id in set(made.values()):
        info = httpx.get(f"{second.url}/api/games/{match_id}").json()["info"]
        assert info["status"] == "playing" and info["rated"] and info["clock"] == "polish"
        seats[match_id] = [s["name"] for s in info["seats"]]
    assert sorted(n for pair in seats.values() for n in pair) == names  # each once
    assert all(made[name] == match_id for match_id, pair in seats.items() for name in pair)
    for player in players:  # told once (after a ping's answer: all sent before it), and
        player.send({"type": "ping", "id": "end"})  # nothing refused
        player.wait(lambda m: m["type"] == "pong" and m["id"] == "end")
        assert [m["type"] for m in player.log].count("paired") == 1
        assert not [m for m in player.log if protocol.server_message_errors(m)]
