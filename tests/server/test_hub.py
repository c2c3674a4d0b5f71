"""The hub's atomic transitions: a player's action and every automatic action it
causes (the next game's opening, auto-rolls) are stored in one transaction, and a room
loaded from a log that ends before a pending automatic step (written by an older version,
or by a process that died) finishes that step. A crash at any commit never strands a match
in ``game_over`` or ``opening``.

The crash is simulated in-process: a SQLAlchemy ``commit`` hook raises just before the
chosen transaction commits (nothing of it is stored, as with a SIGKILL there), the server
is dropped without any shutdown code, and a new one is started on the same database.
A socket subscribing between a transition's commit and the sending of its events is
greeted with them once. Every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa

from gammon.core import actions as A
from gammon.core.cube import Level
from gammon.core.match import Phase
from gammon.server import db, protocol
from gammon.server.db import Repository, User, make_engine, match_actions, migrate
from gammon.server.hub import Hub, LiveRoom, ServiceError
from gammon.server.lobby import Lobby
from gammon.server.play import Play
from gammon.server.protocol import parse_client_message
from gammon.server.pubsub import LocalBus, RedisBus
from gammon.views import MatchConfig
from tests.server.conftest import make_settings
from tests.server.conftest import run_async as run
from tests.server.helpers import random_play

STRANDED = (Phase.OPENING, Phase.GAME_OVER)


class Crash(Exception):
    """The process dies here: the transaction being committed is not stored."""


@pytest.fixture
def crash_before_commit_of(
        monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Callable[[], None]]]:
    """Arm a crash at the commit of the next transaction that stores a ``kind`` record, on
    whichever of the process's engines it runs (the store's operations on SQLite have
    their own; the hooks are set on every engine before the test makes any) or on
    asyncpg itself (PostgreSQL's insert of actions alone, one statement outside a
    transaction block): ``crash_before_commit_of(kind)`` returns the function that arms
    it."""
    armed: dict[str, str | None] = {"kind": None}
    insert = db._insert_actions_asyncpg

    async def insert_or_crash(engine: Any, match_id: str, seq: int, rows: Any) -> None:
        kind = armed["kind"]
        if kind is not None and any(row[0] == kind for row in rows):
            raise crash(kind)  # it commits as it runs: the crash before it is before it runs
        await insert(engine, match_id, seq, rows)

    monkeypatch.setattr(db, "_insert_actions_asyncpg", insert_or_crash)

    def crash(kind: str) -> Crash:
        armed["kind"] = None
        return Crash(f"killed before the commit of a {kind!r} record")

    def _seen(conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any,
              _many: bool) -> None:
        kind = armed["kind"]
        if kind is not None and "match_actions" in statement \
                and f"'{kind}'" in repr(parameters):
            if conn.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
                # one statement outside a transaction block commits as it runs: the crash
                # before its commit is the crash before it runs
                raise crash(kind)
            conn.info["crash"] = kind

    def _commit(conn: Any) -> None:
        kind = conn.info.pop("crash", None)
        if kind is not None:
            raise crash(kind)

    def _rollback(conn: Any) -> None:
        conn.info.pop("crash", None)

    listeners = (("before_cursor_execute", _seen), ("commit", _commit),
                 ("rollback", _rollback))
    for name, listener in listeners:
        sa.event.listen(sa.engine.Engine, name, listener)

    def make(kind: str) -> Callable[[], None]:
        def arm() -> None:
            armed["kind"] = kind

        return arm

    yield make
    for name, listener in listeners:
        sa.event.remove(sa.engine.Engine, name, listener)


@dataclass(eq=False)
class Socket:
    """A player's connection as the hub sees it."""

    user: User
    lag: float = 0.0
    muted: set[str] = field(default_factory=set)
    sent: list[dict[str, Any]] = field(default_factory=list)

    def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


class Server:
    """One server process: an engine, a repository, a hub, its play and lobby (no HTTP)."""

    def __init__(self, url: str, redis_url: str, **settings_: Any) -> None:
        self.engine = make_engine(url)
        self.repo = Repository(self.engine)
        settings = make_settings(url, redis_url, heartbeat_interval=3600, **settings_)
        self.hub = Hub(settings, self.repo,
                       RedisBus(redis_url, settings.bus_channel) if redis_url else LocalBus())
        self.play = Play(self.hub)
        self.lobby = Lobby(self.hub, invite_secret=b"not a secret")

    async def start(self) -> Server:
        await migrate(self.engine)
        await self.hub.start()
        return self

    async def die(self) -> None:
        """Gone without shutdown code: timers and tasks dropped, connections closed."""
        self.hub.closed = True
        for room in self.hub.rooms.values():
            if room.timer is not None:
                room.timer.cancel()
        for task in list(self.hub._tasks):
            task.cancel()
        await self.hub.bus.close()
        await self.repo.close()
        await self.engine.dispose()

    async def stop(self) -> None:
        await self.hub.stop()
        await self.repo.close()
        await self.engine.dispose()

    async def act(self, user: User, match_id: str, kind: str, **fields: Any) -> None:
        message = parse_client_message(json.dumps({"type": kind, "match": match_id, **fields}))
        await self.play.act(Socket(user), message, time.time())

    async def room(self, match_id: str) -> LiveRoom:
        room = await self.hub.room(match_id)
        assert room is not None and room.match is not None
        return room

    async def log_kinds(self, match_id: str) -> list[str]:
        async with self.engine.connect() as conn:
            return list((await conn.scalars(
                sa.select(match_actions.c.kind).where(match_actions.c.match_id == match_id)
                .order_by(match_actions.c.seq))).all())


