"""Fixtures of the server tests.

Every test that touches storage runs twice (the ``store`` parameter): on SQLite with the
in-process bus, and on PostgreSQL with the Redis bus — the two deployments an operator can
choose. PostgreSQL and Redis are those ``.ci/run`` starts (127.0.0.1, default ports); when
they are not reachable the PostgreSQL variants FAIL, they do not skip: a suite that passes
without them would say nothing about the deployment that needs them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import os
import secrets
import shutil
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from fastapi.testclient import TestClient

from gammon.server.accounts import COOKIE
from gammon.server.app import create_app
from gammon.server.db import make_engine, migrate
from gammon.server.settings import Settings
from tests.processes import ServerProcess

POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432"
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/0"
STORES = ("sqlite", "postgresql")

T = TypeVar("T")


def run_async(main: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine function to its end in a thread of its own: a test elsewhere in the
    suite may leave an event loop running in this one."""
    async def call() -> T:
        return await main()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, call()).result()


def _postgres_admin(sql: str, database: str = "postgres") -> None:
    """Run ``sql`` on ``database`` of the test server, as its superuser."""
    import asyncpg

    async def execute() -> None:
        conn = await asyncpg.connect(POSTGRES_ADMIN.rsplit("/", 1)[0] + f"/{database}",
                                     timeout=5)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    run_async(execute)


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database (its SQLAlchemy URL), dropped afterwards."""
    import asyncpg

    name = f"gammon_test_{secrets.token_hex(6)}"
    try:
        _postgres_admin(f'CREATE DATABASE "{name}"')
    except (OSError, asyncpg.PostgresError) as error:  # TimeoutError is an OSError
        pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_ADMIN} ({error!r}); "
                    f"start it with .ci/run", pytrace=False)
    try:
        yield f"{POSTGRES}/{name}"
    finally:
        _postgres_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_reachable() -> str:
    """The Redis URL of the tests, after checking that Redis answers (fails if not)."""
    import redis

    client = redis.Redis.from_url(REDIS, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as error:
        pytest.fail(f"Redis is not reachable at {REDIS} ({error}); start it with .ci/run",
                    pytrace=False)
    finally:
        client.close()
    return REDIS


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> str:
    """The deployment under test: 'sqlite' (in-process bus) or 'postgresql' (Redis bus)."""
    return str(request.param)


@pytest.fixture(scope="session")
def postgres_session_database() -> Iterator[str]:
    """One PostgreSQL database for the session's tests, emptied before each of them
    (creating a database per test costs about a second; emptying one, milliseconds)."""
    with postgres_database() as url:
        yield url


def empty_postgres_database(url: str) -> None:
    """Empty every table but Alembic's (the schema stays at its revision), the job queue's
    too (schema ``procrastinate``), numbering restarting at 1, after closing any connection
    a previous test left open."""
    name = url.rsplit("/", 1)[1]
    _postgres_admin(f"""
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = '{name}' AND pid <> pg_backend_pid();
        DO $$ DECLARE tables text;
        BEGIN
            SELECT string_agg(quote_ident(schemaname) || '.' || quote_ident(tablename), ', ')
                INTO tables FROM pg_tables
                WHERE schemaname IN ('public', 'procrastinate')
                    AND tablename <> 'alembic_version';
            IF tables IS NOT NULL THEN
                EXECUTE 'TRUNCATE ' || tables || ' RESTART IDENTITY CASCADE';
            END IF;
        END $$;""", database=name)


@pytest.fixture(scope="session")
def sqlite_session_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated to the newest revision once for the session, which each
    test copies (migrating an empty file at every start-up cost 0.1 s a test; a copy, a
    millisecond): the SQLite tests start, like the PostgreSQL ones, on an empty database at
    the Alembic head. tests/server/test_migrations.py migrates untouched databases itself."""
    path = tmp_path_factory.mktemp("sqlite-session") / "gammon.db"

    async def build() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{path}")
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    run_async(build)
    assert not path.with_name(f"{path.name}-wal").exists()  # all of it in the one file
    return path


@pytest.fixture
def database_url(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """An empty database of the store under test, at the newest revision."""
    if store == "sqlite":
        template = request.getfixturevalue("sqlite_session_database")
        shutil.copyfile(template, tmp_path / "gammon.db")
        return f"sqlite+aiosqlite:///{tmp_path}/gammon.db"
    url = str(request.getfixturevalue("postgres_session_database"))
    empty_postgres_database(url)
    return url


@pytest.fixture
def redis_url(store: str) -> str:
    """The bus of the store under test: Redis with PostgreSQL, in-process with SQLite."""
    return redis_reachable() if store == "postgresql" else ""


def bus_channel_of_test(database_url: str) -> str:
    """The Redis bus channel of the running test's servers: shared by the servers of one
    test (they are one deployment), heard by no other test or run on the same Redis."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    key = hashlib.sha256(f"{os.getpid()} {database_url} {test}".encode()).hexdigest()
    return f"gammon-test:bus:{key[:16]}"


def make_settings(database_url: str, redis_url: str = "", **overrides: Any) -> Settings:
    """The settings of an in-process test server (no rate limits, no pings, no .env); a
    rate-limit prefix and a bus channel of its own test, so that limits shared in Redis
    and bus messages are this test's alone; no
    analysis queued at a match's end (its child process would cost every test that ends a
    match seconds of CPU; tests/server/test_analysis.py turns it on), and the analyses at
    the test's own priority (the tests wait on them: at the deployment's nice 10 they waited
    behind every other process of the suite; test_analysis.py checks the setting)."""
    values: dict[str, Any] = {"rate_limits": False, "ping_interval": 3600,
                              "analysis_on_finish": False, "analysis_nice": 0,
                              "rate_limit_prefix": f"gammon-test:{secrets.token_hex(6)}:",
                              "bus_channel": bus_channel_of_test(database_url),
                              **overrides}
    return Settings(database_url=database_url, redis_url=redis_url, _env_file=None,  # type: ignore[call-arg]
                    **values)


@pytest.fixture
def settings(database_url: str, redis_url: str) -> Settings:
    return make_settings(database_url, redis_url)


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


@pytest.fixture
def server_processes() -> Iterator[list[ServerProcess]]:
    """A list to append started servers to; all are stopped afterwards."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()
