"""The move generator's kernels are compiled when the server starts, not in the first
player's join: compiling them blocked the event loop (and every socket) for 1.3 s from
numba's cache and 39 s with a cold one."""

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
