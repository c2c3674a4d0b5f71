"""The job queue of the analyses on PostgreSQL: procrastinate's tables, types, functions and
triggers (:mod:`gammon.server.jobs`), in a schema of their own, ``procrastinate``, beside the
server's tables (``public``). Nothing on SQLite, where the server runs its analyses itself.

The SQL is the library's own (``procrastinate.schema.SchemaManager.get_schema()``, the
schema of the installed version, 3.x), run with ``search_path`` set to the schema: its
statements name no schema, so everything lands there, and the connections of
:mod:`gammon.server.jobs` set the same ``search_path``. Its own schema keeps it out of the
server's tables (``db.metadata`` and this schema are compared in
tests/server/test_migrations.py: ``public`` only) and makes the downgrade one statement.

A later procrastinate that changes its schema ships migration files
(``SchemaManager.get_migrations_path()``, named by version: ``03.05.00_01_pre_*.sql``,
``..._50_post_*.sql``): the upgrade to it comes with a new revision here that runs the files
newer than the version installed, in their order, the same way (``search_path`` set to
``procrastinate``); the ``pre`` files before the new version's workers start, the ``post``
ones once no old worker runs (procrastinate's documentation, "Migrating the schema").
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_job_queue"
down_revision = "0012_tournament_chat"

SCHEMA = "procrastinate"


def run_script(sql: str) -> None:
    """Run ``sql``, many statements (function bodies among them), in the migration's
    transaction: through the driver's own connection, as SQLAlchemy prepares one statement at
    a time."""
    from sqlalchemy.util import await_only

    driver = op.get_bind().connection.driver_connection
    assert driver is not None
    await_only(driver.execute(sql))  # asyncpg: one simple query, every statement in it


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    from procrastinate.schema import SchemaManager

    path = bind.exec_driver_sql("SELECT current_setting('search_path')").scalar_one()
    op.execute(f"CREATE SCHEMA {SCHEMA}")
    bind.execute(sa.text("SELECT set_config('search_path', :path, true)"), {"path": SCHEMA})
    run_script(SchemaManager.get_schema())
    bind.execute(sa.text("SELECT set_config('search_path', :path, true)"), {"path": path})


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"DROP SCHEMA {SCHEMA} CASCADE")
