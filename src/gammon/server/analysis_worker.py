"""Post-match analysis on the server: one row per analysis in the database, its work in
child processes off the event loop, dispatched by a job queue.

Every finished match can be analysed (``GET /api/games/{id}/analysis``,
:mod:`gammon.server.analysis_api`): each decision rated by the engine, as
``gammon analyze --format json`` rates the match's exported ``.mat`` file. An analysis is
one row of ``match_analyses`` per match and depth (``plies``), the durable record the routes
read, and one state machine whichever process runs it:

* **queued** — asked for (priority 0, ``ON_REQUEST``) or made when a match ended
  (``analysis_on_finish``, priority 1, only while the queue has room);
  each quick analysis (``analysis_plies``) brings the **deep** one of the same match
  (``analysis_deep_plies``, its flagged errors graded again by rollouts,
  ``analysis_recheck_games`` × ``analysis_recheck_truncate``, and the match's puzzles and
  checker choices made from it) into the queue behind it, at priority 2 (``DEEP``, also
  when asked for directly): it runs only when no quick one waits, and a quick one queued
  while it runs alone in a process takes that process's worker from it (the deep one goes
  back in the queue, that try not counted, and starts again later);
* **running** — claimed (:meth:`AnalysisStore.claim`, a compare-and-set) by one ``owner``,
  with its progress in games (``done`` of ``total``), pushed to the match's watchers as
  ``analysis`` messages;
* **done** — the JSON, stored in the same statement that marks it done, and conditional on
  the row being still this owner's run: a row is never served half written, and a second
  completion of the same analysis is a no-op (its puzzles are stored once, in that
  transaction);
* **failed** — the analysis raised (the reason kept), or its process died
  ``MAX_ATTEMPTS`` times.

The queue is bounded (``analysis_queue_limit`` rows queued): a request beyond it is refused
(503 ``analysis_busy``) and a match's end does not queue it. Deep analyses are counted
against the limit only by other deep ones: they never take a quick one's room.

:meth:`AnalysisRunner.run` is the one task of an analysis, whoever dispatches it: claim the
row, run :func:`gammon.server.analysis_job.analyse` in a pool of child processes (spawned,
one numeric thread each, ``nice``'d by ``analysis_nice``), report progress, store the result.
Two dispatchers call it:

* **PostgreSQL**: a job of procrastinate's queue per analysis (:mod:`gammon.server.jobs`),
  run by ``gammon worker`` processes on any machine with the database URL, and by each web
  process's own worker unless ``analysis_workers`` is 0;
* **SQLite** (one machine, nothing else to run): the web process itself, ``analysis_workers``
  loops that take the next queued row.

Each process runs ``analysis_workers`` (a ``gammon worker``: ``worker_concurrency``)
analyses at a time, one child process each, so the event loop only waits on a future and the
analyses compete with play for at most that many cores, at a lower priority.

Restarts: a clean stop puts the process's running analyses back in the queue. After a
crash, on SQLite, a running analysis whose owner's heartbeat (``server_kv``, written by the
hub) has gone quiet is queued again by the next look at the queue; on PostgreSQL its job is
taken up again once its worker's heartbeat has gone quiet (:mod:`gammon.server.jobs`).
Either way it starts again from the beginning.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import queue
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, cast

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from gammon.engine.puzzles import Puzzle
from gammon.server import analysis_job
from gammon.server.bus_messages import forward
from gammon.server.db import match_actions, match_analyses, matches, server_kv, users
from gammon.server.explorer import Choice, store_choices
from gammon.server.protocol import AnalysisMessage, AnalysisStatus
from gammon.server.puzzles import store_puzzles
from gammon.server.rooms import PAUSE
from gammon.server.settings import Settings

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
"""An analysis whose process dies this many times (a crash while running it) fails."""
ON_REQUEST, ON_FINISH, DEEP = 0, 1, 2
"""Priorities: an analysis someone asked for goes before those queued at a match's end,
and the deep analyses after every quick one."""
KINDS = ("quick", "deep")
"""The kinds of analysis, as the metrics name them: the deep ones (priority ``DEEP``) and
the others."""


def kind_of(priority: int) -> str:
    return "deep" if priority >= DEEP else "quick"


@dataclass(frozen=True, slots=True)
class Status:
    """Where an analysis stands (``result`` only when done, ``error`` when failed)."""

    match_id: str
    plies: int
    status: str
    done: int
    total: int
    result: str | None = None
    error: str | None = None

    def progress_json(self) -> dict[str, Any]:
        return {"match": self.match_id, "plies": self.plies, "status": self.status,
                "done": self.done, "total": self.total}

    def message(self) -> AnalysisMessage:
        """The ``analysis`` message pushed to a match's watchers (PROTOCOL.md)."""
        return {"type": "analysis", "match": self.match_id, "plies": self.plies,
                "status": cast(AnalysisStatus, self.status), "done": self.done,
                "total": self.total}


