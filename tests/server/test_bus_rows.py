"""The bus message of an action carries the committed rows: the other processes holding the
match apply them without reading the log — before, every action cost each of them a read of
the match and its new actions, a pooled connection and two round trips. When the rows cannot
stand in for the log (a gap before them, the match's end with its result and ratings), the
log is read as before."""

from __future__ import annotations

import json
import random
from typing import Any

from gammon.server.pubsub import LocalBus
from tests.server.conftest import run_async as run
from tests.server.helpers import random_play
from tests.server.test_hub import Server, Socket
from tests.server.test_stale_room import a_started_match, servers, until


def count_log_reads(server: Server) -> list[str]:
    reads: list[str] = []
    read = server.repo.match_with_actions

    async def counted(match_id: str, after: int = 0) -> Any:
        reads.append(match_id)
        return await read(match_id, after)

    server.repo.match_with_actions = counted  # type: ignore[method-assign]
    return reads


async def play(server: Server, match_id: str, users: Any, seed: int) -> None:
    """The player on turn rolls when the dice are not yet rolled, then plays (a roll
    that leaves no legal play passes the turn by itself: the next player rolls then)."""
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


async def watched_match(database_url: str, redis_url: str, bus: LocalBus
                        ) -> tuple[Server, Server, str, Any, Socket]:
    """Two server processes on ``bus``: ``acting``, where a started match is played, and
    ``watching``, holding the match with one of its players subscribed."""
    acting = await servers(database_url, redis_url, bus).start()
    watching = await servers(database_url, redis_url, bus).start()
    match_id, users = await a_started_match(acting, watching)
    socket = Socket(users[1])
    await watching.hub.subscribe(socket, match_id, since=None)
    return acting, watching, match_id, users, socket


async def play_unannounced(server: Server, match_id: str, users: Any, seed: int) -> None:
    """:func:`play` with ``server``'s bus messages lost."""
    publish = server.hub.publish

    async def drop(_message: dict[str, Any]) -> None:
        return None

    server.hub.publish = drop  # type: ignore[method-assign,assignment]
    try:
        await play(server, match_id, users, seed)
    finally:
        server.hub.publish = publish  # type: ignore[method-assign]


def test_the_other_process_applies_the_published_rows_without_reading_the_log(
        database_url: str, redis_url: str) -> None:
    async def main() -> None:
        acting, watching, match_id, users, socket = await watched_match(
            database_url, redis_url, LocalBus())
        reads = count_log_reads(watching)

        await play(acting, match_id, users, 1)  # the play and the next roll: one transition
        stored = await acting.room(match_id)
        await until(lambda: socket.sent[-1].get("v") == stored.version)
        held = await watching.room(match_id)
        assert json.loads(json.dumps(held.game_json())) == \
            json.loads(json.dumps(stored.game_json()))
        assert held.seq == stored.seq and reads == []

        # a message lost: the next one leaves a gap, and the log fills it
        await play_unannounced(acting, match_id, users, 2)
        await play(acting, match_id, users, 3)
        await until(lambda: socket.sent[-1].get("v") == stored.version)
        assert held.seq == stored.seq and reads == [match_id]
        assert json.loads(json.dumps(held.game_json())) == \
            json.loads(json.dumps(stored.game_json()))
        await watching.stop()
        await acting.stop()

    run(main)


def test_messages_queued_behind_a_log_read_that_got_ahead_of_them_read_nothing_more(
        database_url: str, redis_url: str) -> None:
    async def main() -> None:
        bus = LocalBus()
        acting, watching, match_id, users, socket = await watched_match(
            database_url, redis_url, bus)
        held = await watching.room(match_id)
        reads = count_log_reads(watching)

        await play_unannounced(acting, match_id, users, 2)  # the next message leaves a gap
        async with held.lock:  # the watcher busy: the next messages queue on the lock
            for seed in (3, 4):
                await play(acting, match_id, users, seed)
        stored = await acting.room(match_id)
        # the first message's gap reads the log, which holds the later ones too
        await until(lambda: socket.sent[-1].get("v") == stored.version)
        await until(lambda: not bus._tasks)  # every message handled
        assert reads == [match_id] and held.seq == stored.seq
        assert json.loads(json.dumps(held.game_json())) == \
            json.loads(json.dumps(stored.game_json()))
        await watching.stop()
        await acting.stop()

    run(main)
