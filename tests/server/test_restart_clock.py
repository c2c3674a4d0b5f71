"""Server downtime credited to a running clock: the ``clock_pause`` log record, replayed
like any action, and the heartbeats that measure the downtime."""

from __future__ import annotations

import asyncio
import concurrent.futures
from types import SimpleNamespace
from typing import Any

from gammon.server import protocol
from gammon.server.db import Repository, make_engine, migrate, server_kv
from gammon.server.fairness import commitment
from gammon.server.rooms import PAUSE, Room, rules_for, rules_json
from gammon.views import MatchConfig

SEED = "ab" * 32


def new_room() -> Room:
    config = MatchConfig(kind="match", length=3, clock="polish")
    row = SimpleNamespace(
        id="m1", config=config, status="playing", player0=1, player1=2,
        server_seed=SEED, seed_hash=commitment(SEED), client_seed0="", client_seed1="",
        private=False, rated=False, reserved_for=None, rematch_of=None,
        rules=rules_json(rules_for(config)), result=None)
    return Room.from_row(row)


def log_of_a_running_turn() -> list[tuple[dict[str, Any], float]]:
    """The stored records of a match whose opening roll was at t=100: the opener's clock
    runs; then the server was down from 110 to 170 and credited 60 s."""
    room = new_room()
    assert room.match is not None
    opening = room.match.opening_action(room.dice().source(0))
    return [(protocol.action_json(opening), 100.0), ({"t": PAUSE, "seconds": 60.0}, 170.0)]


def test_replay_of_a_pause_record_shifts_the_running_action() -> None:
    records = log_of_a_running_turn()
    plain = new_room()
    plain.replay(*records[0])
    paused = new_room()
    events = [e for record in records for e in paused.replay(*record)]
    assert plain.clock is not None and paused.clock is not None
    running = paused.clock.running
    assert running is not None and running == plain.clock.running
    assert paused.clock.since == plain.clock.since + 60.0  # type: ignore[operator]
    assert paused.clock.remaining(running, 175.0) == plain.clock.remaining(running, 115.0)
    assert paused.clock.flag_time() == plain.clock.flag_time() + 60.0  # type: ignore[operator]
    assert events[-1] == {"type": "clock_paused", "player": running, "seconds": 60.0,
                          "v": paused.version}
    assert paused.seq == 2 and paused.last_at == 170.0
    # a second replay of the same log (a second restart) gives the same clock
    again = new_room()
    for record in records:
        again.replay(*record)
    assert again.clock == paused.clock and again.events == paused.events


def test_a_pause_with_no_clock_running_changes_no_clock() -> None:
    room = new_room()
    clock = room.clock
    assert room.pause(5.0, 50.0)[0]["player"] is None
    assert room.clock == clock and room.seq == 1


def test_heartbeats_keep_the_latest_time_of_any_process(database_url: str) -> None:
    async def main() -> None:
        engine = make_engine(database_url)
        await migrate(engine)
        repo = Repository(engine)
        assert await repo.last_heartbeat() is None
        await repo.heartbeat("a", 1000.0)
        await repo.heartbeat("b", 5000.0)
        await repo.heartbeat("a", 5002.5)
        assert await repo.last_heartbeat() == 5002.5
        await repo.heartbeat("c", 9000.0)  # a and b silent for over an hour: dropped
        assert await repo.last_heartbeat() == 9000.0
        async with engine.connect() as conn:
            keys = (await conn.scalars(server_kv.select().with_only_columns(
                server_kv.c.key))).all()
        assert sorted(k for k in keys if k.startswith("heartbeat:")) == ["heartbeat:c"]
        await repo.close()
        await engine.dispose()

    # in a thread of its own: another test's event loop may still run in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, main()).result()