def _status(row: Any) -> Status:
    return Status(row.match_id, row.plies, row.status, row.done, row.total, row.result,
                  row.error)


class Claim(NamedTuple):
    """An analysis claimed: its attempts, this one included, and its priority."""

    attempts: int
    priority: int


Gone = Callable[[str], Awaitable[bool]]
"""Whether the owner of a running analysis is dead (its analysis may be taken over)."""
Announce = Callable[[Status], Awaitable[None]]
"""Tells the match's watchers where an analysis stands."""


class Requeued(Exception):
    """The analysis went back in the queue unfinished (its process died, or a quick
    analysis took its worker): its dispatcher runs it again later."""


class AnalysisStore:
    """The queries on ``match_analyses`` (and what an analysis reads of a match)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def get(self, match_id: str, plies: int) -> Status | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(match_analyses).where(
                match_analyses.c.match_id == match_id,
                match_analyses.c.plies == plies))).first()
        return None if row is None else _status(row)

    async def queued(self, below: int | None = None) -> int:
        """The analyses queued (of a priority under ``below``, when given)."""
        where = [match_analyses.c.status == "queued"]
        if below is not None:
            where.append(match_analyses.c.priority < below)
        async with self.engine.connect() as conn:
            return int(await conn.scalar(
                sa.select(sa.func.count()).select_from(match_analyses).where(*where)) or 0)

    async def enqueue(self, match_id: str, plies: int, priority: int, limit: int
                      ) -> Status | None:
        """Queue an analysis unless one exists (its status, then) or the queue holds
        ``limit`` already (None): a quick one counts the quick ones waiting, a deep one
        (priority ``DEEP``) all."""
        existing = await self.get(match_id, plies)
        if existing is not None:
            return existing
        if await self.queued(None if priority >= DEEP else DEEP) >= limit:
            return None
        now = time.time()
        try:
            async with self.engine.begin() as conn:
                await conn.execute(match_analyses.insert().values(
                    match_id=match_id, plies=plies, status="queued", priority=priority,
                    owner=None, attempts=0, done=0, total=0, created_at=now, updated_at=now))
        except IntegrityError:  # queued meanwhile by another request or process
            pass
        return await self.get(match_id, plies)

    async def next_queued(self) -> tuple[str, int] | None:
        """The queued analysis to run next (the lowest priority number, then the oldest):
        (match id, plies), or None when none waits."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                sa.select(match_analyses.c.match_id, match_analyses.c.plies)
                .where(match_analyses.c.status == "queued")
                .order_by(match_analyses.c.priority, match_analyses.c.created_at)
                .limit(1))).first()
        return None if row is None else (row.match_id, row.plies)

    async def claim(self, match_id: str, plies: int, owner: str,
                    gone: Gone | None = None) -> Claim | None:
        """Mark an analysis running for ``owner``: a queued one; a running one of the same
        owner (its job taken up again after its worker died); or, with ``gone``, a running
        one whose owner ``gone`` says is dead. Its attempts so far and priority, or None
        when it is not to be run here (done, failed, absent, or another owner's at work).
        One that already died ``MAX_ATTEMPTS`` times running fails instead.

        A compare-and-set: the row changes only if it is still as read, so two claims of
        one row never both succeed."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                sa.select(match_analyses.c.status, match_analyses.c.owner,
                          match_analyses.c.attempts, match_analyses.c.priority)
                .where(match_analyses.c.match_id == match_id,
                       match_analyses.c.plies == plies))).first()
        if row is None or row.status not in ("queued", "running"):
            return None
        if row.status == "running" and row.owner != owner and (
                gone is None or not await gone(row.owner or "")):
            return None
        same = sa.and_(match_analyses.c.match_id == match_id, match_analyses.c.plies == plies,
                       match_analyses.c.status == row.status,
                       match_analyses.c.attempts == row.attempts,
                       match_analyses.c.owner.is_(None) if row.owner is None
                       else match_analyses.c.owner == row.owner)
        now = time.time()
        async with self.engine.begin() as conn:
            if row.status == "running" and row.attempts >= MAX_ATTEMPTS:
                await conn.execute(match_analyses.update().where(same).values(
                    status="failed", owner=None, updated_at=now,
                    error=f"the analysis stopped its process {MAX_ATTEMPTS} times"))
                return None
            taken = await conn.execute(match_analyses.update().where(same).values(
                status="running", owner=owner, attempts=row.attempts + 1, done=0,
                updated_at=now))
        return Claim(row.attempts + 1, row.priority) if taken.rowcount == 1 else None

    def _mine(self, match_id: str, plies: int, owner: str) -> Any:
        return sa.and_(match_analyses.c.match_id == match_id, match_analyses.c.plies == plies,
                       match_analyses.c.status == "running", match_analyses.c.owner == owner)

    async def progress(self, match_id: str, plies: int, owner: str, done: int,
                       total: int) -> bool:
        async with self.engine.begin() as conn:
            changed = await conn.execute(
                match_analyses.update().where(self._mine(match_id, plies, owner))
                .values(done=done, total=total, updated_at=time.time()))
        return bool(changed.rowcount)

    async def finish(self, match_id: str, plies: int, owner: str, result: str,
                     puzzles: Sequence[Puzzle] = (), choices: Sequence[Choice] = ()) -> bool:
        """Store the analysis and mark it done, in one statement, and its ``puzzles`` and
        checker ``choices`` in the same transaction
        (:func:`gammon.server.puzzles.store_puzzles`,
        :func:`gammon.server.explorer.store_choices`); False (nothing stored) if ``owner``
        no longer runs it. The statement is conditional (still ``running``, still this
        owner's): a second completion of the same analysis (its job run again while the
        first run went on) changes nothing and stores no puzzle twice."""
        async with self.engine.begin() as conn:
            changed = await conn.execute(
                match_analyses.update().where(self._mine(match_id, plies, owner))
                .values(status="done", owner=None, done=match_analyses.c.total, result=result,
                        error=None, updated_at=time.time()))
            if changed.rowcount and puzzles:
                await store_puzzles(conn, match_id, puzzles)
            if changed.rowcount and choices:
                await store_choices(conn, match_id, choices)
        return bool(changed.rowcount)

    async def fail(self, match_id: str, plies: int, owner: str, error: str) -> bool:
        async with self.engine.begin() as conn:
            changed = await conn.execute(
                match_analyses.update().where(self._mine(match_id, plies, owner))
                .values(status="failed", owner=None, error=error[:2000],
                        updated_at=time.time()))
        return bool(changed.rowcount)

    async def requeue(self, owner: str, match_id: str | None = None,
                      plies: int | None = None, *, preempted: bool = False) -> int:
        """Put back in the queue the running analyses of ``owner`` (all, or one;
        ``preempted``: its try is not counted in its attempts)."""
        where = [match_analyses.c.status == "running", match_analyses.c.owner == owner]
        if match_id is not None:
            where += [match_analyses.c.match_id == match_id, match_analyses.c.plies == plies]
        values: dict[str, Any] = {"status": "queued", "owner": None, "done": 0,
                                  "updated_at": time.time()}
        if preempted:
            values["attempts"] = match_analyses.c.attempts - 1
        async with self.engine.begin() as conn:
            changed = await conn.execute(match_analyses.update().where(*where).values(**values))
        return int(changed.rowcount)

    async def recover(self, origin: str, quiet: float) -> int:
        """Queue again the running analyses of processes other than ``origin`` whose
        heartbeat is older than ``quiet`` seconds (or gone): they died running them. Those
        that already died ``MAX_ATTEMPTS`` times fail instead."""
        now = time.time()
        async with self.engine.connect() as conn:  # a read first: writes only when needed
            others = await conn.scalar(
                sa.select(sa.func.count()).select_from(match_analyses)
                .where(match_analyses.c.status == "running", match_analyses.c.owner != origin))
        if not others:
            return 0
        async with self.engine.begin() as conn:
            beats = (await conn.execute(sa.select(server_kv.c.key, server_kv.c.value)
                                        .where(server_kv.c.key.like("heartbeat:%")))).all()
            alive = [key.removeprefix("heartbeat:") for key, value in beats
                     if float(value) >= now - quiet]
            orphaned = sa.and_(match_analyses.c.status == "running",
                               match_analyses.c.owner != origin,
                               match_analyses.c.owner.not_in([*alive, origin]))
            failed = await conn.execute(
                match_analyses.update()
                .where(orphaned, match_analyses.c.attempts >= MAX_ATTEMPTS)
                .values(status="failed", owner=None, updated_at=now,
                        error=f"the analysis stopped its server {MAX_ATTEMPTS} times"))
            requeued = await conn.execute(
                match_analyses.update().where(orphaned)
                .values(status="queued", owner=None, done=0, updated_at=now))
        return int(failed.rowcount) + int(requeued.rowcount)

    async def queue_stats(self) -> dict[tuple[str, str], tuple[int, float | None]]:
        """The analyses waiting and running, by kind (``quick``, ``deep``) and status
        (``queued``, ``running``): how many, and when the oldest was queued (every process
        of the deployment reads the same numbers)."""
        deep = sa.case((match_analyses.c.priority >= DEEP, "deep"), else_="quick")
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(deep.label("kind"), match_analyses.c.status, sa.func.count(),
                          sa.func.min(match_analyses.c.created_at))
                .where(match_analyses.c.status.in_(["queued", "running"]))
                .group_by(deep, match_analyses.c.status))).all()
        found: dict[tuple[str, str], tuple[int, float | None]] = {
            (kind, status): (0, None) for kind in KINDS for status in ("queued", "running")}
        for kind, status, count, oldest in rows:
            found[(kind, status)] = (int(count), None if oldest is None else float(oldest))
        return found

    async def match_input(self, match_id: str) -> tuple[str, list[str], list[str]] | None:
        """A finished match's rules JSON, players' names and action log (without clock
        pauses), or None when there is no such finished match."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(matches).where(matches.c.id == match_id))
                   ).first()
            if row is None or row.status != "finished" or not row.rules:
                return None
            names = dict((await conn.execute(
                sa.select(users.c.id, users.c.name)
                .where(users.c.id.in_([row.player0, row.player1])))).all())
            actions = (await conn.scalars(
                sa.select(match_actions.c.action)
                .where(match_actions.c.match_id == match_id, match_actions.c.kind != PAUSE)
                .order_by(match_actions.c.seq))).all()
        return (row.rules, [names.get(row.player0, ""), names.get(row.player1, "")],
                list(actions))


