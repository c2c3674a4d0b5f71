"""Legal-play generation speed: (position, dice) pairs per second on one core.

Positions come from random self-play games with a fixed seed (every position a side
actually faced, with the roll it got). The timed path is the engine's batch path
(`plays_batch`: every distinct resulting board for each pair); the per-position Python API
(`legal_plays`, which returns Play objects) is timed on a slice for comparison, as called
(a Play reads its moves and position from the generator's arrays when first asked) and with
every play's moves and position read. Target for the Python API: 30,000 positions/s.

Run: ``python benchmarks/movegen.py [--pairs 20000] [--repeats 7] [--seed 1]``
(also ``gammon bench movegen``). Prints the median of the repeats and every run; the
Python API lines also give the rate in this thread's CPU time, which other work on a shared
machine barely changes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import numpy as np

from gammon.core import _movegen
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position


def self_play_pairs(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(position, roll) pairs met in random self-play games from the opening."""
    rng = random.Random(seed)
    boards: list[np.ndarray] = []
    rolls: list[tuple[int, int]] = []
    position = Position.initial()
    while len(boards) < count:
        roll = Roll.roll(rng)
        boards.append(position.array())
        rolls.append((roll.die1, roll.die2))
        play = rng.choice(legal_plays(position, roll))
        position = play.position.swap()
        if play.position.winner() is not None:
            position = Position.initial()
    return np.stack(boards), np.array(rolls, dtype=np.int64)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    print(f"collecting {args.pairs} (position, dice) pairs from self-play, seed {args.seed} ...",
          flush=True)
    boards, rolls = self_play_pairs(args.pairs, args.seed)
    _movegen.plays_batch(boards[:10], rolls[:10])  # compile (or load the cache) outside timing

    rates = []
    total_plays = 0
    for run in range(args.repeats):
        start = time.perf_counter()
        offsets, _ = _movegen.plays_batch(boards, rolls)
        elapsed = time.perf_counter() - start
        total_plays = int(offsets[-1])
        rates.append(len(boards) / elapsed)
        print(f"  run {run + 1}/{args.repeats}: {rates[-1]:,.0f} positions/s", flush=True)
    print(f"batch path (plays_batch): median {statistics.median(rates):,.0f} positions/s "
          f"over {len(boards):,} pairs, {total_plays:,} distinct plays "
          f"({total_plays / len(boards):.1f} per pair)")

    sample = min(2_000, len(boards))
    pairs = list(zip([Position.from_board(b) for b in boards[:sample]],
                     [Roll(int(a), int(b)) for a, b in rolls[:sample]], strict=True))

    def called(position: Position, roll: Roll) -> None:
        legal_plays(position, roll)

    def read(position: Position, roll: Roll) -> None:
        for play in legal_plays(position, roll):
            play.moves, play.position  # noqa: B018 -- reading them is what is timed

    for name, work in (("as called", called), ("every play read", read)):
        wall, cpu = [], []
        for _ in range(args.repeats):
            start, cpu_start = time.perf_counter(), time.thread_time()
            for position, roll in pairs:
                work(position, roll)
            wall.append(sample / (time.perf_counter() - start))
            cpu.append(sample / (time.thread_time() - cpu_start))
        print(f"Python API (legal_plays, {name}): median {statistics.median(wall):,.0f} "
              f"positions/s ({statistics.median(cpu):,.0f} in CPU time) over {sample:,} pairs, "
              f"runs {', '.join(f'{rate:,.0f}' for rate in wall)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
