"""Driving GNU Backgammon against gammon, shared by ``gnubg_matches`` and ``gnubg_money``.

GNU Backgammon (Debian's ``/usr/games/gnubg``, unmodified) plays one side at its own settings
and rolls the dice; gammon plays the other side through ``gammon external`` (GNU BG's
external-player protocol, :mod:`gammon.cli.external`), one server process per job.

Duplicate dice: a pair plays two matches (or money sessions) in one gnubg run, each after
``set seed PAIR_SEED`` (Mersenne Twister, the only consumer of gnubg's random numbers here:
no noise, no rollouts): gammon as gnubg's player 1, then as player 0. The dice come in the
same order in both, whoever plays them, so each seat gets the other's rolls of the first
game for as long as the two games last. Every game is exported as a ``.mat`` file and
read back by gammon's own importer, which replays every action under gammon's rules.

:func:`run_pairs` is the resumable bookkeeping: one line of integers per finished pair in a
results file, appended as each batch ends, so a rerun with the same file plays only the
missing pairs; ``jobs`` workers share the work, each with its own gammon server.

No module here is a benchmark on its own: ``gammon bench gnubg_play`` has nothing to run.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from gammon.core.actions import RollDice, RollOpening
from gammon.core.match import Match
from gammon.formats import mat
from gammon.formats.matchfile import MatchRecord, rolled

RESULTS = Path(__file__).parent / "results"
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"
SEATS = (1, 0)
"""gammon's seat (gnubg's player number) in a pair's first and second match."""

PlayBatch = Callable[[int, list[int], Path], dict[int, tuple[int, ...]]]
"""Plays some pairs on a gammon server's port, records in a scratch folder: pair -> result."""


@contextmanager
def external_server(level: str, ply: int, seed: int,
                    extra: Sequence[str] = ()) -> Iterator[int]:
    """``gammon external`` on a free port, in a subprocess; yields the port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gammon.cli.main", "external", "--port", "0", "--level", level,
         "--ply", str(ply), "--seed", str(seed), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        found = re.fullmatch(r"listening on [0-9.]+:(\d+)\n", ready)
        if not found:
            raise SystemExit(f"gammon external did not start: {ready!r}")
        yield int(found.group(1))
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def gnubg_player(side: int, ply: int) -> list[str]:
    """gnubg's commands that make it play ``side`` itself at ``ply`` (no noise)."""
    return [f"set player {side} gnubg",
            f"set player {side} chequerplay evaluation plies {ply}",
            f"set player {side} cubedecision evaluation plies {ply}"]


def duplicate_script(port: int, pair_seed: int, start: str, gnubg_ply: int,
                     files: Sequence[Path]) -> list[str]:
    """The commands of one pair: for each of :data:`SEATS` and its record file, the seats
    set, ``set seed pair_seed``, ``start`` (``new match 7``, ``new session``) and the
    export."""
    script: list[str] = []
    for seat, file in zip(SEATS, files, strict=True):
        script += [*gnubg_player(1 - seat, gnubg_ply),
                   f"set player {seat} external localhost:{port}",
                   f"set seed {pair_seed}", start, f"export match mat {file}"]
    return script


def run_gnubg(script: Sequence[str], what: str) -> str:
    """Run gnubg on ``script`` (its settings first: no display, Mersenne Twister) and
    return what it printed; a failure or an ``Error`` line in it stops the run."""
    commands = ["set display off", "set rng mersenne", *script]
    done = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(commands) + "\n",
                          capture_output=True, text=True, timeout=3600, check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0 or "Error" in output:
        raise SystemExit(f"gnubg failed on {what}:\n{output[-3000:]}")
    return output


def rolls(record: MatchRecord) -> list[list[tuple[int, int]]]:
    """Each game's rolls in the order they were thrown, each as its two dice sorted (the
    opening's included: who plays it depends on the seat, the dice do not)."""
    games = []
    for game in record.games:
        thrown = []
        for action in game.actions:
            if isinstance(action, RollOpening | RollDice):
                roll = rolled(action)[1]
                thrown.append((min(roll.die1, roll.die2), max(roll.die1, roll.die2)))
        games.append(thrown)
    return games


def same_dice(first: Sequence[tuple[int, int]], second: Sequence[tuple[int, int]]) -> bool:
    """Whether two games were thrown the same dice for as long as both lasted."""
    common = min(len(first), len(second))
    return list(first[:common]) == list(second[:common])


def load_replayed(file: Path) -> tuple[MatchRecord, Match]:
    """A gnubg ``.mat`` export read by gammon's importer and replayed under gammon's rules
    (an illegal action, or a result the rules do not give, is an error); the record and
    the match as the replay leaves it."""
    record = mat.load(file)
    return record, record.replay()


def read_results(store: Path, width: int) -> dict[int, tuple[int, ...]]:
    """The finished pairs of a results file (``pair r1 .. r<width>`` a line)."""
    done: dict[int, tuple[int, ...]] = {}
    if store.exists():
        for number, line in enumerate(store.read_text().splitlines(), 1):
            if line.strip():
                try:
                    pair, *result = map(int, line.split())
                except ValueError:
                    raise SystemExit(
                        f"{store}:{number}: not a line of integers: {line!r}") from None
                if len(result) != width or pair < 0:
                    raise SystemExit(f"{store}:{number}: expected a pair number and {width} "
                                     f"results: {line!r}")
                done[pair] = tuple(result)
    return done


def run_pairs(store: Path, width: int, pairs: int, jobs: int, batch: int,
              server: Callable[[int], AbstractContextManager[int]],
              play: PlayBatch, progress: Callable[[dict[int, tuple[int, ...]]], str],
              every: int = 10) -> dict[int, tuple[int, ...]]:
    """Play pairs ``0 .. pairs-1`` not yet in ``store`` (``width`` results a pair) with
    ``jobs`` workers, each on its own ``server(job)`` (a context manager yielding a port),
    ``batch`` pairs per gnubg run; each finished batch is appended to ``store`` at once.
    Prints ``progress(done)`` every ``every`` pairs. Returns every finished pair's result."""
    store.parent.mkdir(parents=True, exist_ok=True)
    done = read_results(store, width)
    if done:
        print(f"resuming: {len(done)} pairs already in {store}", flush=True)
    todo = iter([p for p in range(pairs) if p not in done])
    lock = threading.Lock()
    started, resumed = time.perf_counter(), len(done)
    failures: list[BaseException] = []

    def worker(job: int) -> None:
        try:
            with server(job) as port, tempfile.TemporaryDirectory() as folder:
                while True:
                    with lock:
                        chunk = [p for p in (next(todo, None) for _ in range(batch))
                                 if p is not None]
                    if not chunk or failures:
                        return
                    results = play(port, chunk, Path(folder))
                    with lock, store.open("a") as out:
                        before = len(done)
                        for pair in chunk:
                            done[pair] = results[pair]
                            out.write(f"{pair} {' '.join(map(str, results[pair]))}\n")
                        count = len(done)
                        if count // every > before // every or count == pairs:
                            rate = (count - resumed) / max(time.perf_counter() - started, 1e-9)
                            print(f"  {count}/{pairs} pairs ({rate:.2f} pairs/s) "
                                  f"{progress(done)}".rstrip(), flush=True)
        except BaseException as error:  # raised again once every worker has stopped
            failures.append(error)

    threads = [threading.Thread(target=worker, args=(job,)) for job in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    if len(done) < pairs:
        raise SystemExit("a worker stopped early (see above); run again to resume")
    return done


def interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95% confidence interval."""
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return statistics.fmean(values), half
