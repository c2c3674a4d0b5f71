"""The Redis bus after Redis restarts: before, the listener of every process died with the
first connection error and never subscribed again, so that no process heard another any
more: every match with its players on two processes stopped, with no error anywhere.

Two hubs share one database (both stores) and a Redis server of the test's own — a real
one, restarted here without touching the Redis the other tests use. Now the bus subscribes
again by itself and the rooms then catch up with the log (what was published while Redis
was away is lost); the lobby's watchers are then told the open games and their challenges
again, read from the database.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from gammon.server.bus_messages import Resync, parse
from gammon.server.db import User
from gammon.server.pubsub import RESYNC, RedisBus
from gammon.views import MatchConfig
from tests.server.conftest import run_async as run
from tests.server.helpers import random_play
from tests.server.test_hub import Server, Socket, two_players
from tests.server.test_stale_room import a_started_match, until


class OwnRedis:
    """A ``redis-server`` of the test's own on a free port, stopped and started at will."""

    def __init__(self) -> None:
        if shutil.which("redis-server") is None:
            pytest.fail("redis-server is not installed (.ci/run starts the suite's with it)")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    redis = OwnRedis()
    redis.start()
    yield redis
    redis.stop()


def bus_of(server: Server) -> RedisBus:
    bus = server.hub.bus
    assert isinstance(bus, RedisBus)
    return bus


async def play_one(server: Server, match_id: str, users: tuple[User, User], seed: int
                   ) -> int:
    """The player on turn rolls if need be, then plays; the version stored."""
    room = await server.room(match_id)
    game: dict[str, Any] = json.loads(json.dumps(room.game_json()))
    for _ in range(20):
        if game["phase"] != "before_roll":
            break
        await server.act(users[game["turn"]], match_id, "roll")
        game = json.loads(json.dumps(room.game_json()))
    assert game["phase"] == "moving"
    await server.act(users[game["turn"]], match_id, "play",
                     play=random_play(game, random.Random(seed)))
    return room.version


def test_the_bus_resync_is_the_hubs_resync_message() -> None:
    assert parse(RESYNC) == Resync()


def test_after_redis_restarts_the_other_process_hears_every_action_again(
        database_url: str, own_redis: OwnRedis) -> None:
    async def main() -> None:
        acting = await Server(database_url, own_redis.url).start()
        watching = await Server(database_url, own_redis.url).start()
        try:
            match_id, users = await a_started_match(acting, watching)
            socket = Socket(users[1])
            await watching.hub.subscribe(socket, match_id, since=None)

            # Redis restarts: once the watching process has subscribed again, it hears
            # the next action
            own_redis.stop()
            own_redis.start()
            await until(lambda: bus_of(watching).reconnects >= 1)
            stored = await play_one(acting, match_id, users, 1)
            await until(lambda: socket.sent[-1].get("v") == stored)

            # an action stored while Redis is away: its message is lost, and the watching
            # process catches up with the log once it listens again
            own_redis.stop()
            stored = await play_one(acting, match_id, users, 2)
            assert socket.sent[-1].get("v") != stored
            own_redis.start()
            await until(lambda: socket.sent[-1].get("v") == stored, seconds=20)
            assert socket.sent[-1]["type"] == "update"
            held, acted = await watching.room(match_id), await acting.room(match_id)
            assert json.loads(json.dumps(held.game_json())) == \
                json.loads(json.dumps(acted.game_json()))
        finally:
            await watching.stop()
            await acting.stop()

    run(main)


def test_after_redis_is_back_the_lobby_watchers_hear_what_they_missed(
        database_url: str, own_redis: OwnRedis) -> None:
    async def main() -> None:
        making = await Server(database_url, own_redis.url).start()
        watching = await Server(database_url, own_redis.url).start()
        try:
            users = await two_players(making)
            watcher = Socket(users[1])  # follows the lobby on the other process

            def games() -> list[str]:
                lobby = [m for m in watcher.sent if m["type"] == "lobby"]
                return [g["id"] for g in lobby[-1]["games"]] if lobby else []

            def challenged() -> list[str]:
                told = [m for m in watcher.sent if m["type"] == "challenges"]
                return [g["id"] for g in told[-1]["received"]] if told else []

            watching.lobby.watch(watcher)
            await until(lambda: any(m["type"] == "lobby" for m in watcher.sent))
            own_redis.stop()  # what is published now is lost
            public = await making.lobby.create(users[0], MatchConfig(kind="match", length=3))
            reserved = await making.lobby.create(users[0], MatchConfig(kind="single"),
                                                 reserved_for=users[1].id)
            await asyncio.sleep(0.5)
            assert public.id not in games() and reserved.id not in challenged()
            own_redis.start()
            await until(lambda: public.id in games() and reserved.id in challenged(),
                        seconds=20)
        finally:
            await watching.stop()
            await making.stop()

    run(main)
