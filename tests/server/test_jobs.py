"""The analyses' job queue on PostgreSQL (procrastinate) and ``gammon worker``: an analysis
queued at a match's end is done by a separate worker process, its progress pushed to the
match's watchers over the bus; a worker killed (SIGKILL) in the middle of an analysis leaves
its job to another worker, which ends it once, with the result of an uninterrupted run; an
analysis asked for runs before those queued in the background, the deep ones last; a queued
analysis whose job was lost gets one from the sweep, never two. The worker processes are
real (``python -m gammon.server.cli worker``), with short heartbeats (a worker quiet for 2 s
is dead) so that each test takes seconds."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.ext.asyncio import AsyncEngine

from gammon.formats import mat
from gammon.server import analysis_job, jobs, protocol
from gammon.server.analysis_worker import (
    DEEP,
    ON_FINISH,
    ON_REQUEST,
    AnalysisStore,
)
from gammon.server.app import create_app
from gammon.server.db import (
    make_engine,
    match_analyses,
    matches,
    migrate,
    position_choices,
    users,
)
from gammon.server.rooms import rules_json
from gammon.server.settings import Settings
from gammon.views import MatchConfig
from tests.processes import free_port, start, stop, wait_ready
from tests.server.conftest import (
    Browser,
    empty_postgres_database,
    make_settings,
    redis_reachable,
    run_async,
)
from tests.server.test_analysis import bot_match, cli_analysis, pushed, stored_analyses, wait_done

MATCHES = Path(__file__).resolve().parents[1] / "data" / "matches"

FAST = {"GAMMON_ANALYSIS_POLL": "0.3", "GAMMON_JOBS_HEARTBEAT": "0.5",
        "GAMMON_JOBS_STALLED_AFTER": "2", "GAMMON_ANALYSIS_NICE": "0"}
"""The workers' settings in these tests: a look at the queue every 0.3 s, a heartbeat every
0.5 s, a worker quiet for 2 s taken for dead; the analyses at the tests' priority."""


@pytest.fixture
def postgres_url(postgres_session_database: str) -> str:
    """The session's PostgreSQL database at the newest revision, emptied (the job queue's
    tables too)."""
    empty_postgres_database(postgres_session_database)

    async def migrated() -> None:
        engine = make_engine(postgres_session_database)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    run_async(migrated)
    return postgres_session_database


@pytest.fixture
def workers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The worker processes a test starts; any still running are stopped afterwards."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            stop(process)


def start_worker(started: list[subprocess.Popen[bytes]], url: str, log: Path,
                 **env: str) -> str:
    """Start ``gammon worker`` on ``url`` (its log in ``log``) and wait until it serves its
    metrics; their URL."""
    port = free_port()
    process = start([sys.executable, "-m", "gammon.server.cli", "worker",
                     "--metrics-bind", f"127.0.0.1:{port}"],
                    {"GAMMON_DATABASE_URL": url, **FAST, **env}, log)
    started.append(process)
    metrics = f"http://127.0.0.1:{port}/metrics"
    wait_ready(metrics, process, log)
    return metrics


def store_match(url: str, match_id: str, name: str) -> tuple[str, list[str], list[str]]:
    """Store ``tests/data/matches/NAME.mat`` as a finished public match ``match_id``
    between two users named as its players; its rules JSON, names and action log as an
    analysis reads them."""
    record = mat.load(MATCHES / f"{name}.mat")
    actions = [json.dumps(protocol.action_json(a)) for a in record.actions()]
    rules = rules_json(record.rules)

    async def insert() -> None:
        engine = make_engine(url)
        now = time.time()
        async with engine.begin() as conn:
            seats = []
            for player in record.players:
                key = f"{player}-{match_id}".lower()
                seats.append((await conn.execute(users.insert().values(
                    name=key, name_key=key, kind="user", rating=1500.0, experience=0,
                    options="{}", created_at=now).returning(users.c.id))).scalar_one())
            await conn.execute(matches.insert().values(
                id=match_id, created_at=now, status="finished",
                config=MatchConfig(kind="match", length=record.rules.length).to_json(),
                player0=seats[0], player1=seats[1], private=False, rated=False,
                server_seed="0" * 64, seed_hash="0" * 64, rules=rules, winner=0,
                finished_at=now))
            await conn.execute(sa.text(
                "INSERT INTO match_actions (match_id, seq, kind, action, at) "
                "VALUES (:m, :s, :k, :a, :t)"),
                [{"m": match_id, "s": n + 1, "k": json.loads(a)["t"], "a": a, "t": now}
                 for n, a in enumerate(actions)])
        await engine.dispose()

    run_async(insert)
    names = [f"{player}-{match_id}".lower() for player in record.players]
    return rules, names, actions


