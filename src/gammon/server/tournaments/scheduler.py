"""Tournaments on the server (PROTOCOL.md, *Tournaments*): created, entered, withdrawn from
and started by request (:class:`Tournaments`); driven round by round by one scheduler.

**One scheduler.** Every server process runs the loop (:meth:`Tournaments.run`), but only
the one that holds the scheduler's lock makes passes (:class:`Leadership`): on PostgreSQL a
session advisory lock (``pg_try_advisory_lock``) held on a connection of its own, which the
database releases when the process dies, so another process takes over at its next try; on
SQLite one process serves the database anyway. The rows are guarded besides: a round is
stored with a compare-and-set of the tournament's round, and the seats' primary key refuses
a player paired twice in a round.

**A pass** (every ``tournament_interval`` seconds, and at once when a match ends in this
process or an organiser starts a tournament) derives everything from the rows, so a pass
cut off anywhere is simply made again:

1. each pairing whose match ended gets its winner (the match's, as stored with its result
   and rating changes by the match's own code);
2. a tournament due starts (cancelled with fewer than two players);
3. in each running tournament, a player the match has waited ``tournament_no_show`` seconds
   for (since its last action) who has not moved in it yet loses it: the server times them
   out through the match's code (a ``timeout`` action, as a flag falling), and withdraws
   them from the tournament; a player who has moved and then stopped loses it the same way
   after ``tournament_stall`` seconds (so a match without a clock cannot hold a round up
   for ever), and stays in the tournament;
4. when a round is over the next is paired (:mod:`.pairing`), each pair's match made by the
   lobby as every match is (:meth:`Lobby.started <gammon.server.lobby.Lobby.started>`) and
   stored with the round in one transaction; both players are told on their sockets
   (``paired``, as Play now tells them); an arena pairs its waiting players at every pass
   until its end. The last round over, the tournament is finished: its standings are final.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from gammon import views
from gammon.core import actions as A
from gammon.core.errors import IllegalActionError
from gammon.server import protocol
from gammon.server.bus_messages import SeeksChanged
from gammon.server.db import User
from gammon.server.hub import LiveRoom, ServiceError
from gammon.server.lobby import Lobby
from gammon.server.rooms import runner
from gammon.server.tournaments.pairing import (
    BYE,
    Entrant,
    Pair,
    arena_pairs,
    knockout_first_round,
    knockout_next_round,
    swiss_round,
)
from gammon.server.tournaments.standings import (
    profile_tournament_view,
    rounds_view,
    standings,
    standings_csv,
    tournament_view,
)
from gammon.server.tournaments.store import (
    ChatLine,
    Entry,
    Pairing,
    Planned,
    Refused,
    Tournament,
    TournamentStore,
)

log = logging.getLogger(__name__)

CHAT_LINES = 50
"""How many of the chat's last lines a tournament's detail holds."""

PROFILE_TOURNAMENTS = 20
"""How many of a player's last tournaments their profile lists."""

LOCK_KEY = 7304212
"""The scheduler's PostgreSQL advisory lock (beside the migrations' 7304211)."""

MOVES = frozenset({"step", "play", "double", "take", "drop", "beaver", "resign",
                   "accept_resign", "reject_resign", "abandon"})
"""The stored actions only a player makes (the server's own: the openings, a roll for a
player with auto-roll, the end of a whole play for one without confirm; ``roll`` may be
either, so it does not count as showing up)."""


