"""Post-match analyses a minute on PostgreSQL with 1, 2, 3 ``gammon worker`` processes
(``gammon bench analysis_throughput``).

``--matches K`` finished matches are stored once in the database of ``--database-url`` (a
database of its own: the run deletes the analyses, puzzle sources and checker choices of
its matches between rounds), each one of the sample match files of
``tests/data/matches/`` (``--files``, in turn) between two users of its own, as a match's end
stores them. For each worker count of ``--workers`` (default ``1,2,3``) the round starts
that many ``gammon worker`` processes (``--concurrency`` analyses each; the analysis
settings of ``GAMMON_ANALYSIS_*`` from the environment, ``--plies`` the depth), waits until
each serves its metrics, then queues the K analyses as a match's end queues them (the row,
then its job, priority 1) and times until every row is done. The first analysis of each
worker includes starting its child process (about a second).

Each round checks that nothing was lost or done twice: every row done once (one attempt, no
failure), no job left waiting or at work, and the workers' ``gammon_analysis_ended_total``
summing to K done analyses. Prints the seconds and analyses a minute per worker count.
Results are saved per round under ``benchmarks/results/``; a run with the same arguments
resumes after the rounds already measured.

Run: ``python benchmarks/analysis_throughput.py --database-url
postgresql+asyncpg://postgres@127.0.0.1:5432/gammon_bench --matches 30``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

from gammon.formats import mat
from gammon.server import jobs, protocol
from gammon.server.analysis_worker import ON_FINISH, AnalysisStore
from gammon.server.db import (
    make_engine,
    match_actions,
    match_analyses,
    matches,
    migrate,
    position_choices,
    puzzle_sources,
    users,
)
from gammon.server.rooms import rules_json
from gammon.server.settings import Settings
from gammon.views import MatchConfig
from worker_processes import ended, start_workers, stop_workers

RESULTS = Path(__file__).parent / "results"
SAMPLES = Path(__file__).resolve().parents[1] / "tests" / "data" / "matches"


async def store_matches(url: str, files: list[str], count: int) -> list[str]:
    """Store ``count`` finished matches (``bench-N``) from the sample ``files`` in turn,
    unless stored by an earlier run; their ids."""
    engine = make_engine(url)
    ids = [f"bench-{n:05d}" for n in range(count)]
    try:
        await migrate(engine)
        async with engine.begin() as conn:
            stored = set((await conn.scalars(sa.select(matches.c.id)
                                             .where(matches.c.id.in_(ids)))).all())
            for n, match_id in enumerate(ids):
                if match_id in stored:
                    continue
                record = mat.load(SAMPLES / f"{files[n % len(files)]}.mat")
                now = time.time()
                seats = []
                for seat in range(2):
                    name = f"{match_id}-{seat}"
                    seats.append((await conn.execute(users.insert().values(
                        name=name, name_key=name, kind="user", rating=1500.0, experience=0,
                        options="{}", created_at=now).returning(users.c.id))).scalar_one())
                await conn.execute(matches.insert().values(
                    id=match_id, created_at=now, status="finished",
                    config=(MatchConfig(kind="match", length=record.rules.length)
                            if record.rules.length else MatchConfig(kind="money")).to_json(),
                    player0=seats[0], player1=seats[1], private=False, rated=False,
                    server_seed="0" * 64, seed_hash="0" * 64,
                    rules=rules_json(record.rules), winner=0, finished_at=now))
                actions = [protocol.action_json(a) for a in record.actions()]
                await conn.execute(match_actions.insert(), [
                    {"match_id": match_id, "seq": seq + 1, "kind": action["t"],
                     "action": json.dumps(action), "at": now}
                    for seq, action in enumerate(actions)])
    finally:
        await engine.dispose()
    return ids


async def reset(url: str, ids: list[str]) -> None:
    """Forget the analyses of ``ids`` (rows, puzzle sources, checker choices) and every job
    of the queue."""
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            for table in (match_analyses, puzzle_sources, position_choices):
                await conn.execute(table.delete().where(table.c.match_id.in_(ids)))
            await conn.execute(sa.text(
                f"TRUNCATE {jobs.SCHEMA}.procrastinate_events, "
                f"{jobs.SCHEMA}.procrastinate_jobs, {jobs.SCHEMA}.procrastinate_workers CASCADE"))
    finally:
        await engine.dispose()


async def queue_all(settings: Settings, ids: list[str], plies: int) -> None:
    """Queue the analyses of ``ids`` as a match's end does: the row, then its job."""
    engine = make_engine(settings.database_url)
    store = AnalysisStore(engine)
    queue = jobs.JobQueue(settings, engine)
    try:
        await queue.open()
        for match_id in ids:
            await store.enqueue(match_id, plies, ON_FINISH, len(ids) + 1)
            await queue.defer(match_id, plies, ON_FINISH)
    finally:
        await queue.close()
        await engine.dispose()