@contextlib.asynccontextmanager
async def opened_queue(settings: Settings) -> AsyncIterator[
        tuple[AsyncEngine, jobs.JobQueue, AnalysisStore]]:
    """The database's engine, an open job queue (no worker) and the analyses' store."""
    engine = make_engine(settings.database_url)
    queue = jobs.JobQueue(settings, engine)
    try:
        await queue.open()
        yield engine, queue, AnalysisStore(engine)
    finally:
        await queue.close()
        await engine.dispose()


def queue(settings: Settings, *analyses: tuple[str, int, int]) -> None:
    """Queue analyses (match id, plies, priority) as a web process does: the row, then its
    job."""
    async def defer() -> None:
        async with opened_queue(settings) as (_, queue, store):
            for match_id, plies, priority in analyses:
                await store.enqueue(match_id, plies, priority, 1000)
                await queue.defer(match_id, plies, priority)

    run_async(defer)


def row_of(url: str, match_id: str, plies: int) -> Any:
    found = [r for r in stored_analyses(url) if (r.match_id, r.plies) == (match_id, plies)]
    return found[0] if found else None


def wait_rows(url: str, done: int, limit: float = 120.0) -> list[Any]:
    """Wait until ``done`` analyses are done (none failed); the rows."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        rows = stored_analyses(url)
        assert not [r for r in rows if r.status == "failed"], rows
        if sum(r.status == "done" for r in rows) >= done:
            return rows
        time.sleep(0.2)
    raise AssertionError(f"fewer than {done} analyses done after {limit} s: "
                         f"{[(r.match_id, r.plies, r.status) for r in stored_analyses(url)]}")


def metric(metrics_url: str, line: str) -> float:
    """The value of one sample (name and labels, as printed) at ``metrics_url``."""
    for text in httpx.get(metrics_url, timeout=10).text.splitlines():
        if text.startswith(line + " "):
            return float(text.rsplit(" ", 1)[1])
    return 0.0


@pytest.mark.slow
def test_an_analysis_queued_at_a_matchs_end_is_done_by_a_gammon_worker(
        postgres_url: str, workers: list[subprocess.Popen[bytes]], tmp_path: Path) -> None:
    """A web process that runs no analyses (``analysis_workers`` 0) queues one at a match's
    end; a ``gammon worker`` started afterwards does it: the player watching the match is
    told it runs and is done (over the bus), the route serves it, the same as ``gammon
    analyze`` of the match's .mat; the worker then stops on SIGTERM."""
    redis = redis_reachable()
    settings = make_settings(postgres_url, redis, analysis_workers=0, analysis_on_finish=True,
                             analysis_deep_plies=0)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        with bot_match(a, seed=3) as (game, me):
            deadline = time.monotonic() + 60
            while not stored_analyses(postgres_url):
                assert time.monotonic() < deadline, "the match's end queued no analysis"
                time.sleep(0.05)
            time.sleep(1.0)
            assert [(r.status, r.priority) for r in stored_analyses(postgres_url)] == [
                ("queued", ON_FINISH)]  # the web process runs none
            metrics = start_worker(workers, postgres_url, tmp_path / "worker.log",
                                   GAMMON_REDIS_URL=redis,
                                   GAMMON_BUS_CHANNEL=settings.bus_channel,
                                   GAMMON_ANALYSIS_DEEP_PLIES="0")
            url = f"/api/games/{game['id']}/analysis"
            served = wait_done(a, url, limit=120)
            assert pushed(me, 1, "running") < pushed(me, 1, "done")  # from the worker
            exported = a.get(f"/api/games/{game['id']}/export.mat").text
    assert served.json() == cli_analysis(exported, tmp_path, plies=1)
    [row] = stored_analyses(postgres_url)
    assert (row.status, row.attempts, row.owner) == ("done", 1, None)
    assert metric(metrics, 'gammon_analysis_ended_total{kind="quick",result="done"}') == 1
    worker = workers[0]
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0


