"""Alembic environment: run with the connection the server passes in
(``config.attributes['connection']``), or from ``alembic.ini`` / ``GAMMON_DATABASE_URL``."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy import Connection

from gammon.server.db import make_engine, metadata


def run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


async def run_async(url: str) -> None:
    engine = make_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(run)
    await engine.dispose()


def main() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if connection is not None:
        run(connection)
    elif context.is_offline_mode():
        context.configure(url=config.get_main_option("sqlalchemy.url"),
                          target_metadata=metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
    else:
        url = os.environ.get("GAMMON_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
        asyncio.run(run_async(url or "sqlite+aiosqlite:///gammon.db"))


if hasattr(context, "config"):  # not when merely imported (doctest collection)
    main()
