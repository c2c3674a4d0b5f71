"""The schema the Alembic migrations build is the one the code declares (``db.metadata``),
on SQLite and on PostgreSQL: a table changed without a migration (or a migration without the
table) would pass every test on a fresh database and break every existing deployment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from gammon.server.db import alembic_config, make_engine, metadata, migrate
from tests.server.conftest import STORES, postgres_database, run_async


@pytest.fixture(params=STORES)
def fresh_database(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A database nobody has touched (not the emptied one the other tests share)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path}/schema.db"
    else:
        with postgres_database() as url:
            yield url


async def _differences(url: str, *, to: str = "head") -> tuple[list[Any], str | None]:
    """Migrate a database to ``to`` (up from nothing, or down from the head), then the
    differences between it and the metadata, and the revision it is at."""
    engine = make_engine(url)

    def run(connection: sa.Connection) -> tuple[list[Any], str | None]:
        if to != "head":
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, to)
            command.upgrade(config, "head")
        context = MigrationContext.configure(connection)
        return compare_metadata(context, metadata), context.get_current_revision()

    try:
        await migrate(engine)
        async with engine.begin() as conn:
            return await conn.run_sync(run)
    finally:
        await engine.dispose()


def test_the_migrations_build_the_declared_tables(fresh_database: str) -> None:
    """Upgraded from an empty database to the head, the schema equals ``db.metadata``
    (``compare_metadata`` lists every missing or extra table, column, index and type)."""
    differences, revision = run_async(lambda: _differences(fresh_database))
    assert differences == []
    assert revision == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_every_migration_downgrades_and_upgrades_again(fresh_database: str) -> None:
    """Down to nothing and up again: every revision's downgrade undoes its upgrade, and the
    result is still the declared schema."""
    differences, _ = run_async(lambda: _differences(fresh_database, to="base"))
    assert differences == []
