"""Fixtures of the whole suite."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.processes import ServerProcess

# Moves first under overload (gammon.server.shedding) refuses the engine's answers, puzzles
# and new matches while a process runs late: on a loaded test machine a test's own requests
# would be refused at random. Off for every server of the suite (in-process or spawned: they
# inherit the environment), as the rate limits are; tests/server/test_shedding.py turns it on.
os.environ["GAMMON_SHED_LOAD"] = "false"


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
