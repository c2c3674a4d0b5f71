"""A store's operation run whole (:mod:`gammon.server.operations`), on both stores: a
transaction is committed when the operation returns and leaves nothing when it raises;
writers that read what they then change take turns (no update lost); reads see committed
data; a SQLite database in memory, with no file to share, runs through the async engine."""

from __future__ import annotations

import asyncio
import time

import pytest
import sqlalchemy as sa

from gammon.server.db import make_engine, metadata, migrate, server_kv
from gammon.server.operations import Operations
from tests.server.conftest import run_async


async def _operations(database_url: str) -> Operations:
    engine = make_engine(database_url)
    await migrate(engine)  # at the head already: a no-op, unless the first test here
    return Operations(engine)


def _value(conn: sa.Connection) -> str | None:
    return conn.execute(sa.select(server_kv.c.value).where(server_kv.c.key == "k")).scalar()


def test_a_transaction_is_kept_whole_or_not_at_all(database_url: str) -> None:
    async def run() -> tuple[str | None, str | None]:
        operations = await _operations(database_url)
        try:
            def half_then_fail(conn: sa.Connection) -> None:
                conn.execute(server_kv.insert(), {"key": "k", "value": "half"})
                raise RuntimeError("the operation fails after its first write")

            with pytest.raises(RuntimeError):
                await operations.transaction(half_then_fail)
            after_failure = await operations.read(_value)
            await operations.transaction(
                lambda conn: conn.execute(server_kv.insert(), {"key": "k", "value": "whole"}))
            return after_failure, await operations.read(_value)
        finally:
            await operations.close()
            await operations.engine.dispose()

    assert run_async(run) == (None, "whole")


def test_writers_that_read_then_write_take_turns(database_url: str) -> None:
    """Eight operations each read a counter, wait a little and write it plus one: all
    eight count (the row lock on PostgreSQL, the write lock taken first on SQLite)."""
    async def run() -> str | None:
        operations = await _operations(database_url)
        try:
            await operations.transaction(
                lambda conn: conn.execute(server_kv.insert(), {"key": "k", "value": "0"}))

            def add_one(conn: sa.Connection) -> None:
                value = conn.execute(sa.select(server_kv.c.value).where(
                    server_kv.c.key == "k").with_for_update()).scalar_one()
                time.sleep(0.02)  # another writer would read the same value here
                conn.execute(server_kv.update().where(server_kv.c.key == "k")
                             .values(value=str(int(value) + 1)))

            await asyncio.gather(*(operations.transaction(add_one) for _ in range(8)))
            return await operations.read(_value)
        finally:
            await operations.close()
            await operations.engine.dispose()

    assert run_async(run) == "8"


def test_a_database_in_memory_runs_through_the_async_engine() -> None:
    async def run() -> tuple[str | None, bool]:
        engine = make_engine("sqlite+aiosqlite://")
        operations = Operations(engine)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(metadata.create_all, tables=[server_kv])
            await operations.transaction(
                lambda conn: conn.execute(server_kv.insert(), {"key": "k", "value": "v"}))
            return await operations.read(_value), operations._sync is None
        finally:
            await operations.close()
            await engine.dispose()

    assert run_async(run) == ("v", True)
