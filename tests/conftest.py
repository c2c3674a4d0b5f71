"""Fixtures of the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.processes import ServerProcess


@pytest.fixture(scope="session")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One ``gammon serve`` on SQLite, rate limits off, for the session's tests that need a
    real server but no store of their own (a start-up is seconds of CPU): each of them uses
    accounts of its own, and changes nothing another looks at."""
    path = tmp_path_factory.mktemp("sqlite-server") / "gammon.db"
    server = ServerProcess({"GAMMON_DATABASE_URL": f"sqlite+aiosqlite:///{path}",
                            "GAMMON_RATE_LIMITS": "false"}).start()
    try:
        yield server
    finally:
        server.stop()