async def progress(url: str) -> tuple[int, int, int, int, int]:
    """Rows done, failed, done with more than one attempt, and jobs waiting or at work."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(sa.select(match_analyses.c.status,
                                                 match_analyses.c.attempts))).all()
            live = await conn.scalar(sa.text(
                f"SELECT count(*) FROM {jobs.SCHEMA}.procrastinate_jobs "
                "WHERE status::text IN ('todo', 'doing')"))
    finally:
        await engine.dispose()
    done = sum(status == "done" for status, _ in rows)
    failed = sum(status == "failed" for status, _ in rows)
    again = sum(status == "done" and attempts > 1 for status, attempts in rows)
    return done, failed, again, int(live or 0), len(rows)


def round_of(count: int, ids: list[str], args: argparse.Namespace, log_dir: Path) -> float:
    """One round with ``count`` workers: the seconds the analyses of ``ids`` took."""
    asyncio.run(reset(args.database_url, ids))
    env = {**os.environ, "GAMMON_DATABASE_URL": args.database_url,
           "GAMMON_ANALYSIS_PLIES": str(args.plies), "GAMMON_ANALYSIS_DEEP_PLIES": "0",
           "GAMMON_ANALYSIS_POLL": "1"}
    workers = start_workers(count, env, log_dir, concurrency=args.concurrency,
                            name=f"worker-{count}")
    settings = Settings(database_url=args.database_url, analysis_plies=args.plies,
                        analysis_deep_plies=0, _env_file=None)  # type: ignore[call-arg]
    try:
        started = time.perf_counter()
        asyncio.run(queue_all(settings, ids, args.plies))
        while True:
            done, failed, again, live, rows = asyncio.run(progress(args.database_url))
            if failed:
                raise RuntimeError(f"{failed} analyses failed: see {log_dir}")
            if done == len(ids):
                seconds = time.perf_counter() - started
                break
            time.sleep(0.5)
        time.sleep(1.0)  # the jobs' ends (after the rows') reach the database
        done, failed, again, live, rows = asyncio.run(progress(args.database_url))
        by_worker = [ended(url) for _, url in workers]
        problems = []
        if rows != len(ids) or done != len(ids) or again:
            problems.append(f"{rows} rows, {done} done, {again} done after a retry")
        if live:
            problems.append(f"{live} jobs still waiting or at work")
        if sum(by_worker) != len(ids):
            problems.append(f"the workers ended {by_worker} analyses, not {len(ids)}")
        if problems:
            raise RuntimeError("; ".join(problems))
        print(f"  {count} worker(s): analyses ended by each {by_worker}; none lost, "
              "none done twice", flush=True)
        return seconds
    finally:
        stop_workers(workers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True,
                        help="a PostgreSQL database of its own (postgresql+asyncpg://...)")
    parser.add_argument("--matches", type=int, default=30, help="analyses per round (K)")
    parser.add_argument("--files", default="gnubg_match3,gnubg_match5,gnubg_money",
                        help="sample matches of tests/data/matches/, comma-separated")
    parser.add_argument("--workers", default="1,2,3", help="worker counts, one round each")
    parser.add_argument("--concurrency", type=int, default=1, help="analyses per worker")
    parser.add_argument("--plies", type=int, default=1, help="the analyses' depth")
    args = parser.parse_args(argv)
    if not jobs.is_postgres(args.database_url):
        parser.error("--database-url: the job queue is PostgreSQL's")
    counts = [int(n) for n in args.workers.split(",")]
    files = args.files.split(",")

    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / (f"analysis-throughput-k{args.matches}-{'+'.join(files)}"
                       f"-ply{args.plies}-c{args.concurrency}.txt")
    measured: dict[int, float] = {}
    if store.exists():
        for line in store.read_text().splitlines():
            if line.strip():
                saved_count, saved_seconds = line.split()
                measured[int(saved_count)] = float(saved_seconds)
        print(f"resuming: {sorted(measured)} worker(s) already in {store}")
    log_dir = Path(tempfile.mkdtemp(prefix="analysis-throughput-"))
    print(f"the workers' logs: {log_dir}")
    ids = asyncio.run(store_matches(args.database_url, files, args.matches))
    print(f"{len(ids)} matches ({', '.join(files)}), {args.plies}-ply analyses, "
          f"{args.concurrency} at once per worker; {os.cpu_count()} CPUs", flush=True)
    with store.open("a") as out:
        for count in counts:
            if count in measured:
                continue
            measured[count] = round_of(count, ids, args, log_dir)
            out.write(f"{count} {measured[count]:.3f}\n")
            out.flush()
    for count in counts:
        seconds = measured[count]
        print(f"{count} worker(s): {len(ids)} analyses in {seconds:.1f} s, "
              f"{60 * len(ids) / seconds:.1f} analyses a minute")
    return 0


if __name__ == "__main__":
    sys.exit(main())
