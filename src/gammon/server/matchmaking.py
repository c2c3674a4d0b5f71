"""Play now (PROTOCOL.md, *Play now*): a player waits in the pool of their choices (kind,
length, clock, rated) until the pairing rule (:mod:`gammon.server.pairing`) pairs them with
another, or, if they asked for it, until the bot they chose takes them after that many
seconds; the match is made by the lobby as every match is (:meth:`Lobby.started
<gammon.server.lobby.Lobby.started>`) and both players are told on their sockets
(``paired``).

The pools are the table ``pool_seekers``, shared by every server process and kept across
restarts. Every process makes a pairing pass every ``pairing_interval`` seconds, and at
once when a player arrives; a pass is one transaction that no other pass shares
(:meth:`Repository.pair <gammon.server.db.Repository.pair>`): the places it pairs are
deleted in the transaction that stores their match, so nobody is paired twice, and a
crash stores both or neither.

A place is *present* while a server process holds one of the player's sockets (it sees the
place at each pass); only present places are paired and counted. When the player's last
socket goes, or their process stops, the place is kept ``pairing_grace`` seconds: a player
who comes back within it (a reconnect, a restarted server) is still waiting, from the time
they came; after it the place is removed. Leaving the lobby page sends ``unseek``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable

from gammon import views
from gammon.server import jsontext, protocol
from gammon.server.bus_messages import SeeksChanged
from gammon.server.db import SeekTaken, User
from gammon.server.hub import Connection, ServiceError
from gammon.server.lobby import Lobby
from gammon.server.pairing import Seeker, pairs
from gammon.server.records import MatchRow, Row, Seek

log = logging.getLogger(__name__)

PRESENT_PASSES = 5
"""A place not seen by any process for this many pairing intervals is not present (its
process stopped): not paired, not counted, removed after the grace time."""

Made = tuple[MatchRow, list[Row], tuple[int, ...]]
"""A match a pass makes: its row, its opening and the players whose places it takes."""


class Matchmaker:
    """Play now's pools, through ``lobby`` (which makes the matches) and its hub."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.hub = lobby.hub
        self.repo = lobby.repo
        self.settings = lobby.settings
        self.rule = self.settings.pairing_band
        self.sockets: dict[int, set[Connection]] = {}
        """The sockets here of each waiting player: the one that sent ``seek``, and those
        following the lobby."""
        self._pass = asyncio.Lock()  # one pass at a time in this process
        self._bots: dict[int, User] = {}  # the server's bots, by level, once read
        self._bots_wanted: set[int] = set()  # levels a place fell back on, not yet read
        self._counts: list[tuple[str, int, str, bool, int]] | None = None  # last sent
        self._recount = False
        self._fresh: set[Connection] = set()
        self._counting = False
        hub = self.hub
        hub.on_seeks = lambda users, match: hub.spawn(self._seeks_changed(users, match))

    # -- a player's messages ---------------------------------------------------------------

    def seek_of(self, user: User, message: protocol.SeekMessage, now: float) -> Seek:
        """The place ``message`` asks for, or a refusal saying why (nothing stored)."""
        lengths = self.settings.pairing_lengths
        if message.kind == "match" and message.length not in lengths:
            raise ServiceError("bad_pool", "length: Play now's matches are to "
                               f"{', '.join(map(str, lengths))} points")
        if message.kind != "match" and message.length != 1:
            raise ServiceError("bad_pool", "length: a single game or money session has "
                                           "no length (1)")
        if message.rated and message.kind == "money":
            raise ServiceError("bad_pool", "rated: a money session is never rated")
        if message.rated and user.kind != "user":
            raise ServiceError("not_eligible", "rated: only registered players play rated "
                                               "games: sign up, or play unrated")
        if user.kind == "bot":
            raise ServiceError("not_eligible", "the server's bots do not seek games")
        return Seek(kind=message.kind, length=message.length, clock=message.clock,
                    rated=message.rated, since=now, bot=message.bot,
                    bot_after=message.bot_after)

    async def seek(self, conn: Connection, message: protocol.SeekMessage) -> None:
        """``seek``: wait in a pool (then a pairing pass at once)."""
        user = conn.user
        seek = self.seek_of(user, message, time.time())
        if not await self.repo.add_seek(user.id, seek):
            raise ServiceError("already_seeking", "you are already waiting in Play now: "
                                                  "cancel that first")
        self._attach(user.id, [conn])
        self._tell(user.id, protocol.seeking_message(seek))
        await self.hub.publish(SeeksChanged(users=(user.id,)))
        self._counts_changed()
        self.hub.spawn(self._pair_soon())

    async def unseek(self, conn: Connection) -> None:
        """``unseek``: leave the pool."""
        user_id = conn.user.id
        if not await self.repo.remove_seek(user_id):
            raise ServiceError("not_seeking", "you are not waiting in Play now")
        self._tell(user_id, protocol.seeking_message(None))
        self.sockets.pop(user_id, None)
        await self.hub.publish(SeeksChanged(users=(user_id,)))
        self._counts_changed()

    async def watch(self, conn: Connection) -> None:
        """``subscribe_lobby``: the pools' counts, and where this player stands — still
        waiting after a reconnect or a restart within the grace time (then present
        again), or not."""
        self._fresh.add(conn)
        self._send_counts()
        user_id = conn.user.id
        seek = (await self.repo.seeks([user_id])).get(user_id)
        if seek is not None:
            self._attach(user_id, [conn])
            await self.repo.seekers_seen([user_id], time.time())
            self._counts_changed()
        conn.send_text(jsontext.dumps(protocol.seeking_message(seek)))

    def gone(self, conn: Connection) -> None:
        """``unsubscribe_lobby``, or the socket closed: when it was the player's last here,
        their place is no longer present (kept for the grace time)."""
        self._fresh.discard(conn)
        user_id = conn.user.id
        held = self.sockets.get(user_id)
        if held is None or conn not in held:
            return
        held.discard(conn)
        if not held:
            del self.sockets[user_id]
            if not self.hub.closed:
                self.hub.spawn(self._left(user_id))

    async def _left(self, user_id: int) -> None:
        async with self._pass:  # before any pass of this process that starts after the close
            await self.repo.seeker_left(user_id, time.time())
        await self.hub.publish(SeeksChanged(users=(user_id,)))
        self._counts_changed()

    def _attach(self, user_id: int, conns: Iterable[Connection]) -> None:
        held = self.sockets.setdefault(user_id, set())
        held.update(conns)
        held.update(c for c in self.hub.lobby_watchers if c.user.id == user_id)

    def _tell(self, user_id: int, message: protocol.ServerMessage) -> None:
        text = jsontext.dumps(message)
        for conn in self.sockets.get(user_id, set()) | {
                c for c in self.hub.lobby_watchers if c.user.id == user_id}:
            conn.send_text(text)

    async def _seeks_changed(self, users: list[int], match: str | None) -> None:
        """Another process says these players' places changed (or they were paired)."""
        self._counts_changed()
        here = [u for u in users
                if u in self.sockets or any(c.user.id == u for c in self.hub.lobby_watchers)]
        if not here:
            return
        if match is not None:
            for user_id in here:
                self._tell(user_id, protocol.paired_message(match))
                self.sockets.pop(user_id, None)
            return
        seeks = await self.repo.seeks(here)
        for user_id in here:
            seek = seeks.get(user_id)
            if seek is None:
                self.sockets.pop(user_id, None)
            else:
                self._attach(user_id, [])
            self._tell(user_id, protocol.seeking_message(seek))

    # -- the pairing passes ----------------------------------------------------------------

    async def _pair_soon(self) -> None:
        await self.pair_now()

    async def run(self) -> None:
        """A pass every ``pairing_interval`` seconds, for as long as the process runs."""
        while True:
            try:
                await self.pair_now()
            except Exception:  # the database away a moment: the next pass tries again
                log.exception("a pairing pass failed")
            await asyncio.sleep(self.settings.pairing_interval)

    async def pair_now(self, now: float | None = None) -> list[str]:
        """One pairing pass at ``now`` (the clock's time by default): the ids of the
        matches it made. (A bot fallback due whose bot this process has not read yet
        reads it, then passes once more at the same time.)"""
        if self.hub.full():  # the seekers wait: moves first (gammon.server.shedding)
            return []
        made: list[Made] = []
        gone: list[int] = []
        async with self._pass:
            now = time.time() if now is None else now
            for _ in range(2):
                for level in self._bots_wanted - set(self._bots):  # made on first use
                    self._bots[level] = await self.lobby.bot_user(level)
                more, left = await self._pass_at(now)
                made += more
                gone += left
                if not self._bots_wanted - set(self._bots):
                    break
        for row, _, players in made:
            await self.lobby.opened(row)
            for user_id in players:
                self._tell(user_id, protocol.paired_message(row.id))
                self.sockets.pop(user_id, None)
            await self.hub.publish(SeeksChanged(users=players, match=row.id))
        if gone:
            await self.hub.publish(SeeksChanged(users=tuple(gone)))
        self._recount = True
        self._send_counts()
        return [row.id for row, _, _ in made]

    async def _pass_at(self, now: float) -> tuple[list[Made], list[int]]:
        """One transaction of :meth:`Repository.pair <gammon.server.db.Repository.pair>`
        (again, up to three times, when a place it took was taken meanwhile)."""
        if not self.sockets and not await self.repo.anyone_seeking():
            return [], []  # nobody waits anywhere: no write transaction each second
        settings = self.settings
        present_since = now - PRESENT_PASSES * settings.pairing_interval
        gone_before = now - max(settings.pairing_grace,
                                PRESENT_PASSES * settings.pairing_interval)
        for attempt in range(3):
            try:
                return await self.repo.pair(list(self.sockets), now, present_since,
                                            gone_before,
                                            lambda waiting: self._choose(waiting, now))
            except SeekTaken:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _choose(self, waiting: list[tuple[User, Seek]], now: float) -> list[Made]:
        """The matches of one pass: in each pool, the pairs of the rule; then each place
        left whose bot fallback is due gets its bot."""
        pools: dict[tuple[str, int, str, bool], list[tuple[User, Seek]]] = {}
        for user, seek in waiting:
            pools.setdefault(seek.pool, []).append((user, seek))
        made: list[Made] = []
        for members in pools.values():
            by_id = {user.id: (user, seek) for user, seek in members}
            seekers = [Seeker(user.id, user.rating, seek.since) for user, seek in members]
            for a, b in pairs(seekers, now, self.rule):
                (first, seek), (second, _) = by_id.pop(a.id), by_id.pop(b.id)
                config = self._config(seek)
                rated = seek.rated and self.lobby.rated_between(config, first, second)
                row, opening = self.lobby.started(first, second, config, rated=rated)
                made.append((row, opening, (first.id, second.id)))
            for user, seek in by_id.values():
                if seek.bot is not None and seek.bot_after is not None \
                        and now - seek.since >= seek.bot_after:
                    if seek.bot not in self._bots:  # read after this pass, for the next
                        self._bots_wanted.add(seek.bot)
                        continue
                    config = self._config(seek, bot=seek.bot)
                    row, opening = self.lobby.started(user, self._bots[seek.bot], config,
                                                      rated=False)
                    made.append((row, opening, (user.id,)))
        return made

    def _config(self, seek: Seek, bot: int | None = None) -> views.MatchConfig:
        """The match of a pool: its kind, length and clock (none against a bot), the cube
        (a match to 1 point and a single game have none: the rules say so), no money-play
        options."""
        return views.MatchConfig.chosen(
            kind=seek.kind, length=seek.length, cube=seek.kind != "single",
            clock=seek.clock, bot=bot, jacoby=False, beavers=False, winner_rolls_anew=False,
            private=False, clock_scale=self.settings.clock_scale)

    # -- the pools' counts, to the lobby's watchers ----------------------------------------

    def _counts_changed(self) -> None:
        self._recount = True
        self._send_counts()

    def _send_counts(self) -> None:
        if not self._counting and (self._recount or self._fresh) and self.hub.lobby_watchers:
            self._counting = True
            self.hub.spawn(self._counts_out())

    async def _counts_out(self) -> None:
        """Read the counts and send them to the watchers when they changed (to a new
        watcher always), again while changes or watchers come in meanwhile."""
        try:
            while (self._recount or self._fresh) and self.hub.lobby_watchers:
                fresh, self._fresh = self._fresh, set()
                self._recount = False
                present_since = time.time() - PRESENT_PASSES * self.settings.pairing_interval
                counts = await self.repo.pool_counts(present_since)
                targets = set(fresh)
                if counts != self._counts:
                    targets = set(self.hub.lobby_watchers)
                    self._counts = counts
                text = jsontext.dumps(protocol.pools_message(counts))
                for conn in targets & self.hub.lobby_watchers:
                    conn.send_text(text)
        finally:
            self._counting = False
