"""Puzzle traffic for the load benchmark (``benchmarks/load.py --puzzle-rps R``): players
working through the puzzle pool while the matches are played.

The pool is seeded before the measurement with ``--puzzle-count`` checker puzzles (the
opening position at every roll, match lengths and scores: each a different puzzle, stored as
an analysis stores them, met in one public match; their two graded answers are the first two
legal plays with made-up equities — the load, not the grades, is measured), rated around
1500 with a standard deviation of ``--puzzle-spread`` (350; 0: all at 1500, the worst case,
every new player asked the same puzzle at once). During the
measurement ``--puzzle-clients`` guests, each from its own loopback address (the answers'
rate limit is per address, as real players' are), repeat the puzzle page's cycle — ``GET
/api/puzzles/next``, ``POST /api/puzzles/{id}/steps`` (the board, nothing played yet), ``POST
/api/puzzles/{id}/answer`` — paced so that together they send ``R`` requests a second. Each
request's latency is kept by kind; the report gives the requests per second reached, p50 and
p99 per kind and in all, and the errors.
"""

from __future__ import annotations

import asyncio
import collections
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.puzzles import Answer, Puzzle, Source
from gammon.formats.match_id import MatchKey

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a)]  # no doubles: two plays at least


def puzzles(count: int) -> list[Puzzle]:
    """``count`` different checker puzzles of the opening position."""
    start = Position.initial()
    out: list[Puzzle] = []
    length = 1
    while len(out) < count:
        length += 2
        for mine in range(length):
            for theirs in range(length):
                for dice in ROLLS:
                    plays = legal_plays(start, Roll(*dice))
                    key = MatchKey(match_length=length, score=(mine, theirs), dice=dice)
                    out.append(Puzzle(
                        "checker", start.id(), key.id(), f"{dice[0]}{dice[1]}",
                        (Answer(plays[0].notation(), 0.1), Answer(plays[1].notation(), 0.0)),
                        0.1, "0-ply", 0, ("opening",), (Source(1, len(out) + 1, 0,
                                                                plays[1].notation(), 0.1),)))
                    if len(out) == count:
                        return out
    return out


async def seed(database_url: str, match_id: str, count: int, spread: float) -> None:
    """Store ``count`` puzzles met in ``match_id`` (a public match of the run), their ratings
    drawn (seeded) around the start's 1500 with a standard deviation of ``spread``, as a
    pool that players have answered looks. With ``spread`` 0 every puzzle is at 1500, so
    every new player is asked the same puzzle at the same moment (the worst case: each
    answer waits for the one before to move that puzzle's rating)."""
    import sqlalchemy as sa

    from gammon.server.db import make_engine
    from gammon.server.db import puzzles as table
    from gammon.server.puzzles import store_puzzles

    engine = make_engine(database_url)
    rng = random.Random(7)
    try:
        found = puzzles(count)
        for start in range(0, len(found), 200):
            async with engine.begin() as conn:
                await store_puzzles(conn, match_id, found[start:start + 200])
        if spread:
            async with engine.begin() as conn:
                ids = (await conn.scalars(sa.select(table.c.id).order_by(table.c.id))).all()
                await conn.execute(table.update().where(table.c.id == sa.bindparam("pid")), [
                    {"pid": pid, "rating": rng.gauss(1500.0, spread)} for pid in ids])
    finally:
        await engine.dispose()


@dataclass
class PuzzleStats:
    latencies: dict[str, list[float]] = field(
        default_factory=lambda: collections.defaultdict(list))
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    exhausted: int = 0


async def _timed(stats: PuzzleStats, kind: str, call: Any) -> httpx.Response | None:
    started = time.monotonic()
    try:
        response: httpx.Response = await call
    except httpx.HTTPError as error:
        stats.errors[f"{kind} {type(error).__name__}"] += 1
        return None
    stats.latencies[kind].append(time.monotonic() - started)
    if response.status_code >= 400 and not (kind == "next" and response.status_code == 404):
        stats.errors[f"{kind} {response.status_code}"] += 1
    return response


async def solver(http: httpx.AsyncClient, cookie: dict[str, str], pace: float,
                 deadline: float, stats: PuzzleStats, rng: random.Random) -> None:
    """One player's puzzle page: next, the board's steps, an answer; a request every
    ``pace`` seconds until ``deadline``. The requests keep to that schedule (each is sent
    ``pace`` after the previous one was due, not after it was answered), so the rate asked
    for is the rate sent whatever the latency: a slow server meets the same traffic."""
    due = time.monotonic() + rng.random() * pace  # the players do not all start at once

    async def next_due() -> None:
        nonlocal due
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        due += pace

    while due < deadline:
        await next_due()
        found = await _timed(stats, "next", http.get("/api/puzzles/next", cookies=cookie))
        if found is None or found.status_code != 200:
            stats.exhausted += found is not None and found.status_code == 404
            continue
        puzzle = found.json()["puzzle"]
        url = f"/api/puzzles/{puzzle['id']}"
        await next_due()
        await _timed(stats, "steps", http.post(f"{url}/steps", json={"steps": []},
                                                cookies=cookie))
        plays = legal_plays(Position.from_id(puzzle["position_id"]), Roll(*puzzle["dice"]))
        play = plays[rng.randrange(min(3, len(plays)))].notation()
        await next_due()
        await _timed(stats, "answer", http.post(f"{url}/answer", json={"play": play},
                                                 cookies=cookie))


def report(stats: PuzzleStats, elapsed: float) -> dict[str, Any]:
    """The puzzle traffic's figures (milliseconds)."""
    def quantiles(values: list[float]) -> dict[str, float | None]:
        ordered = sorted(values)
        if not ordered:
            return {"p50_ms": None, "p99_ms": None}
        return {"p50_ms": round(statistics.median(ordered) * 1000, 2),
                "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 2)}

    every = [x for values in stats.latencies.values() for x in values]
    return {"puzzle_requests_per_second": round(len(every) / elapsed, 1),
            **{f"puzzle_{k}": v for k, v in quantiles(every).items()},
            "puzzle_by_kind": {kind: {"requests": len(values), **quantiles(values)}
                               for kind, values in sorted(stats.latencies.items())},
            "puzzle_pool_exhausted": stats.exhausted,
            "puzzle_errors": dict(stats.errors)}
