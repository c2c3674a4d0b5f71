from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from gammon.server.app import COOKIE, create_app
from gammon.server.settings import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/gammon.db", rate_limits=False,
                    ping_interval=3600, _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def app(settings: Settings) -> Any:
    return create_app(settings)


class Browser:
    """One browser (its own session cookie) on a shared in-process test client: one
    TestClient, so the app runs on one event loop."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookie: str | None = None

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}))
        if self.cookie:
            headers["cookie"] = f"{COOKIE}={self.cookie}"
        self.client.cookies.clear()
        response = self.client.request(method, url, headers=headers, **kwargs)
        self.client.cookies.clear()
        if response.cookies.get(COOKIE):
            self.cookie = response.cookies[COOKIE]
        return response

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", url, **kwargs)

    def websocket_connect(self, url: str, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}))
        if self.cookie:
            headers["cookie"] = f"{COOKIE}={self.cookie}"
        return self.client.websocket_connect(url, headers=headers, **kwargs)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def clients(client: TestClient) -> tuple[Browser, Browser]:
    """Two browsers (separate sessions) on one in-process app."""
    return Browser(client), Browser(client)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """``gammon serve`` in a child process (the real thing: uvicorn on a real socket)."""

    def __init__(self, env: dict[str, str], port: int | None = None) -> None:
        self.port = port or free_port()
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProcess:
        env = {**os.environ, **self.env, "GAMMON_PORT": str(self.port),
               "GAMMON_PING_INTERVAL": "3600"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gammon.server.cli", "serve", "--log-level", "warning"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"server exited: {err}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self.process.stderr:
                self.process.stderr.close()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            if self.process.stderr:
                self.process.stderr.close()
            self.process = None


@pytest.fixture
def server_processes() -> Iterator[list[ServerProcess]]:
    """A list to append started servers to; all are stopped afterwards."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()