class Leadership:
    """Whether this process runs the scheduler's passes (see the module)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._conn: AsyncConnection | None = None
        # The lock's connection is held for as long as this process leads: it comes from an
        # engine of its own, not from the app's pool, of which it would hold a slot for good
        # (a pool of one was dry from the start).
        self._own: AsyncEngine | None = None

    async def held(self) -> bool:
        """Whether this process holds the lock (taking it when free)."""
        if self.engine.dialect.name != "postgresql":
            return True
        if self._conn is not None:
            try:
                await self._conn.execute(sa.text("SELECT 1"))
                return True
            except Exception:  # the connection (and with it the lock) is gone
                log.warning("the tournaments' scheduler lost its lock's connection")
                await self._drop()
        if self._own is None:
            self._own = create_async_engine(self.engine.url, poolclass=NullPool,
                                            isolation_level="AUTOCOMMIT")
        conn = await self._own.connect()
        try:
            got = await conn.scalar(sa.text("SELECT pg_try_advisory_lock(:key)"),
                                    {"key": LOCK_KEY})
        except BaseException:
            await conn.invalidate()
            await conn.close()
            raise
        if got:
            self._conn = conn
            log.info("this process runs the tournaments' scheduler")
            return True
        await conn.close()
        return False

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.invalidate()  # closed for good: no pooled session keeps the lock
                await conn.close()

    async def release(self) -> None:
        """Let the lock go (the process stops): another process takes over at once."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.execute(sa.text("SELECT pg_advisory_unlock(:key)"),
                                   {"key": LOCK_KEY})
                await conn.close()
            except Exception:
                self._conn = conn
                await self._drop()
        if self._own is not None:
            await self._own.dispose()
            self._own = None


def _refusal(error: Refused) -> ServiceError:
    messages = {
        "registration_closed": "this tournament no longer takes entries",
        "tournament_full": "this tournament has as many players as it takes",
        "already_registered": "you are entered already",
        "not_registered": "you are not entered in this tournament",
        "already_started": "this tournament has started (or is over)",
        "not_enough_players": "a tournament needs two players at least to start",
    }
    return ServiceError(error.code, messages[error.code])  # type: ignore[arg-type]


def _chat_line(line: ChatLine) -> views.TournamentChatLineView:
    return {"from": line.name, "text": line.text, "at": line.at}


