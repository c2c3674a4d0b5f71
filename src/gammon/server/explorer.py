"""The position explorer's server side: the plays the site's players chose, and rollouts.

**The site's choices.** Every public match's deepest analysis (the one that makes the
puzzles) also records each unforced checker play made in it (:func:`choices_of`): the
position (the side on roll's Position ID), the dice, the play, and the points its player won
or lost in that game. The explorer shows, for a position and roll, how often each play was
chosen and how its games ended (:class:`ChoiceStore`). Private matches are left out.

**Rollouts**: a player asks for the best plays of a roll to be rolled out, follows the games
as they are played, and may cancel.

* **One at a time per player, a few per process.** A player has at most one rollout running
  (``rollout_running`` for a second one); a process runs at most :data:`MAX_RUNNING` at once
  (``busy``): a rollout takes a core for seconds to minutes. Each rollout is at most 1,296
  games a play and four plays (:class:`~gammon.server.protocol.RolloutRequest`).
* **In the process that started it.** A job lives in memory, in the process the request
  reached (a deployment of several processes routes a player's requests by session, or the
  player asks again); a finished job is kept :data:`KEPT_FOR` seconds for its last reading.
* **Seeded** as ``gammon rollout`` is: every play rolled out on the same dice (the seed), so
  the differences between plays are not the dice's; the pruning network picks the plays
  inside the games, each side plays at the score (the play's context).
* **Cancelled** between chunks of games: the engine calls back after each chunk, and the
  callback stops the rollout when the player cancelled.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from gammon import views
from gammon.core.dice import Roll
from gammon.core.moves import Play
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo, play_equity
from gammon.engine.evaluator import Probabilities
from gammon.engine.player import Engine
from gammon.engine.rollout import RolloutResult
from gammon.server.db import matches, position_choices
from gammon.server.hub import ServiceError

if TYPE_CHECKING:
    from gammon.core.events import GameEnded
    from gammon.engine.analysis import CheckerDecision

MAX_RUNNING = 2
"""Rollouts running at once in one process."""
KEPT_FOR = 600.0
"""Seconds a finished, failed or cancelled job is kept for its last reading."""


@dataclass(frozen=True, slots=True)
class Choice:
    """A checker play made in a match: the position (seen from its player, on roll), the
    dice (high first), the play, and the points its player won (or, negative, lost) in that
    game."""

    position_id: str
    dice: str
    play: str
    points: int


def dice_key(dice: str) -> str:
    """A roll's dice as the choices are filed: high first (``'13'`` is ``'31'``)."""
    return "".join(sorted(dice, reverse=True))


def choices_of(decisions: Sequence[CheckerDecision], results: Sequence[GameEnded | None]
               ) -> list[Choice]:
    """The unforced checker plays of an analysis (``results``: each game's end, in order;
    None for a game not finished, whose plays are left out)."""
    out = []
    for d in decisions:
        result = results[d.game - 1] if 0 < d.game <= len(results) else None
        if d.forced or result is None:
            continue
        dice = dice_key(d.roll)
        points = result.points if result.winner == d.player else -result.points
        out.append(Choice(d.position_id, dice, d.played, points))
    return out


async def store_choices(conn: AsyncConnection, match_id: str, found: Sequence[Choice]) -> None:
    """Record a match's choices in the caller's transaction, unless the match is private."""
    private = await conn.scalar(sa.select(matches.c.private).where(matches.c.id == match_id))
    if private or not found:
        return
    await conn.execute(position_choices.insert(), [
        {"position_id": c.position_id, "dice": c.dice, "play": c.play, "points": c.points,
         "match_id": match_id} for c in found])


class ChoiceStore:
    """How the site's players played a position and roll."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def of(self, position_id: str, dice: str) -> list[views.ChoiceView]:
        """Each play chosen, most often first: how often, in how many matches, and how its
        games ended for its player (won, and the mean points)."""
        c = position_choices.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(c.play, sa.func.count().label("times"),
                          sa.func.count(sa.distinct(c.match_id)).label("matches"),
                          sa.func.sum(sa.case((c.points > 0, 1), else_=0)).label("won"),
                          sa.func.avg(c.points).label("points"))
                .where(c.position_id == position_id, c.dice == dice)
                .group_by(c.play).order_by(sa.desc("times"), c.play))).all()
        return [{"play": r.play, "times": r.times, "matches": r.matches, "won": int(r.won),
                 "points": round(float(r.points), 3)} for r in rows]


class Cancelled(Exception):
    """Raised in the engine's progress callback to stop a cancelled rollout."""


