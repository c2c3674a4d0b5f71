"""The analysis throughput benchmark (benchmarks/analysis_throughput.py): a round per worker
count, each analysing every stored match once with real ``gammon worker`` processes on
PostgreSQL, checked for analyses lost or done twice; a run with the same arguments resumes
after the rounds already measured."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.benchmarks.load import benchmark
from tests.server.conftest import postgres_database

throughput = benchmark("analysis_throughput")


def run(args: list[str]) -> int:
    """The script's ``main`` in a thread of its own, as from its command line: its
    ``asyncio.run`` needs a thread without an event loop, and the browser tests' session
    keeps Playwright's loop running in this one."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(throughput.main, args).result()


@pytest.mark.slow
def test_each_round_analyses_every_match_once_and_a_run_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    monkeypatch.setattr(throughput, "RESULTS", tmp_path)
    args = ["--matches", "3", "--files", "handwritten", "--plies", "0", "--workers", "1,2"]
    with postgres_database() as url:
        assert run(["--database-url", url, *args]) == 0
        out = capsys.readouterr().out
        assert "1 worker(s): analyses ended by each [3]; none lost, none done twice" in out
        assert "2 worker(s): analyses ended by each" in out
        assert "1 worker(s): 3 analyses in" in out and "analyses a minute" in out
        [saved] = tmp_path.glob("analysis-throughput-*.txt")
        assert [line.split()[0] for line in saved.read_text().splitlines()] == ["1", "2"]

        assert run(["--database-url", url, *args]) == 0
        again = capsys.readouterr().out
        assert "resuming: [1, 2] worker(s)" in again and "ended by each" not in again


def test_it_refuses_a_database_without_the_job_queue() -> None:
    with pytest.raises(SystemExit):
        throughput.main(["--database-url", "sqlite+aiosqlite:///bench.db"])