class Tournaments:
    """The tournaments of one server process: requests, and the scheduler's passes when it
    holds the lock."""

    def __init__(self, lobby: Lobby, engine: AsyncEngine) -> None:
        self.lobby = lobby
        self.hub = lobby.hub
        self.repo = lobby.repo
        self.settings = lobby.settings
        self.store = TournamentStore(engine)
        self.leader = Leadership(engine)
        self.clock: Callable[[], float] = time.time
        """The scheduler's time (the tests set one: an arena's end, a no-show's wait)."""
        self._pass = asyncio.Lock()  # one pass at a time in this process
        self._wake = asyncio.Event()

    # -- requests --------------------------------------------------------------------------

    async def create(self, organiser: User, body: protocol.NewTournament) -> Tournament:
        """A new tournament of ``organiser``'s (a registered player), registering."""
        if organiser.kind != "user":
            raise ServiceError("not_eligible", "sign up to organise tournaments")
        now = self.clock()
        if body.starts_at is not None and body.starts_at < now:
            raise ServiceError("bad_input", "starts_at: the start is in the past")
        return await self.store.create({
            "name": body.name, "format": body.format, "length": body.length,
            "clock": body.clock, "rated": body.rated, "starts_at": body.starts_at,
            "max_players": body.max_players, "rounds": body.rounds,
            "duration": None if body.duration is None else float(body.duration),
            "private": body.private,
            "invite_key": secrets.token_urlsafe(16) if body.private else None,
            "organiser": organiser.id, "state": "registering", "round": 0,
            "created_at": now})

    async def visible(self, slug: str, user: User | None, key: str | None) -> Tournament:
        """The tournament ``slug`` if the caller may see it (a private one: its organiser,
        its players, or with its invite key), else ``not_found`` (the same as for none)."""
        t = await self.store.get(slug)
        if t is not None and t.private and not self._may_see(t, user, key) and (
                user is None or user.id not in {e.user_id for e in
                                                await self.store.entries(t.id)}):
            t = None
        if t is None:
            raise ServiceError("not_found", "no such tournament")
        return t

    @staticmethod
    def _may_see(t: Tournament, user: User | None, key: str | None) -> bool:
        """Its organiser, or with its invite key (its players: :meth:`visible`)."""
        if user is not None and user.id == t.organiser:
            return True
        return key is not None and t.invite_key is not None and hmac.compare_digest(
            key.encode(), t.invite_key.encode())

    async def register(self, t: Tournament, caller: User, bot: int | None) -> None:
        """Enter the caller, or (``bot``, the organiser only) the server's bot of that
        level."""
        user = caller
        if bot is not None:
            if caller.id != t.organiser:
                raise ServiceError("not_organiser", "only the organiser enters the "
                                                    "server's bots")
            user = await self.lobby.bot_user(bot)
        if t.rated and user.kind == "guest":
            raise ServiceError("not_eligible", "a rated tournament is for registered "
                                               "players: sign up")
        try:
            await self.store.register(t.id, user.id, user.rating, self.clock())
        except Refused as error:
            raise _refusal(error) from None

    async def withdraw(self, t: Tournament, user: User) -> None:
        """Withdraw ``user``: not paired again; a match of theirs in play is lost (they
        abandon it, through the match's code)."""
        try:
            await self.store.withdraw(t.id, user.id)
        except Refused as error:
            raise _refusal(error) from None
        for p in await self.store.pairings(t.id):
            if p.winner is None and p.match_id is not None and user.id in (p.first, p.second):
                room = await self.hub.room(p.match_id)
                if room is not None:
                    seat = room.seat_of(user.id)
                    if seat is not None:
                        await self._forfeit(room, A.Abandon(seat), self.clock())
        self.poke()

    async def start(self, t: Tournament, user: User) -> None:
        """Start now (the organiser only); the first round is paired at once when this
        process runs the scheduler, else at the scheduler's next pass."""
        if user.id != t.organiser:
            raise ServiceError("not_organiser", "only the organiser starts the tournament")
        try:
            await self.store.start(t.id, self.clock())
        except Refused as error:
            raise _refusal(error) from None
        await self.pass_now()

    async def chat(self, t: Tournament, user: User | None, text: str) -> None:
        """A line of ``user``'s in the tournament's chat: its players only (its entrants,
        withdrawn or not, and its organiser); ``text`` without its surrounding blanks, not
        empty."""
        text = text.strip()
        if not text:
            raise ServiceError("bad_input", "text: an empty line")
        if user is None or (user.id != t.organiser and user.id not in {
                e.user_id for e in await self.store.entries(t.id)}):
            raise ServiceError("not_a_player", "only the tournament's players write in "
                                               "its chat")
        await self.store.add_chat(t.id, user.id, text, self.clock())

    async def detail(self, t: Tournament, viewer: User | None) -> views.TournamentDetailView:
        entries = await self.store.entries(t.id)
        pairings = await self.store.pairings(t.id)
        invite = None
        if t.private and viewer is not None and viewer.id == t.organiser:
            invite = f"/#/tournament/{t.slug}?key={t.invite_key}"
        return {"tournament": await self._view(t, entries),
                "entries": [{"id": e.user_id, "name": e.name, "rating": round(e.rating, 2),
                             "withdrawn": e.withdrawn} for e in entries],
                "rounds": rounds_view(pairings),
                "standings": standings(t, entries, pairings), "invite": invite,
                "chat": [_chat_line(line) for line in
                         await self.store.chat(t.id, CHAT_LINES)]}

    async def results_csv(self, t: Tournament) -> str:
        return standings_csv(standings(t, await self.store.entries(t.id),
                                       await self.store.pairings(t.id)))

    async def listing(self) -> views.TournamentListView:
        upcoming = await self.store.in_state("registering", public=True)
        running = await self.store.in_state("running", public=True)
        finished = await self.store.in_state("finished", public=True, limit=50)
        every = upcoming + running + finished
        counts = await self.store.counts([t.id for t in every])
        names = await self.store.names(list({t.organiser for t in every}))

        def view(t: Tournament) -> views.TournamentView:
            return tournament_view(t, names.get(t.organiser, ""), counts.get(t.id, 0),
                                   self._waits)

        return {"upcoming": [view(t) for t in upcoming],
                "running": [view(t) for t in running],
                "finished": [view(t) for t in finished]}

    async def history(self, user_id: int) -> list[views.ProfileTournamentView]:
        """The last :data:`PROFILE_TOURNAMENTS` public tournaments the player entered,
        newest first, their place in each finished one (three queries in all)."""
        entered = await self.store.entered(user_id, PROFILE_TOURNAMENTS)
        finished = [t.id for t, _ in entered if t.state == "finished"]
        entries = await self.store.entries_of(finished) if finished else {}
        pairings = await self.store.pairings_of(finished) if finished else {}
        return [profile_tournament_view(t, user_id, withdrawn, entries.get(t.id, []),
                                        pairings.get(t.id, []))
                for t, withdrawn in entered]

    async def _view(self, t: Tournament, entries: Sequence[Entry]) -> views.TournamentView:
        names = await self.store.names([t.organiser])
        return tournament_view(t, names.get(t.organiser, ""),
                               sum(not e.withdrawn for e in entries), self._waits)

    @property
    def _waits(self) -> tuple[float, float]:
        """The published waits: for a player's first move, for a player who stopped."""
        return self.settings.tournament_no_show, self.settings.tournament_stall

    # -- the scheduler ---------------------------------------------------------------------

    def poke(self) -> None:
        """Make a pass soon (a match ended here, a tournament started)."""
        self._wake.set()

    def match_finished(self, _match: str) -> None:
        """A match ended in this process (:attr:`Hub.finish_listeners
        <gammon.server.hub.core.Hub.finish_listeners>`)."""
        self.poke()

    async def run(self) -> None:
        """A pass every ``tournament_interval`` seconds (sooner when poked), for as long as
        the process runs; the lock let go at the end."""
        try:
            while True:
                try:
                    await self.pass_now()
                except Exception:  # the database away a moment: the next pass tries again
                    log.exception("a tournaments' pass failed")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.tournament_interval)
                self._wake.clear()
        finally:
            await self.leader.release()

    async def pass_now(self, now: float | None = None) -> bool:
        """One pass at ``now`` (the clock's time by default), when this process holds the
        scheduler's lock: whether it did."""
        async with self._pass:
            if not await self.leader.held():
                return False
            now = self.clock() if now is None else now
            await self.store.record_results()
            for t in await self.store.due(now):
                try:
                    await self.store.start(t.id, now)
                except Refused as error:
                    if error.code == "not_enough_players":
                        await self.store.end(t.id, "cancelled", now, was="registering")
            for t in await self.store.in_state("running"):
                await self._advance(t, now)
            return True

    async def _advance(self, t: Tournament, now: float) -> None:
        """One tournament's step: no-shows, then the next round or the end."""
        pairings = await self.store.pairings(t.id)
        pending = [p for p in pairings if p.winner is None]
        timed_out = False
        for p in pending:
            timed_out |= await self._no_show(t, p, now)
        if timed_out:
            await self.store.record_results()
            pairings = await self.store.pairings(t.id)
            pending = [p for p in pairings if p.winner is None]
        entries = await self.store.entries(t.id)
        if t.format == "arena":
            ends_at = t.ends_at
            assert ends_at is not None
            if now < ends_at:
                await self._arena_round(t, entries, pairings, pending, now)
            elif not pending:
                await self.store.end(t.id, "finished", now, was="running")
            return
        if pending:
            return
        active = [Entrant(e.user_id, e.rating) for e in entries if not e.withdrawn]
        current = [p for p in pairings if p.round == t.round]
        pairs: list[Pair]
        if t.format == "knockout":
            if t.round == 0:
                pairs = knockout_first_round([Entrant(e.user_id, e.rating) for e in entries
                                              if not e.withdrawn]) if len(active) >= 2 else []
            elif len(current) > 1:
                pairs = knockout_next_round([p.winner for p in current
                                             if p.winner is not None])
            else:
                pairs = []  # the final is over
        else:
            assert t.rounds is not None
            pairs = []
            if t.round < t.rounds and len(active) >= 2:
                try:
                    pairs = swiss_round(active, [p.played for p in pairings])
                except ValueError:  # every player has had a bye: no further round
                    pairs = []
        if not pairs:
            await self.store.end(t.id, "finished", now, was="running")
            return
        withdrawn = {e.user_id for e in entries if e.withdrawn}
        await self._make_round(t, pairs, withdrawn, now)

    async def _arena_round(self, t: Tournament, entries: Sequence[Entry],
                           pairings: Sequence[Pairing], pending: Sequence[Pairing],
                           now: float) -> None:
        """Pair the arena's waiting players (not withdrawn, no match in play)."""
        busy = {u for p in pending for u in (p.first, p.second) if u is not None}
        waiting = [Entrant(e.user_id, e.rating) for e in entries
                   if not e.withdrawn and e.user_id not in busy]
        last: dict[int, int] = {}
        for p in pairings:  # in round order: the latest wins
            if p.second is not None:
                last[p.first], last[p.second] = p.second, p.first
        pairs = arena_pairs(waiting, last)
        if pairs:
            await self._make_round(t, pairs, set(), now)

    async def _make_round(self, t: Tournament, pairs: Sequence[Pair], withdrawn: set[int],
                          now: float) -> None:
        """Store the next round of ``pairs`` with their matches (a pair with a withdrawn
        player is a walkover, a pair without a second a bye), then open the matches and
        tell their players."""
        users = await self.repo.users([u for pair in pairs for u in pair if u is not None])
        config = views.MatchConfig.chosen(
            kind="match", length=t.length, cube=t.length > 1, clock=t.clock, bot=None,
            jacoby=False, beavers=False, winner_rolls_anew=False, private=t.private,
            clock_scale=self.settings.clock_scale)
        planned: list[Planned] = []
        for board, (first, second) in enumerate(pairs):
            if second is BYE:
                planned.append(Planned(board, first, None, winner=first, reason="bye"))
            elif first in withdrawn or second in withdrawn:
                winner = second if first in withdrawn and second not in withdrawn else first
                planned.append(Planned(board, first, second, winner=winner,
                                       reason="walkover"))
            else:
                a, b = users[first], users[second]
                rated = t.rated and self.lobby.rated_between(config, a, b)
                planned.append(Planned(board, first, second,
                                       match=self.lobby.started(a, b, config, rated=rated)))
        if not await self.store.make_round(t.id, t.round, planned, now):
            return  # another pass made it meanwhile
        for plan in planned:
            if plan.match is None:
                continue
            row, _ = plan.match
            await self.lobby.opened(row)
            players = [u for u in (plan.first, plan.second) if u is not None]
            self.hub.on_seeks(players, row.id)  # ``paired`` to their sockets here
            await self.hub.publish(SeeksChanged(users=tuple(players), match=row.id))

    async def _no_show(self, t: Tournament, p: Pairing, now: float) -> bool:
        """Time out the player ``p``'s match waits for if it has waited
        ``tournament_no_show`` seconds since its last action and they have not moved in it
        yet (withdrawn too), or ``tournament_stall`` seconds and they have; whether the
        match ended so."""
        wait = min(self.settings.tournament_no_show, self.settings.tournament_stall)
        if p.match_id is None or now - p.made_at < wait:
            return False
        row, actions = await self.repo.match_with_actions(p.match_id)
        if row is None or row.status != "playing" or not actions:
            return False
        if now - actions[-1].at < wait:
            return False
        moved = {json.loads(a.action).get("p") for a in actions if a.kind in MOVES}
        room = await self.hub.room(p.match_id)
        if room is None or room.match is None or room.seq != actions[-1].seq:
            return False  # the room here is behind the log: next pass
        side = runner(room.match)
        if side is None:
            return False
        stalled = side in moved
        waited = now - actions[-1].at
        if waited < (self.settings.tournament_stall if stalled
                     else self.settings.tournament_no_show):
            return False
        loser = room.players[side]
        if loser is None or not await self._forfeit(room, A.Timeout(side), now,
                                                    seq=room.seq):
            return False
        if stalled:  # the match's end gives the pairing its winner, as any end does
            log.info("tournament %s: player %d stopped playing match %s", t.slug, loser,
                     p.match_id)
            return True
        await self.store.no_show(t.id, p.id, loser)
        log.info("tournament %s: player %d did not show up in match %s", t.slug, loser,
                 p.match_id)
        return True

    async def _forfeit(self, room: LiveRoom, action: A.Action, at: float,
                       seq: int | None = None) -> bool:
        """``action`` (a time-out or an abandon) in ``room`` through the match's one
        transition (stored, broadcast, the match's end and ratings with it); with ``seq``,
        only if the room is still at that action. Whether it ended the match."""
        async with room.lock:
            if room.match is None or room.match.is_over or (seq is not None
                                                            and room.seq != seq):
                return False
            try:
                await self.hub.transition(
                    room, lambda r: action if seq is None or r.seq == seq else None, at)
            except IllegalActionError:  # not now (the match moved meanwhile): next pass
                return False
            finally:
                self.hub.flush(room)
        self.hub.after_change(room, local=True)
        return room.match is not None and room.match.is_over
