"""Whole matches against GNU Backgammon, with gnubg as referee (``gammon bench gnubg_matches``).

GNU Backgammon (Debian's ``/usr/games/gnubg``, unmodified) plays one side at its own
settings (``--gnubg-ply``, 0 by default: its 0-ply net, no noise) and rolls the dice, keeps
the score and applies its rules (Crawford on); gammon plays the other side through
``gammon external`` (GNU BG's external-player protocol, :mod:`gammon.cli.external`), the
engine at ``--level`` with its cube at ``--ply``.

Duplicate dice: pair ``p`` plays two matches in one gnubg run, both after ``set seed
SEED*1000003+p`` (Mersenne Twister): gammon as gnubg's player 1, then as player 0, so the two
matches start with the same rolls for the other seat. Each match is exported as a ``.mat``
file and read back by gammon's own importer, which replays every play and cube action under
gammon's rules; the winner comes from that replay, so a match gnubg and gammon would score
differently fails the run instead of counting.

Prints gammon's match-winning rate with a 95% confidence interval over pairs (the pair's
mean score: duplicate dice make the pairs less noisy than single matches), and gammon's
points per match. Results are kept a line per pair under ``benchmarks/results/`` and a run
with the same arguments resumes; ``--jobs`` runs that many gnubg/external pairs at once.

Run: ``gammon bench gnubg_matches --matches 600 --length 7 --seed 1 --jobs 2``
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gammon.formats import mat

RESULTS = Path(__file__).parent / "results"
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"


@contextmanager
def external_server(level: str, ply: int, seed: int) -> Iterator[int]:
    """``gammon external`` on a free port, in a subprocess; yields the port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gammon.cli.main", "external", "--port", "0", "--level", level,
         "--ply", str(ply), "--seed", str(seed)],
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


def gnubg_player(side: int, ply: int) -> list[str]:
    return [f"set player {side} gnubg",
            f"set player {side} chequerplay evaluation plies {ply}",
            f"set player {side} cubedecision evaluation plies {ply}"]


def play_pair(port: int, pair_seed: int, length: int, gnubg_ply: int,
              folder: Path) -> tuple[int, int, int, int]:
    """Two matches on the same dice; gammon's (won, points) in each, gammon as player 1 then
    as player 0."""
    files = [folder / f"{pair_seed}-gammon{seat}.mat" for seat in (1, 0)]
    script = ["set display off", "set rng mersenne"]
    for seat, file in zip((1, 0), files, strict=True):
        script += [*gnubg_player(1 - seat, gnubg_ply),
                   f"set player {seat} external localhost:{port}",
                   f"set seed {pair_seed}", f"new match {length}",
                   f"export match mat {file}"]
    done = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(script) + "\n",
                          capture_output=True, text=True, timeout=3600, check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0 or "Error" in output:
        raise SystemExit(f"gnubg failed on seed {pair_seed}:\n{output[-3000:]}")
    results: list[int] = []
    for seat, file in zip((1, 0), files, strict=True):
        match = mat.load(file).replay()  # every action legal under gammon's rules
        if not match.is_over or match.winner is None:
            raise SystemExit(f"{file}: the match did not end")
        results += [int(match.winner == seat), match.score[seat] - match.score[1 - seat]]
        file.unlink()
    return results[0], results[1], results[2], results[3]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=600, help="matches (two per pair)")
    parser.add_argument("--length", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="expert", help="gammon's checker-play level")
    parser.add_argument("--ply", type=int, default=0, help="gammon's cube decisions' ply")
    parser.add_argument("--gnubg-ply", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--tag", default="", help="added to the results file's name")
    args = parser.parse_args(argv)
    if not os.access(GNUBG, os.X_OK):
        raise SystemExit(f"GNU Backgammon is not installed ({GNUBG})")

    pairs = max(args.matches // 2, 1)
    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / (f"gnubg-matches-len{args.length}-{args.level}-ply{args.ply}"
                       f"-vs-gnubg{args.gnubg_ply}ply-seed{args.seed}{args.tag}.txt")
    done: dict[int, tuple[int, ...]] = {}
    if store.exists():
        for line in store.read_text().splitlines():
            if line.strip():
                pair, *result = map(int, line.split())
                done[pair] = tuple(result)
        print(f"resuming: {len(done)} pairs already in {store}", flush=True)
    todo = iter([p for p in range(pairs) if p not in done])
    lock = threading.Lock()
    started, resumed = time.perf_counter(), len(done)

    def worker(job: int) -> None:
        with (external_server(args.level, args.ply, args.seed * 7919 + job) as port,
              tempfile.TemporaryDirectory() as folder):
            while True:
                with lock:
                    pair = next(todo, None)
                if pair is None:
                    return
                result = play_pair(port, args.seed * 1_000_003 + pair, args.length,
                                   args.gnubg_ply, Path(folder))
                with lock, store.open("a") as out:
                    done[pair] = result
                    out.write(f"{pair} {' '.join(map(str, result))}\n")
                    count = len(done)
                    if count % 10 == 0 or count == pairs:
                        rate = (count - resumed) / max(time.perf_counter() - started, 1e-9)
                        print(f"  {count}/{pairs} pairs ({rate:.2f} pairs/s)", flush=True)

    threads = [threading.Thread(target=worker, args=(job,)) for job in range(args.jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if len(done) < pairs:
        raise SystemExit("a worker stopped early (see above); run again to resume")

    results = [done[p] for p in range(pairs)]
    per_pair = [(r[0] + r[2]) / 2 for r in results]
    points = [(r[1] + r[3]) / 2 for r in results]
    won = sum(r[0] + r[2] for r in results)

    def interval(values: list[float]) -> tuple[float, float]:
        half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
        return statistics.fmean(values), half

    rate, half = interval(per_pair)
    margin, margin_half = interval(points)
    print(f"gammon ({args.level}, cube {args.ply}-ply) vs GNU Backgammon {args.gnubg_ply}-ply, "
          f"{2 * pairs} matches to {args.length}, seed {args.seed}: won {won} "
          f"({100 * rate:.1f}% ± {100 * half:.1f}%), "
          f"points per match {margin:+.2f} ± {margin_half:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
