"""The sessions of open sockets are checked in one query per ``ping_interval`` for the
whole process, not one per socket: at 1,000 matches (2,000 sockets) a query per socket and
ping was 200 queries a second, which exhausted the database connection pool. Runs on every
store."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.db import Repository, make_engine, migrate
from tests.server.conftest import Browser, make_settings, run_async


def test_live_sessions_are_those_neither_revoked_nor_expired(database_url: str) -> None:
    async def main() -> set[str]:
        engine = make_engine(database_url)
        await migrate(engine)
        repo = Repository(engine)
        try:
            user = await repo.create_user("carol", "guest")
            now = time.time()
            await repo.create_session("live", user.id, now + 60)
            await repo.create_session("revoked", user.id, now + 60)
            await repo.create_session("expired", user.id, now - 1)
            await repo.revoke_session("revoked")
            ids = ["live", "revoked", "expired", "unknown"] + [f"x{i}" for i in range(1200)]
            return await repo.live_sessions(ids)  # more ids than one IN list takes
        finally:
            await repo.close()
            await engine.dispose()

    assert run_async(main) == {"live"}


def test_open_sockets_cost_one_session_query_per_interval(database_url: str,
                                                          redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, ping_interval=0.1)
    with TestClient(create_app(settings)) as client:
        repo = client.app.state.repo  # type: ignore[attr-defined]
        per_socket: list[str] = []
        batches: list[list[str]] = []
        session_user, live_sessions = repo.session_user, repo.live_sessions

        async def counted_session_user(session_id: str) -> Any:
            per_socket.append(session_id)
            return await session_user(session_id)

        async def counted_live_sessions(session_ids: list[str]) -> set[str]:
            batches.append(list(session_ids))
            return await live_sessions(session_ids)  # type: ignore[no-any-return]

        repo.session_user, repo.live_sessions = counted_session_user, counted_live_sessions
        browsers = [Browser(client) for _ in range(4)]
        for browser in browsers:
            browser.get("/api/me")
        sockets = [browser.websocket_connect("/ws") for browser in browsers]
        try:
            for ws in sockets:
                ws.__enter__()
                assert ws.receive_json()["type"] == "welcome"
            opened = len(per_socket)  # the handshake looks the session up, once a socket
            before = len(batches)
            time.sleep(1.0)  # about ten intervals, forty socket pings
            rounds = batches[before:]
            assert len(per_socket) == opened
            assert 3 <= len(rounds) <= 15
            assert all(len(ids) == 4 for ids in rounds[1:])  # every socket's session, at once
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)
