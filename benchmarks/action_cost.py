"""The server's own CPU per player action, without the network or the database: matches
played through :class:`gammon.server.rooms.Room` (plan, commit), each action's ``update``
built and written as JSON for the two players as the hub sends it, the moves of the player
on turn included. Process CPU time, so other work on the machine hardly changes it.

With ``--store sqlite`` or ``--store postgresql`` each transition is also stored as the
hub stores it (:func:`gammon.server.rooms.stored_row`, :meth:`Repository.append_many
<gammon.server.db.Repository.append_many>`, awaited before its updates are built; the
match's end and ratings aside), in a database file in a temporary folder or a database made
for the run on ``--postgres`` and dropped after it; one action at a time, so each SQLite
group commit holds one transition. The CPU is the process's, the database driver's
threads included (not the PostgreSQL server's).

Run: ``python benchmarks/action_cost.py [--matches 40] [--repeats 5] [--store none]``;
prints the median over the repeats of CPU microseconds per action and, with ``--json``,
one JSON line. Against a tree from before the views were split by viewer
(``update_message`` without ``on_turn``), it builds the one update the hub then sent to
both players.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

from gammon.core import actions as A
from gammon.core.match import Phase
from gammon.server.fairness import commitment
from gammon.server.rooms import Room, rules_for, rules_json
from gammon.views import MatchConfig

try:  # the server's JSON writer, where the tree has one
    from gammon.server.jsontext import dumps
except ImportError:  # pragma: no cover - older trees
    dumps = json.dumps

SEED = "cd" * 32
PER_VIEWER = "on_turn" in inspect.signature(Room.update_message).parameters


def seated_room(index: int) -> Room:
    config = MatchConfig(kind="match", length=3, clock="none")
    options: tuple[Any, ...] = () if len(inspect.signature(rules_for).parameters) == 1 \
        else (({}, {}),)  # older trees: the players' options went into the rules
    row = SimpleNamespace(
        id=f"m{index}", config=config, status="playing", player0=1, player1=2,
        server_seed=SEED, seed_hash=commitment(SEED),
        client_seed0=f"a{index}", client_seed1="b", private=False, rated=False,
        reserved_for=None, rematch_of=None, rules=rules_json(rules_for(config, *options)),
        result=None)
    return Room.from_row(row)


def player_action(room: Room) -> A.Action:
    """What the simulated player does (not timed): roll, or the first remaining play."""
    assert room.match is not None
    game = room.match.game
    if game.phase is Phase.BEFORE_ROLL:
        return game.roll_action(room.dice().source(room.dice_count))
    return A.PlayMove(game.turn, game.remaining_plays()[0].notation())


def updates(room: Room, events: list[Any], now: float) -> list[str]:
    """The texts the hub writes for the two players of ``room``."""
    if not PER_VIEWER:
        return [dumps(room.update_message(events, now))]
    texts: dict[bool, str] = {}
    for user in (1, 2):
        on_turn = room.on_turn(user)
        if on_turn not in texts:
            texts[on_turn] = dumps(room.update_message(events, now, on_turn=on_turn))
    return list(texts.values())


def run(matches: int) -> float:
    """CPU seconds per action over ``matches`` whole matches."""
    spent, actions = 0.0, 0
    for index in range(matches):
        room = seated_room(index)
        at = 1000.0
        for step in room.plan(None, at, at):
            room.commit(step)
        assert room.match is not None
        while not room.match.is_over:
            action = player_action(room)
            at += 1.0
            started = time.process_time()
            events = [e for step in room.plan(action, at, at) for e in room.commit(step)]
            updates(room, events, at)
            spent += time.process_time() - started
            actions += 1
    return spent / actions


async def run_stored(repo: Any, matches: int, prefix: str) -> float:
    """:func:`run`, each transition stored in ``repo`` before its updates."""
    from gammon.server.db import insert_match
    from gammon.server.records import MatchRow
    from gammon.server.rooms import stored_row

    spent, actions = 0.0, 0
    for index in range(matches):
        room = seated_room(index)
        room.id = f"{prefix}{index}"
        at = 1000.0
        opening = room.plan(None, at, at)
        row = MatchRow(id=room.id, created_at=at, status="playing", config=room.config,
                       player0=None, server_seed=SEED, seed_hash=room.seed_hash)
        async with repo.engine.begin() as conn:
            await insert_match(conn, row, [stored_row(step) for step in opening])
        for step in opening:
            room.commit(step)
        assert room.match is not None
        while not room.match.is_over:
            action = player_action(room)
            at += 1.0
            started = time.process_time()
            steps = room.plan(action, at, at)
            await repo.append_many(room.id, room.seq + 1, [stored_row(s) for s in steps])
            events = [e for step in steps for e in room.commit(step)]
            updates(room, events, at)
            spent += time.process_time() - started
            actions += 1
    return spent / actions


@asynccontextmanager
async def repository(store: str, postgres: str) -> AsyncIterator[Any]:
    """A repository on a fresh database of ``store``, migrated; removed after."""
    from gammon.server.db import Repository, make_engine, migrate

    with tempfile.TemporaryDirectory() as folder:
        admin = name = None
        if store == "sqlite":
            url = f"sqlite+aiosqlite:///{folder}/gammon.db"
        else:
            import asyncpg

            admin = postgres.replace("postgresql+asyncpg://", "postgresql://")
            name = f"gammon_action_cost_{secrets.token_hex(4)}"
            conn = await asyncpg.connect(admin)
            await conn.execute(f'CREATE DATABASE "{name}"')
            await conn.close()
            url = admin.rsplit("/", 1)[0].replace("postgresql://",
                                                   "postgresql+asyncpg://") + f"/{name}"
        engine = make_engine(url)
        try:
            await migrate(engine)
            repo = Repository(engine)
            try:
                yield repo
            finally:
                await repo.close()
        finally:
            await engine.dispose()
            if admin is not None:
                conn = await asyncpg.connect(admin)
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                await conn.close()


async def measure_stored(args: argparse.Namespace) -> list[float]:
    async with repository(args.store, args.postgres) as repo:
        await run_stored(repo, 2, "warm")
        return [await run_stored(repo, args.matches, f"r{n}-")
                for n in range(args.repeats)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--store", choices=("none", "sqlite", "postgresql"), default="none",
                        help="also store each transition (default: none)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="the PostgreSQL server's administrative database (--store "
                             "postgresql)")
    args = parser.parse_args(argv)
    run(2)  # compile / warm up
    if args.store == "none":
        costs = [run(args.matches) for _ in range(args.repeats)]
    else:
        costs = asyncio.run(measure_stored(args))
    median = statistics.median(costs) * 1e6
    stored = "" if args.store == "none" else f", stored on {args.store}"
    print(f"CPU per action: {median:.0f} µs (median of {args.repeats} runs of "
          f"{args.matches} matches{stored}; runs {', '.join(f'{c * 1e6:.0f}' for c in costs)})",
          file=sys.stderr)
    if args.json:
        print(json.dumps({"cpu_us_per_action": round(median, 1), "per_viewer": PER_VIEWER,
                          "store": args.store}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
