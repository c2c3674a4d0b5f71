"""Persistence: the tables, the Alembic migrations, and a small repository over them.

SQLAlchemy 2 Core, async: SQLite through aiosqlite by default (WAL journal,
``synchronous=NORMAL``: a committed action survives the process being killed), PostgreSQL
through asyncpg in production. The schema is created and upgraded by Alembic (the scripts are
in ``gammon/server/migrations``), run at start-up by :func:`migrate`.

The heart of it is ``match_actions``, an append-only log: one row per accepted action, keyed
by ``(match_id, seq)``. A match is rebuilt after a restart by replaying its actions through
the pure core state machines, so nothing but the log has to be right. The primary key is also
the lock between server processes: two processes that both try to append action ``seq`` to a
match cannot both succeed (:class:`SeqConflict`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import os
import secrets
import signal
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias, cast

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.util import greenlet_spawn

from gammon.server import protocol
from gammon.server.operations import Operations, single_statements, sqlite_pragmas
from gammon.server.records import ActionRow, Finish, MatchRow, RatingChange, Row, Seek
from gammon.views import ClockKind, MatchConfig, MatchKind

if TYPE_CHECKING:
    from alembic.config import Config

DbRow: TypeAlias = "sa.Row[tuple[object, ...]]"
"""A row as SQLAlchemy reads it (its columns as attributes)."""

metadata = sa.MetaData()

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(40), nullable=False),
    # name_key(name): unique, so a name is taken in every case and normal form
    sa.Column("name_key", sa.String(40), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=True),
    sa.Column("kind", sa.String(10), nullable=False),  # 'user' | 'guest' | 'bot'
    sa.Column("rating", sa.Float, nullable=False, default=1500.0),
    sa.Column("experience", sa.Integer, nullable=False, default=0),
    sa.Column("options", sa.Text, nullable=False, default="{}"),
    sa.Column("created_at", sa.Float, nullable=False),
    # a bot account (the Bot API, PROTOCOL.md): a registered user ('user') whose owner
    # turned it into a program's account for good; it plays rated like anyone
    sa.Column("bot", sa.Boolean, nullable=False, default=False, server_default=sa.false()),
)

matches = sa.Table(
    "matches",
    metadata,
    sa.Column("id", sa.String(24), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
    # status: 'open' | 'playing' | 'finished' | 'cancelled'
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("config", sa.Text, nullable=False),  # JSON: rules, clock, privacy, bot level
    sa.Column("player0", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("player1", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("reserved_for", sa.Integer, nullable=True),
    sa.Column("private", sa.Boolean, nullable=False, default=False),
    sa.Column("rated", sa.Boolean, nullable=False, default=False),
    sa.Column("server_seed", sa.String(64), nullable=False),
    sa.Column("seed_hash", sa.String(64), nullable=False),
    sa.Column("client_seed0", sa.String(64), nullable=False, default=""),
    sa.Column("client_seed1", sa.String(64), nullable=False, default=""),
    sa.Column("rules", sa.Text, nullable=True),  # JSON of the core Rules, fixed at the start
    sa.Column("winner", sa.Integer, nullable=True),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("finished_at", sa.Float, nullable=True),
    sa.Column("rematch_of", sa.String(24), nullable=True),
)
sa.Index("ix_matches_status", matches.c.status)

match_actions = sa.Table(
    "match_actions",
    metadata,
    sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(32), nullable=False),  # longest: accept_resign (13)
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

rating_changes = sa.Table(
    "rating_changes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("match_id", sa.String(24), nullable=False),
    sa.Column("before", sa.Float, nullable=False),
    sa.Column("after", sa.Float, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

server_kv = sa.Table(
    "server_kv",
    metadata,
    sa.Column("key", sa.String(200), primary_key=True),  # heartbeat:<32 hex> is 42
    sa.Column("value", sa.Text, nullable=False),
)

# Sign-in sessions: the cookie holds a random token, the table its SHA-256 (a copy of the
# table signs nobody in); deleting the row revokes the session (sign out).
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)

# API tokens (the Bot API): a program signs in with ``Authorization: Bearer <token>``; the
# table holds the token's SHA-256 only, so it is shown once, at its creation, and a copy of
# the table signs nobody in. Deleting the row revokes it.
api_tokens = sa.Table(
    "api_tokens",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("description", sa.String(100), nullable=False),
    sa.Column("scopes", sa.String(200), nullable=False),  # space-separated, e.g. 'bot:play'
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("last_used_at", sa.Float, nullable=True),
)

# Post-match analyses (gammon.server.analysis_worker): one row per match and depth; the
# analysis JSON is written together with status 'done', so a row is never half done.
match_analyses = sa.Table(
    "match_analyses",
    metadata,
    sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("plies", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("status", sa.String(10), nullable=False),  # queued | running | done | failed
    sa.Column("priority", sa.Integer, nullable=False),  # 0 asked for, 1 a match's end
    sa.Column("owner", sa.String(32), nullable=True),  # the process running it
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("done", sa.Integer, nullable=False),  # games analysed so far
    sa.Column("total", sa.Integer, nullable=False),  # games in the match (0: not known yet)
    sa.Column("result", sa.Text, nullable=True),  # the analysis JSON, once done
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)
sa.Index("ix_match_analyses_status", match_analyses.c.status)

# Puzzles (gammon.server.puzzles): the decisions of analysed matches that became puzzles
# (gammon.engine.puzzles), one row per question, position and context (``key``), written in
# the transaction that stores the analysis they come from; where each was met; the
# players' puzzle ratings (Glicko-2) and their answers, one per player and puzzle.
puzzles = sa.Table(
    "puzzles",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.String(64), nullable=False, unique=True),  # kind, position, Match ID
    sa.Column("kind", sa.String(8), nullable=False),  # checker | double | take
    sa.Column("position_id", sa.String(14), nullable=False),
    sa.Column("match_id", sa.String(12), nullable=False),  # the player to answer is 0
    sa.Column("dice", sa.String(2), nullable=False),  # '' for a cube question
    sa.Column("answers", sa.Text, nullable=False),  # JSON [[answer, equity], ...], best first
    sa.Column("error", sa.Float, nullable=False),
    sa.Column("graded_by", sa.String(60), nullable=False),
    sa.Column("plies", sa.Integer, nullable=False),
    sa.Column("themes", sa.String(200), nullable=False),  # ',race,bear-off,' (LIKE '%,race,%')
    sa.Column("public", sa.Boolean, nullable=False),  # met in a public match
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("solved", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
sa.Index("ix_puzzles_public_rating", puzzles.c.public, puzzles.c.rating)

puzzle_sources = sa.Table(
    "puzzle_sources",
    metadata,
    sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), primary_key=True),
    sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("move_number", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.Integer, nullable=False),  # the match's seat
    sa.Column("played", sa.String(60), nullable=False),
    sa.Column("error", sa.Float, nullable=False),
    sa.Column("public", sa.Boolean, nullable=False),  # the match was public
)

puzzle_players = sa.Table(
    "puzzle_players",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
              autoincrement=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("solved", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

puzzle_answers = sa.Table(
    "puzzle_answers",
    metadata,
    sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("answer", sa.String(60), nullable=False),
    sa.Column("right", sa.Boolean, nullable=False),
    sa.Column("error", sa.Float, nullable=False),
    sa.Column("rating_before", sa.Float, nullable=False),
    sa.Column("rating_after", sa.Float, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
# the next puzzle leaves out the player's answered ones (migration 0011)
sa.Index("ix_puzzle_answers_user", puzzle_answers.c.user_id, puzzle_answers.c.puzzle_id)

# Each player's deck of their own mistakes (gammon.server.deck): a card per puzzle made from
# one of their decisions, its FSRS state as the fsrs package writes it and when it is due
# next; each review kept (the streak and the progress per theme are read from them).
deck_cards = sa.Table(
    "deck_cards",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
              autoincrement=False),
    sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), primary_key=True,
              autoincrement=False),
    sa.Column("card", sa.Text, nullable=False),  # fsrs.Card.to_json()
    sa.Column("due", sa.Float, nullable=False),
    sa.Column("reps", sa.Integer, nullable=False),
    sa.Column("lapses", sa.Integer, nullable=False),
    sa.Column("dealt_at", sa.Float, nullable=False),
)
sa.Index("ix_deck_cards_user_due", deck_cards.c.user_id, deck_cards.c.due)

deck_reviews = sa.Table(
    "deck_reviews",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("answer", sa.String(60), nullable=False),
    sa.Column("right", sa.Boolean, nullable=False),
    sa.Column("error", sa.Float, nullable=False),
)
sa.Index("ix_deck_reviews_user", deck_reviews.c.user_id, deck_reviews.c.at)

# The checker plays made in public matches (gammon.server.explorer): the position explorer's
# "on this site", filled from each match's deepest analysis.
position_choices = sa.Table(
    "position_choices",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("position_id", sa.String(14), nullable=False),  # the side on roll's view
    sa.Column("dice", sa.String(2), nullable=False),  # high first: '31'
    sa.Column("play", sa.String(60), nullable=False),
    sa.Column("points", sa.Integer, nullable=False),  # the player's result in that game
    sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False),
)
sa.Index("ix_position_choices_position", position_choices.c.position_id,
         position_choices.c.dice)

# Play now's pools (gammon.server.matchmaking): one row per waiting player (the primary key:
# nobody waits in two pools), kept across restarts. ``seen_at`` is refreshed by the server
# process holding one of the player's sockets; ``left_at`` is when their last socket there
# went (the place is kept for the grace time, unpaired, in case they come back).
pool_seekers = sa.Table(
    "pool_seekers",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
              autoincrement=False),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("length", sa.Integer, nullable=False),
    sa.Column("clock", sa.String(20), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("bot", sa.Integer, nullable=True),
    sa.Column("bot_after", sa.Integer, nullable=True),
    sa.Column("since", sa.Float, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
    sa.Column("left_at", sa.Float, nullable=True),
)


# Tournaments (gammon.server.tournaments): the settings and state of each, its entries, and
# its pairings round by round, each with the real match it made (none for a bye or a
# walkover) and its winner once known. ``tournament_seats`` holds a row per player and
# round: its primary key makes "nobody is paired twice in a round" a fact of the database.
tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("slug", sa.String(16), nullable=False, unique=True),  # the public id
    sa.Column("name", sa.String(60), nullable=False),
    sa.Column("format", sa.String(10), nullable=False),  # knockout | swiss | arena
    sa.Column("length", sa.Integer, nullable=False),  # each match's length in points
    sa.Column("clock", sa.String(20), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("starts_at", sa.Float, nullable=True),  # null: when the organiser starts it
    sa.Column("max_players", sa.Integer, nullable=False),
    sa.Column("rounds", sa.Integer, nullable=True),  # Swiss
    sa.Column("duration", sa.Float, nullable=True),  # arena, seconds
    sa.Column("private", sa.Boolean, nullable=False),
    sa.Column("invite_key", sa.String(32), nullable=True),  # a private one's
    sa.Column("organiser", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    # state: registering | running | finished | cancelled
    sa.Column("state", sa.String(12), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),  # the current round (0 before the first)
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("started_at", sa.Float, nullable=True),
    sa.Column("finished_at", sa.Float, nullable=True),
)
sa.Index("ix_tournaments_state", tournaments.c.state)

tournament_entries = sa.Table(
    "tournament_entries",
    metadata,
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), primary_key=True,
              autoincrement=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
              autoincrement=False),
    sa.Column("rating", sa.Float, nullable=False),  # at registration, then at the start
    sa.Column("entered_at", sa.Float, nullable=False),
    sa.Column("withdrawn", sa.Boolean, nullable=False),
)

tournament_pairings = sa.Table(
    "tournament_pairings",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("board", sa.Integer, nullable=False),  # the pair's place in its round
    sa.Column("first", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("second", sa.Integer, sa.ForeignKey("users.id"), nullable=True),  # null: a bye
    sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=True,
              unique=True),
    sa.Column("winner", sa.Integer, nullable=True),
    sa.Column("reason", sa.String(10), nullable=True),  # bye | walkover | no_show | null
    sa.Column("made_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=True),
    sa.UniqueConstraint("tournament_id", "round", "board",
                        name="uq_tournament_pairings_board"),
)

tournament_seats = sa.Table(
    "tournament_seats",
    metadata,
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), primary_key=True,
              autoincrement=False),
    sa.Column("round", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
              autoincrement=False),
    sa.Column("pairing_id", sa.Integer, sa.ForeignKey("tournament_pairings.id"),
              nullable=False),
)


# A tournament's chat: the lines its players (entrants and organiser) wrote on its page,
# read back newest last; the index serves "the last 50 of this tournament".
tournament_chat = sa.Table(
    "tournament_chat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("text", sa.String(300), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
sa.Index("ix_tournament_chat_tournament", tournament_chat.c.tournament_id,
         tournament_chat.c.id)


class SeqConflict(Exception):
    """Another writer (another server process) appended this action number first."""


def asyncpg_exceptions() -> Any:
    """asyncpg's exceptions module, or None where asyncpg is not installed (the ``[server]``
    extra alone serves SQLite, and has no PostgreSQL driver)."""
    try:
        from asyncpg import exceptions
    except ImportError:
        return None
    return exceptions


def database_unreachable(error: BaseException) -> bool:
    """Whether ``error`` (or an error it came from) is the database server gone or not
    accepting connections — a restart, a failover, the network — rather than a fault in
    a statement: what failed then changed nothing, and the same request a moment later
    may succeed (``busy``, not ``internal``)."""
    gone: tuple[type[BaseException], ...] = (ConnectionError,)
    interface: tuple[type[BaseException], ...] = ()
    pg = asyncpg_exceptions()
    if pg is not None:
        gone += (pg.PostgresConnectionError, pg.CannotConnectNowError, pg.AdminShutdownError,
                 pg.CrashShutdownError)
        interface = (pg.InterfaceError,)
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, gone):
            return True
        if isinstance(seen, interface) and "closed" in str(seen):
            return True  # asyncpg: "connection is closed"
        if isinstance(seen, sa.exc.DBAPIError) and seen.connection_invalidated:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class SeekTaken(Exception):
    """A pairing pass found a place it meant to take gone (rolled back: nothing made)."""


class _Append(NamedTuple):
    """One transition to store: its actions from ``seq`` on, and the match's end."""

    match_id: str
    seq: int
    rows: tuple[Row, ...]
    finish: Finish | None
    ratings: tuple[RatingChange, ...]


