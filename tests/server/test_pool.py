"""The database connection pool under load: on PostgreSQL a read or a one-statement write
holds its connection for one round trip, not inside a transaction left "idle in transaction"
while its task waits for a busy event loop; a pool that stays dry gives a clear retryable
refusal (HTTP 503 ``busy`` with ``Retry-After``, error ``busy`` on the socket), never a 500;
and each deployment has a bus channel of its own on a shared Redis."""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.db import Repository, make_engine, migrate
from gammon.server.pubsub import RedisBus, channel_for
from gammon.server.records import MatchRow
from gammon.views import MatchConfig
from tests.server.conftest import POSTGRES_ADMIN, Browser, make_settings, run_async

postgresql_only = pytest.mark.parametrize("store", ["postgresql"], indirect=True)


def _states(database: str) -> list[str]:
    """The state of every other connection to ``database`` (pg_stat_activity)."""
    import asyncpg

    async def query() -> list[str]:
        conn = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
        try:
            rows = await conn.fetch("SELECT state FROM pg_stat_activity WHERE datname = $1 "
                                    "AND pid <> pg_backend_pid()", database)
        finally:
            await conn.close()
        return [str(row["state"]) for row in rows]

    return run_async(query)


@postgresql_only
def test_reads_and_single_writes_leave_no_transaction_open_while_the_loop_is_busy(
        database_url: str) -> None:
    """Each call is stepped one event-loop turn at a time, the loop then blocked (as a busy
    server's is) while the server's connections are looked at: none may sit "idle in
    transaction" — a connection that does holds its pool slot for as long as the loop is
    elsewhere, which ran the pool dry under load."""
    database = database_url.rsplit("/", 1)[1]

    async def main() -> set[str]:
        engine = make_engine(database_url, pool_size=1, max_overflow=0)
        await migrate(engine)
        repo = Repository(engine)
        try:
            user = await repo.create_user("ann", "guest")
            await repo.create_match(MatchRow(
                id="m1", created_at=0.0, status="playing", config=MatchConfig(),
                player0=user.id, server_seed="s", seed_hash="h"))
            calls: list[Callable[[], Awaitable[Any]]] = [
                lambda: repo.match("m1"), lambda: repo.match_with_actions("m1"),
                lambda: repo.user(user.id), lambda: repo.count_open(user.id),
                lambda: repo.append("m1", 1, "roll", "{}", time.time()),
                lambda: repo.append("m1", 2, "roll", "{}", time.time()),
                lambda: repo.create_match(MatchRow(
                    id="m2", created_at=0.0, status="open", config=MatchConfig(),
                    player0=user.id, server_seed="s", seed_hash="h")),
                lambda: repo.seat("m2", user.id, "c", "{}", False,
                                  [("opening", "{}", 1.0), ("roll", "{}", 2.0)])]
            seen: set[str] = set()
            for call in calls:
                task = asyncio.ensure_future(call())
                while not task.done():
                    await asyncio.sleep(0)  # one step: the call sends its next message
                    time.sleep(0.02)  # the loop busy elsewhere; the database answers
                    seen.update(_states(database))
                await task
            assert [r.seq for r in (await repo.match_with_actions("m1"))[1]] == [1, 2]
            row, opening = await repo.match_with_actions("m2")
            assert (row.status, row.player1, [r.kind for r in opening]) == \
                ("playing", user.id, ["opening", "roll"])
            # the seat is taken: a second seat stores nothing, not even its opening
            assert not await repo.seat("m2", user.id, "d", "{}", False, [("opening", "{}", 3.0)])
            assert len((await repo.match_with_actions("m2"))[1]) == 2
            return seen
        finally:
            await repo.close()
            await engine.dispose()

    seen = run_async(main)
    assert "idle in transaction" not in seen
    assert seen & {"idle", "active"}  # the connection was seen at all


def _next(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] != "ping":
            return message


@postgresql_only
def test_a_dry_pool_is_503_busy_with_retry_after_and_busy_on_the_socket(
        database_url: str, redis_url: str) -> None:
    """The only connection is held: a request waits ``db_pool_timeout`` and is refused as
    ``busy`` (retryable, nothing changed), not a 500 with a traceback; once the connection
    is back, the same request succeeds."""
    settings = make_settings(database_url, redis_url, db_pool_size=1, db_max_overflow=0,
                             db_pool_timeout=0.3)
    app = create_app(settings)
    held, release = threading.Event(), threading.Event()

    async def hold() -> None:
        async with app.state.repo.engine.connect() as conn:
            await conn.exec_driver_sql("SELECT 1")
            held.set()
            await anyio.to_thread.run_sync(release.wait)

    with TestClient(app) as client:
        a, b = Browser(client), Browser(client)
        # the server's own start-up work (its background tasks) may still hold the one
        # connection, longer than the pool timeout on a loaded machine: a first request is
        # served once it is done
        deadline = time.monotonic() + 30
        while (first := a.get("/api/me")).status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert first.status_code == 200, first.text
        with a.websocket_connect("/ws") as ws:
            assert _next(ws)["type"] == "welcome"
            assert client.portal is not None
            holding = client.portal.start_task_soon(hold)
            assert held.wait(5)
            try:
                refused = b.get("/api/me")  # a new guest: a write
                ws.send_text(json.dumps({"type": "subscribe", "match": "missing", "id": 7}))
                error = _next(ws)
            finally:
                release.set()
            holding.result(timeout=10)  # the connection is back in the pool
            assert refused.status_code == 503, refused.text
            assert refused.headers["retry-after"] == "1"
            assert refused.json()["detail"]["code"] == "busy"
            assert (error["type"], error["code"], error.get("id")) == ("error", "busy", 7)
            assert b.get("/api/me").status_code == 200
            ws.send_text(json.dumps({"type": "subscribe", "match": "missing", "id": 8}))
            assert _next(ws)["code"] == "not_found"


