"""Real processes for the tests that need real sockets: ``gammon serve`` on a free loopback
port (:class:`ServerProcess`), and any program started with its output in a log file
(:func:`start`) and waited for until a URL of it answers (:func:`wait_ready`). Used by the
server, command-line and browser tests alike."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(command: Sequence[str], env: Mapping[str, str], log: Path, *, cwd: Path | None = None,
          stdout: bool = True) -> subprocess.Popen[bytes]:
    """``command`` with ``env`` added to this process's environment, its stderr (and its
    stdout, unless ``stdout`` is false) written to ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(list(command), env={**os.environ, **env}, cwd=cwd,
                                stdout=out if stdout else subprocess.DEVNULL,
                                stderr=subprocess.STDOUT if stdout else out)


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-3000:] if log.exists() else ""


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path,
               timeout: float = 60) -> None:
    """Wait until ``url`` answers 200; fails with the log's end if ``process`` exits first
    or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited: {_tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{url} never became ready in {timeout} s: {_tail(log)}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the process has not ended 10 s later."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class ServerProcess:
    """``gammon serve`` in a child process (the real thing: uvicorn on a real socket), on its
    own port, its log (stderr) in ``log`` or a temporary file. ``env`` holds its GAMMON_*
    settings; pings are hourly unless ``ping_interval`` says otherwise (None: the server's
    default)."""

    def __init__(self, env: Mapping[str, str], port: int | None = None, *,
                 log: Path | None = None, log_level: str = "warning",
                 args: Sequence[str] = (), cwd: Path | None = None,
                 ping_interval: str | None = "3600") -> None:
        self.port = port or free_port()
        self.env = dict(env)
        self.log = log
        self.log_level = log_level
        self.args = list(args)
        self.cwd = cwd
        self.ping_interval = ping_interval
        self.process: subprocess.Popen[bytes] | None = None
        self._temporary_log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 30, ready: str = "/healthz") -> ServerProcess:
        """Start it and wait until ``ready`` answers 200."""
        env = dict(self.env)
        if self.ping_interval is not None:
            env["GAMMON_PING_INTERVAL"] = self.ping_interval
        log = self.log
        if log is None:
            descriptor, name = tempfile.mkstemp(prefix="gammon-serve-", suffix=".log")
            os.close(descriptor)
            log = self._temporary_log = Path(name)
        self.process = start(
            [sys.executable, "-m", "gammon.server.cli", "serve", "--bind",
             f"127.0.0.1:{self.port}", "--log-level", self.log_level, *self.args],
            env, log, cwd=self.cwd, stdout=False)
        wait_ready(self.url + ready, self.process, log, timeout)
        return self

    def _ended(self) -> None:
        self.process = None
        if self._temporary_log is not None:
            self._temporary_log.unlink(missing_ok=True)
            self._temporary_log = None

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self._ended()

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self._ended()
