"""The tournaments' rows (:mod:`gammon.server.db`: ``tournaments``, ``tournament_entries``,
``tournament_pairings``, ``tournament_seats``, ``tournament_chat``) and every query on them.

A tournament's state lives here only: the scheduler (:mod:`.scheduler`) derives what to do
from these rows at each pass, so a restart, or another process taking the scheduler over,
loses nothing. Each change that must not happen twice is a compare-and-set on the
tournament's row (its ``state``, its ``round``) in the transaction that makes it, whose
first statement is that update: on PostgreSQL it locks the row (a second writer waits, then
finds it changed and stores nothing), on SQLite it takes the one writer lock.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from gammon import views
from gammon.server.db import (
    DbRow,
    insert_match,
    matches,
    tournament_chat,
    tournament_entries,
    tournament_pairings,
    tournament_seats,
    tournaments,
    users,
)
from gammon.server.records import MatchRow, Row
from gammon.server.tournaments.pairing import Played


@dataclass(frozen=True, slots=True)
class Tournament:
    """A row of ``tournaments``."""

    id: int
    slug: str
    name: str
    format: views.TournamentFormat
    length: int
    clock: views.ClockKind
    rated: bool
    starts_at: float | None
    max_players: int
    rounds: int | None
    duration: float | None
    private: bool
    invite_key: str | None
    organiser: int
    state: views.TournamentState
    round: int
    created_at: float
    started_at: float | None
    finished_at: float | None

    @property
    def ends_at(self) -> float | None:
        """An arena's end (no pairing after it), once started."""
        if self.duration is None or self.started_at is None:
            return None
        return self.started_at + self.duration


@dataclass(frozen=True, slots=True)
class Entry:
    """A player entered, with their name and kind."""

    user_id: int
    name: str
    kind: str
    rating: float
    entered_at: float
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Pairing:
    """A row of ``tournament_pairings``."""

    id: int
    round: int
    board: int
    first: int
    second: int | None
    match_id: str | None
    winner: int | None
    reason: views.PairingReason | None
    made_at: float
    finished_at: float | None

    @property
    def played(self) -> Played:
        """The finished pairing as the pairing rules read it."""
        assert self.winner is not None
        return Played(self.first, self.second, self.winner)


@dataclass(frozen=True, slots=True)
class Planned:
    """A pair a round makes: on ``board``, with its match (its row and opening) or, for a
    bye or a walkover, its winner and why."""

    board: int
    first: int
    second: int | None
    match: tuple[MatchRow, list[Row]] | None = None
    winner: int | None = None
    reason: views.PairingReason | None = None


@dataclass(frozen=True, slots=True)
class ChatLine:
    """A line of the tournament's chat: who wrote it, what, when."""

    name: str
    text: str
    at: float