class AnalysisRunner:
    """The analyses of one process: its pool of child processes and :meth:`run`, the one
    task of an analysis whichever dispatcher calls it. ``announce`` pushes where an analysis
    stands to its watchers; ``workers``: analyses at once (child processes)."""

    def __init__(self, settings: Settings, store: AnalysisStore, announce: Announce,
                 workers: int) -> None:
        self.settings = settings
        self.store = store
        self.announce = announce
        self.workers = max(workers, 1)
        self._pool: ProcessPoolExecutor | None = None
        self._progress: Any = None
        self._running = 0
        self.counts: dict[tuple[str, str], int] = {}
        """Analyses this process ended, by kind and result (``done``, ``failed``,
        ``requeued``)."""
        self.preempted = 0
        """Deep analyses this process put back in the queue for a quick one."""
        self.requeued: Callable[[], None] = lambda: None
        """Called when an analysis went back in the queue (the in-process loops wake)."""

    @property
    def jobs(self) -> int:
        """Analyses this process finished (stored)."""
        return sum(n for (_, result), n in self.counts.items() if result == "done")

    def _count(self, priority: int, result: str) -> None:
        key = (kind_of(priority), result)
        self.counts[key] = self.counts.get(key, 0) + 1

    def recheck(self, plies: int) -> tuple[int, int] | None:
        """The rollouts that grade an analysis's flagged errors again at ``plies``: the
        deep one's (``analysis_recheck_games``, ``analysis_recheck_truncate``), else
        none."""
        s = self.settings
        if plies != s.deep_plies or not s.analysis_recheck_games:
            return None
        return s.analysis_recheck_games, s.analysis_recheck_truncate

    # -- the child processes -------------------------------------------------------------

    def executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._progress = context.Queue()
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=analysis_job.init,
                initargs=(self._progress, self.settings.analysis_nice))
        return self._pool

    def close(self) -> None:
        """End the child processes (those at work too)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        if self._progress is not None:
            with contextlib.suppress(Exception):
                self._progress.close()
            self._progress = None

    # -- the task ------------------------------------------------------------------------

    async def run(self, match_id: str, plies: int, owner: str, gone: Gone | None = None
                  ) -> str:
        """Run the analysis of ``match_id`` at ``plies`` as ``owner``, if its row is to be
        run (:meth:`AnalysisStore.claim`, with ``gone``): ``done``, ``failed``, or
        ``skipped`` (nothing to do: done already, or another owner's at work). Raises
        :class:`Requeued` when it went back in the queue unfinished; cancelled, it puts it
        back in the queue too (that try not counted)."""
        claim = await self.store.claim(match_id, plies, owner, gone)
        if claim is None:
            return "skipped"
        self._running += 1
        try:
            result = await self._work(match_id, plies, owner, claim)
        except Requeued:
            self._count(claim.priority, "requeued")
            self.requeued()
            raise
        except asyncio.CancelledError:  # a stop: back in the queue, this try not counted
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.requeue(owner, match_id, plies,
                                                        preempted=True))
            raise
        finally:
            self._running -= 1
        self._count(claim.priority, result)
        return result

    async def _preempt(self, match_id: str, plies: int, owner: str) -> bool:
        """Whether a quick analysis waits while this deep one runs alone here (then its
        process is ended and it goes back in the queue, this try not counted). The
        database failing the look at the queue (restarted: the pool's connections dead)
        is no failure of the analysis: it looks again next time."""
        if self._running > 1:
            return False
        try:
            if not await self.store.queued(below=DEEP):
                return False
        except Exception:
            log.warning("analysis of match %s at %d plies: the queue could not be read "
                        "(the next look tries again)", match_id, plies, exc_info=True)
            return False
        log.info("analysis of match %s at %d plies: back in the queue for a quick one",
                 match_id, plies)
        self.close()
        await self.store.requeue(owner, match_id, plies, preempted=True)
        self.preempted += 1
        return True

    async def _work(self, match_id: str, plies: int, owner: str, claim: Claim) -> str:
        store = self.store
        try:
            data = await store.match_input(match_id)
            if data is None:
                await store.fail(match_id, plies, owner, "no such finished match")
                return "failed"
            rules, names, actions = data
            await self.announce(Status(match_id, plies, "running", 0, 0))
            future = asyncio.wrap_future(self.executor().submit(
                analysis_job.analyse, match_id, plies, rules, names, actions,
                self.recheck(plies), plies == self.settings.puzzle_plies))
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            look = time.monotonic() + 0.5
            while not future.done():
                await asyncio.wait({future}, timeout=0.25)
                await self._drain(owner)
                if claim.priority >= DEEP and time.monotonic() >= look:
                    look = time.monotonic() + 0.5
                    if not future.done() and await self._preempt(match_id, plies, owner):
                        raise Requeued("a quick analysis took its worker")
            result, puzzles, choices = future.result()
            await self._drain(owner)
        except (asyncio.CancelledError, Requeued):
            raise
        except BrokenProcessPool:  # the child died (killed, out of memory): start a new one
            log.error("analysis of match %s at %d plies: its process died", match_id, plies)
            self.close()
            if claim.attempts >= MAX_ATTEMPTS:
                await store.fail(match_id, plies, owner,
                                 f"the analysis process died {claim.attempts} times")
                return "failed"
            await store.requeue(owner, match_id, plies)
            raise Requeued("its process died") from None
        except Exception as error:
            log.exception("analysis of match %s at %d plies failed", match_id, plies)
            if await store.fail(match_id, plies, owner, f"{type(error).__name__}: {error}"):
                await self.announce(Status(match_id, plies, "failed", 0, 0))
            return "failed"
        if not await store.finish(match_id, plies, owner, result, puzzles, choices):
            return "skipped"  # done meanwhile by another run of it: nothing stored twice
        final = await store.get(match_id, plies)
        if final is not None:
            await self.announce(final)
        return "done"

    async def _drain(self, owner: str) -> None:
        """Store and push the progress the children reported (the latest of each). The
        database failing a store of progress is no failure of the analysis: a later
        progress is stored."""
        latest: dict[tuple[str, int], tuple[int, int]] = {}
        while self._progress is not None:
            try:
                match_id, plies, done, total = self._progress.get_nowait()
            except (queue.Empty, OSError, ValueError):
                break
            latest[(match_id, plies)] = (done, total)
        for (match_id, plies), (done, total) in latest.items():
            try:
                stored = await self.store.progress(match_id, plies, owner, done, total)
            except Exception:
                log.warning("analysis of match %s at %d plies: its progress was not stored",
                            match_id, plies, exc_info=True)
                continue
            if stored:
                await self.announce(Status(match_id, plies, "running", done, total))


class Dispatcher(Protocol):
    """How analyses queued in ``match_analyses`` reach a runner on PostgreSQL: the job
    queue (:class:`gammon.server.jobs.JobQueue`)."""

    async def open(self) -> None: ...
    async def defer(self, match_id: str, plies: int, priority: int) -> bool: ...
    async def start(self, runner: AnalysisRunner, concurrency: int) -> None: ...
    async def close(self) -> None: ...


class AnalysisWorker:
    """The web process's side of the analyses (see the module doc): it queues them (at a
    match's end, on request) and runs them, through ``jobs`` when given (PostgreSQL: the
    job queue), else in its own loops (SQLite). ``hub`` is the process's
    :class:`~gammon.server.hub.Hub`: its origin names this process as an analysis's owner
    on SQLite, and its rooms' watchers get the progress."""

    def __init__(self, settings: Settings, engine: AsyncEngine, hub: Any,
                 jobs: Dispatcher | None = None) -> None:
        self.settings = settings
        self.store = AnalysisStore(engine)
        self.hub = hub
        self.origin: str = hub.origin
        self.jobs_queue = jobs
        self.runner = AnalysisRunner(settings, self.store, self._announce,
                                     settings.analysis_workers)
        self.runner.requeued = self._wake_up
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runners: list[asyncio.Task[None]] = []

    @property
    def jobs(self) -> int:
        """Analyses this process finished (stored)."""
        return self.runner.jobs

    @property
    def preempted(self) -> int:
        """Deep analyses this process put back in the queue for a quick one."""
        return self.runner.preempted

    @property
    def _pool(self) -> ProcessPoolExecutor | None:
        return self.runner._pool

    def _executor(self) -> ProcessPoolExecutor:
        return self.runner.executor()

    def _close_pool(self) -> None:
        self.runner.close()

    def _wake_up(self) -> None:
        self._wake.set()

    # -- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        self.hub.finish_listeners.append(self.match_finished)
        workers = max(self.settings.analysis_workers, 0)
        if self.jobs_queue is not None:
            await self.jobs_queue.open()
            if workers:
                await self.jobs_queue.start(self.runner, workers)
            return
        with contextlib.suppress(Exception):  # the first idle poll tries again
            await self.store.recover(self.origin, self._quiet())
        for _ in range(workers):
            self._runners.append(asyncio.create_task(self._run()))

    async def stop(self) -> None:
        """Stop the workers and their processes; this process's running analyses go back
        in the queue (another process, or this one's next start, does them again)."""
        if self.match_finished in self.hub.finish_listeners:
            self.hub.finish_listeners.remove(self.match_finished)
        if self.jobs_queue is not None:
            try:
                await self.jobs_queue.close()
            except Exception:
                log.exception("analysis: the job queue did not close cleanly")
        for task in [*self._runners, *self._tasks]:
            task.cancel()
        for task in [*self._runners, *self._tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._runners.clear()
        self.runner.close()
        try:
            await self.store.requeue(self.origin)
        except Exception:
            log.exception("analysis: could not requeue this process's analyses")

    def _quiet(self) -> float:
        """Seconds without a heartbeat after which a process is taken for dead."""
        return max(10.0, 5 * self.settings.heartbeat_interval)

    # -- queueing ------------------------------------------------------------------------

    async def request(self, match_id: str, plies: int, priority: int = ON_REQUEST
                      ) -> Status | None:
        """The analysis of a finished match at ``plies``, queued if there is none yet;
        None when the queue is full. The quick one (``analysis_plies``) also queues the
        deep one behind it (``DEEP``, as is any analysis at its depth)."""
        deep = self.settings.deep_plies
        if plies == deep:
            priority = DEEP
        status = await self._queue(match_id, plies, priority)
        if deep is not None and plies == self.settings.analysis_plies and status is not None:
            await self._queue(match_id, deep, DEEP)
        return status

    async def _queue(self, match_id: str, plies: int, priority: int) -> Status | None:
        """The row first (the record), then its job (PostgreSQL): two transactions, a
        crash between them leaves a queued row without a job, which the job queue's sweep
        finds (:meth:`gammon.server.jobs.JobQueue.sweep`)."""
        status = await self.store.get(match_id, plies)
        if status is not None:
            return status
        status = await self.store.enqueue(match_id, plies, priority,
                                          self.settings.analysis_queue_limit)
        if status is not None and status.status == "queued":
            if self.jobs_queue is not None:
                try:
                    await self.jobs_queue.defer(match_id, plies, priority)
                except Exception:  # the sweep defers it
                    log.exception("analysis: no job for match %s at %d plies yet",
                                  match_id, plies)
            self._wake.set()
            await self._announce(status)
        return status

    def recheck(self, plies: int) -> tuple[int, int] | None:
        """The rollouts of the deep analysis at ``plies`` (:meth:`AnalysisRunner.recheck`)."""
        return self.runner.recheck(plies)

    def match_finished(self, match_id: str) -> None:
        """The hub's call when a match of this process ends: queue its analysis."""
        if not self.settings.analysis_on_finish:
            return
        task = asyncio.ensure_future(self._queue_finished(match_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _queue_finished(self, match_id: str) -> None:
        try:
            await self.request(match_id, self.settings.analysis_plies, ON_FINISH)
        except Exception:  # a request queues it later
            log.exception("analysis: could not queue match %s", match_id)

    # -- the in-process loops (SQLite) ---------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                found = await self.store.next_queued()
                if found is None:
                    await self.store.recover(self.origin, self._quiet())
                    found = await self.store.next_queued()
            except Exception:
                log.exception("analysis: the queue could not be read")
                found = None
            if found is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.analysis_poll)
                continue
            with contextlib.suppress(Requeued):  # the loop takes it again
                try:
                    await self.runner.run(*found, owner=self.origin)
                except (asyncio.CancelledError, Requeued):
                    raise
                except Exception:
                    log.exception("analysis of match %s at %d plies", *found)
                    await asyncio.sleep(self.settings.analysis_poll)

    async def _announce(self, status: Status) -> None:
        """Push where an analysis stands to the match's watchers, here and (over the bus)
        in the other processes."""
        message = status.message()
        hub = self.hub
        room = hub.rooms.get(status.match_id)
        if room is not None:
            text = json.dumps(message)
            for conn in list(room.subscribers):
                conn.send_text(text)
        await hub.publish(forward(status.match_id, message))