def test_a_deployment_has_a_bus_channel_of_its_own() -> None:
    """Processes on one database share a channel; another database (a test server, a load
    run) on the same Redis gets another; ``GAMMON_BUS_CHANNEL`` overrides."""
    url = "postgresql+asyncpg://postgres@127.0.0.1:5432/a"
    assert channel_for(url) == channel_for(url) != channel_for(url[:-1] + "b")
    assert "postgres@" not in channel_for(url)
    assert make_settings(url, bus_channel="mine").bus_channel == "mine"


@postgresql_only
def test_deployments_on_one_redis_do_not_hear_each_other(redis_url: str) -> None:
    async def main() -> tuple[list[Any], list[Any], list[Any]]:
        heard: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        run = secrets.token_hex(6)  # no other run of this test hears these either
        one, same, other = (RedisBus(redis_url, channel_for(f"db-one-{run}")),
                            RedisBus(redis_url, channel_for(f"db-one-{run}")),
                            RedisBus(redis_url, channel_for(f"db-two-{run}")))
        try:
            for bus, box in zip((one, same, other), heard, strict=True):
                async def handler(message: dict[str, Any], box: list[Any] = box) -> None:
                    box.append(message)
                await bus.start(handler)
            await one.publish({"kind": "action", "match": "m", "seq": 3})
            await other.publish({"kind": "action", "match": "n", "seq": 1})
            for _ in range(100):
                if len(heard[1]) >= 1 and len(heard[2]) >= 1:
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.1)
        finally:
            for bus in (one, same, other):
                await bus.close()
        return heard

    one, same, other = run_async(main)
    assert same == [{"kind": "action", "match": "m", "seq": 3}]
    assert other == [{"kind": "action", "match": "n", "seq": 1}]
    assert one == [{"kind": "action", "match": "m", "seq": 3}]  # its own, ignored by Hub


@postgresql_only
def test_a_test_server_gets_the_channel_its_settings_name(
        database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url)
    assert settings.bus_channel  # the test's own, not the database's
    with TestClient(create_app(settings)) as client:
        assert client.app.state.hub.bus.channel == settings.bus_channel  # type: ignore[attr-defined]
    bare = make_settings(database_url, redis_url, bus_channel="")
    with TestClient(create_app(bare)) as client:
        assert client.app.state.hub.bus.channel == channel_for(database_url)  # type: ignore[attr-defined]


class _Proxy:
    """A TCP proxy to PostgreSQL in a thread of its own: ``cut()`` closes every connection
    through it and refuses new ones (the database server gone, as in a restart),
    ``restore()`` listens again on the same port."""

    def __init__(self, target_port: int = 5432) -> None:
        self.target_port = target_port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: asyncio.base_events.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.port = 0
        self.restore()

    def _call(self, coroutine: Awaitable[Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
                      ) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    def restore(self) -> None:
        async def listen() -> None:
            self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
            self.port = self.server.sockets[0].getsockname()[1]
        self._call(listen())

    def cut(self) -> None:
        async def close() -> None:
            assert self.server is not None
            self.server.close()
            for writer in self.writers:
                writer.close()
            self.writers.clear()
            await asyncio.sleep(0.2)  # each side reads its end of file
        self._call(close())

    def close(self) -> None:
        self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@postgresql_only
def test_a_database_server_gone_is_503_busy_and_busy_on_the_socket(
        database_url: str, redis_url: str) -> None:
    """The database server goes away (its connections closed, new ones refused: a restart
    of PostgreSQL, here a proxy cut): a request and a socket message are refused as
    ``busy`` (retryable, nothing changed), not a 500 or ``internal``; once it is back, the
    same requests succeed."""
    proxy = _Proxy()
    via_proxy = database_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    assert via_proxy != database_url
    app = create_app(make_settings(via_proxy, redis_url))
    try:
        with TestClient(app) as client:
            a, b = Browser(client), Browser(client)
            assert a.get("/api/me").status_code == 200
            with a.websocket_connect("/ws") as ws:
                assert _next(ws)["type"] == "welcome"
                proxy.cut()
                refused = b.get("/api/me")  # a new guest: a write
                ws.send_text(json.dumps({"type": "subscribe", "match": "missing", "id": 7}))
                error = _next(ws)
                proxy.restore()
                assert refused.status_code == 503, refused.text
                assert refused.json()["detail"]["code"] == "busy"
                assert (error["type"], error["code"], error.get("id")) == ("error", "busy", 7)
                assert b.get("/api/me").status_code == 200
                ws.send_text(json.dumps({"type": "subscribe", "match": "missing", "id": 8}))
                assert _next(ws)["code"] == "not_found"
    finally:
        proxy.close()