@dataclass
class PlayRollout:
    """One play's rollout so far: its cubeless probabilities after the play (the mover's
    view), its equity (as ``POST /api/hint`` values plays: cubeless money, or cubeful at the
    score) and the standard error of the cubeless equity."""

    play: str
    games: int = 0
    equity: float | None = None
    standard_error: float | None = None
    probabilities: Probabilities | None = None


@dataclass
class RolloutJob:
    id: str
    user_id: int
    position: Position
    plays: list[Play]
    context: CubeInfo | None
    games: int
    truncate: int
    seed: int
    results: list[PlayRollout] = field(default_factory=list)
    status: views.RolloutStatus = "running"
    error: str = ""
    finished_at: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def view(self) -> views.RolloutView:
        done = sum(r.games for r in self.results)
        return {"id": self.id, "status": self.status,
                "games": self.games * len(self.plays), "games_done": done,
                "truncate": self.truncate, "seed": self.seed, "error": self.error,
                "plays": [{"play": r.play, "games": r.games, "equity": _round(r.equity),
                           "standard_error": _round(r.standard_error),
                           "probabilities": None if r.probabilities is None else
                           views.probabilities_view(r.probabilities)}
                          for r in self.results]}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _valued(result: RolloutResult, after: Position, context: CubeInfo | None
            ) -> tuple[float, float, Probabilities]:
    """A play's equity and its standard error from the rollout of ``after`` (the opponent
    on roll), and the mover's cubeless probabilities."""
    mover = result.mean.inverted()
    equity = mover.equity if context is None else play_equity(mover, context, after)
    spread = result.equities
    error = float(spread.std(ddof=1) / len(spread) ** 0.5) if len(spread) > 1 else 0.0
    return equity, error, mover


class Rollouts:
    """The explorer's rollouts of this process."""

    def __init__(self, engine: Callable[[], Engine], clock: Callable[[], float] = time.time
                 ) -> None:
        self.engine = engine
        self.clock = clock
        self.jobs: dict[str, RolloutJob] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def _forget_old(self) -> None:
        now = self.clock()
        for job_id, job in list(self.jobs.items()):
            if job.finished_at is not None and now - job.finished_at > KEPT_FOR:
                del self.jobs[job_id]

    def start(self, user_id: int, position: Position, roll: Roll, plays: list[Play],
              context: CubeInfo | None, games: int, truncate: int, seed: int) -> RolloutJob:
        """Start rolling out ``plays`` (legal plays of ``roll``) for ``user_id``."""
        self._forget_old()
        running = [j for j in self.jobs.values() if j.status == "running"]
        if any(j.user_id == user_id for j in running):
            raise ServiceError("rollout_running", "you have a rollout running: cancel it or "
                                                  "wait for it")
        if len(running) >= MAX_RUNNING:
            raise ServiceError("busy", "the server is running as many rollouts as it can")
        job = RolloutJob(secrets.token_urlsafe(9), user_id, position, plays, context, games,
                         truncate, seed, results=[PlayRollout(p.notation()) for p in plays])
        self.jobs[job.id] = job
        task = asyncio.get_running_loop().create_task(self._run(job))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return job

    def get(self, user_id: int, job_id: str) -> RolloutJob:
        job = self.jobs.get(job_id)
        if job is None or job.user_id != user_id:
            raise ServiceError("not_found", "no such rollout (or it ended a while ago, or "
                                            "another server process has it)")
        return job

    def cancel(self, user_id: int, job_id: str) -> RolloutJob:
        job = self.get(user_id, job_id)
        job.cancel.set()
        return job

    async def close(self) -> None:
        """Cancel every rollout running and wait for them to stop (the server stops)."""
        for job in self.jobs.values():
            job.cancel.set()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _run(self, job: RolloutJob) -> None:
        try:
            await asyncio.to_thread(self._roll_out, job)
            job.status = "done"
        except Cancelled:
            job.status = "cancelled"
        except Exception as error:  # a failed job says why; the server goes on
            job.status, job.error = "failed", str(error)
        finally:
            job.finished_at = self.clock()

    def _roll_out(self, job: RolloutJob) -> None:
        engine = self.engine()
        for play, result in zip(job.plays, job.results, strict=True):
            after = play.next_position

            def progress(so_far: RolloutResult, result: PlayRollout = result,
                         after: Position = after) -> None:
                if job.cancel.is_set():
                    raise Cancelled
                result.games = so_far.count
                result.equity, result.standard_error, result.probabilities = _valued(
                    so_far, after, job.context)

            if job.cancel.is_set():
                raise Cancelled
            final = engine.rollout(after, games=job.games, truncate=job.truncate,
                                   seed=job.seed, progress=progress, pruned=True,
                                   context=None if job.context is None else job.context.swap())
            progress(final)
