"""The job queue of the analyses on PostgreSQL, and ``gammon worker``.

Why procrastinate: a job queue needs what is hard to get right by hand — workers on several
machines taking jobs without taking one twice (``SELECT ... FOR UPDATE SKIP LOCKED``),
priorities, waking on a new job (``LISTEN``/``NOTIFY``), workers' heartbeats to tell a dead
worker's jobs, retries — and this server kept its own version of each in
:mod:`gammon.server.analysis_worker`. procrastinate (3.x, maintained, typed, asyncio) does
all of it in the PostgreSQL a deployment already runs: no broker to add, as Celery or RQ
would need (Redis is optional here and only carries the bus), and its jobs are rows that
SQL can see. Its schema is applied by the server's migrations (``0013_job_queue``), in the
schema ``procrastinate``; its connections set ``search_path`` to it (:func:`conninfo`).

An analysis is its row of ``match_analyses`` (the record the routes read) and a job
(:data:`TASK`, arguments ``match_id`` and ``plies``) whose one task is
:meth:`gammon.server.analysis_worker.AnalysisRunner.run`, the same as SQLite's in-process
loops run. The job:

* is deferred once the row is queued, with a ``queueing_lock`` and a ``lock`` of the
  analysis (:func:`lock_of`): never two waiting, never two at work for one analysis;
* has the priority of its row (procrastinate runs higher numbers first, so the row's
  priority negated): an analysis asked for (0) before those of matches' ends (1), the deep
  ones (2) last;
* is taken up again when its worker dies (killed, its machine lost): every worker's
  :meth:`JobQueue.maintain` retries the jobs of workers whose heartbeat
  (``jobs_heartbeat``) has been quiet ``jobs_stalled_after`` seconds; the new run claims
  the row again (the same job: the same owner), from the start;
* ends its analysis at most once: the row's final write is conditional on its run
  (:meth:`AnalysisStore.finish <gammon.server.analysis_worker.AnalysisStore.finish>`).

What is in one transaction and what is not: the match's end (the hub's), the row's insert,
and the job's defer are three. A crash after the match's end and before the row loses the
background analysis of that match (a request for it queues it then). A crash after the row
and before the job leaves a queued row without a job, which :meth:`JobQueue.sweep` (at a
worker's start and every ``analysis_poll`` seconds) finds and defers; so does a running row
whose job is no longer waiting or at work. The row's result, its ``done``, and the match's
puzzles and checker choices are one transaction; the job's end (procrastinate's) is another
after it: a crash between them runs the job again, which finds the row done and does
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import TYPE_CHECKING, Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from gammon.server.analysis_worker import AnalysisRunner, Requeued, Status
from gammon.server.db import match_analyses
from gammon.server.settings import Settings

if TYPE_CHECKING:
    from gammon.server.ops import AnalysisMetrics

log = logging.getLogger(__name__)

SCHEMA = "procrastinate"
"""The PostgreSQL schema of procrastinate's tables (migration ``0013_job_queue``)."""
QUEUE = "analysis"
TASK = "gammon.analysis"
"""The job of one analysis: ``match_id`` and ``plies``."""

_jobs = sa.table("procrastinate_jobs", sa.column("id", sa.BigInteger),
                 sa.column("queueing_lock", sa.Text), sa.column("status", sa.Text),
                 schema=SCHEMA)


def _live_job(lock: Any) -> sa.Exists:
    """Whether a job of the analysis whose queueing lock is ``lock`` (a string or an SQL
    expression) waits or is at work."""
    return sa.exists().where(_jobs.c.queueing_lock == lock,
                             sa.cast(_jobs.c.status, sa.Text).in_(["todo", "doing"]))


def lock_of(match_id: str, plies: int) -> str:
    """The queueing lock and lock of an analysis's job.

    >>> lock_of("abc", 2)
    'analysis:abc:2'
    """
    return f"analysis:{match_id}:{plies}"


def conninfo(database_url: str) -> str:
    """The libpq connection string (psycopg's) of the server's SQLAlchemy URL: the same
    database, user, password and host (``ssl=`` of asyncpg becomes libpq's ``sslmode=``).

    >>> conninfo("postgresql+asyncpg://gammon:secret@db:5432/gammon")
    'postgresql://gammon:secret@db:5432/gammon'
    >>> conninfo("postgresql+asyncpg://db/gammon?ssl=require")
    'postgresql://db/gammon?sslmode=require'
    """
    url = make_url(database_url).set(drivername="postgresql")
    query = dict(url.query)
    if "ssl" in query:
        query["sslmode"] = query.pop("ssl")
    return url.set(query=query).render_as_string(hide_password=False)


def is_postgres(database_url: str) -> bool:
    return make_url(database_url).get_backend_name() == "postgresql"


