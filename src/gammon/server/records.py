"""The stored records of a match as types: what the repository (:mod:`gammon.server.db`)
reads and writes, and what the rooms (:mod:`gammon.server.rooms`, which may not touch
storage) are built from. Plain values, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from gammon.views import ClockKind, MatchConfig, MatchKind, MatchStatus

Row = tuple[str, str, float]
"""One record of the action log as written: ``(kind, action JSON, clock time)``."""


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A row of ``matches``: the match's configuration, seats, seeds and end."""

    id: str
    created_at: float
    status: MatchStatus
    config: MatchConfig
    player0: int | None
    server_seed: str
    seed_hash: str
    player1: int | None = None
    reserved_for: int | None = None
    """The one player who may take the free seat (a challenge, a rematch)."""
    private: bool = False
    rated: bool = False
    client_seed0: str = ""
    client_seed1: str = ""
    rules: str | None = None
    """The JSON of the core rules, fixed when the second seat is taken."""
    winner: int | None = None
    result: str | None = None
    """The JSON of the result (:class:`gammon.views.ResultView`), once over."""
    finished_at: float | None = None
    rematch_of: str | None = None


class ActionRow(NamedTuple):
    """A row of ``match_actions``, as read: action ``seq`` of a match."""

    seq: int
    kind: str
    action: str
    at: float


class Finish(NamedTuple):
    """What a match's last transition stores with it: the winner and the result's JSON."""

    winner: int
    result: str


class RatingChange(NamedTuple):
    """A player's rating before and after a rated match, and the experience it adds (the
    match's length)."""

    user: int
    before: float
    after: float
    experience: int


@dataclass(frozen=True, slots=True)
class Seek:
    """A player's place in a Play now pool (a row of ``pool_seekers``): the pool (kind,
    length, clock, rated), the bot to play after ``bot_after`` seconds if nobody is paired
    with them (None: none), and since when they wait."""

    kind: MatchKind
    length: int
    clock: ClockKind
    rated: bool
    since: float
    bot: int | None = None
    bot_after: int | None = None

    @property
    def pool(self) -> tuple[MatchKind, int, ClockKind, bool]:
        return (self.kind, self.length, self.clock, self.rated)