async def two_players(server: Server) -> tuple[User, User]:
    return (await server.repo.create_user("anna", "user"),
            await server.repo.create_user("boris", "user"))


async def a_match_in_play(server: Server) -> tuple[LiveRoom, tuple[User, User]]:
    """A 3-point match of two new players, made and joined in ``server``: its room there,
    and the players."""
    users = await two_players(server)
    room = await server.lobby.create(users[0], MatchConfig(kind="match", length=3))
    await server.lobby.join(users[1], room.id)
    return await server.room(room.id), users


async def resign_the_first_game(server: Server, match_id: str, users: tuple[User, User]
                                ) -> None:
    """The player on turn resigns a single game; the other accepts (the game ends, the
    match goes on)."""
    room = await server.room(match_id)
    assert room.match is not None
    turn = room.match.game.turn
    await server.act(users[turn], match_id, "resign", level=1)
    await server.act(users[1 - turn], match_id, "accept_resign")


def test_a_socket_watches_a_bounded_number_of_matches(database_url: str,
                                                      redis_url: str) -> None:
    """A socket at its bound (``ws_subscriptions``, here 2) that subscribes to one more
    match lets go of its oldest subscription to a match that is over, whose room then
    leaves the process's memory; with every match it watches in play, the subscribe is
    refused ``too_many_subscriptions`` and changes nothing. Its subscriptions go with the
    socket."""

    async def main() -> None:
        server = await Server(database_url, redis_url, ws_subscriptions=2).start()
        users = await two_players(server)
        ids = []
        for _ in range(4):
            room = await server.lobby.create(users[0], MatchConfig(kind="match", length=1))
            await server.lobby.join(users[1], room.id)
            ids.append(room.id)
        watcher = Socket(users[0])
        for match_id in ids[:2]:
            await server.hub.subscribe(watcher, match_id, None)
        await resign_the_first_game(server, ids[0], users)  # 1 point: over
        assert server.hub.rooms[ids[0]].status == "finished"
        await server.hub.subscribe(watcher, ids[2], None)  # the one over goes
        assert ids[0] not in server.hub.rooms
        assert watcher in server.hub.rooms[ids[1]].subscribers
        await server.hub.subscribe(watcher, ids[2], None)  # again: no new subscription
        with pytest.raises(ServiceError) as refused:  # both in play
            await server.hub.subscribe(watcher, ids[3], None)
        assert refused.value.code == "too_many_subscriptions"
        assert watcher not in server.hub.rooms[ids[3]].subscribers
        await resign_the_first_game(server, ids[1], users)
        await server.hub.subscribe(watcher, ids[3], None)  # ids[1] is over now: it goes
        assert ids[1] not in server.hub.rooms
        assert list(server.hub.subscriptions[watcher]) == ids[2:]
        server.hub.disconnect(watcher)
        assert watcher not in server.hub.subscriptions
        assert all(watcher not in r.subscribers for r in server.hub.rooms.values())
        await server.stop()

    run(main)


def test_a_crash_between_a_game_end_and_the_next_opening_strands_nothing(
        database_url: str, redis_url: str,
        crash_before_commit_of: Callable[[str], Callable[[], None]]) -> None:
    """The game-ending action and the next opening are one commit: a server killed at
    either commit leaves no match in ``game_over`` for good."""

    async def main() -> None:
        server = await Server(database_url, redis_url).start()
        arm = crash_before_commit_of("opening")
        users = await two_players(server)
        room = await server.lobby.create(users[0], MatchConfig(kind="match", length=3))
        await server.lobby.join(users[1], room.id)
        live = await server.room(room.id)
        assert live.match is not None and live.match.number == 1
        arm()
        with pytest.raises(Crash):
            await resign_the_first_game(server, room.id, users)
        await server.die()

        restarted = await Server(database_url, redis_url).start()
        after = await restarted.room(room.id)
        assert after.match is not None
        assert after.match.phase not in STRANDED, after.match.phase
        if after.match.phase is Phase.RESIGN_OFFERED:  # the acceptance was not stored
            turn = after.match.game.turn
            await restarted.act(users[1 - turn], room.id, "accept_resign")
        assert after.match.number == 2 and after.match.phase not in STRANDED
        assert sum(after.match.score) == 1
        # the log holds each game's opening right after the action that ended the game
        kinds = await restarted.log_kinds(room.id)
        assert kinds == ["opening", "resign", "accept_resign", "opening"], kinds
        await restarted.stop()

    run(main)


