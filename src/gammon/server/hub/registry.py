"""The rooms this process holds: each loaded and replayed from the stored log on first use
(and resumed), kept in step with the actions other processes append, and let go once its
match is over and nobody watches it.

Rebuilding: a room is rebuilt from the database by replaying its stored actions through the
same :func:`~gammon.server.rooms.advance` the live path uses — dice, clock times and all are
in the stored actions, so the replay is exact. That is how a restarted server resumes every
match and how a process catches up with actions another process appended.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

from gammon.server.db import Repository
from gammon.server.hub.fanout import broadcast_state, flush
from gammon.server.hub.live import LiveRoom
from gammon.views import EventView


class Registry:
    """Match id -> the room this process holds. ``resume`` is awaited on a room just
    loaded, before anyone else gets it (its pending automatic actions made); ``loaded`` is
    told of a playing room once it is in (its flag timer set, a bot on turn scheduled)."""

    def __init__(self, repo: Repository, resume: Callable[[LiveRoom], Awaitable[None]],
                 loaded: Callable[[LiveRoom], None]) -> None:
        self.repo = repo
        self.rooms: dict[str, LiveRoom] = {}
        self._resume = resume
        self._loaded = loaded
        self._loading: dict[str, asyncio.Future[LiveRoom | None]] = {}
        self._position_ids: dict[str, tuple[int, frozenset[str]]] = {}
        """Match id -> (the room's action number, :meth:`position_ids` at that number)."""

    async def room(self, match_id: str) -> LiveRoom | None:
        """The room of a match, loaded and replayed from the database on first use (once,
        however many ask at the same time); None for no match or a cancelled one."""
        room = self.rooms.get(match_id)
        if room is not None:
            return room
        pending = self._loading.get(match_id)
        if pending is not None:
            return await pending
        future: asyncio.Future[LiveRoom | None] = asyncio.get_running_loop().create_future()
        self._loading[match_id] = future
        try:
            room = await self._load(match_id)
            if room is not None:
                await self._resume(room)
                self.rooms[match_id] = room
            future.set_result(room)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters get it re-raised
            raise
        finally:
            del self._loading[match_id]
        if room is not None and room.status == "playing":
            self._loaded(room)
        return room

    async def _load(self, match_id: str) -> LiveRoom | None:
        row, actions = await self.repo.match_with_actions(match_id)
        if row is None or row.status == "cancelled":
            return None
        room = LiveRoom.from_row(row)
        await self.load_users(room)
        for action in actions:
            room.replay(json.loads(action.action), action.at)
        return room

    async def load_users(self, room: LiveRoom) -> None:
        """Read the seated players (their ratings, options) again."""
        ids = [p for p in room.players if p is not None]
        room.users.update(await self.repo.users(ids))

    async def catch_up(self, room: LiveRoom) -> list[EventView]:
        """Apply the actions other processes appended (caller holds the room lock)."""
        row, actions = await self.repo.match_with_actions(room.id, after=room.seq)
        if row is None:
            return []
        if room.players != [row.player0, row.player1] or room.status != row.status:
            room.refresh(row)
            await self.load_users(room)
        events: list[EventView] = []
        for action in actions:
            if action.seq == room.seq + 1:
                events += room.replay(json.loads(action.action), action.at)
        return events

    async def seats_taken(self, room: LiveRoom) -> None:
        """Catch up with a join (caller holds the room lock): watchers of the open match get
        the state with both seats, then the opening as an update."""
        if room.match is None:
            row = await self.repo.match(room.id)
            if row is not None:
                room.refresh(row)
                await self.load_users(room)
            broadcast_state(room)
        room.outbox += await self.catch_up(room)
        flush(room)

    async def resync(self, room: LiveRoom) -> None:
        """Catch up with the log, whatever was announced (caller holds the room lock): a
        process that dies between its commit and its publish announces nothing, and this
        room would serve a stale state until the next action here."""
        if room.match is None:
            row = await self.repo.match(room.id)
            if row is not None and row.rules:  # seated elsewhere
                await self.seats_taken(room)
            return
        room.outbox += await self.catch_up(room)
        flush(room)

    def maybe_evict(self, room: LiveRoom) -> None:
        """Let go of a finished or cancelled room nobody watches."""
        if room.status in ("finished", "cancelled") and not room.subscribers:
            if room.timer is not None:
                room.timer.cancel()
            self.rooms.pop(room.id, None)
            self._position_ids.pop(room.id, None)

    def position_ids(self, room: LiveRoom) -> frozenset[str]:
        """The Position IDs of the game in play in ``room`` — both sides' views, at the
        start of the turn and now — or none once its match is over; computed once per
        action number (the engine API asks about every live rated match at each request)."""
        cached = self._position_ids.get(room.id)
        if cached is not None and cached[0] == room.seq:
            return cached[1]
        ids: frozenset[str] = frozenset()
        if room.match is not None and not room.match.is_over:
            game = room.match.game
            ids = frozenset(view.id() for position in (game.position, game.start_position)
                            for view in (position, position.swap()))
        self._position_ids[room.id] = (room.seq, ids)
        return ids
