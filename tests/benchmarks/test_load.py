"""The server load benchmark (benchmarks/load.py): its analyses in separate ``gammon
worker`` processes on PostgreSQL, its soak windows, the refusals of what cannot run, how
a restart's matches are judged to have continued, and its players waiting as long as a
refusal asks (``Retry-After``) before trying again."""

from __future__ import annotations

import asyncio
import collections
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.benchmarks.load import benchmark

load = benchmark("load")


def run(args: list[str]) -> int:
    """The script's ``main`` in a thread of its own (its ``asyncio.run`` needs a thread
    without an event loop)."""
    with ThreadPoolExecutor(1) as thread:
        return int(thread.submit(load.main, args).result())


@pytest.mark.parametrize("args", [
    ["--analysis-workers", "1"],                                  # SQLite: no job queue
    ["--compare-workers", "1", "--analyses", "1"],
    ["--store", "postgresql", "--analysis-workers", "1", "--url", "http://127.0.0.1:1"],
    ["--store", "postgresql", "--compare-workers", "1"],           # nothing to analyse
    ["--restart-postgres-at", "5"],                                # SQLite
    ["--store", "postgresql", "--duration", "10", "--restart-redis-at", "10"],
])
def test_it_refuses_what_cannot_run(args: list[str]) -> None:
    with pytest.raises(SystemExit):
        load.main(args)


def test_a_refusal_is_tried_again_after_its_wait_and_any_other_failure_is_raised() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/api/games")

    def refusal(status: int, headers: dict[str, str]) -> httpx.HTTPStatusError:
        return httpx.HTTPStatusError("refused", request=request, response=httpx.Response(
            status, headers=headers, request=request))

    answers: list[Any] = []
    calls = []

    async def create() -> dict[str, Any]:
        calls.append(asyncio.get_running_loop().time())
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return dict(answer)

    stats = load.Stats()
    answers[:] = [refusal(503, {"retry-after": "0.2"}), refusal(429, {"retry-after": "0"}),
                  {"id": "made"}]
    assert asyncio.run(load.as_a_client_would(create, stats)) == {"id": "made"}
    assert calls[1] - calls[0] >= 0.2  # waited as asked
    assert stats.errors == {"http 503 games": 1, "http 429 games": 1}
    for failure in (refusal(503, {}), refusal(409, {"retry-after": "0"}),
                    refusal(503, {"retry-after": "soon"})):
        answers[:] = [failure]
        with pytest.raises(httpx.HTTPStatusError):
            asyncio.run(load.as_a_client_would(create, stats))
    stats.deadline = 0.0  # a wait past the run's end: raised, not waited
    answers[:] = [refusal(503, {"retry-after": "5"})]
    with pytest.raises(httpx.HTTPStatusError):
        asyncio.run(load.as_a_client_would(create, stats))


def test_a_match_continued_after_a_restart_once_both_players_read_a_new_version() -> None:
    stats = load.Stats()
    restart = load.Restart("redis", 10.0, before=["both", "one", "finished", "failed"],
                           started=100.0, back=101.0,
                           errors_before=collections.Counter({"server internal": 1}))
    stats.updated_at.update({("both", 0): 102.0, ("both", 1): 103.0,
                             ("one", 0): 102.0, ("one", 1): 99.0})  # the other never heard
    stats.ended.update({"finished": ("finished", 100.5), "failed": ("failed", 100.5)})
    stats.errors.update({"server internal": 4, "client socket closed": 2})
    report = load.restart_report(restart, stats, measured_from=90.0)
    assert report["at_s"] == 10.0 and report["down_s"] == 1.0
    assert (report["continued_with_an_action"], report["finished"],
            report["ended_by_an_error"], report["no_action_after"]) == (1, 1, 1, 1)
    assert report["no_action_after_ids"] == ["one"] and not report["all_continued"]
    assert report["errors_around"] == {"server internal": 3, "client socket closed": 2}


@pytest.mark.slow
# the simulated players of an address share one HTTP client, each with its own cookie
@pytest.mark.filterwarnings("ignore:Setting per-request cookies:DeprecationWarning")
def test_workers_take_the_analyses_and_a_soak_reports_each_window(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two matches on two PostgreSQL servers that run no analyses, one gammon worker with
    one finished match to analyse, a window every 4 s."""
    assert run(["--store", "postgresql", "--processes", "2", "--matches", "2",
                "--length", "1", "--think", "0.5", "--settle", "1", "--duration", "8",
                "--analyses", "1", "--analysis-workers", "1", "--report-every", "4",
                "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    result = json.loads(out[-1])
    windows = [line for line in out if line.startswith("[") and "rss MiB" in line]
    assert len(windows) == 2 and "worker0" in windows[0] and "server1" in windows[0]
    assert result["analysis_workers"] == 1 and result["worker_cpu_s"] > 0
    assert len(result["latency_p99_ms_by_window"]) == 2
    assert set(result["rss_mib_start"]) >= {"server0", "server1", "worker0"}
    assert result["actions_per_second"] > 0 and result["errors_while_measuring"] == {}
    assert result["analyses_requested"] == 2 and "analyses_per_minute" in result
    # the servers' own analysis processes did nothing: the worker did it all
    assert result["analysis_cpu_share"] == 0.0