def test_a_crash_between_a_join_and_the_first_opening_strands_nothing(
        database_url: str, redis_url: str,
        crash_before_commit_of: Callable[[str], Callable[[], None]]) -> None:
    """Taking the seat and the first opening are one commit: a server killed at either
    commit leaves no match in ``opening`` for good."""

    async def main() -> None:
        server = await Server(database_url, redis_url).start()
        arm = crash_before_commit_of("opening")
        users = await two_players(server)
        room = await server.lobby.create(users[0], MatchConfig(kind="match", length=3))
        arm()
        with pytest.raises(Crash):
            await server.lobby.join(users[1], room.id)
        await server.die()

        restarted = await Server(database_url, redis_url).start()
        row = await restarted.repo.match(room.id)
        if row.status == "open":  # the seat was not taken: join again
            await restarted.lobby.join(users[1], room.id)
        after = await restarted.room(room.id)
        assert after.match is not None
        assert after.match.phase not in STRANDED, after.match.phase
        assert await restarted.log_kinds(room.id) == ["opening"]
        await restarted.stop()

    run(main)


async def _append_as_an_older_version(repo: Repository, room: LiveRoom, action: Any) -> None:
    """Store one action the way a server that died before its next automatic step did."""
    record = protocol.action_json(action)
    async with repo.engine.begin() as conn:
        await conn.execute(match_actions.insert().values(
            match_id=room.id, seq=room.seq + 1, kind=record["t"], action=json.dumps(record),
            at=time.time()))


def test_loading_a_log_that_ends_before_an_automatic_step_finishes_it(
        database_url: str, redis_url: str) -> None:
    """Recovery: a log whose last action ended a game (an older version's log, or a
    process that died) gets its next opening when the room is loaded — once, even when
    two processes load it at the same moment."""

    async def main() -> None:
        server = await Server(database_url, redis_url).start()
        room, users = await a_match_in_play(server)
        assert room.match is not None
        turn = room.match.game.turn
        await _append_as_an_older_version(server.repo, room, A.OfferResign(turn, Level.SINGLE))
        room.replay(protocol.action_json(A.OfferResign(turn, Level.SINGLE)), time.time())
        await _append_as_an_older_version(server.repo, room, A.AcceptResign(1 - turn))
        await server.die()

        first, second = Server(database_url, redis_url), Server(database_url, redis_url)
        await migrate(first.engine)
        await asyncio.gather(first.hub.start(), second.hub.start())
        for process in (first, second):
            loaded = await process.room(room.id)
            assert loaded.match is not None
            assert loaded.match.number == 2 and loaded.match.phase not in STRANDED
            assert loaded.seq == 4
        assert await first.log_kinds(room.id) == [
            "opening", "resign", "accept_resign", "opening"]
        # and the new game is playable in either process
        loaded = await first.room(room.id)
        assert loaded.match is not None
        mover = users[loaded.match.game.turn]
        await first.act(mover, room.id, "resign", level=1)
        with pytest.raises(ServiceError):
            await second.act(mover, room.id, "resign", level=1)  # caught up: already offered
        await first.stop()
        await second.stop()

    run(main)


def test_a_socket_greeted_between_a_commit_and_its_send_gets_no_event_twice(
        database_url: str, redis_url: str) -> None:
    """A transition commits, then tells the other processes (an await), then sends its
    events: a socket subscribing in between is greeted with a state that holds them, and
    must not get them again as an update (a client takes the next update after its action
    as that action's answer)."""
    async def main() -> None:
        server = await Server(database_url, redis_url).start()
        room, users = await a_match_in_play(server)
        telling, told = asyncio.Event(), asyncio.Event()
        publish = server.hub.publish

        async def slowly(message: Any) -> None:  # the bus takes a while
            telling.set()
            await told.wait()
            await publish(message)

        server.hub.publish = slowly  # type: ignore[method-assign]
        game: dict[str, Any] = json.loads(json.dumps(room.game_json()))
        assert game["phase"] == "moving"
        acting = asyncio.create_task(server.act(
            users[game["turn"]], room.id, "play", play=random_play(game, random.Random(1))))
        await telling.wait()  # committed, not yet sent
        watcher = Socket(users[1])
        await server.hub.subscribe(watcher, room.id, None)
        told.set()
        await acting
        assert [m["type"] for m in watcher.sent] == ["state"], watcher.sent
        assert watcher.sent[0]["v"] == room.version
        later = Socket(users[0])  # a socket greeted after the send is unaffected
        await server.hub.subscribe(later, room.id, None)
        assert [m["type"] for m in later.sent] == ["state"]
        await server.stop()

    run(main)
