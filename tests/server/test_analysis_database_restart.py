"""An analysis running while PostgreSQL restarts: before, its bookkeeping during the run —
the progress it stores, and the look a deep analysis takes at the queue (does a quick one
wait?) every half second — met the dead connections of the pool, and the analysis was
marked failed with that error, the child's work thrown away, although nothing was wrong
with it and the database was back a moment later. Now a failed store of progress or look
at the queue is logged and tried again at the next one, and the analysis ends done.

PostgreSQL only: the restart of a database server, whose connections then die (here every
connection to the test's database is ended, as a restart ends them). SQLite has no
connection to lose: a write held up by a lock waits its busy timeout (30 s) instead.
"""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from gammon.server.analysis_worker import DEEP, AnalysisRunner, AnalysisStore, Status
from gammon.server.db import make_engine, match_analyses, migrate
from tests.server.conftest import _postgres_admin, empty_postgres_database, make_settings
from tests.server.conftest import run_async as run
from tests.server.test_jobs import store_match


def end_every_connection(url: str) -> None:
    """End every connection to the database of ``url``, as a restart of PostgreSQL does."""
    name = url.rsplit("/", 1)[1]
    _postgres_admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    f"WHERE datname = '{name}' AND pid <> pg_backend_pid()")


def test_a_deep_analysis_running_while_postgresql_restarts_ends_done(
        postgres_session_database: str) -> None:
    url = postgres_session_database
    empty_postgres_database(url)

    async def migrated() -> None:
        engine = make_engine(url)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    run(migrated)
    store_match(url, "restartmatch1", "gnubg_match3")

    async def main() -> tuple[str, str, int]:
        engine = make_engine(url)
        store = AnalysisStore(engine)
        started = False

        async def announce(status: Status) -> None:
            nonlocal started
            if status.status == "running" and not started:  # its input read, its child
                started = True                              # about to start
                await asyncio.to_thread(end_every_connection, url)

        runner = AnalysisRunner(make_settings(url), store, announce, 1)
        try:
            await store.enqueue("restartmatch1", 1, DEEP, 10)
            result = await runner.run("restartmatch1", 1, owner="job:1")
            assert started
            async with engine.connect() as conn:
                row = (await conn.execute(sa.select(match_analyses.c.status,
                                                    match_analyses.c.attempts))).one()
            return result, row.status, row.attempts
        finally:
            runner.close()
            await engine.dispose()

    assert run(main) == ("done", "done", 1)