async def _analyse(context: Any, match_id: str, plies: int) -> str:
    """The job of an analysis: the runner of the worker that took it runs it, owned by the
    job (a retry of the job after its worker died is the same owner)."""
    queue: JobQueue = context.additional_context["queue"]
    runner: AnalysisRunner = context.additional_context["runner"]
    return await runner.run(match_id, plies, owner=f"job:{context.job.id}", gone=queue.gone)


class JobQueue:
    """procrastinate's app on the deployment's database: defers the analyses' jobs
    (:meth:`defer`), runs a worker of them in this process (:meth:`start`, or
    :meth:`work` for ``gammon worker``), and keeps the queue whole (:meth:`maintain`)."""

    def __init__(self, settings: Settings, engine: AsyncEngine, *, pool_size: int = 4
                 ) -> None:
        import procrastinate

        self.settings = settings
        self.engine = engine
        self.app = procrastinate.App(connector=procrastinate.PsycopgConnector(
            conninfo=conninfo(settings.database_url), min_size=1, max_size=pool_size,
            kwargs={"options": f"-c search_path={SCHEMA}"}))
        # on a stop (the worker cancels its running jobs: CancelledError) and when the
        # analysis went back in the queue (Requeued), the job waits again at once
        self.app.task(name=TASK, queue=QUEUE, pass_context=True, retry=procrastinate.RetryStrategy(
            retry_exceptions=cast(Any, {Requeued, asyncio.CancelledError})))(_analyse)
        self._opened = False
        self._worker: asyncio.Task[None] | None = None
        self._maintenance: asyncio.Task[None] | None = None
        self.retried = 0
        """Jobs of dead workers this process took up again."""
        self.swept = 0
        """Analyses without a job that this process gave one."""

    async def open(self) -> None:
        if not self._opened:
            await self.app.open_async()
            self._opened = True

    async def close(self) -> None:
        """Stop this process's worker (its running jobs wait again) and close the
        connections."""
        for task in (self._maintenance, self._worker):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._maintenance = self._worker = None
        if self._opened:
            self._opened = False
            await self.app.close_async()

    # -- queueing ------------------------------------------------------------------------

    async def defer(self, match_id: str, plies: int, priority: int) -> bool:
        """Defer the job of an analysis whose row is queued; False when its job already
        waits or is at work.

        procrastinate's ``queueing_lock`` only refuses a second *waiting* job. A sweep that
        read the row just before the web process deferred its job, and whose own defer came
        after a worker took that job, would add a second; the first, cancelled at a stop,
        could then not wait again (the lock) and stayed at work until its worker was taken
        for dead. So the look for a live job and the defer are one step per analysis,
        across processes: a transaction-scoped advisory lock of the analysis is held
        around both (procrastinate's defer commits on its own connection before it is
        released)."""
        from procrastinate.exceptions import AlreadyEnqueued

        key = lock_of(match_id, plies)
        async with self.engine.begin() as conn:
            await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(sa.func.hashtext(key))))
            if await conn.scalar(sa.select(_live_job(key))):
                return False
            try:
                await self.app.configure_task(
                    TASK, queueing_lock=key, lock=key, priority=-priority,
                ).defer_async(match_id=match_id, plies=plies)
            except AlreadyEnqueued:
                return False
        return True

    async def sweep(self) -> int:
        """Defer a job for every queued or running analysis that has none waiting or at
        work (its process crashed after the row's insert and before the defer; its job was
        lost): how many."""
        lock = (sa.literal("analysis:") + match_analyses.c.match_id + sa.literal(":")
                + sa.cast(match_analyses.c.plies, sa.Text))
        live = _live_job(lock)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(match_analyses.c.match_id, match_analyses.c.plies,
                          match_analyses.c.priority)
                .where(match_analyses.c.status.in_(["queued", "running"]), ~live)
                .order_by(match_analyses.c.priority, match_analyses.c.created_at))).all()
        deferred = 0
        for row in rows:
            deferred += await self.defer(row.match_id, row.plies, row.priority)
        if deferred:
            log.info("analysis: %d analyses without a job deferred again", deferred)
        self.swept += deferred
        return deferred

    async def gone(self, owner: str) -> bool:
        """Whether the owner of a running analysis is dead: a job no longer at work, or not
        a job (a process of the server before the queue)."""
        prefix, _, number = owner.partition(":")
        if prefix != "job" or not number.isdigit():
            return True
        async with self.engine.connect() as conn:
            status = await conn.scalar(sa.select(sa.cast(_jobs.c.status, sa.Text))
                                       .where(_jobs.c.id == int(number)))
        return status != "doing"

    async def retry_stalled(self) -> int:
        """Queue again the jobs at work in workers whose heartbeat has been quiet for
        ``jobs_stalled_after`` seconds (killed, their machine lost), and forget those
        workers: how many jobs."""
        from procrastinate.exceptions import UniqueViolation
        from procrastinate.jobs import Status as JobStatus

        manager = self.app.job_manager
        retried = 0
        quiet = self.settings.jobs_stalled_after
        for job in await manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=quiet):
            try:
                await manager.retry_job(job)
            except UniqueViolation:  # another job of the same analysis waits: it does it
                with contextlib.suppress(Exception):
                    await manager.finish_job(job, JobStatus.FAILED, delete_job=False)
                continue
            except Exception:  # taken up by another worker meanwhile
                log.debug("analysis: job %s was not retried", job.id, exc_info=True)
                continue
            log.warning("analysis: job %s (%s) of a worker gone quiet queued again",
                        job.id, job.task_kwargs)
            retried += 1
        await manager.prune_stalled_workers(quiet)
        self.retried += retried
        return retried

    async def maintain(self) -> None:
        """Every ``analysis_poll`` seconds, from the start: retry the jobs of dead workers,
        then give a job to any analysis without one."""
        while True:
            try:
                await self.retry_stalled()
                await self.sweep()
            except Exception:
                log.exception("analysis: the job queue could not be looked after")
            await asyncio.sleep(self.settings.analysis_poll)

    # -- the worker ----------------------------------------------------------------------

    def _worker_options(self, runner: AnalysisRunner, concurrency: int) -> dict[str, Any]:
        s = self.settings
        return {"queues": [QUEUE], "concurrency": concurrency,
                "name": f"{socket.gethostname()}-{os.getpid()}",
                "additional_context": {"runner": runner, "queue": self},
                "fetch_job_polling_interval": s.analysis_poll,
                "abort_job_polling_interval": max(s.analysis_poll, 5.0),
                "update_heartbeat_interval": s.jobs_heartbeat,
                "stalled_worker_timeout": s.jobs_stalled_after,
                "shutdown_graceful_timeout": 0, "delete_jobs": "successful"}

    async def start(self, runner: AnalysisRunner, concurrency: int) -> None:
        """Run a worker of ``concurrency`` jobs at once in this process (a web process's),
        until :meth:`close`."""
        await self.open()
        options = self._worker_options(runner, concurrency)
        self._worker = asyncio.create_task(
            self.app.run_worker_async(install_signal_handlers=False, **options))
        self._maintenance = asyncio.create_task(self.maintain())

    async def work(self, runner: AnalysisRunner, concurrency: int) -> None:
        """Run a worker until SIGTERM or SIGINT (``gammon worker``)."""
        await self.open()
        self._maintenance = asyncio.create_task(self.maintain())
        try:
            await self.app.run_worker_async(install_signal_handlers=True,
                                            **self._worker_options(runner, concurrency))
        finally:
            self._maintenance.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._maintenance
            self._maintenance = None


