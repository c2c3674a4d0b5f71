"""Server settings, read from the environment (prefix ``GAMMON_``) and a ``.env`` file.

>>> Settings(database_url="sqlite+aiosqlite:///:memory:").bind
'127.0.0.1:8000'
"""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from gammon.server import pairing


class Settings(BaseSettings):
    """Everything a deployment may change. Defaults need nothing installed or started:
    an SQLite file in the working directory and the in-process bus.

    ``secret_key`` signs session cookies; when empty, a random key is generated once and
    stored in the database, so that every process sharing the database shares it.
    """

    model_config = SettingsConfigDict(env_prefix="GAMMON_", env_file=".env", extra="ignore")

    database_url: str = "sqlite+aiosqlite:///gammon.db"
    redis_url: str = ""
    bus_channel: str = ""
    """The Redis channel of this deployment's bus; empty: one derived from
    ``database_url`` (processes sharing a database share a bus, and other deployments on
    the same Redis, test servers or a load run, hear none of it)."""
    db_pool_size: int = 10
    db_max_overflow: int = 20
    """PostgreSQL connections a process keeps open, and how many more it may open at a peak."""
    db_pool_timeout: float = 10.0
    """Most seconds a request waits for a free database connection; then 503 ``busy`` with
    ``Retry-After`` (``error`` code ``busy`` on the socket)."""
    secret_key: str = ""
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_origins: list[str] = []
    static_dir: str = ""
    cookie_secure: bool = False
    lag_cap: float = 0.5
    """Most seconds of network lag credited back to a player per action (PROTOCOL.md)."""
    ping_interval: float = 10.0
    max_message_bytes: int = 4096
    max_open_games: int = 3
    max_chat_length: int = 300
    rate_limits: bool = True
    """Rate limits on sign-in, guests, game creation, chat, the engine API (per address or
    user; shared through Redis when ``redis_url`` is set) and on each socket."""
    rate_limit_prefix: str = "gammon:rate:"
    """Prefix of the rate limiters' keys in Redis."""
    ws_messages_per_second: float = 20.0
    ws_message_burst: int = 60
    """A socket may send ``ws_message_burst`` messages at once, then this many a second;
    more get ``rate_limited``."""
    ws_subscribes_per_minute: float = 60.0
    ws_subscribe_burst: int = 30
    """Subscribes load matches from the database: a budget of their own per socket."""
    ws_subscriptions: int = 32
    """The matches one socket watches at most: beyond, its oldest subscription to a match
    that is over is let go, or with none over the subscribe is refused
    (``too_many_subscriptions``). A finished room stays in memory while it is watched."""
    shed_load: bool = True
    """Moves first under overload (:mod:`gammon.server.shedding`, docs/server.md): refuse
    with 503 ``busy`` the requests that can wait while the process is overloaded."""
    shed_in_flight_first: int = 24
    shed_lag_first: float = 0.02
    """From this many HTTP requests in flight, or from this lag (seconds: the event loop's,
    or the recent match actions' average latency, whichever is more), the engine's answers,
    puzzles, deck, explorer and asked-for analyses are refused."""
    shed_in_flight_second: int = 64
    shed_lag_second: float = 0.25
    """From this many, or this lag, new matches, joins, sign-ups and guests too."""
    shed_matches_in_play: int = 500
    """From this many matches in play in the process, new matches and joins are refused
    (and Play now pairs nobody here) before the process falls behind: a match admitted
    stays for minutes, so a lag would trip only once too many were in. 0: no cap."""
    shed_first_at_once: int = 4
    """The first group's requests served at once, at most (more are refused)."""
    shed_lag_in_flight: int = 2
    """The lag sheds only with this many other HTTP requests in flight: a collection or a
    slow disk alone never refuses a lone player's hint."""
    clock_scale: float = Field(default=1.0, gt=0, allow_inf_nan=False)
    """Multiplies every clock duration of new matches (tests use small values); a positive
    number, checked at start-up (not found out at the first new match)."""
    heartbeat_interval: float = 2.0
    """Seconds between the heartbeats a process writes to the database; at most this much
    server downtime is charged to a running clock after a crash (docs/server.md)."""
    bot_delay: float = 0.0
    """Seconds a bot waits before acting (0 in tests; a few tenths feels natural)."""
    analysis_plies: int = 1
    """Depth of the post-match analysis made when a match ends, and of
    ``GET /api/games/{id}/analysis`` without ``ply`` (as ``gammon analyze --ply``)."""
    analysis_max_plies: int = 2
    """The deepest analysis a request may ask for (0-2)."""
    analysis_deep_plies: int = 2
    """Depth of the deeper analysis queued behind every quick one (``analysis_plies``), at
    the lowest priority (after every quick one waiting), with each flagged checker error
    graded again by rollouts (``analysis_recheck_*``); the review shows it once it is done.
    None when it is not deeper than ``analysis_plies`` or deeper than
    ``analysis_max_plies``."""
    analysis_recheck_games: int = 1296
    analysis_recheck_truncate: int = 7
    """The deeper analysis's rollouts of each flagged error's two plays: games (0: no
    recheck, else at least 2) and the plies each game is played, as ``gammon analyze
    --recheck-games N --recheck-truncate T``."""
    analysis_workers: int = 1
    """Analyses this process runs at once, each in a child process (0: none here; other
    processes sharing the database do them: on PostgreSQL, ``gammon worker``)."""
    worker_concurrency: int = Field(default=1, ge=1)
    """Analyses a ``gammon worker`` runs at once, each in a child process (its
    ``--concurrency``)."""
    jobs_heartbeat: float = Field(default=10.0, gt=0, allow_inf_nan=False)
    """Seconds between the heartbeats of a worker of the job queue (PostgreSQL: ``gammon
    worker``, and a web process running analyses)."""
    jobs_stalled_after: float = Field(default=30.0, gt=0, allow_inf_nan=False)
    """Seconds without a heartbeat after which a worker of the job queue is taken for dead
    and its jobs are queued again (looked for every ``analysis_poll`` seconds)."""
    analysis_nice: int = 10
    """How much lower the analysis processes' CPU priority is than the server's."""
    analysis_queue_limit: int = 200
    """Most analyses waiting at once (all processes); more requests get 503."""
    analysis_on_finish: bool = True
    """Queue a match's analysis when it ends (while the queue has room)."""
    analysis_poll: float = 5.0
    """Seconds between looks at the queue when idle (work queued by other processes, and
    analyses of processes that died)."""

    pairing_lengths: list[int] = [3, 5, 7, 9, 11]
    """The match lengths of Play now's pools (a single game and money have one each)."""
    pairing_band_start: float = 50.0
    pairing_band_step: float = 50.0
    pairing_band_every: float = 10.0
    pairing_band_max: float = 500.0
    """Play now's pairing rule (PROTOCOL.md, *Play now*): a waiting player accepts a rating
    difference of ``start + step × ⌊seconds waited / every⌋``, at most ``max``."""
    pairing_interval: float = Field(default=1.0, gt=0, allow_inf_nan=False)
    """Seconds between two pairing passes of a process (a player's arrival makes one at
    once); a waiting player's place is seen by their process at each."""
    pairing_grace: float = Field(default=30.0, ge=0, allow_inf_nan=False)
    """Seconds a waiting player's place is kept, unpaired, once their last socket is gone
    (or their server process stopped): back within it, they are still waiting."""

    tournament_interval: float = Field(default=2.0, gt=0, allow_inf_nan=False)
    """Seconds between two passes of the tournaments' scheduler (the one process that holds
    the scheduler's lock runs them; the others try to take it at each)."""
    tournament_no_show: float = Field(default=180.0, gt=0, allow_inf_nan=False)
    """Seconds a tournament match waits for a player who has not made a move in it yet
    before that player loses it (PROTOCOL.md, *Tournaments*)."""
    tournament_stall: float = Field(default=900.0, gt=0, allow_inf_nan=False)
    """Seconds a tournament match waits for a player who has moved in it and then stopped
    (gone, in a match without a clock) before that player loses it; they stay in the
    tournament (PROTOCOL.md, *Tournaments*)."""

    @model_validator(mode="after")
    def _pairing(self) -> Self:
        self.pairing_band  # noqa: B018 (the thresholds checked at start-up, not later)
        if not self.pairing_lengths or any(not 1 <= n <= 25 for n in self.pairing_lengths):
            raise ValueError(f"pairing_lengths: match lengths from 1 to 25, got "
                             f"{self.pairing_lengths}")
        return self

    @property
    def pairing_band(self) -> pairing.Band:
        return pairing.Band(start=self.pairing_band_start, step=self.pairing_band_step,
                            every=self.pairing_band_every, most=self.pairing_band_max)

    @model_validator(mode="after")
    def _analysis_depths(self) -> Self:
        if not 0 <= self.analysis_max_plies <= 2:
            raise ValueError(f"analysis_max_plies is 0 to 2, got {self.analysis_max_plies}")
        if not 0 <= self.analysis_plies <= self.analysis_max_plies:
            raise ValueError(f"analysis_plies is 0 to analysis_max_plies "
                             f"({self.analysis_max_plies}), got {self.analysis_plies}")
        if not 0 <= self.analysis_deep_plies <= 2:
            raise ValueError(f"analysis_deep_plies is 0 to 2, got {self.analysis_deep_plies}")
        if self.analysis_recheck_games == 1 or self.analysis_recheck_games < 0:
            raise ValueError("analysis_recheck_games is 0 (no recheck) or at least 2, "
                             f"got {self.analysis_recheck_games}")
        if self.analysis_recheck_truncate < 1:
            raise ValueError("analysis_recheck_truncate is at least 1, "
                             f"got {self.analysis_recheck_truncate}")
        return self

    @property
    def deep_plies(self) -> int | None:
        """The depth of the deeper background analysis, or None when there is none."""
        deep = self.analysis_deep_plies
        return deep if self.analysis_plies < deep <= self.analysis_max_plies else None

    @property
    def puzzle_plies(self) -> int:
        """The depth of the analysis that makes a match's puzzles: the deep one, else the
        quick one (only the deepest analysis makes puzzles: :mod:`gammon.server.puzzles`)."""
        deep = self.deep_plies
        return self.analysis_plies if deep is None else deep

    @property
    def bind(self) -> str:
        return f"{self.host}:{self.port}"
