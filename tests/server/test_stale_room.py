"""The hub after a process died between its commit and its publish: the other processes hold
the match's room at the version before that commit, and nothing on the bus tells them to
catch up. Before the fix they served the stale state to every socket that (re)subscribed and
to the sockets already watching, until the next action stored through them — and when that
next action was the other side's, nobody could make it: a stranded match.

Two hubs share one database and one bus (SQLite with the in-process bus, PostgreSQL with
Redis); the dying one stores a play, and its publish is lost. Now a subscription reads the
log (catches up) before it answers, and a process that starts announces it on the bus, so
that the others catch up every room they hold.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from gammon.server.db import User
from gammon.server.pubsub import LocalBus
from gammon.views import MatchConfig
from tests.server.conftest import run_async as run
from tests.server.helpers import random_play
from tests.server.test_hub import Server, Socket, two_players


class Line:
    """One process's end of a shared in-process bus (closing it leaves the others')."""

    def __init__(self, bus: LocalBus) -> None:
        self.bus = bus
        self.handler: Any = None

    async def start(self, handler: Any) -> None:
        self.handler = handler
        await self.bus.start(handler)

    async def publish(self, message: dict[str, Any]) -> None:
        await self.bus.publish(message)

    async def close(self) -> None:
        self.bus._handlers.remove(self.handler)


def servers(database_url: str, redis_url: str, bus: LocalBus) -> Server:
    server = Server(database_url, redis_url)
    if not redis_url:  # several processes' hubs on the in-process bus
        server.hub.bus = Line(bus)
    return server


async def until(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not caught up"
        await asyncio.sleep(0.02)


async def a_started_match(first: Server, second: Server) -> tuple[str, tuple[User, User]]:
    """Created and joined in ``first``; ``second`` holds the room too, at the same
    version; no clock (so no downtime credit is stored: only the log can tell)."""
    users = await two_players(first)
    room = await first.lobby.create(users[0], MatchConfig(kind="match", length=3))
    await first.lobby.join(users[1], room.id)
    held = await second.room(room.id)
    assert held.version == (await first.room(room.id)).version
    return room.id, users


async def play_and_die_unannounced(dying: Server, match_id: str, users: tuple[User, User]
                                   ) -> tuple[int, dict[str, Any]]:
    """``dying`` stores the opening player's play and dies before its publish; the version
    and the game it stored."""
    async def lost(_message: dict[str, Any]) -> None:
        return None

    room = await dying.room(match_id)
    assert room.match is not None
    dying.hub.publish = lost  # type: ignore[method-assign,assignment]
    game: dict[str, Any] = json.loads(json.dumps(room.game_json()))  # as on the wire
    assert game is not None and game["phase"] == "moving"
    await dying.act(users[game["turn"]], match_id, "play",
                    play=random_play(game, random.Random(1)))
    stored = room.version, json.loads(json.dumps(room.game_json()))
    await dying.die()
    return stored


def test_a_subscription_after_an_unannounced_commit_gets_the_stored_state(
        database_url: str, redis_url: str) -> None:
    async def main() -> None:
        bus = LocalBus()
        survivor = await servers(database_url, redis_url, bus).start()
        dying = await servers(database_url, redis_url, bus).start()
        match_id, users = await a_started_match(survivor, dying)
        stored, game = await play_and_die_unannounced(dying, match_id, users)

        socket = Socket(users[0])
        await survivor.hub.subscribe(socket, match_id, since=0)
        answer = socket.sent[-1]
        assert answer["type"] == "update"
        assert answer["v"] == stored and len(answer["events"]) == stored, \
            (answer["v"], stored)
        assert answer["game"] == game  # the play the dying process stored
        await survivor.stop()

    run(main)


def test_a_restarted_process_makes_the_others_catch_up_their_watchers(
        database_url: str, redis_url: str) -> None:
    async def main() -> None:
        bus = LocalBus()
        survivor = await servers(database_url, redis_url, bus).start()
        dying = await servers(database_url, redis_url, bus).start()
        match_id, users = await a_started_match(survivor, dying)
        watching = Socket(users[1])
        await survivor.hub.subscribe(watching, match_id, since=None)
        stored, game = await play_and_die_unannounced(dying, match_id, users)
        assert (await survivor.room(match_id)).version < stored  # nothing announced it

        restarted = await servers(database_url, redis_url, bus).start()
        await until(lambda: watching.sent[-1].get("v") == stored)
        update = watching.sent[-1]
        assert update["type"] == "update" and update["game"] == game
        assert (await survivor.room(match_id)).version == stored
        await restarted.stop()
        await survivor.stop()

    run(main)


def test_a_subscription_while_the_room_catches_up_waits_for_the_stored_state(
        database_url: str, redis_url: str) -> None:
    """A seat taken in another process, announced, while this process is at work on the
    room (its catch-up holds the room's lock): a socket that subscribes then is greeted
    with the match as stored, not with the open match it held (the first message a client
    gets must be the state it plays from)."""
    async def main() -> None:
        bus = LocalBus()
        holder = await servers(database_url, redis_url, bus).start()
        other = await servers(database_url, redis_url, bus).start()
        users = await two_players(holder)
        room = await holder.lobby.create(users[0], MatchConfig(kind="match", length=3))
        assert room.match is None  # open, held by the creator's process
        socket = Socket(users[0])
        async with room.lock:  # the holder at work on the room
            await other.lobby.join(users[1], room.id)  # stored and announced elsewhere
            subscribing = asyncio.create_task(holder.hub.subscribe(socket, room.id, None))
            await asyncio.sleep(0.05)
        await subscribing
        greeting = socket.sent[0]
        assert greeting["type"] == "state" and greeting["game"] is not None, greeting
        assert greeting["info"]["status"] == "playing"
        await other.stop()
        await holder.stop()

    run(main)
