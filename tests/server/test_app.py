"""The move generator's kernels are compiled when the server starts, not in the first
player's join: compiling them blocked the event loop (and every socket) for 1.3 s from
numba's cache and 39 s with a cold one. The server serves SQLite with the ``[server]``
extra alone, without PostgreSQL's driver (the README's serve command)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def test_the_move_generator_is_compiled_before_the_first_request(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        from fastapi.testclient import TestClient

        from gammon.core import _movegen
        from gammon.server.app import create_app
        from gammon.server.settings import Settings

        settings = Settings(database_url="sqlite+aiosqlite:///{tmp_path}/gammon.db",
                            _env_file=None)
        assert not _movegen.generate.signatures  # a fresh process: nothing compiled yet
        with TestClient(create_app(settings)):  # start-up only, no request
            print(len(_movegen.generate.signatures))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 1


def test_the_server_serves_sqlite_without_the_postgresql_driver(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import sys

        sys.modules["asyncpg"] = None  # not installed: importing it raises ImportError

        from fastapi.testclient import TestClient

        from gammon.server.app import create_app
        from gammon.server.db import database_unreachable
        from gammon.server.settings import Settings

        settings = Settings(database_url="sqlite+aiosqlite:///{tmp_path}/gammon.db",
                            _env_file=None)
        with TestClient(create_app(settings)) as client:
            assert client.get("/healthz").status_code == 200
            guest = client.post("/api/guest")
            assert guest.status_code == 200, guest.text
            created = client.post("/api/games", json={{"kind": "single"}})
            assert created.status_code == 201, created.text
        assert database_unreachable(ConnectionError("refused"))
        assert not database_unreachable(ValueError("a fault"))
        print("served")
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "served"
