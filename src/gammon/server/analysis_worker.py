"""Post-match analysis on the server: a queue in the database, a worker off the event loop.

Every finished match can be analysed (``GET /api/games/{id}/analysis``,
:mod:`gammon.server.analysis_api`): each decision rated by the engine, as
``gammon analyze --format json`` rates the match's exported ``.mat`` file. An analysis is
one row of ``match_analyses`` per match and depth (``plies``):

* **queued** — asked for (priority 0) or made when a match ended in this process
  (``analysis_on_finish``, priority 1, only while the queue has room);
  each quick analysis (``analysis_plies``) brings the **deep** one of the same match
  (``analysis_deep_plies``, its flagged errors graded again by rollouts,
  ``analysis_recheck_games`` × ``analysis_recheck_truncate``) into the queue behind it, at
  priority 2 (``DEEP``, also when asked for directly): it runs only when no quick one waits,
  and a quick one queued while it runs takes this process's worker from it (the deep one
  goes back in the queue, that try not counted, and starts again later) — a deep analysis
  never delays anyone's quick one;
* **running** — claimed by one process (``owner``, the hub's origin), with its progress in
  games (``done`` of ``total``), pushed to the match's watchers as ``analysis`` messages;
* **done** — the JSON, stored in the same statement that marks it done: a row is never
  served half written;
* **failed** — the analysis raised (the reason kept), or its process died
  ``MAX_ATTEMPTS`` times.

The queue is bounded (``analysis_queue_limit`` rows queued across the processes): a request
beyond it is refused (503 ``analysis_busy``) and a match's end does not queue it. Deep
analyses are counted against the limit only by other deep ones: they never take a quick
one's room. Each process
runs ``analysis_workers`` analyses at a time (default 1), one match per worker, in a pool of
child processes started on first use (spawned, one numeric thread each, ``nice``'d by
``analysis_nice``), so the event loop only waits on a future and the analysis competes with
play for at most that many cores, at a lower priority. ``analysis_workers = 0`` leaves the
work to other processes sharing the database.

Restarts: a clean stop puts this process's running analyses back in the queue; after a crash,
a running analysis whose owner's heartbeat (``server_kv``, written by the hub) has gone quiet
is queued again by whichever process looks next (at start and every ``analysis_poll``
seconds when idle). Either way it starts again from the beginning.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import queue
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, cast

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

    async def claim(self, origin: str) -> tuple[str, int, int, int] | None:
        """Take the next queued analysis for ``origin``: (match id, plies, attempts so
        far, priority), or None when the queue is empty."""
        for _ in range(5):
            async with self.engine.begin() as conn:
                row = (await conn.execute(
                    sa.select(match_analyses.c.match_id, match_analyses.c.plies,
                              match_analyses.c.attempts, match_analyses.c.priority)
                    .where(match_analyses.c.status == "queued")
                    .order_by(match_analyses.c.priority, match_analyses.c.created_at)
                    .limit(1))).first()
                if row is None:
                    return None
                taken = await conn.execute(
                    match_analyses.update()
                    .where(match_analyses.c.match_id == row.match_id,
                           match_analyses.c.plies == row.plies,
                           match_analyses.c.status == "queued")
                    .values(status="running", owner=origin, attempts=row.attempts + 1,
                            done=0, updated_at=time.time()))
                if taken.rowcount == 1:
                    return row.match_id, row.plies, row.attempts + 1, row.priority
        return None  # others keep taking them first: let them

    def _mine(self, match_id: str, plies: int, origin: str) -> Any:
        return sa.and_(match_analyses.c.match_id == match_id, match_analyses.c.plies == plies,
                       match_analyses.c.status == "running", match_analyses.c.owner == origin)

    async def progress(self, match_id: str, plies: int, origin: str, done: int,
                       total: int) -> bool:
        async with self.engine.begin() as conn:
            changed = await conn.execute(
                match_analyses.update().where(self._mine(match_id, plies, origin))
                .values(done=done, total=total, updated_at=time.time()))
        return bool(changed.rowcount)

    async def finish(self, match_id: str, plies: int, origin: str, result: str,
                     puzzles: Sequence[Puzzle] = (), choices: Sequence[Choice] = ()) -> bool:
        """Store the analysis and mark it done, in one statement, and its ``puzzles`` and
        checker ``choices`` in the same transaction
        (:func:`gammon.server.puzzles.store_puzzles`,
        :func:`gammon.server.explorer.store_choices`); False (nothing stored) if this
        process no longer owns it."""
        async with self.engine.begin() as conn:
            changed = await conn.execute(
                match_analyses.update().where(self._mine(match_id, plies, origin))
                .values(status="done", owner=None, done=match_analyses.c.total, result=result,
                        error=None, updated_at=time.time()))
            if changed.rowcount and puzzles:
                await store_puzzles(conn, match_id, puzzles)
            if changed.rowcount and choices:
                await store_choices(conn, match_id, choices)
        return bool(changed.rowcount)

    async def fail(self, match_id: str, plies: int, origin: str, error: str) -> bool:
        async with self.engine.begin() as conn:
            changed = await conn.execute(
                match_analyses.update().where(self._mine(match_id, plies, origin))
                .values(status="failed", owner=None, error=error[:2000],
                        updated_at=time.time()))
        return bool(changed.rowcount)

    async def requeue(self, origin: str, match_id: str | None = None,
                      plies: int | None = None, *, preempted: bool = False) -> int:
        """Put back in the queue the running analyses of ``origin`` (all, or one;
        ``preempted``: its try is not counted in its attempts)."""
        where = [match_analyses.c.status == "running", match_analyses.c.owner == origin]
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


class AnalysisWorker:
    """This process's analysis workers (see the module doc). ``hub`` is the process's
    :class:`~gammon.server.hub.Hub`: its origin names this process as an analysis's
    owner, and its rooms' watchers get the progress."""

    def __init__(self, settings: Settings, engine: AsyncEngine, hub: Any) -> None:
        self.settings = settings
        self.store = AnalysisStore(engine)
        self.hub = hub
        self.origin: str = hub.origin
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runners: list[asyncio.Task[None]] = []
        self._pool: ProcessPoolExecutor | None = None
        self._progress: Any = None
        self.jobs = 0
        """Analyses this process finished (stored)."""
        self.preempted = 0
        """Deep analyses this process put back in the queue for a quick one."""
        self._running = 0

    # -- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        with contextlib.suppress(Exception):  # the first idle poll tries again
            await self.store.recover(self.origin, self._quiet())
        self.hub.finish_listeners.append(self.match_finished)
        for _ in range(max(self.settings.analysis_workers, 0)):
            self._runners.append(asyncio.create_task(self._run()))

    async def stop(self) -> None:
        """Stop the workers and their processes; this process's running analyses go back
        in the queue (another process, or this one's next start, does them again)."""
        if self.match_finished in self.hub.finish_listeners:
            self.hub.finish_listeners.remove(self.match_finished)
        for task in [*self._runners, *self._tasks]:
            task.cancel()
        for task in [*self._runners, *self._tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._runners.clear()
        self._close_pool()
        try:
            await self.store.requeue(self.origin)
        except Exception:
            log.exception("analysis: could not requeue this process's analyses")

    def _quiet(self) -> float:
        """Seconds without a heartbeat after which a process is taken for dead."""
        return max(10.0, 5 * self.settings.heartbeat_interval)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._progress = context.Queue()
            self._pool = ProcessPoolExecutor(
                max_workers=max(self.settings.analysis_workers, 1), mp_context=context,
                initializer=analysis_job.init,
                initargs=(self._progress, self.settings.analysis_nice))
        return self._pool

    def _close_pool(self) -> None:
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
        status = await self.store.get(match_id, plies)
        if status is not None:
            return status
        status = await self.store.enqueue(match_id, plies, priority,
                                          self.settings.analysis_queue_limit)
        if status is not None and status.status == "queued":
            self._wake.set()
            await self._announce(status)
        return status

    def recheck(self, plies: int) -> tuple[int, int] | None:
        """The rollouts that grade an analysis's flagged errors again at ``plies``: the
        deep one's (``analysis_recheck_games``, ``analysis_recheck_truncate``), else
        none."""
        s = self.settings
        if plies != s.deep_plies or not s.analysis_recheck_games:
            return None
        return s.analysis_recheck_games, s.analysis_recheck_truncate

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

    # -- the workers ---------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                claimed = await self.store.claim(self.origin)
                if claimed is None:
                    await self.store.recover(self.origin, self._quiet())
                    claimed = await self.store.claim(self.origin)
            except Exception:
                log.exception("analysis: the queue could not be read")
                claimed = None
            if claimed is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.analysis_poll)
                continue
            await self._job(*claimed)

    async def _job(self, match_id: str, plies: int, attempts: int, priority: int = 0
                   ) -> None:
        self._running += 1
        try:
            await self._work(match_id, plies, attempts, priority)
        finally:
            self._running -= 1

    async def _preempt(self, match_id: str, plies: int) -> bool:
        """Whether a quick analysis waits while this deep one runs alone here (then its
        process is ended and it goes back in the queue, this try not counted)."""
        if self._running > 1 or not await self.store.queued(below=DEEP):
            return False
        log.info("analysis of match %s at %d plies: back in the queue for a quick one",
                 match_id, plies)
        self._close_pool()
        await self.store.requeue(self.origin, match_id, plies, preempted=True)
        self.preempted += 1
        self._wake.set()
        return True

    async def _work(self, match_id: str, plies: int, attempts: int, priority: int) -> None:
        store, origin = self.store, self.origin
        try:
            data = await store.match_input(match_id)
            if data is None:
                await store.fail(match_id, plies, origin, "no such finished match")
                return
            rules, names, actions = data
            await self._announce(Status(match_id, plies, "running", 0, 0))
            future = asyncio.wrap_future(self._executor().submit(
                analysis_job.analyse, match_id, plies, rules, names, actions,
                self.recheck(plies), plies == self.settings.puzzle_plies))
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            look = time.monotonic() + 0.5
            while not future.done():
                await asyncio.wait({future}, timeout=0.25)
                await self._drain()
                if priority >= DEEP and time.monotonic() >= look:
                    look = time.monotonic() + 0.5
                    if not future.done() and await self._preempt(match_id, plies):
                        return
            result, puzzles, choices = future.result()
            await self._drain()
        except asyncio.CancelledError:
            raise
        except BrokenProcessPool:  # the child died (killed, out of memory): start a new one
            log.error("analysis of match %s at %d plies: its process died", match_id, plies)
            self._close_pool()
            if attempts >= MAX_ATTEMPTS:
                await store.fail(match_id, plies, origin,
                                 f"the analysis process died {attempts} times")
            else:
                await store.requeue(origin, match_id, plies)
                self._wake.set()
            return
        except Exception as error:
            log.exception("analysis of match %s at %d plies failed", match_id, plies)
            if await store.fail(match_id, plies, origin, f"{type(error).__name__}: {error}"):
                await self._announce(Status(match_id, plies, "failed", 0, 0))
            return
        if await store.finish(match_id, plies, origin, result, puzzles, choices):
            self.jobs += 1
            final = await store.get(match_id, plies)
            if final is not None:
                await self._announce(final)

    async def _drain(self) -> None:
        """Store and push the progress the children reported (the latest of each)."""
        latest: dict[tuple[str, int], tuple[int, int]] = {}
        while self._progress is not None:
            try:
                match_id, plies, done, total = self._progress.get_nowait()
            except (queue.Empty, OSError, ValueError):
                break
            latest[(match_id, plies)] = (done, total)
        for (match_id, plies), (done, total) in latest.items():
            if await self.store.progress(match_id, plies, self.origin, done, total):
                await self._announce(Status(match_id, plies, "running", done, total))

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