@pytest.mark.slow
def test_a_worker_killed_mid_analysis_leaves_it_to_another_which_ends_it_once(
        postgres_url: str, workers: list[subprocess.Popen[bytes]], tmp_path: Path) -> None:
    """A worker is killed (SIGKILL: no shutdown code runs, its analysis's child process
    ends with it) while it analyses a 6-game match. A second worker takes the job up once
    the first one's heartbeat has been quiet 2 s, and does the analysis again from the
    start: the row is done once (its second attempt), its JSON is an uninterrupted run's,
    and its puzzles and checker choices are stored once."""
    settings = make_settings(postgres_url, analysis_deep_plies=0)
    match_input = store_match(postgres_url, "killedmatch1", "gnubg_match5")
    first = start_worker(workers, postgres_url, tmp_path / "first.log",
                         GAMMON_ANALYSIS_DEEP_PLIES="0")
    queue(settings, ("killedmatch1", 1, ON_REQUEST))
    deadline = time.monotonic() + 60
    while (row := row_of(postgres_url, "killedmatch1", 1)).status != "running":
        assert time.monotonic() < deadline, f"the analysis did not start: {row}"
        assert row.status == "queued", row
        time.sleep(0.05)
    os.kill(workers[0].pid, signal.SIGKILL)
    assert workers[0].wait(10) == -signal.SIGKILL
    assert row_of(postgres_url, "killedmatch1", 1).status == "running"  # killed mid-way
    assert first

    second = start_worker(workers, postgres_url, tmp_path / "second.log",
                          GAMMON_ANALYSIS_DEEP_PLIES="0")
    [row] = wait_rows(postgres_url, 1)
    expected, puzzles, choices = analysis_job.analyse("killedmatch1", 1, *match_input,
                                                      None, True)
    assert (row.status, row.attempts, row.owner) == ("done", 2, None)
    assert row.result == expected
    assert metric(second, 'gammon_analysis_ended_total{kind="quick",result="done"}') == 1
    assert metric(second, 'gammon_analysis_recovered_total{how="stalled"}') == 1

    async def stored() -> tuple[int, int]:
        engine = make_engine(postgres_url)
        async with engine.connect() as conn:
            sources = await conn.scalar(sa.text(
                "SELECT count(*) FROM puzzle_sources WHERE match_id = 'killedmatch1'"))
            played = await conn.scalar(sa.select(sa.func.count()).select_from(
                position_choices).where(position_choices.c.match_id == "killedmatch1"))
        await engine.dispose()
        return int(sources or 0), int(played or 0)

    sources, played = run_async(stored)
    assert puzzles and sources == sum(len(p.sources) for p in puzzles)
    assert choices and played == len(choices)


