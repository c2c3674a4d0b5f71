"""Real ``gammon worker`` processes for the benchmarks (analysis_throughput.py, load.py):
started on a deployment's settings, each serving its metrics on a port of its own, waited
for until they do, and stopped as a deploy stops them (SIGTERM: their running analyses go
back in the queue)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

Worker = tuple[subprocess.Popen[bytes], str]
"""A worker process and the URL of its metrics."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_workers(count: int, env: dict[str, str], log_dir: Path, *, concurrency: int = 1,
                  name: str = "worker", timeout: float = 120.0) -> list[Worker]:
    """``count`` ``gammon worker`` processes on the settings of ``env`` (the
    ``GAMMON_*`` variables: the database, Redis, the analyses'), ``concurrency`` analyses
    each, their logs ``log_dir/NAME-N.log``; each waited for until it serves its metrics
    (the workers started are stopped when one fails)."""
    started: list[Worker] = []
    for n in range(count):
        port = free_port()
        with (log_dir / f"{name}-{n}.log").open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "gammon.server.cli", "worker", "--concurrency",
                 str(concurrency), "--metrics-bind", f"127.0.0.1:{port}"],
                env=env, stdout=log, stderr=subprocess.STDOUT)
        started.append((process, f"http://127.0.0.1:{port}/metrics"))
    try:
        for process, url in started:
            deadline = time.monotonic() + timeout
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"a worker exited: see {log_dir}")
                try:
                    if httpx.get(url, timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"a worker never served its metrics: see {log_dir}")
                time.sleep(0.2)
    except BaseException:
        stop_workers(started)
        raise
    return started


def stop_workers(workers: list[Worker], wait: float = 30.0) -> None:
    """SIGTERM each worker, then wait for it (killed after ``wait`` seconds)."""
    for process, _ in workers:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process, _ in workers:
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def ended(metrics_url: str) -> int:
    """The analyses a worker ended done (its metrics)."""
    total = 0
    for line in httpx.get(metrics_url, timeout=10).text.splitlines():
        if line.startswith("gammon_analysis_ended_total{") and 'result="done"' in line:
            total += int(float(line.rsplit(" ", 1)[1]))
    return total