def analysis_metrics(runner: AnalysisRunner, jobs: JobQueue | None = None) -> AnalysisMetrics:
    """The analyses' metrics of a process (:class:`gammon.server.ops.AnalysisMetrics`):
    the queue, the analyses ``runner`` ended, the jobs ``jobs`` recovered."""
    from gammon.server.ops import AnalysisMetrics

    def recovered() -> dict[tuple[str, ...], int]:
        return {} if jobs is None else {("stalled",): jobs.retried, ("swept",): jobs.swept}

    return AnalysisMetrics(runner.store.queue_stats, lambda: runner.counts, recovered)


async def work(settings: Settings, concurrency: int, metrics_bind: str | None = None
               ) -> None:
    """``gammon worker``: run the analyses' jobs of the deployment on ``settings``'
    database until stopped; progress to the matches' watchers over the bus when
    ``redis_url`` is set; its metrics at ``http://METRICS_BIND/metrics`` when given."""
    from gammon.server.analysis_worker import AnalysisStore
    from gammon.server.bus_messages import forward
    from gammon.server.db import make_engine, migrate
    from gammon.server.hub.link import BusLink
    from gammon.server.ops import serve_metrics
    from gammon.server.pubsub import RedisBus, channel_for

    engine = make_engine(settings.database_url, pool_size=max(2, concurrency),
                         max_overflow=concurrency + 2, pool_timeout=settings.db_pool_timeout)
    link = None
    if settings.redis_url:
        link = BusLink(RedisBus(settings.redis_url,
                                settings.bus_channel or channel_for(settings.database_url)))

    async def announce(status: Status) -> None:
        if link is not None:
            try:
                await link.publish(forward(status.match_id, status.message()))
            except Exception:  # the watchers see it at their next request
                log.exception("analysis: progress not published")

    store = AnalysisStore(engine)
    runner = AnalysisRunner(settings, store, announce, concurrency)
    jobs = JobQueue(settings, engine, pool_size=concurrency + 4)
    server = None
    try:
        await migrate(engine)
        if metrics_bind:
            host, _, port = metrics_bind.rpartition(":")
            server = await serve_metrics(host, int(port),
                                         analysis_metrics(runner, jobs).render_async)
        await jobs.work(runner, concurrency)
    finally:
        if server is not None:
            server.close()
        runner.close()
        await jobs.close()
        if link is not None:
            await link.close()
        await engine.dispose()