@pytest.mark.slow
def test_an_analysis_asked_for_runs_before_those_queued_in_the_background(
        postgres_url: str, workers: list[subprocess.Popen[bytes]], tmp_path: Path) -> None:
    """Three matches' analyses queued at their ends (each with its deep one), then one
    asked for: a worker running one at a time does the asked-for one first, then the
    background quick ones in their order, the deep ones last."""
    settings = make_settings(postgres_url, analysis_plies=0, analysis_deep_plies=1,
                             analysis_recheck_games=0)
    for n in range(4):
        store_match(postgres_url, f"priority{n:04d}", "handwritten")
    queue(settings, *[(f"priority{n:04d}", 0, ON_FINISH) for n in range(3)],
          *[(f"priority{n:04d}", 1, DEEP) for n in range(3)],
          ("priority0003", 0, ON_REQUEST), ("priority0003", 1, DEEP))
    metrics = start_worker(workers, postgres_url, tmp_path / "worker.log",
                           GAMMON_ANALYSIS_PLIES="0", GAMMON_ANALYSIS_DEEP_PLIES="1",
                           GAMMON_ANALYSIS_RECHECK_GAMES="0")
    rows = wait_rows(postgres_url, 8)
    order = [(r.match_id, r.plies) for r in sorted(rows, key=lambda r: r.updated_at)]
    assert order[0] == ("priority0003", 0)
    assert order[1:4] == [(f"priority{n:04d}", 0) for n in range(3)]
    assert {plies for _, plies in order[4:]} == {1}
    assert metric(metrics, 'gammon_analysis_ended_total{kind="deep",result="done"}') == 4


def test_a_queued_analysis_whose_job_was_lost_gets_one_from_the_sweep_never_two(
        postgres_url: str) -> None:
    """A row queued without its job (the web process died between the two) is given one
    by the sweep, with the row's priority; a second sweep, or the web process's own defer
    coming late, adds none. A running row whose owner is not a job at work (a process
    before the queue) is given one too, and may be taken over; one whose job is at work
    may not, but by that job itself (taken up again after its worker died)."""
    settings = make_settings(postgres_url)
    store_match(postgres_url, "sweptmatch01", "handwritten")

    async def check() -> None:
        async with opened_queue(settings) as (engine, queue, store):
            await store.enqueue("sweptmatch01", 1, ON_REQUEST, 10)
            assert await queue.sweep() == 1
            assert await queue.sweep() == 0
            assert await queue.defer("sweptmatch01", 1, ON_REQUEST) is False
            [job] = await queue.app.job_manager.list_jobs_async()
            assert (job.task_name, job.priority, job.task_kwargs) == (
                jobs.TASK, -ON_REQUEST, {"match_id": "sweptmatch01", "plies": 1})
            assert job.queueing_lock == job.lock == jobs.lock_of("sweptmatch01", 1)

            async with engine.begin() as conn:
                await conn.execute(match_analyses.update().values(status="running",
                                                                  owner="f" * 32))
            # (through procrastinate's connections: its triggers need its search_path)
            await queue.app.connector.execute_query_async("DELETE FROM procrastinate_jobs")
            assert await queue.gone("f" * 32)
            assert await queue.sweep() == 1
            [job] = await queue.app.job_manager.list_jobs_async()
            assert await queue.gone(f"job:{job.id}")  # waiting, not at work
            await queue.app.connector.execute_query_async(
                "UPDATE procrastinate_jobs SET status = 'doing'")
            assert not await queue.gone(f"job:{job.id}")
            async with engine.begin() as conn:  # that job's run
                await conn.execute(match_analyses.update().values(owner=f"job:{job.id}"))
            assert await store.claim("sweptmatch01", 1, "job:0", queue.gone) is None
            again = await store.claim("sweptmatch01", 1, f"job:{job.id}", queue.gone)
            assert again is not None and again.attempts == 1  # its own run, taken up again

    run_async(check)


def test_an_analysis_whose_job_is_at_work_is_given_no_second_job(postgres_url: str) -> None:
    """A defer that comes late for an analysis whose job a worker already took (a sweep
    that read the row before the web process's defer) adds no second job: procrastinate's
    queueing lock alone only refuses a second waiting one. The job at work can then wait
    again when its worker stops."""
    settings = make_settings(postgres_url)
    store_match(postgres_url, "latedefer01", "handwritten")

    async def check() -> None:
        async with opened_queue(settings) as (_, queue, store):
            await store.enqueue("latedefer01", 1, ON_REQUEST, 10)
            assert await queue.defer("latedefer01", 1, ON_REQUEST) is True
            manager = queue.app.job_manager
            worker = await manager.register_worker()
            taken = await manager.fetch_job(queues=[jobs.QUEUE], worker_id=worker)
            assert taken is not None
            assert await queue.defer("latedefer01", 1, ON_REQUEST) is False
            assert await queue.sweep() == 0
            [job] = await manager.list_jobs_async()
            assert (job.id, job.status) == (taken.id, "doing")
            await manager.retry_job(job)  # its worker stops: it waits again
            [job] = await manager.list_jobs_async()
            assert (job.id, job.status) == (taken.id, "todo")

    run_async(check)


