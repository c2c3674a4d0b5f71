"""Engine speed: time per decision at 0, 1 and 2 ply, and self-play training throughput.

Decisions are (position, roll) pairs met in seeded self-play by the engine at 0-ply (pairs
with a single legal play are skipped: there is nothing to decide); networks that play
differently meet different positions, so ``--positions-from FILE`` draws them from one
file's networks to time two networks on the same decisions. Each is timed through
the Python API, ``Engine.rank_plays`` — move generation, Play objects and the search
included — on one thread. 2-ply is timed on fewer positions, as it is slow. Training
throughput is ``train_games`` (the compiled TD self-play loop) on a copy of the weights,
after a warm-up call so that compilation is not counted.

Run: ``python benchmarks/speed.py [--positions 300] [--positions-1ply 100]
[--positions-2ply 30] [--training-games 300] [--seed 1] [--weights PATH]
[--positions-from PATH]``
(also ``gammon bench speed``). Targets on one core: 0-ply ≤ 0.15 ms and 2-ply ≤ 50 ms
median per decision; the 0-ply decision ranked at a match score (cubeful, the match equity
table) within 1.3 times the money decision. Each line also gives the median of the
thread's CPU time per decision, which other work on a shared machine barely changes.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo
from gammon.engine.evaluate import kernel_arrays
from gammon.engine.player import Engine
from gammon.training.td import train_games

TARGETS_MS = {0: 0.15, 2: 50.0}  # issue 10: 2-ply ≤ 50 ms median, 0-ply ≤ 0.15 ms (issue 11)
"""Median time per decision to aim for, in milliseconds, by ply."""


def self_play_decisions(engine: Engine, count: int, seed: int) -> list[tuple[Position, Roll]]:
    """(position, roll) pairs with a choice to make, met in 0-ply self-play games."""
    rng = random.Random(seed)
    decisions: list[tuple[Position, Roll]] = []
    position = Position.initial()
    while len(decisions) < count:
        roll = Roll.roll(rng)
        ranked = engine.rank_plays(position, roll, plies=0)
        if len(ranked) > 1:
            decisions.append((position, roll))
        play = ranked[0].play
        position = Position.initial() if play.position.winner() is not None else \
            play.position.swap()
    return decisions


AT_SCORE = CubeInfo.match(2, 6)
"""The context of the "at the score" line: 2-away/6-away, cube centred."""


def time_decisions(engine: Engine, decisions: list[tuple[Position, Roll]], plies: int,
                   context: CubeInfo | None = None) -> tuple[list[float], list[float]]:
    """Seconds per ``rank_plays`` call for each decision: wall-clock time, and this thread's
    CPU time (which other work on a shared machine barely changes)."""
    # compile (or load the cache) outside timing
    engine.rank_plays(*decisions[0], plies=plies, context=context)
    times, cpu_times = [], []
    for position, roll in decisions:
        start, cpu_start = time.perf_counter(), time.thread_time()
        engine.rank_plays(position, roll, plies=plies, context=context)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.thread_time() - cpu_start)
    return times, cpu_times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300, help="decisions timed at 0-ply")
    parser.add_argument("--positions-1ply", type=int, default=100)
    parser.add_argument("--positions-2ply", type=int, default=30)
    parser.add_argument("--training-games", type=int, default=300,
                        help="TD self-play games timed (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", default=None, help="weights file (default: shipped)")
    parser.add_argument("--positions-from", default=None,
                        help="draw the decisions from these networks' self-play (default: "
                             "the timed ones); give the same file to time two networks on "
                             "the same positions")
    args = parser.parse_args(argv)
    if min(args.positions, args.positions_1ply, args.positions_2ply) < 1:
        raise ValueError("every --positions count must be at least 1")

    engine = Engine.load(args.weights)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} (other work slows the figures)")
    counts = {0: args.positions, 1: args.positions_1ply, 2: args.positions_2ply}
    source = engine if args.positions_from is None else Engine.load(args.positions_from)
    decisions = self_play_decisions(source, max(counts.values()), args.seed)
    print(f"{len(decisions)} decisions from 0-ply self-play, seed {args.seed}"
          + ("" if args.positions_from is None else f", of {args.positions_from}"), flush=True)

    for plies, count in counts.items():
        times, cpu_times = time_decisions(engine, decisions[:count], plies)
        median, p90 = statistics.median(times) * 1e3, percentile(times, 0.9) * 1e3
        cpu_median = statistics.median(cpu_times) * 1e3
        target = TARGETS_MS.get(plies)
        verdict = ""
        if target is not None:
            verdict = f"   target ≤ {target:g} ms: {'met' if median <= target else 'NOT met'}"
        print(f"{plies}-ply: median {median:8.3f} ms, p90 {p90:8.3f} ms per decision "
              f"(CPU median {cpu_median:.3f} ms) over {count} positions{verdict}", flush=True)
        if plies == 0:
            # checker play at the score: the same decisions ranked at a match score
            scored, scored_cpu = time_decisions(engine, decisions[:count], 0, AT_SCORE)
            at_score = statistics.median(scored) * 1e3
            ratio = statistics.median(scored_cpu) * 1e3 / cpu_median
            print(f"0-ply at the score ({AT_SCORE.describe()}): median {at_score:8.3f} ms "
                  f"(CPU median {statistics.median(scored_cpu) * 1e3:.3f} ms, {ratio:.2f}x "
                  f"the money decision; target ≤ 1.3x)", flush=True)

    if args.training_games <= 0:
        return 0
    nets = engine.nets  # copied: training updates the weights in place
    arrays = kernel_arrays(nets.copy())
    train_games(arrays, 2, args.seed, 0.01)  # compile outside timing
    start = time.perf_counter()
    stats = train_games(arrays, args.training_games, args.seed + 1, 0.01)
    elapsed = time.perf_counter() - start
    print(f"training: {args.training_games / elapsed:,.0f} games/s of TD self-play "
          f"({stats[0] / args.training_games:.0f} plies a game, {args.training_games} games)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
