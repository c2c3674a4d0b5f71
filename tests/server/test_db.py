"""Storage parity: what the server writes fits the columns on every store.

SQLite ignores declared string lengths; PostgreSQL refuses a value one character too long.
So each test here runs on both (the ``database_url`` fixture), and writes the longest value
the server can produce for a column.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from gammon.server import protocol
from gammon.server.app import create_app
from gammon.server.db import (
    Repository,
    SeqConflict,
    make_engine,
    match_actions,
    migrate,
    server_kv,
)
from gammon.server.records import ActionRow, MatchRow
from gammon.server.rooms import PAUSE
from gammon.views import MatchConfig
from tests.server.conftest import (
    Browser,
    empty_postgres_database,
    make_settings,
    run_async,
)
from tests.server.helpers import Player, act, to_move

# every kind of record in the match log: the core's actions (protocol.action_json) and the
# server's clock-pause record
ACTION_KINDS = sorted({"opening", "roll", "play", "step", "resign", PAUSE,
                       *protocol._SIMPLE})  # the names of the simple actions


@asynccontextmanager
async def repository(url: str) -> AsyncIterator[Repository]:
    """A repository on a database migrated to the Alembic head."""
    engine = make_engine(url)
    await migrate(engine)
    repo = Repository(engine)
    try:
        yield repo
    finally:
        await repo.close()
        await engine.dispose()


async def _a_match(repo: Repository) -> str:
    user = await repo.create_user("storage-test", "user")
    match_id = "m" * 16
    await repo.create_match(MatchRow(
        id=match_id, created_at=0.0, status="playing", config=MatchConfig(), player0=user.id,
        server_seed="0" * 64, seed_hash="1" * 64))
    return match_id


def test_a_match_and_its_actions_read_back_as_typed_rows(database_url: str) -> None:
    """The repository gives back the match as created (its configuration a MatchConfig)
    and its actions in order, as rows of named fields."""
    async def main() -> None:
        async with repository(database_url) as repo:
            user = await repo.create_user("typed-rows", "user")
            row = MatchRow(
                id="t" * 16, created_at=1234.5, status="open", player0=user.id,
                config=MatchConfig(kind="money", clock="polish", jacoby=True, private=True),
                server_seed="0" * 64, seed_hash="1" * 64, private=True, reserved_for=user.id,
                client_seed0="c", rematch_of="r" * 16)
            await repo.create_match(row, [("opening", "{}", 1.0), ("roll", "{}", 2.5)])
            assert await repo.match(row.id) == row
            assert await repo.match("no such match") is None
            stored, actions = await repo.match_with_actions(row.id, after=1)
            assert stored == row
            assert actions == [ActionRow(2, "roll", "{}", 2.5)]
            assert await repo.reserved_for(user.id) == [row]

    run_async(main)


def test_every_action_kind_fits_the_match_log(database_url: str) -> None:
    """The longest action kinds, ``accept_resign`` / ``reject_resign`` (13 characters), fit
    ``match_actions.kind`` on PostgreSQL (VARCHAR(12) refused them)."""
    async def main() -> list[str]:
        async with repository(database_url) as repo:
            match_id = await _a_match(repo)
            for seq, kind in enumerate(ACTION_KINDS, start=1):
                await repo.append(match_id, seq, kind, f'{{"t": "{kind}"}}', float(seq))
            _, actions = await repo.match_with_actions(match_id)
            return [row.kind for row in actions]

    assert run_async(main) == ACTION_KINDS


def test_an_action_number_taken_is_a_conflict_and_stores_nothing(database_url: str) -> None:
    """Action numbers are the lock between processes: appending one that is taken raises
    SeqConflict, and a transition whose rows include a taken number stores none of them
    (one statement); the rows stored read back as written, the connection still usable."""
    async def main() -> None:
        async with repository(database_url) as repo:
            match_id = await _a_match(repo)
            await repo.append_many(match_id, 1, [("opening", '{"t": "opening"}', 1.25)])
            with pytest.raises(SeqConflict):
                await repo.append_many(match_id, 1, [("roll", '{"t": "roll"}', 2.0)])
            with pytest.raises(SeqConflict):  # 2 is free, 1 is not: neither is stored
                await repo.append_many(match_id, 0, [("roll", "{}", 2.0), ("play", "{}", 3.0)])
            await repo.append_many(match_id, 2, [("roll", '{"t": "roll"}', 2.5),
                                                 ("play", '{"t": "play"}', 1e9 + 0.125)])
            _, actions = await repo.match_with_actions(match_id)
            assert actions == [ActionRow(1, "opening", '{"t": "opening"}', 1.25),
                               ActionRow(2, "roll", '{"t": "roll"}', 2.5),
                               ActionRow(3, "play", '{"t": "play"}', 1e9 + 0.125)]

    run_async(main)


def test_actions_after_postgresql_ended_every_pooled_connection_are_stored(
        postgres_session_database: str) -> None:
    """A restart of PostgreSQL ends every connection the pool holds. The next actions are
    stored, none refused: each connection the server closed is replaced as it leaves the
    pool (before, the action insert, which sends on asyncpg's connection itself, failed
    once on each stale one). PostgreSQL only: SQLite has no connection to lose."""
    from tests.server.test_analysis_database_restart import end_every_connection

    url = postgres_session_database
    empty_postgres_database(url)

    async def main() -> list[int]:
        async with repository(url) as repo:
            match_ids = []
            for n in range(4):
                match_id = f"{n}" * 16
                user = await repo.create_user(f"pool-{n}", "user")
                await repo.create_match(MatchRow(
                    id=match_id, created_at=0.0, status="playing", config=MatchConfig(),
                    player0=user.id, server_seed="0" * 64, seed_hash="1" * 64))
                match_ids.append(match_id)
            # four inserts at once: four connections in the pool
            await asyncio.gather(*(repo.append_many(m, 1, [("opening", "{}", 1.0)])
                                   for m in match_ids))
            await asyncio.to_thread(end_every_connection, url)
            await asyncio.sleep(0.2)  # the closed sockets seen by the event loop
            for match_id in match_ids:  # one after another: each takes a pooled one
                await repo.append_many(match_id, 2, [("roll", "{}", 2.0)])
            return [len((await repo.match_with_actions(m))[1]) for m in match_ids]

    assert run_async(main) == [2, 2, 2, 2]


def test_a_heartbeat_of_a_real_process_id_is_stored(database_url: str) -> None:
    """The heartbeat key of a process (``heartbeat:`` and 32 hex digits, as the hub makes
    it) fits ``server_kv.key`` on PostgreSQL (VARCHAR(40) refused it, and a restart then
    credited no downtime)."""
    origin = uuid.uuid4().hex  # what Hub.origin is

    async def main() -> tuple[float | None, list[str]]:
        async with repository(database_url) as repo:
            await repo.heartbeat(origin, 1000.0)
            await repo.heartbeat(origin, 1002.0)
            async with repo.engine.connect() as conn:
                keys = (await conn.scalars(sa.select(server_kv.c.key))).all()
            return await repo.last_heartbeat(), list(keys)

    last, keys = run_async(main)
    assert last == 1002.0
    assert f"heartbeat:{origin}" in keys


def test_the_log_columns_hold_every_kind_and_key_with_room_to_spare() -> None:
    """The declared lengths leave room: a new action kind or key prefix of a few more
    characters must not overflow a column unnoticed."""
    kind_length = match_actions.c.kind.type.length  # type: ignore[attr-defined]
    key_length = server_kv.c.key.type.length  # type: ignore[attr-defined]
    assert max(map(len, ACTION_KINDS)) * 2 <= kind_length
    assert len(f"heartbeat:{uuid.uuid4().hex}") * 2 <= key_length


def _register(browser: Browser, name: str) -> None:
    response = browser.post("/api/register", json={"name": name, "password": "secret-pass"})
    assert response.status_code == 201, response.text


def _play_until_someone_may_resign(players: dict[int, Player]) -> Player:
    """The player on roll at the start of a turn (the one who may offer a resignation)."""
    for _ in range(20):
        mover = to_move(players)
        game = mover.game
        assert game is not None
        if game["phase"] == "before_roll":
            return mover
        source, dice = next(iter(game["legal"].items()))
        act(players, mover, {"type": "step", "from": int(source), "die": int(next(iter(dice)))})
    raise AssertionError("no turn started")


def test_a_resignation_is_answered_on_every_store(database_url: str, redis_url: str) -> None:
    """An offered resignation is rejected, offered again and accepted, over the socket, on
    every store (PostgreSQL answered ``internal`` when the kind did not fit, and the match
    stayed in ``resign_offered``). A new server on the same database then replays the stored
    answers."""
    settings = make_settings(database_url, redis_url)
    with TestClient(create_app(settings)) as client:
        a, b = Browser(client), Browser(client)
        _register(a, "resigner")
        _register(b, "answerer")
        match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
        with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
            pa, pb = Player.over_testclient(wa, "a"), Player.over_testclient(wb, "b")
            pa.subscribe(match_id)
            assert b.post(f"/api/games/{match_id}/join").status_code == 200
            pb.subscribe(match_id)
            players = {0: pa, 1: pb}
            pa.sync(pb.v)
            offerer = _play_until_someone_may_resign(players)
            answerer = players[1 - offerer.you]  # type: ignore[operator]

            act(players, offerer, {"type": "resign", "level": 1})
            assert answerer.game is not None and answerer.game["phase"] == "resign_offered"
            rejected = act(players, answerer, {"type": "reject_resign"})
            assert rejected["type"] == "update", rejected
            assert [e["type"] for e in rejected["events"]] == ["resign_rejected"]
            assert answerer.game["phase"] == "before_roll"

            act(players, offerer, {"type": "resign", "level": 2})
            accepted = act(players, answerer, {"type": "accept_resign"})
            assert accepted["type"] == "update", accepted
            ended = next(e for e in accepted["events"] if e["type"] == "game_ended")
            assert ended["winner"] == answerer.you and ended["points"] == 2
            score: list[Any] = answerer.game["score"]
            version = answerer.v
    # the answers are in the log: a fresh server rebuilds the same match from it
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        state = client.get(f"/api/games/{match_id}").json()
        assert state["v"] == version
        assert state["game"]["score"] == score


def test_a_client_seed_with_a_nul_is_refused_on_every_store(
        clients: tuple[Browser, Browser]) -> None:
    """A client seed is stored in ``matches``; PostgreSQL text cannot hold NUL (SQLite
    can), so ``"\\u0000"`` in a seed was HTTP 500 on PostgreSQL only. It is bad input on
    every store: a clear 422 that creates or joins nothing."""
    a, b = clients
    body = '{"kind": "match", "length": 1, "client_seed": "a\\u0000b"}'
    json_type = {"content-type": "application/json"}
    refused = a.post("/api/games", content=body, headers=json_type)
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"]["code"] == "bad_input"
    assert a.get("/api/games").json() == []
    match_id = a.post("/api/games", json={"kind": "match", "length": 1}).json()["id"]
    refused = b.post(f"/api/games/{match_id}/join", content='{"client_seed": "\\u0000"}',
                     headers=json_type)
    assert refused.status_code == 422, refused.text
    assert [game["id"] for game in b.get("/api/games").json()] == [match_id]  # still open
    assert b.post(f"/api/games/{match_id}/join", json={"client_seed": "b"}).status_code == 200


def test_the_longest_inputs_the_api_accepts_are_stored_on_every_store(
        clients: tuple[Browser, Browser]) -> None:
    """What a client chooses and the server stores, at the longest the API accepts: a
    20-character name (``users.name`` holds 40), a 200-character password (stored as its
    hash), 64-character client seeds of 4-byte characters (``client_seed0/1`` hold 64
    characters, not bytes, on PostgreSQL too)."""
    a, b = clients
    name, password = "n" + "x" * 19, "p" * 200
    assert a.post("/api/register", json={"name": name, "password": password}).status_code == 201
    assert a.post("/api/login", json={"name": name.upper(), "password": password}
                  ).status_code == 200
    seeds = ["\N{GAME DIE}" * 64, "\N{CROWN}" * 64]
    created = a.post("/api/games", json={"kind": "match", "length": 1, "client_seed": seeds[0]})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    joined = b.post(f"/api/games/{match_id}/join", json={"client_seed": seeds[1]})
    assert joined.status_code == 200, joined.text
    assert a.get(f"/api/games/{match_id}/fairness").json()["client_seeds"] == seeds
    assert a.get("/api/me").json()["user"]["name"] == name


def test_a_lost_database_server_is_told_from_a_fault_in_a_statement(
        postgres_session_database: str) -> None:
    """``database_unreachable``, on real errors: a refused connection and a connection the
    server ended (a restart) are the database gone — ``busy``, send it again — while a
    statement PostgreSQL refuses (bad SQL, a division by zero) is not."""
    import asyncpg

    from gammon.server.db import database_unreachable
    from tests.server.test_analysis_database_restart import end_every_connection

    url = postgres_session_database
    empty_postgres_database(url)

    async def errors() -> list[BaseException]:
        found: list[BaseException] = []
        try:
            await asyncpg.connect("postgresql://postgres@127.0.0.1:1/postgres", timeout=5)
        except Exception as error:  # nothing listens on port 1
            found.append(error)
        engine = make_engine(url)
        try:
            async with engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
                await asyncio.to_thread(end_every_connection, url)
                try:
                    await conn.execute(sa.text("SELECT 1"))
                except Exception as error:
                    found.append(error)
            for statement in ("SELEC 1", "SELECT 1 / 0"):
                async with engine.connect() as conn:
                    try:
                        await conn.execute(sa.text(statement))
                    except Exception as error:
                        found.append(error)
        finally:
            await engine.dispose()
        return found

    found = run_async(errors)
    assert [database_unreachable(error) for error in found] == [True, True, False, False]