CRASH_AFTER_COMMIT = "GAMMON_CRASH_AFTER_COMMIT"
"""Fault injection for the crash tests: when set to N, the process SIGKILLs itself right
after its Nth commit that changed a match (create, seat, cancel, actions appended)."""


# -- engine and migrations ------------------------------------------------------------------


def make_engine(url: str, *, pool_size: int = 10, max_overflow: int = 20,
                pool_timeout: float = 10.0) -> AsyncEngine:
    """An async engine; SQLite gets WAL, ``synchronous=NORMAL`` and a busy timeout; a
    server database gets a pool of ``pool_size`` + ``max_overflow`` connections, and a
    caller waits at most ``pool_timeout`` seconds for one (then
    :class:`sqlalchemy.exc.TimeoutError`: the server answers 503 ``busy``, not 500)."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
        return engine
    engine = create_async_engine(url, pool_size=pool_size, max_overflow=max_overflow,
                                 pool_timeout=pool_timeout)
    event.listen(engine.sync_engine, "checkout", _closed_in_the_pool)
    return engine


def _closed_in_the_pool(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled connection the server closed while it waited in the pool (a restart of
    PostgreSQL closes them all) is replaced at checkout, as SQLAlchemy's documented
    pessimistic check does, without its round trip (``pool_pre_ping``): asyncpg has seen
    the socket close. Without it each stale connection failed the first statement sent on
    it: one action refused per connection after a restart, on the action insert that
    takes asyncpg's connection itself (:func:`_insert_actions_asyncpg`)."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    is_closed = getattr(driver, "is_closed", None)
    if is_closed is not None and is_closed():
        raise sa.exc.DisconnectionError("closed by the server while in the pool")


MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url:
        config.set_main_option("sqlalchemy.url", url)
    return config


async def migrate(engine: AsyncEngine) -> None:
    """Bring the schema to the newest Alembic revision (run at every start-up)."""
    from alembic import command

    def upgrade(connection: sa.Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")

    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # several processes may start at once
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock(7304211)"))
        await conn.run_sync(upgrade)


async def secret_key(engine: AsyncEngine) -> str:
    """The session-signing key stored in the database, made on first use."""
    async with engine.begin() as conn:
        value = await conn.scalar(sa.select(server_kv.c.value).where(server_kv.c.key == "secret"))
        if value is None:
            value = secrets.token_hex(32)
            try:
                async with conn.begin_nested():
                    await conn.execute(server_kv.insert().values(key="secret", value=value))
            except IntegrityError:
                value = await conn.scalar(
                    sa.select(server_kv.c.value).where(server_kv.c.key == "secret"))
        return str(value)


# -- the repository -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str
    kind: str
    rating: float
    experience: int
    options: dict[str, object]
    bot_account: bool = False
    """A registered user turned into a bot account (the Bot API): a program plays it, rated
    like anyone; ``kind`` stays 'user'. The server's own bots are ``kind`` 'bot'."""

    @property
    def is_guest(self) -> bool:
        return self.kind == "guest"

    @property
    def is_bot(self) -> bool:
        return self.kind == "bot"


