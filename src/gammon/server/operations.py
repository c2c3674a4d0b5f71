"""A store's operations run whole: each a plain function of a synchronous SQLAlchemy
connection (its statements one after another), run in one step on either store.

On SQLite a request through aiosqlite pays four thread hops a statement (cursor, execute,
fetch, close) and one more to hand the connection back: 0.33 ms of CPU for one read of one
row, 1.1 ms for five, against 0.12 and 0.20 ms for the same statements run in a thread of
our own on a synchronous connection, one hop for the whole operation (measured on the
puzzle routes, where they were most of a request's cost; benchmarks/load.py
--puzzle-rps). So on SQLite an operation runs in a small pool of threads of its own, on
the same database file with the same pragmas (:func:`sqlite_pragmas`); on
PostgreSQL it runs on the async engine's own connection (``run_sync``: asyncpg underneath,
no thread). A database in memory (some tests) has no file to share: there the operation
runs through the async engine too.

A transaction on SQLite starts with ``BEGIN IMMEDIATE``: the write lock is taken before the
operation's reads, so what it reads (a rating it then moves) cannot change under it. The
transactions run one at a time in a thread of their own: writers that met at SQLite's lock
would wait in its busy handler's sleeps (1, 2, 5, 10 … 100 ms, however soon the lock is
free: the puzzle answers' p99 was twice the other routes'); in a queue each starts as the
last ends. Reads never wait for them (WAL).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import DBAPIConnection
    from sqlalchemy.pool import ConnectionPoolEntry


def sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    """Every SQLite connection's settings: WAL, ``synchronous=NORMAL``, a busy timeout and
    foreign keys."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def single_statements(engine: AsyncEngine) -> AsyncEngine:
    """``engine`` for reads, and writes of one statement: on PostgreSQL without a
    transaction block (no BEGIN before the statement and no ROLLBACK or COMMIT after it,
    two round trips fewer, each of which held the connection "idle in transaction" until a
    busy event loop came back to it). A statement is atomic on its own, and reads see
    committed data either way (READ COMMITTED: a snapshot per statement)."""
    return (engine.execution_options(isolation_level="AUTOCOMMIT")
            if engine.dialect.name == "postgresql" else engine)


T = TypeVar("T")

Operation = Callable[[sa.Connection], T]


class Operations:
    """Runs operations on ``engine``'s database (:meth:`read`, :meth:`transaction`);
    :meth:`close` when done. Threads and connections are made on first use."""

    THREADS = 4
    """SQLite's threads for reads, which run side by side (WAL); transactions have one."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._reads = single_statements(engine)
        url = engine.url
        self._file = (url.get_backend_name() == "sqlite" and url.database not in (None, "")
                      and url.database != ":memory:" and "memory" not in url.query.values())
        self._sync: sa.Engine | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._writer: ThreadPoolExecutor | None = None

    def _sqlite(self, write: bool) -> tuple[sa.Engine, ThreadPoolExecutor]:
        if self._sync is None or self._threads is None or self._writer is None:
            self._sync = sa.create_engine(self.engine.url.set(drivername="sqlite"),
                                          connect_args={"timeout": 30},
                                          pool_size=self.THREADS + 1, max_overflow=0)
            event.listen(self._sync, "connect", sqlite_pragmas)
            self._threads = ThreadPoolExecutor(self.THREADS, thread_name_prefix="sqlite")
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        return self._sync, self._writer if write else self._threads

    async def read(self, operation: Operation[T]) -> T:
        """``operation``'s result, its statements run outside a transaction block where the
        store allows (each reads committed data)."""
        if not self._file:
            async with self._reads.connect() as conn:
                return await conn.run_sync(operation)
        sync, threads = self._sqlite(write=False)

        def run() -> T:
            with sync.connect() as conn:
                return operation(conn)

        return await asyncio.get_running_loop().run_in_executor(threads, run)

    async def transaction(self, operation: Operation[T]) -> T:
        """``operation``'s result, its statements one transaction: committed when it
        returns, rolled back when it raises (the exception goes on to the caller)."""
        if not self._file:
            async with self.engine.begin() as conn:
                return await conn.run_sync(operation)
        sync, writer = self._sqlite(write=True)

        def run() -> T:
            with sync.connect() as conn:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                try:
                    result = operation(conn)
                except BaseException:
                    conn.rollback()
                    raise
                conn.commit()
                return result

        return await asyncio.get_running_loop().run_in_executor(writer, run)

    async def close(self) -> None:
        for threads in (self._threads, self._writer):
            if threads is not None:
                threads.shutdown(wait=True)
        if self._sync is not None:
            self._sync.dispose()
        self._sync = self._threads = self._writer = None