class Refused(Exception):
    """A change the rows refuse: ``code`` says why (the HTTP refusal's code)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _tournament(row: DbRow) -> Tournament:
    return Tournament(
        id=row.id, slug=row.slug, name=row.name, format=row.format, length=row.length,
        clock=row.clock, rated=bool(row.rated), starts_at=row.starts_at,
        max_players=row.max_players, rounds=row.rounds, duration=row.duration,
        private=bool(row.private), invite_key=row.invite_key, organiser=row.organiser,
        state=row.state, round=row.round, created_at=row.created_at,
        started_at=row.started_at, finished_at=row.finished_at)


def _pairing(row: DbRow) -> Pairing:
    return Pairing(id=row.id, round=row.round, board=row.board, first=row.first,
                   second=row.second, match_id=row.match_id, winner=row.winner,
                   reason=row.reason, made_at=row.made_at, finished_at=row.finished_at)


async def _lock(conn: AsyncConnection, tournament_id: int, *where: sa.ColumnElement[bool]
                ) -> bool:
    """The transaction's first statement: a no-op update of the tournament's row (its lock
    on PostgreSQL, the writer lock on SQLite); False when the row does not match
    ``where``."""
    t = tournaments.c
    done = await conn.execute(tournaments.update().where(t.id == tournament_id, *where)
                              .values(round=t.round))
    return bool(done.rowcount == 1)


class TournamentStore:
    """The queries of the tournaments, over ``engine``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    # -- reading -----------------------------------------------------------------------

    async def get(self, slug: str) -> Tournament | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(tournaments)
                                      .where(tournaments.c.slug == slug))).first()
        return None if row is None else _tournament(row)

    async def in_state(self, *states: views.TournamentState, public: bool = False,
                       limit: int | None = None) -> list[Tournament]:
        """The tournaments in ``states`` (only the public ones, ``public``): by start,
        the latest finished first."""
        t = tournaments.c
        query = sa.select(tournaments).where(t.state.in_(states))
        if public:
            query = query.where(t.private.is_(False))
        if set(states) & {"finished", "cancelled"}:
            query = query.order_by(t.finished_at.desc(), t.id.desc())
        else:
            query = query.order_by(t.starts_at, t.id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [_tournament(row) for row in rows]

    async def due(self, now: float) -> list[Tournament]:
        """The tournaments registering whose start time has come."""
        t = tournaments.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(tournaments).where(
                t.state == "registering", t.starts_at.is_not(None), t.starts_at <= now))).all()
        return [_tournament(row) for row in rows]

    async def entries(self, tournament_id: int) -> list[Entry]:
        """The entries in the order they came."""
        return (await self.entries_of([tournament_id])).get(tournament_id, [])

    async def entries_of(self, tournament_ids: Sequence[int]) -> dict[int, list[Entry]]:
        """Each tournament's entries in the order they came (in one query)."""
        e = tournament_entries.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(e.tournament_id, e.user_id, users.c.name, users.c.kind, e.rating,
                          e.entered_at, e.withdrawn)
                .join(users, users.c.id == e.user_id)
                .where(e.tournament_id.in_(list(tournament_ids)))
                .order_by(e.tournament_id, e.entered_at, e.user_id))).all()
        out: dict[int, list[Entry]] = {}
        for r in rows:
            out.setdefault(r.tournament_id, []).append(Entry(
                r.user_id, r.name, r.kind, float(r.rating), r.entered_at, bool(r.withdrawn)))
        return out

    async def entered(self, user_id: int, limit: int) -> list[tuple[Tournament, bool]]:
        """The last ``limit`` public tournaments ``user_id`` entered, the newest first,
        each with whether they withdrew (a private one is never listed)."""
        t, e = tournaments.c, tournament_entries.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(tournaments, e.withdrawn.label("entry_withdrawn"))
                .join(tournament_entries, e.tournament_id == t.id)
                .where(e.user_id == user_id, t.private.is_(False))
                .order_by(t.created_at.desc(), t.id.desc()).limit(limit))).all()
        return [(_tournament(row), bool(row.entry_withdrawn)) for row in rows]

    async def counts(self, tournament_ids: Sequence[int]) -> dict[int, int]:
        """How many players (not withdrawn) each tournament has."""
        e = tournament_entries.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(e.tournament_id, sa.func.count())
                .where(e.tournament_id.in_(list(tournament_ids)), e.withdrawn.is_(False))
                .group_by(e.tournament_id))).all()
        return {int(r[0]): int(r[1]) for r in rows}

    async def names(self, user_ids: Sequence[int]) -> dict[int, str]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(users.c.id, users.c.name)
                                       .where(users.c.id.in_(list(user_ids))))).all()
        return {r.id: r.name for r in rows}

    async def pairings(self, tournament_id: int) -> list[Pairing]:
        """Every pairing, round by round, board by board."""
        return (await self.pairings_of([tournament_id])).get(tournament_id, [])

    async def pairings_of(self, tournament_ids: Sequence[int]) -> dict[int, list[Pairing]]:
        """Each tournament's pairings, round by round, board by board (in one query)."""
        p = tournament_pairings.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(tournament_pairings)
                                       .where(p.tournament_id.in_(list(tournament_ids)))
                                       .order_by(p.tournament_id, p.round, p.board))).all()
        out: dict[int, list[Pairing]] = {}
        for row in rows:
            out.setdefault(row.tournament_id, []).append(_pairing(row))
        return out

    async def chat(self, tournament_id: int, last: int) -> list[ChatLine]:
        """The ``last`` lines of the tournament's chat, oldest first."""
        c = tournament_chat.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(users.c.name, c.text, c.at).join(users, users.c.id == c.user_id)
                .where(c.tournament_id == tournament_id)
                .order_by(c.id.desc()).limit(last))).all()
        return [ChatLine(r.name, r.text, r.at) for r in reversed(rows)]

    async def add_chat(self, tournament_id: int, user_id: int, text: str, at: float) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(tournament_chat.insert().values(
                tournament_id=tournament_id, user_id=user_id, text=text, at=at))

    # -- registering ---------------------------------------------------------------------

    async def create(self, values: dict[str, object]) -> Tournament:
        """A new tournament of ``values`` (every column but the id and the slug, made
        here), registering."""
        for _ in range(5):
            slug = secrets.token_urlsafe(9)
            try:
                async with self.engine.begin() as conn:
                    row = (await conn.execute(tournaments.insert().values(
                        slug=slug, **values).returning(tournaments))).one()
                return _tournament(row)
            except IntegrityError:  # the slug taken (2^-72): another one
                continue
        raise AssertionError("no free tournament id in five tries")  # pragma: no cover

    async def register(self, tournament_id: int, user_id: int, rating: float,
                       now: float) -> None:
        """Enter ``user_id`` (again, if they withdrew while it registered); :class:`Refused`
        (nothing stored) ``registration_closed``, ``tournament_full`` or
        ``already_registered``. The tournament's row is locked first, so two entries at
        once cannot both take its last place."""
        e = tournament_entries.c
        async with self.engine.begin() as conn:
            if not await _lock(conn, tournament_id, tournaments.c.state == "registering"):
                raise Refused("registration_closed")
            limit = await conn.scalar(sa.select(tournaments.c.max_players)
                                      .where(tournaments.c.id == tournament_id))
            taken = await conn.scalar(sa.select(sa.func.count()).where(
                e.tournament_id == tournament_id, e.withdrawn.is_(False)))
            mine = (await conn.execute(sa.select(e.withdrawn).where(
                e.tournament_id == tournament_id, e.user_id == user_id))).first()
            if mine is not None and not mine.withdrawn:
                raise Refused("already_registered")
            if int(taken or 0) >= int(cast(int, limit)):
                raise Refused("tournament_full")
            if mine is not None:
                await conn.execute(tournament_entries.update().where(
                    e.tournament_id == tournament_id, e.user_id == user_id)
                    .values(withdrawn=False, rating=rating, entered_at=now))
            else:
                await conn.execute(tournament_entries.insert().values(
                    tournament_id=tournament_id, user_id=user_id, rating=rating,
                    entered_at=now, withdrawn=False))

    async def withdraw(self, tournament_id: int, user_id: int) -> None:
        """Withdraw ``user_id`` (registering or running: not paired again); :class:`Refused`
        ``not_registered`` or ``registration_closed`` (over)."""
        e = tournament_entries.c
        async with self.engine.begin() as conn:
            if not await _lock(conn, tournament_id,
                               tournaments.c.state.in_(["registering", "running"])):
                raise Refused("registration_closed")
            done = await conn.execute(tournament_entries.update().where(
                e.tournament_id == tournament_id, e.user_id == user_id,
                e.withdrawn.is_(False)).values(withdrawn=True))
            if done.rowcount != 1:
                raise Refused("not_registered")

    async def start(self, tournament_id: int, now: float) -> None:
        """Registering to running at ``now``, each entry's rating the player's rating now;
        :class:`Refused` ``already_started`` or ``not_enough_players`` (fewer than two: a
        tournament due with fewer is cancelled instead: :meth:`cancel`)."""
        e = tournament_entries.c
        async with self.engine.begin() as conn:
            if not await _lock(conn, tournament_id, tournaments.c.state == "registering"):
                raise Refused("already_started")
            players = await conn.scalar(sa.select(sa.func.count()).where(
                e.tournament_id == tournament_id, e.withdrawn.is_(False)))
            if int(players or 0) < 2:
                raise Refused("not_enough_players")
            await conn.execute(tournaments.update().where(tournaments.c.id == tournament_id)
                               .values(state="running", started_at=now))
            await conn.execute(tournament_entries.update()
                               .where(e.tournament_id == tournament_id)
                               .values(rating=sa.select(users.c.rating)
                                       .where(users.c.id == e.user_id).scalar_subquery()))

    async def end(self, tournament_id: int, state: views.TournamentState, now: float,
                  was: views.TournamentState) -> bool:
        """``was`` to ``state`` (finished or cancelled) at ``now``; False when it was not
        ``was`` any more."""
        t = tournaments.c
        async with self.engine.begin() as conn:
            done = await conn.execute(tournaments.update()
                                      .where(t.id == tournament_id, t.state == was)
                                      .values(state=state, finished_at=now))
        return bool(done.rowcount == 1)

    # -- the rounds ----------------------------------------------------------------------

    async def make_round(self, tournament_id: int, after: int, planned: Sequence[Planned],
                         now: float) -> bool:
        """Round ``after + 1``: its pairs, their seats and their matches (each with its
        opening), in one transaction that first moves the tournament's round from
        ``after`` (False, nothing stored, when it is not at ``after`` any more, or not
        running). A player seated twice in the round is refused by the seats' primary key:
        the whole round is rolled back (IntegrityError)."""
        number = after + 1
        t = tournaments.c
        async with self.engine.begin() as conn:
            done = await conn.execute(tournaments.update()
                                      .where(t.id == tournament_id, t.round == after,
                                             t.state == "running")
                                      .values(round=number))
            if done.rowcount != 1:
                return False
            for plan in planned:
                match_id = None
                if plan.match is not None:
                    row, opening = plan.match
                    await insert_match(conn, row, opening)
                    match_id = row.id
                pairing_id = (await conn.execute(tournament_pairings.insert().values(
                    tournament_id=tournament_id, round=number, board=plan.board,
                    first=plan.first, second=plan.second, match_id=match_id,
                    winner=plan.winner, reason=plan.reason, made_at=now,
                    finished_at=None if plan.winner is None else now)
                    .returning(tournament_pairings.c.id))).scalar_one()
                await conn.execute(tournament_seats.insert(), [
                    {"tournament_id": tournament_id, "round": number, "user_id": user,
                     "pairing_id": pairing_id}
                    for user in (plan.first, plan.second) if user is not None])
        return True

    async def record_results(self) -> int:
        """Each pairing of a running tournament whose match has ended gets its winner (the
        match's) and its time; how many. Idempotent: a pass does it every time."""
        p, m = tournament_pairings.c, matches.c
        async with self.engine.begin() as conn:
            rows = (await conn.execute(
                sa.select(p.id, m.winner, m.player0, m.player1, m.finished_at)
                .join(matches, m.id == p.match_id)
                .join(tournaments, tournaments.c.id == p.tournament_id)
                .where(p.winner.is_(None), m.status == "finished",
                       tournaments.c.state == "running"))).all()
            for row in rows:
                winner = row.player0 if row.winner == 0 else row.player1
                await conn.execute(tournament_pairings.update()
                                   .where(p.id == row.id, p.winner.is_(None))
                                   .values(winner=winner, finished_at=row.finished_at))
        return len(rows)

    async def no_show(self, tournament_id: int, pairing_id: int, loser: int) -> None:
        """The pairing was lost by ``loser`` not showing up: said so, and they are withdrawn
        (not paired again)."""
        e = tournament_entries.c
        async with self.engine.begin() as conn:
            await conn.execute(tournament_pairings.update()
                               .where(tournament_pairings.c.id == pairing_id)
                               .values(reason="no_show"))
            await conn.execute(tournament_entries.update()
                               .where(e.tournament_id == tournament_id, e.user_id == loser)
                               .values(withdrawn=True))