def test_a_stopped_web_process_puts_its_running_analysis_back_in_the_queue(
        postgres_url: str) -> None:
    """A web process running an analysis through the job queue stops (its worker cancels
    the job): the row is queued again, that try not counted, and the job waits again."""
    settings = make_settings(postgres_url, analysis_deep_plies=0, analysis_poll=0.3)
    store_match(postgres_url, "stoppedmatch", "gnubg_match5")
    with TestClient(create_app(settings)) as client:
        client.portal.call(client.app.state.analysis.request, "stoppedmatch", 1)
        deadline = time.monotonic() + 60
        while row_of(postgres_url, "stoppedmatch", 1).status != "running":
            assert time.monotonic() < deadline, "the analysis did not start"
            time.sleep(0.05)
    row = row_of(postgres_url, "stoppedmatch", 1)
    assert (row.status, row.attempts, row.owner) == ("queued", 0, None)

    async def waiting() -> list[str]:
        engine = make_engine(postgres_url)
        async with engine.connect() as conn:
            found = (await conn.scalars(sa.text(
                "SELECT status::text FROM procrastinate.procrastinate_jobs"))).all()
        await engine.dispose()
        return list(found)

    assert run_async(waiting) == ["todo"]


def test_gammon_worker_refuses_sqlite() -> None:
    """``gammon worker`` needs the job queue of PostgreSQL: on SQLite it says so."""
    done = subprocess.run([str(Path(sys.executable).parent / "gammon"), "worker",
                           "--database-url", "sqlite+aiosqlite:///nowhere.db"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "PostgreSQL" in done.stderr



def test_a_second_completion_of_an_analysis_changes_nothing(database_url: str) -> None:
    """On both stores: an analysis claimed by one run cannot be claimed by another while
    it runs (but by the same run taken up again); its first completion stores it with its
    puzzles and checker choices, a second one (a run that went on meanwhile) stores
    nothing, and a done analysis is never claimed again."""
    async def migrated() -> None:
        engine = make_engine(database_url)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    run_async(migrated)
    match_input = store_match(database_url, "twicematch01", "handwritten")
    result, puzzles, choices = analysis_job.analyse("twicematch01", 1, *match_input, None,
                                                    True)
    assert puzzles and choices

    async def check() -> tuple[int, int]:
        engine = make_engine(database_url)
        store = AnalysisStore(engine)
        try:
            await store.enqueue("twicematch01", 1, ON_REQUEST, 10)
            assert await store.claim("twicematch01", 1, "job:1") == (1, ON_REQUEST)
            assert await store.claim("twicematch01", 1, "job:2") is None
            assert await store.claim("twicematch01", 1, "job:1") == (2, ON_REQUEST)
            assert await store.finish("twicematch01", 1, "job:1", result, puzzles, choices)
            assert not await store.finish("twicematch01", 1, "job:1", result, puzzles,
                                          choices)
            assert await store.claim("twicematch01", 1, "job:1") is None
            async with engine.connect() as conn:
                sources = await conn.scalar(sa.text(
                    "SELECT count(*) FROM puzzle_sources WHERE match_id = 'twicematch01'"))
                played = await conn.scalar(sa.select(sa.func.count()).select_from(
                    position_choices).where(position_choices.c.match_id == "twicematch01"))
            return int(sources or 0), int(played or 0)
        finally:
            await engine.dispose()

    assert run_async(check) == (sum(len(p.sources) for p in puzzles), len(choices))
    [row] = stored_analyses(database_url)
    assert (row.status, row.attempts, row.result) == ("done", 2, result)