NAME_KEY_LENGTH = 40


def name_key(name: str) -> str:
    """The key that makes names unique and finds them: the name's NFC, casefolded (and NFC
    again, which casefolding may undo). "Łukasz", "ŁUKASZ" and "łukasz" share one key, and
    so do "Hélène" typed composed (NFC) and decomposed (NFD). For ASCII it is ``lower()``,
    the key of the names stored before names could be Unicode. Casefolding can lengthen a
    name ("ß" is "ss"): registration refuses a name whose key would not fit the column
    (:data:`NAME_KEY_LENGTH`, twice a name's longest)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def _match(row: DbRow) -> MatchRow:
    return MatchRow(
        id=row.id, created_at=row.created_at, status=row.status,
        config=MatchConfig.from_json(row.config), player0=row.player0, player1=row.player1,
        reserved_for=row.reserved_for, private=bool(row.private), rated=bool(row.rated),
        server_seed=row.server_seed, seed_hash=row.seed_hash, client_seed0=row.client_seed0,
        client_seed1=row.client_seed1, rules=row.rules, winner=row.winner, result=row.result,
        finished_at=row.finished_at, rematch_of=row.rematch_of)


def _user(row: DbRow) -> User:
    return User(row.id, row.name, row.kind, float(row.rating), int(row.experience),
                json.loads(row.options), bool(row.bot))


_SESSION_USER = (sa.select(users).join(sessions, sessions.c.user_id == users.c.id)
                 .where(sessions.c.id == sa.bindparam("session_id"),
                        sessions.c.expires_at > sa.bindparam("now", type_=sa.Float)))
"""Every request's session, built once (a statement built per request cost more than its
run on SQLite)."""


class Repository:
    """Every query the server makes, in one place.

    With SQLite, the action log is written by one writer task that commits the actions
    queued meanwhile together (group commit): SQLite has one writer at a time, and writers
    on several connections wait for each other in sleeps. Each action still returns only
    once its transaction is committed.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._single = single_statements(engine)
        self.operations = Operations(engine)
        self._group = engine.dialect.name == "sqlite"
        self._queue: asyncio.Queue[tuple[_Append, asyncio.Future[None]]] | None = None
        self._writer: asyncio.Task[None] | None = None
        crash_after = os.environ.get(CRASH_AFTER_COMMIT, "")
        self._commits_left = int(crash_after) if crash_after.strip() else None

    def _committed(self) -> None:
        """Count a commit that changed a match; the fault-injection kill happens here."""
        if self._commits_left is not None:
            self._commits_left -= 1
            if self._commits_left <= 0:
                os.kill(os.getpid(), signal.SIGKILL)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        await self.operations.close()

    # heartbeats: each process's latest time alive, in server_kv as heartbeat:ORIGIN

    async def heartbeat(self, origin: str, now: float) -> None:
        """Record that process ``origin`` is up at ``now``; drop heartbeats of processes
        silent for an hour (they are gone, and older than this one's)."""
        key = f"heartbeat:{origin}"
        async with self.engine.begin() as conn:
            done = await conn.execute(
                server_kv.update().where(server_kv.c.key == key).values(value=repr(now)))
            if done.rowcount == 0:
                await conn.execute(server_kv.insert().values(key=key, value=repr(now)))
                stale = [row.key for row in await conn.execute(
                    sa.select(server_kv.c.key, server_kv.c.value)
                    .where(server_kv.c.key.like("heartbeat:%"), server_kv.c.key != key))
                    if float(row.value) < now - 3600]
                if stale:
                    await conn.execute(server_kv.delete().where(server_kv.c.key.in_(stale)))

    async def last_heartbeat(self) -> float | None:
        """The latest heartbeat of any process, or None if none was ever written."""
        async with self._single.connect() as conn:
            values = (await conn.scalars(sa.select(server_kv.c.value)
                                         .where(server_kv.c.key.like("heartbeat:%")))).all()
        return max((float(v) for v in values), default=None)

    # users

    async def create_user(self, name: str, kind: str, password_hash: str | None = None) -> User:
        """A new user; raises :class:`IntegrityError` when the name (any case) is taken."""
        async with self.engine.begin() as conn:
            result = await conn.execute(
                users.insert().values(
                    name=name, name_key=name_key(name), password_hash=password_hash, kind=kind,
                    rating=1500.0, experience=0, options="{}", created_at=time.time(),
                ).returning(users)
            )
            return _user(result.one())

    async def user(self, user_id: int) -> User | None:
        async with self._single.connect() as conn:
            row = (await conn.execute(sa.select(users).where(users.c.id == user_id))).first()
        return None if row is None else _user(row)

    async def user_by_name(self, name: str) -> tuple[User, str | None] | None:
        async with self._single.connect() as conn:
            row = (await conn.execute(
                sa.select(users).where(users.c.name_key == name_key(name)))).first()
        return None if row is None else (_user(row), row.password_hash)

    async def users(self, ids: Sequence[int]) -> dict[int, User]:
        async with self._single.connect() as conn:
            rows = (await conn.execute(sa.select(users).where(users.c.id.in_(list(ids))))).all()
        return {row.id: _user(row) for row in rows}

    async def set_password(self, user_id: int, password_hash: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                users.update().where(users.c.id == user_id).values(password_hash=password_hash))

    async def set_options(self, user_id: int, options: Mapping[str, object]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                users.update().where(users.c.id == user_id).values(options=json.dumps(options)))

    async def leaderboard(self, limit: int = 100) -> list[User]:
        async with self._single.connect() as conn:
            rows = (await conn.execute(
                sa.select(users).where(users.c.kind != "guest", users.c.experience > 0)
                .order_by(users.c.rating.desc(), users.c.id).limit(limit))).all()
        return [_user(row) for row in rows]

    async def rating_history(self, user_id: int) -> list[protocol.RatingChange]:
        async with self._single.connect() as conn:
            rows = (await conn.execute(
                sa.select(rating_changes).where(rating_changes.c.user_id == user_id)
                .order_by(rating_changes.c.id))).all()
        return [{"match": r.match_id, "before": round(r.before, 2), "after": round(r.after, 2),
                 "at": r.at} for r in rows]

    async def error_rates(self, match_ids: Sequence[str]) -> dict[str, tuple[int, list[float]]]:
        """Of each match with a finished analysis, the deepest one's depth and each seat's
        error rate (millipoints per unforced decision)."""
        found: dict[str, tuple[int, list[float]]] = {}
        async with self._single.connect() as conn:
            for i in range(0, len(match_ids), 500):
                rows = (await conn.execute(
                    sa.select(match_analyses.c.match_id, match_analyses.c.plies,
                              match_analyses.c.result)
                    .where(match_analyses.c.match_id.in_(list(match_ids[i:i + 500])),
                           match_analyses.c.status == "done"))).all()
                for row in rows:
                    if row.match_id not in found or row.plies > found[row.match_id][0]:
                        players = json.loads(row.result)["players"]
                        found[row.match_id] = (row.plies,
                                               [p["error_rate_mp"] for p in players])
        return found

    # bot accounts and API tokens (``token_hash`` is the SHA-256 of the token)

    async def make_bot_account(self, user_id: int) -> str | None:
        """Turn a registered user into a bot account, for good; None when done, else why
        not: ``already_bot``, or ``not_eligible`` (a guest or the server's bot; a player
        who has played a rated match, or has a match open or in play). One statement, so
        a match joined meanwhile cannot slip between the check and the change."""
        busy = sa.select(matches.c.id).where(
            sa.or_(matches.c.player0 == user_id, matches.c.player1 == user_id),
            matches.c.status.in_(["open", "playing"]))
        rated = sa.select(rating_changes.c.id).where(rating_changes.c.user_id == user_id)
        async with self.engine.begin() as conn:
            done = await conn.execute(
                users.update().where(users.c.id == user_id, users.c.kind == "user",
                                     users.c.bot.is_(False), users.c.experience == 0,
                                     ~sa.exists(busy), ~sa.exists(rated))
                .values(bot=True))
            if done.rowcount == 1:
                return None
            row = (await conn.execute(sa.select(users.c.bot).where(users.c.id == user_id))
                   ).first()
        return "already_bot" if row is not None and row.bot else "not_eligible"

    async def create_token(self, user_id: int, token_hash: str, description: str,
                           scopes: Sequence[str]) -> protocol.TokenView:
        async with self.engine.begin() as conn:
            row = (await conn.execute(api_tokens.insert().values(
                user_id=user_id, token_hash=token_hash, description=description,
                scopes=" ".join(scopes), created_at=time.time()).returning(api_tokens))).one()
        return _token(row)

    async def tokens(self, user_id: int) -> list[protocol.TokenView]:
        """A user's tokens, oldest first, without their secret (which is not stored)."""
        async with self._single.connect() as conn:
            rows = (await conn.execute(sa.select(api_tokens)
                                       .where(api_tokens.c.user_id == user_id)
                                       .order_by(api_tokens.c.id))).all()
        return [_token(row) for row in rows]

    async def revoke_token(self, user_id: int, token_id: int) -> bool:
        async with self.engine.begin() as conn:
            done = await conn.execute(api_tokens.delete().where(
                api_tokens.c.id == token_id, api_tokens.c.user_id == user_id))
        return bool(done.rowcount == 1)

    async def token_user(self, token_hash: str) -> tuple[int, list[str], User] | None:
        """The token of ``token_hash`` (its id and scopes) and its user, or None; notes
        when it was used (at most once a minute, not a write per request)."""
        now = time.time()
        async with self._single.connect() as conn:
            row = (await conn.execute(
                sa.select(users, api_tokens.c.id.label("token_id"),
                          api_tokens.c.scopes.label("token_scopes"),
                          api_tokens.c.last_used_at.label("token_used"))
                .join(api_tokens, api_tokens.c.user_id == users.c.id)
                .where(api_tokens.c.token_hash == token_hash))).first()
        if row is None:
            return None
        if row.token_used is None or row.token_used < now - 60:
            async with self.engine.begin() as conn:
                await conn.execute(api_tokens.update()
                                   .where(api_tokens.c.id == row.token_id)
                                   .values(last_used_at=now))
        return int(row.token_id), row.token_scopes.split(), _user(row)

    async def live_tokens(self, token_ids: Sequence[int]) -> set[int]:
        """Those of ``token_ids`` not revoked."""
        live: set[int] = set()
        async with self._single.connect() as conn:
            for i in range(0, len(token_ids), 500):
                live.update(await conn.scalars(sa.select(api_tokens.c.id).where(
                    api_tokens.c.id.in_(list(token_ids[i:i + 500])))))
        return live

    async def reserved_for(self, user_id: int) -> list[MatchRow]:
        """The open matches reserved for ``user_id`` (challenges and rematches), oldest
        first."""
        async with self._single.connect() as conn:
            return [_match(row) for row in (await conn.execute(
                sa.select(matches).where(matches.c.status == "open",
                                         matches.c.reserved_for == user_id)
                .order_by(matches.c.created_at))).all()]

    async def reserved_by(self, user_id: int) -> list[MatchRow]:
        """The open matches ``user_id`` created reserved for another player (their pending
        challenges and rematches), oldest first."""
        async with self._single.connect() as conn:
            return [_match(row) for row in (await conn.execute(
                sa.select(matches).where(matches.c.status == "open",
                                         matches.c.player0 == user_id,
                                         matches.c.reserved_for.is_not(None))
                .order_by(matches.c.created_at))).all()]

    # matches

    async def create_match(self, row: MatchRow, actions: Sequence[Row] = ()) -> None:
        """A new match, with its first ``actions`` (a bot match's opening) in the same
        transaction."""
        insert = _match_insert(row)
        if not actions and self._single is not self.engine:  # one statement: see __init__
            async with self._single.connect() as conn:
                await conn.execute(insert)
        else:
            async with self.engine.begin() as conn:
                await conn.execute(insert)
                await _insert_actions(conn, row.id, 1, actions)
        self._committed()

    async def match(self, match_id: str) -> MatchRow | None:
        async with self._single.connect() as conn:
            row = (await conn.execute(sa.select(matches).where(matches.c.id == match_id))).first()
        return None if row is None else _match(row)

    async def match_with_actions(self, match_id: str, after: int = 0
                                 ) -> tuple[MatchRow | None, list[ActionRow]]:
        """The match and its actions after action ``after``, in order (one read)."""
        async with self._single.connect() as conn:
            row = (await conn.execute(sa.select(matches).where(matches.c.id == match_id))).first()
            actions = (await conn.execute(
                sa.select(match_actions.c.seq, match_actions.c.kind, match_actions.c.action,
                          match_actions.c.at)
                .where(match_actions.c.match_id == match_id, match_actions.c.seq > after)
                .order_by(match_actions.c.seq))).all()
        return (None if row is None else _match(row),
                [ActionRow(a.seq, a.kind, a.action, a.at) for a in actions])

    async def open_matches(self) -> list[MatchRow]:
        async with self._single.connect() as conn:
            return [_match(row) for row in (await conn.execute(
                sa.select(matches).where(matches.c.status == "open",
                                         matches.c.private.is_(False))
                .order_by(matches.c.created_at))).all()]

    async def count_open(self, user_id: int) -> int:
        async with self._single.connect() as conn:
            return int(await conn.scalar(
                sa.select(sa.func.count()).select_from(matches)
                .where(matches.c.status == "open", matches.c.player0 == user_id)) or 0)

    async def playing_ids(self) -> list[str]:
        async with self._single.connect() as conn:
            return list((await conn.scalars(
                sa.select(matches.c.id).where(matches.c.status == "playing"))).all())

    async def playing_rated_ids(self) -> list[str]:
        """The ids of the rated matches in play (the engine API's refusal asks)."""
        async with self._single.connect() as conn:
            return list((await conn.scalars(sa.select(matches.c.id).where(
                matches.c.status == "playing", matches.c.rated.is_(True)))).all())

    async def seat(self, match_id: str, user_id: int, client_seed: str, rules: str,
                   rated: bool, actions: Sequence[Row] = ()) -> bool:
        """Take seat 1 of an open match, storing its first ``actions`` (the opening) in the
        same transaction; False (nothing stored) if someone else got there first."""
        update = (matches.update()
                  .where(matches.c.id == match_id, matches.c.status == "open",
                         matches.c.player1.is_(None))
                  .values(player1=user_id, client_seed1=client_seed, status="playing",
                          rules=rules, rated=rated))
        if actions and self._single is not self.engine:
            # PostgreSQL: the seat and the opening in one statement (see __init__): the
            # actions are inserted for the row the UPDATE took, so both or neither
            async with self._single.connect() as conn:
                seated = (await conn.execute(_seat_and_open(update, match_id, actions))).all()
            if not seated:
                return False
        else:
            async with self.engine.begin() as conn:
                result = await conn.execute(update)
                if result.rowcount != 1:
                    return False
                await _insert_actions(conn, match_id, 1, actions)
        self._committed()
        return True

    async def cancel(self, match_id: str, user_id: int, *, declined: bool = False) -> bool:
        """Cancel an open match: its creator's (withdrawn), or, ``declined``, one reserved
        for ``user_id`` (a challenge or rematch they decline)."""
        who = matches.c.reserved_for if declined else matches.c.player0
        async with self.engine.begin() as conn:
            result = await conn.execute(
                matches.update()
                .where(matches.c.id == match_id, matches.c.status == "open",
                       who == user_id)
                .values(status="cancelled"))
        if result.rowcount != 1:
            return False
        self._committed()
        return True

    async def append(self, match_id: str, seq: int, kind: str, action: str, at: float,
                     finish: Finish | None = None,
                     ratings: Sequence[RatingChange] = ()) -> None:
        """Store action ``seq`` of a match (see :meth:`append_many`)."""
        await self.append_many(match_id, seq, [(kind, action, at)], finish, ratings)

    async def append_many(self, match_id: str, seq: int, rows: Sequence[Row],
                          finish: Finish | None = None,
                          ratings: Sequence[RatingChange] = ()) -> None:
        """Store ``rows`` as actions ``seq``, ``seq + 1``, ... of a match in one transaction
        (a player's action and the server's actions it causes: all or nothing) — with the
        match's end and the rating changes when they end the match. Raises
        :class:`SeqConflict` (nothing stored) when one of those numbers is taken."""
        args = _Append(match_id, seq, tuple(rows), finish, tuple(ratings))
        if not self._group:
            # one INSERT of every row: atomic as it is (see __init__); an end of the match
            # is several statements, in one transaction
            single = finish is None and not ratings
            try:
                if single and self.engine.dialect.name == "postgresql":
                    await _insert_actions_asyncpg(self.engine, match_id, seq, rows)
                else:
                    async with (self._single.connect() if single else self.engine.begin()) \
                            as conn:
                        await _append(conn, *args)
                        if single and conn.in_transaction():  # SQLite: a transaction begun
                            await conn.commit()
            except IntegrityError as error:
                raise SeqConflict(f"action {seq} of match {match_id} exists") from error
            self._committed()
            return
        if self._queue is None:
            self._queue = asyncio.Queue()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_groups(self._queue))
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((args, future))
        await future

    async def _write_batch(self, batch: list[_Append]) -> list[BaseException | None]:
        """Commit a batch in one transaction (a store operation: on SQLite in the writer
        thread, on a connection of its own, its statements one hop); on a conflict, item by
        item (savepoints)."""
        try:
            await self.operations.transaction(functools.partial(_write_batch_rows, batch))
            self._committed()
            return [None] * len(batch)
        except IntegrityError:
            pass
        results: list[BaseException | None] = []
        async with self.engine.begin() as conn:
            for args in batch:
                try:
                    async with conn.begin_nested():
                        await _append(conn, *args)
                    results.append(None)
                except IntegrityError as error:
                    results.append(SeqConflict(f"action {args.seq} of match {args.match_id} "
                                               f"exists: {error.orig}"))
        self._committed()
        return results

    async def _write_groups(
            self, queue: asyncio.Queue[tuple[_Append, asyncio.Future[None]]]) -> None:
        while True:
            batch = [await queue.get()]
            while not queue.empty() and len(batch) < 500:
                batch.append(queue.get_nowait())
            try:
                results = await self._write_batch([args for args, _ in batch])
            except Exception as error:  # the whole transaction failed: nothing is stored
                results = [error] * len(batch)
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if result is None:
                    future.set_result(None)
                else:
                    future.set_exception(result)

    # Play now's pools (gammon.server.matchmaking)

    async def add_seek(self, user_id: int, seek: Seek) -> bool:
        """``user_id`` waits in ``seek``'s pool from ``seek.since``; False (nothing stored)
        when they already wait in one (the primary key: never in two)."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(pool_seekers.insert().values(
                    user_id=user_id, kind=seek.kind, length=seek.length, clock=seek.clock,
                    rated=seek.rated, bot=seek.bot, bot_after=seek.bot_after,
                    since=seek.since, seen_at=seek.since, left_at=None))
        except IntegrityError:
            return False
        return True

    async def remove_seek(self, user_id: int) -> bool:
        """Take ``user_id`` out of their pool; False when they were in none."""
        async with self.engine.begin() as conn:
            done = await conn.execute(pool_seekers.delete()
                                      .where(pool_seekers.c.user_id == user_id))
        return bool(done.rowcount == 1)

    async def seeks(self, user_ids: Sequence[int]) -> dict[int, Seek]:
        """The places of those of ``user_ids`` who wait in a pool."""
        async with self._single.connect() as conn:
            rows = (await conn.execute(sa.select(pool_seekers).where(
                pool_seekers.c.user_id.in_(list(user_ids))))).all()
        return {row.user_id: _seek(row) for row in rows}

    async def anyone_seeking(self) -> bool:
        """Whether anybody waits in a pool (one indexed read: the idle server's pass)."""
        async with self._single.connect() as conn:
            return (await conn.scalar(sa.select(pool_seekers.c.user_id).limit(1))) is not None

    async def seekers_seen(self, user_ids: Sequence[int], now: float) -> None:
        """These waiting players have a socket here at ``now`` (back, if they had left)."""
        if user_ids:
            async with self.engine.begin() as conn:
                await conn.execute(pool_seekers.update()
                                   .where(pool_seekers.c.user_id.in_(list(user_ids)))
                                   .values(seen_at=now, left_at=None))

    async def seeker_left(self, user_id: int, now: float) -> None:
        """The last socket of a waiting player here is gone (their place is kept for the
        grace time, and not paired meanwhile)."""
        async with self.engine.begin() as conn:
            await conn.execute(pool_seekers.update()
                               .where(pool_seekers.c.user_id == user_id,
                                      pool_seekers.c.left_at.is_(None))
                               .values(left_at=now))

    async def pool_counts(self, present_since: float
                          ) -> list[tuple[str, int, str, bool, int]]:
        """How many wait in each pool (those present: see :meth:`pair`), as ``(kind,
        length, clock, rated, count)``, the pools with nobody left out."""
        c = pool_seekers.c
        async with self._single.connect() as conn:
            rows = (await conn.execute(
                sa.select(c.kind, c.length, c.clock, c.rated, sa.func.count())
                .where(c.left_at.is_(None), c.seen_at >= present_since)
                .group_by(c.kind, c.length, c.clock, c.rated)
                .order_by(c.kind, c.length, c.clock, c.rated))).all()
        return [(r[0], int(r[1]), r[2], bool(r[3]), int(r[4])) for r in rows]

    async def pair(self, here: Sequence[int], now: float, present_since: float,
                   gone_before: float,
                   choose: Callable[[list[tuple[User, Seek]]],
                                    list[tuple[MatchRow, list[Row], tuple[int, ...]]]]
                   ) -> tuple[list[tuple[MatchRow, list[Row], tuple[int, ...]]], list[int]]:
        """One pairing pass, in one transaction that no other pass can share: the players
        waiting with a socket ``here`` are seen at ``now``; the places of players gone
        before ``gone_before`` (their sockets closed, or their process silent) are removed;
        ``choose`` is given every present waiting player (seen since ``present_since``, no
        socket closed since), oldest first, with their user, and answers the matches to
        make, each with its opening and the players whose places it takes; those matches
        and their openings are stored and those places removed, all in the same
        transaction. Returns the matches made and the players removed as gone.

        PostgreSQL: the places read are locked (``FOR UPDATE SKIP LOCKED``): a pass of
        another process running at once skips them. SQLite: the transaction begins with
        a write, so it holds SQLite's one writer lock from its first statement. Either
        way a place taken by a match is deleted with a check that it was still there:
        were it not (taken meanwhile), the whole pass is rolled back and nothing made."""
        c = pool_seekers.c
        async with self.engine.begin() as conn:
            await conn.execute(pool_seekers.update()  # first: SQLite's writer lock
                               .where(c.user_id.in_(list(here)))
                               .values(seen_at=now, left_at=None))
            gone = list((await conn.scalars(
                pool_seekers.delete()
                .where(sa.or_(c.left_at < gone_before, c.seen_at < gone_before))
                .returning(c.user_id))).all())
            query = (sa.select(users, *[column.label(f"seek_{column.name}") for column in c])
                     .join(pool_seekers, users.c.id == c.user_id)
                     .where(c.left_at.is_(None), c.seen_at >= present_since)
                     .order_by(c.since, c.user_id))
            if conn.dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True, of=pool_seekers)
            rows = (await conn.execute(query)).all()
            made = choose([(_user(row), _seek(row, "seek_")) for row in rows])
            for row, actions, taken in made:
                done = await conn.execute(pool_seekers.delete()
                                          .where(c.user_id.in_(list(taken))))
                if done.rowcount != len(taken):
                    raise SeekTaken(f"a place of {taken} was taken meanwhile")
                await conn.execute(_match_insert(row))
                await _insert_actions(conn, row.id, 1, actions)
        if made:
            self._committed()
        return made, gone

    async def history(self, user_id: int, limit: int = 100) -> list[MatchRow]:
        async with self._single.connect() as conn:
            return [_match(row) for row in (await conn.execute(
                sa.select(matches)
                .where(sa.or_(matches.c.player0 == user_id, matches.c.player1 == user_id),
                       matches.c.status.in_(["playing", "finished"]))
                .order_by(matches.c.created_at.desc()).limit(limit))).all()]

    async def dice_actions(self) -> list[str]:
        async with self._single.connect() as conn:
            return list((await conn.scalars(
                sa.select(match_actions.c.action)
                .where(match_actions.c.kind.in_(["opening", "roll"])))).all())

    # sessions (``id`` is the SHA-256 of the cookie's token)

    async def create_session(self, session_id: str, user_id: int, expires_at: float) -> None:
        """A new session; the user's expired ones are dropped on the way."""
        now = time.time()
        async with self.engine.begin() as conn:
            await conn.execute(sessions.delete().where(sessions.c.user_id == user_id,
                                                       sessions.c.expires_at <= now))
            await conn.execute(sessions.insert().values(
                id=session_id, user_id=user_id, created_at=now, expires_at=expires_at))

    async def session_user(self, session_id: str) -> User | None:
        """The user of a live session (not revoked, not expired), or None."""
        now = time.time()
        row = await self.operations.read(lambda conn: conn.execute(
            _SESSION_USER, {"session_id": session_id, "now": now}).first())
        return None if row is None else _user(row)

    async def live_sessions(self, session_ids: Sequence[str]) -> set[str]:
        """Those of ``session_ids`` that are live sessions (not revoked, not expired)."""
        now = time.time()
        live: set[str] = set()
        async with self._single.connect() as conn:
            for i in range(0, len(session_ids), 500):
                live.update(await conn.scalars(
                    sa.select(sessions.c.id).where(sessions.c.id.in_(session_ids[i:i + 500]),
                                                   sessions.c.expires_at > now)))
        return live

    async def revoke_session(self, session_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(sessions.delete().where(sessions.c.id == session_id))

    async def revoke_sessions(self, user_id: int) -> int:
        """Revoke every session of a user (sign out everywhere); how many there were."""
        async with self.engine.begin() as conn:
            done = await conn.execute(sessions.delete().where(sessions.c.user_id == user_id))
            return int(done.rowcount)


def _token(row: DbRow) -> protocol.TokenView:
    """A token as its owner sees it."""
    return {"id": row.id, "description": row.description,
            "scopes": cast(list[protocol.Scope], row.scopes.split()),
            "created_at": row.created_at, "last_used_at": row.last_used_at}


def _match_insert(row: MatchRow) -> sa.Insert:
    values = {field.name: getattr(row, field.name) for field in dataclasses.fields(row)}
    return matches.insert().values({**values, "config": row.config.to_json()})


async def insert_match(conn: AsyncConnection, row: MatchRow, actions: Sequence[Row]) -> None:
    """Store a new match and its first ``actions`` on ``conn``, in the caller's transaction
    (a tournament's round stores its matches with its pairings: both or neither)."""
    await conn.execute(_match_insert(row))
    await _insert_actions(conn, row.id, 1, actions)


def _seek(row: DbRow, prefix: str = "") -> Seek:
    def get(name: str) -> object:
        return getattr(row, prefix + name)

    return Seek(kind=cast(MatchKind, get("kind")), length=cast(int, get("length")),
                clock=cast(ClockKind, get("clock")), rated=bool(get("rated")),
                since=cast(float, get("since")), bot=cast("int | None", get("bot")),
                bot_after=cast("int | None", get("bot_after")))


def _action_rows(match_id: str, seq: int, rows: Sequence[Row]) -> list[dict[str, object]]:
    return [{"match_id": match_id, "seq": seq + n, "kind": kind, "action": action, "at": at}
            for n, (kind, action, at) in enumerate(rows)]


def _seat_and_open(update: sa.Update, match_id: str, rows: Sequence[Row]) -> sa.Insert:
    """``WITH seated AS (UPDATE ... RETURNING id) INSERT INTO match_actions SELECT ... FROM
    seated, (VALUES ...)``: the rows are stored only if the update took the seat."""
    seated = update.returning(matches.c.id).cte("seated")
    given = sa.values(sa.column("seq", sa.Integer), sa.column("kind", sa.String),
                      sa.column("action", sa.Text), sa.column("at", sa.Float),
                      name="given").data(
        [(row["seq"], row["kind"], row["action"], row["at"])
         for row in _action_rows(match_id, 1, rows)])
    select = sa.select(seated.c.id, given.c.seq, given.c.kind, given.c.action, given.c.at
                       ).select_from(seated.join(given, sa.true()))
    return (match_actions.insert()
            .from_select(["match_id", "seq", "kind", "action", "at"], select)
            .returning(match_actions.c.seq).add_cte(seated))


async def _insert_actions(conn: AsyncConnection, match_id: str, seq: int,
                          rows: Sequence[Row]) -> None:
    if rows:
        await conn.execute(match_actions.insert(), _action_rows(match_id, seq, rows))


_INSERT_ACTIONS = "INSERT INTO match_actions (match_id, seq, kind, action, at) VALUES "


def _action_values(match_id: str, seq: int,
                   rows: Sequence[Row]) -> list[tuple[str, int, str, str, float]]:
    return [(match_id, seq + n, kind, action, at) for n, (kind, action, at) in enumerate(rows)]


def _write_batch_rows(batch: list[_Append], conn: sa.Connection) -> None:
    """One multi-row insert of the actions of every transition, then the match endings
    (the batch of the group commit: :meth:`Repository._write_batch`)."""
    conn.exec_driver_sql(_INSERT_ACTIONS + "(?, ?, ?, ?, ?)", [
        values for match_id, seq, rows, _, _ in batch
        for values in _action_values(match_id, seq, rows)])
    for match_id, _seq, rows, finish, ratings in batch:
        _finish(conn, match_id, rows[-1][2], finish, ratings)


_ASYNCPG_INSERTS: dict[int, str] = {}
"""The INSERT of n actions on asyncpg, by n."""


async def _insert_actions_asyncpg(engine: AsyncEngine, match_id: str, seq: int,
                                  rows: Sequence[Row]) -> None:
    """The actions as one INSERT on an asyncpg connection of ``engine``'s pool (PostgreSQL;
    outside a transaction block, so atomic and committed as it runs), prepared once per
    connection (asyncpg's statement cache): SQLAlchemy's connection and execution took
    more than half of the CPU of an action's insert. A connection that failed otherwise
    than by a conflict is dropped from the pool."""
    from asyncpg.exceptions import IntegrityConstraintViolationError

    query = _ASYNCPG_INSERTS.get(len(rows))
    if query is None:
        query = _ASYNCPG_INSERTS[len(rows)] = _INSERT_ACTIONS + ", ".join(
            "(" + ", ".join(f"${5 * n + i}" for i in range(1, 6)) + ")"
            for n in range(len(rows)))
    values = [value for row in _action_values(match_id, seq, rows) for value in row]
    pooled = await engine.raw_connection()
    try:
        raw = pooled.driver_connection
        assert raw is not None
        await raw.execute(query, *values)
    except IntegrityConstraintViolationError as error:  # as SQLAlchemy's IntegrityError
        raise SeqConflict(f"action {seq} of match {match_id} exists") from error
    except BaseException:
        await greenlet_spawn(pooled.invalidate)
        raise
    finally:
        await greenlet_spawn(pooled.close)


async def _append(conn: AsyncConnection, match_id: str, seq: int, rows: Sequence[Row],
                  finish: Finish | None,
                  ratings: Sequence[RatingChange]) -> None:
    await _insert_actions(conn, match_id, seq, rows)
    if finish is not None or ratings:
        await conn.run_sync(_finish, match_id, rows[-1][2], finish, ratings)


def _finish(conn: sa.Connection, match_id: str, at: float, finish: Finish | None,
            ratings: Sequence[RatingChange]) -> None:
    """The match's end and its rating changes, when the transition ended it."""
    if finish is not None:
        conn.execute(matches.update().where(matches.c.id == match_id)
                     .values(status="finished", finished_at=at, winner=finish.winner,
                             result=finish.result))
    for user_id, before, after, experience in ratings:
        conn.execute(users.update().where(users.c.id == user_id)
                     .values(rating=after, experience=users.c.experience + experience))
        conn.execute(rating_changes.insert().values(
            user_id=user_id, match_id=match_id, before=before, after=after, at=at))
