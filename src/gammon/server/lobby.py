"""The lobby: a match is created (open for a second player, or against a bot and started
at once), joined, cancelled while open, or followed by a rematch. A join stores the seat and
the first opening roll in one transaction; so does a bot match's creation.
The open public games go to every socket following the lobby (``subscribe_lobby``) as a
``lobby`` message whenever they change, in this process or (said by the bus) another; each
such socket also gets its player's challenges (``challenges``: the open games reserved for them
and those they reserved for another) at once and whenever one of them is made, taken, declined
or withdrawn.
Private matches: a private match is seen only by its players, the player it is reserved for
(a rematch) and whoever holds its invite link, ``/#/match/ID?key=KEY``. KEY is a keyed hash
of the match id (HMAC-SHA256 under a secret derived from the server's secret key, first 128
bits, base64url): nothing to store, unguessable, and the id alone (in logs, in the players'
history) gives no access. To anyone else the match does not exist (``not_found``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Iterable
from dataclasses import replace

from gammon import views
from gammon.server import jsontext, protocol
from gammon.server.bus_messages import ChallengesChanged, LobbyChanged, Seated, forward
from gammon.server.db import User
from gammon.server.fairness import commitment, new_seed
from gammon.server.hub import Connection, Hub, LiveRoom, ServiceError
from gammon.server.records import MatchRow, Row
from gammon.server.rooms import Room, rules_for, rules_json, stored_row

log = logging.getLogger(__name__)


class Lobby:
    """Matches made and unmade, through ``hub``; ``invite_secret`` keys the invite links."""

    def __init__(self, hub: Hub, invite_secret: bytes) -> None:
        self.hub = hub
        self.invite_secret = invite_secret
        self.repo = hub.repo
        self.settings = hub.settings
        self._stale = False  # the open games changed since the watchers were last told
        self._fresh: set[Connection] = set()  # new watchers, not yet told
        self._sending = False
        self._challenged: set[int] = set()  # players whose challenges changed, not yet told
        self._sending_challenges = False
        hub.on_lobby = self._refresh
        hub.on_challenges = self._challenges_stale

    async def create(self, user: User, config: views.MatchConfig, *, client_seed: str = "",
                     reserved_for: int | None = None, rematch_of: str | None = None
                     ) -> LiveRoom:
        """A new match: open for a second player, or against a bot (started at once)."""
        if config.bot is None and await self.repo.count_open(user.id) >= \
                self.settings.max_open_games:
            raise ServiceError("too_many_games",
                               f"at most {self.settings.max_open_games} open games per player")
        row = self._new_row(user, config, client_seed=client_seed,
                            reserved_for=reserved_for, rematch_of=rematch_of)
        first: list[Row] = []
        if config.bot is not None:
            row, first = self.started(user, await self.bot_user(config.bot), config,
                                      rated=False, row=row)
        await self.repo.create_match(row, first)  # with its opening: one transaction
        room = await self.opened(row)
        if not first and not row.private:
            await self.changed()
        if reserved_for is not None:
            await self.challenges_changed(user.id, reserved_for)
        return room

    @staticmethod
    def _new_row(user: User, config: views.MatchConfig, *, client_seed: str = "",
                 reserved_for: int | None = None, rematch_of: str | None = None
                 ) -> MatchRow:
        """A new match of ``user``'s, open for a second player: its id and seeds."""
        seed = new_seed()
        return MatchRow(
            id=secrets.token_urlsafe(12), created_at=time.time(), status="open",
            config=config, player0=user.id, server_seed=seed, seed_hash=commitment(seed),
            private=config.private or reserved_for is not None, client_seed0=client_seed,
            reserved_for=reserved_for, rematch_of=rematch_of)

    @staticmethod
    def _seated(row: MatchRow, user: User, *, client_seed: str = "", rated: bool
                ) -> MatchRow:
        """``row`` with its second seat taken by ``user``: in play, its rules fixed."""
        return replace(row, player1=user.id, client_seed1=client_seed, status="playing",
                       rules=rules_json(rules_for(row.config)), rated=rated)

    @staticmethod
    def rated_between(config: views.MatchConfig, first: User, second: User) -> bool:
        """Whether a match of ``config`` between these players is rated: a match or a
        single game between two registered players (not money, no guest, no server
        bot)."""
        return config.points >= 1 and first.kind == "user" and second.kind == "user"

    def started(self, first: User, second: User, config: views.MatchConfig, *,
                rated: bool, row: MatchRow | None = None) -> tuple[MatchRow, list[Row]]:
        """A match of ``first`` (seat 0) and ``second`` that starts at once — against the
        server's bot, or two players paired by Play now — made as every match is (a new
        row, or ``row``, its second seat taken as :meth:`join` takes it) with its opening:
        for the caller to store in one transaction, then :meth:`opened`."""
        row = self._seated(row or self._new_row(first, config), second, rated=rated)
        return row, self._opening_rows(row, [first, second])

    async def opened(self, row: MatchRow) -> LiveRoom:
        """The room of a match just stored (a bot on turn is scheduled, the flag timer
        set)."""
        room = await self.hub.room(row.id)
        assert room is not None
        return room

    @staticmethod
    def _opening_rows(row: MatchRow, players: list[User]) -> list[Row]:
        """The stored actions that start the match of ``row`` (seated: its rules set)."""
        room = Room.from_row(row)
        room.users = {player.id: player for player in players}
        now = time.time()
        return [stored_row(step) for step in room.plan(None, now, now)]

    async def bot_user(self, level: int) -> User:
        """The server's bot account of ``level`` (made on first use): the account carries
        its level (:func:`views.bot_account_level`), the bots' play reads it there."""
        name = views.bot_account(level)
        found = await self.repo.user_by_name(name)
        if found is not None:
            return found[0]
        try:
            return await self.repo.create_user(name, "bot")
        except Exception:  # created meanwhile by another request
            found = await self.repo.user_by_name(name)
            assert found is not None
            return found[0]

    async def join(self, user: User, match_id: str, client_seed: str = "") -> LiveRoom:
        row = await self.repo.match(match_id)
        if row is None or row.status == "cancelled":
            raise ServiceError("not_found", f"no match {match_id}")
        if row.status != "open":
            raise ServiceError("not_open", "this match has started")
        if row.player0 == user.id:
            raise ServiceError("own_game", "you cannot join your own game")
        if row.reserved_for is not None and row.reserved_for != user.id:
            raise ServiceError("reserved", "this game is reserved for another player")
        assert row.player0 is not None  # an open match's creator
        creator = await self.repo.user(row.player0)
        assert creator is not None
        seated = self._seated(row, user, client_seed=client_seed,
                              rated=self.rated_between(row.config, creator, user))
        opening = self._opening_rows(seated, [creator, user])
        assert seated.rules is not None
        if not await self.repo.seat(match_id, user.id, client_seed, seated.rules,
                                    seated.rated, opening):  # seat and opening: one transaction
            raise ServiceError("not_open", "someone else took the seat")
        room = await self.hub.room(match_id)
        assert room is not None
        async with room.lock:
            await self.hub.seats_taken(room)
        await self.hub.publish(Seated(match=match_id))
        self.hub.after_change(room, local=True)
        if not row.private:
            await self.changed()
        if row.reserved_for is not None:
            await self.challenges_changed(row.player0, row.reserved_for)
        return room

    async def cancel(self, user: User, match_id: str, *, declined: bool = False) -> None:
        """Withdraw ``user``'s open game, or, ``declined``, decline one reserved for them
        (a challenge or a rematch): either way it is cancelled."""
        row = await self.repo.match(match_id)  # who it was reserved for (that never changes)
        if not await self.repo.cancel(match_id, user.id, declined=declined):
            raise ServiceError("not_found", "no open game reserved for you with that id"
                               if declined else "no open game of yours with that id")
        room = self.hub.rooms.pop(match_id, None)
        if room is not None:
            room.status = "cancelled"
            self.hub.send_all(room, protocol.cancelled_message(match_id))
        await self.changed()
        if row is not None and row.player0 is not None and row.reserved_for is not None:
            await self.challenges_changed(row.player0, row.reserved_for)

    async def rematch(self, user: User, match_id: str) -> LiveRoom:
        room = await self.hub.room(match_id)
        if room is None:
            raise ServiceError("not_found", f"no match {match_id}")
        seat = room.seat_of(user.id)
        if seat is None:
            raise ServiceError("not_a_player", "only the players may ask for a rematch")
        if room.status != "finished":
            raise ServiceError("not_finished", "the match is not over")
        opponent = room.players[1 - seat]
        new = await self.create(
            user, room.config, reserved_for=None if room.config.bot is not None else opponent,
            rematch_of=match_id)
        payload = protocol.rematch_message(match_id, new.id, user.name)
        self.hub.send_all(room, payload)
        await self.hub.publish(forward(match_id, payload))
        return new

    # -- the open games, and the sockets that follow them ------------------------------------

    async def open_games(self) -> list[protocol.OpenGame]:
        """The open public games, oldest first (``GET /api/games``, ``lobby`` messages)."""
        return await self._games(await self.repo.open_matches())

    async def challenges(self, user: User) -> list[protocol.OpenGame]:
        """The open games reserved for ``user`` (challenges and rematches), oldest first
        (``GET /api/challenges``): theirs to join."""
        return await self._games(await self.repo.reserved_for(user.id))

    async def sent_challenges(self, user: User) -> list[protocol.SentChallenge]:
        """The open games ``user`` reserved for another player (challenges and rematches
        waiting for an answer), oldest first (``GET /api/challenges/sent``)."""
        rows = await self.repo.reserved_by(user.id)
        opponents = await self.repo.users([r.reserved_for for r in rows
                                           if r.reserved_for is not None])
        return [{**game, "opponent": views.user_view(opponent) if opponent else None}
                for game, opponent in zip(await self._games(rows),
                                          [None if r.reserved_for is None
                                           else opponents.get(r.reserved_for) for r in rows],
                                          strict=True)]

    async def _games(self, rows: list[MatchRow]) -> list[protocol.OpenGame]:
        creators = await self.repo.users([r.player0 for r in rows if r.player0 is not None])
        out: list[protocol.OpenGame] = []
        for row in rows:
            config = views.config_view(row.config)
            creator = None if row.player0 is None else creators.get(row.player0)
            out.append({"id": row.id, "created_at": row.created_at,
                        **config, "creator": views.user_view(creator) if creator else None})
        return out

    def watch(self, conn: Connection) -> None:
        """``subscribe_lobby``: the socket gets the open games now and at every change."""
        self.hub.lobby_watchers.add(conn)
        self._fresh.add(conn)
        self._tell()
        self._challenges_stale([conn.user.id])

    def unwatch(self, conn: Connection) -> None:
        self.hub.lobby_watchers.discard(conn)
        self._fresh.discard(conn)

    async def changed(self) -> None:
        """The open games changed here: tell this process's watchers and the others."""
        self._refresh()
        await self.hub.publish(LobbyChanged())

    def _refresh(self) -> None:
        self._stale = True
        self._tell()

    def _tell(self) -> None:
        if not self._sending and self.hub.lobby_watchers:
            self._sending = True
            self.hub.spawn(self._send())

    async def _send(self) -> None:
        """Read the open games and send them, again while changes or watchers come in
        meanwhile: each message is read after what it answers, and a burst of changes is
        read once."""
        try:
            while (self._stale or self._fresh) and self.hub.lobby_watchers:
                targets = set(self.hub.lobby_watchers) if self._stale else set(self._fresh)
                self._stale = False
                self._fresh.clear()
                text = jsontext.dumps(protocol.lobby_message(await self.open_games()))
                for conn in targets & self.hub.lobby_watchers:
                    conn.send_text(text)
        finally:
            self._sending = False
            self._fresh &= self.hub.lobby_watchers
            self._stale = self._stale and bool(self.hub.lobby_watchers)

    # -- the challenges, to the sockets of the players they concern -----------------------

    async def challenges_changed(self, *user_ids: int) -> None:
        """A game reserved by or for these players was made, taken or cancelled here: tell
        their sockets that follow the lobby, in this process and (by the bus) the others."""
        self._challenges_stale(user_ids)
        await self.hub.publish(ChallengesChanged(users=user_ids))

    def _challenges_stale(self, user_ids: Iterable[int]) -> None:
        self._challenged.update(user_ids)
        if not self._sending_challenges and self._challenged:
            self._sending_challenges = True
            self.hub.spawn(self._send_challenges())

    async def _send_challenges(self) -> None:
        """Each player's challenges, read after what changed them, to their sockets that
        follow the lobby, until no player is left to tell. A failed read (the database
        away a moment) is logged and costs that player this notice only: the others
        queued are still told."""
        try:
            while self._challenged:
                user_id = self._challenged.pop()
                conns = [c for c in self.hub.lobby_watchers if c.user.id == user_id]
                if not conns:
                    continue
                try:
                    text = jsontext.dumps(protocol.challenges_message(
                        await self.challenges(conns[0].user),
                        await self.sent_challenges(conns[0].user)))
                except Exception:
                    log.exception("reading the challenges of player %d failed", user_id)
                    continue
                for conn in conns:
                    if conn in self.hub.lobby_watchers:
                        conn.send_text(text)
        finally:
            self._sending_challenges = False

    # -- private matches -------------------------------------------------------------------

    def invite_key(self, match_id: str) -> str:
        digest = hmac.new(self.invite_secret, match_id.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")

    def invite(self, room: Room) -> str:
        """The link that shows a match to whoever holds it (PROTOCOL.md, *Private
        matches*)."""
        link = f"/#/match/{room.id}"
        return f"{link}?key={self.invite_key(room.id)}" if room.private else link

    def may_see(self, room: Room, user_id: int | None, key: str | None) -> bool:
        if not room.private:
            return True
        if user_id is not None and (room.seat_of(user_id) is not None
                                    or room.reserved_for == user_id):
            return True
        return key is not None and hmac.compare_digest(key.encode(),
                                                       self.invite_key(room.id).encode())
