"""Which labeller is closest to the truth? Search depths and truncated rollouts against long
full rollouts (``gammon bench labellers``).

The supervised stage fits the networks to labels from the project's own search (2-ply) and
could use truncated rollouts instead. This measures, on positions drawn from a label
directory's shards (each the position a candidate play leaves, the opponent on roll), how
far each labeller's cubeless equity lies from a long full 0-ply rollout of the position (the
reference, ``--truth-games``): 0-, 1- and 2-ply evaluations and rollouts of
``--rollout-games`` games truncated after each of ``--truncate`` plies (0: played to the end).

For each labeller it prints the root-mean-square distance to the reference with the
reference's own noise taken out (its mean squared standard error subtracted), and, for the
rollouts, their own noise (the mean of their squared standard errors) and the part left
without it — the systematic error that more games would not remove. The 95% intervals come
from resampling the positions. Positions' results are appended to a file under
``benchmarks/results/`` as they come, and a run with the same arguments resumes.

Run: ``python benchmarks/labellers.py --data training/data/label-2ply-g1m-seed2
--positions 40 --truth-games 2592 [--kind contact] [--weights FILE]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from gammon.core.position import Position
from gammon.engine.player import Engine
from gammon.training.label_sets import load_shards
from gammon.training.supervised import position_classes

RESULTS = Path(__file__).parent / "results"
KINDS = {"contact": 0, "crashed": 1, "race": 2}


def labeller_names(rollout_games: int, truncations: list[int]) -> list[str]:
    """The labellers measured, in the order of a result row."""
    rollouts = [f"rollout {rollout_games} games, "
                + (f"{t} plies" if t else "to the end") for t in truncations]
    return ["0-ply", "1-ply", "2-ply", *rollouts]


def measure_position(engine: Engine, position: Position, rollout_games: int,
                     truncations: list[int], truth_games: int, seed: int) -> list[float]:
    """One row: each labeller's equity and standard error (0 for a search), then the
    reference's equity and standard error. Each rollout has a seed of its own."""
    row: list[float] = []
    for plies in (0, 1, 2):
        row += [engine.evaluate(position, plies=plies).equity, 0.0]
    for k, truncate in enumerate(truncations):
        result = engine.rollout(position, games=rollout_games, truncate=truncate,
                                seed=seed * 100 + k)
        row += [result.equity, result.equity_standard_error]
    truth = engine.rollout(position, games=truth_games, truncate=0, seed=seed * 100 + 99)
    return [*row, truth.equity, truth.equity_standard_error]


def distances(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per labeller, over ``rows`` (one per position, as :func:`measure_position` makes
    them): the mean squared distance to the reference with the reference's noise taken
    out, and the labeller's own mean squared standard error."""
    truth, truth_se = rows[:, -2], rows[:, -1]
    estimates, errors = rows[:, :-2:2], rows[:, 1:-2:2]
    squared = ((estimates - truth[:, None]) ** 2).mean(axis=0) - (truth_se ** 2).mean()
    return squared, (errors ** 2).mean(axis=0)


def bootstrap(rows: np.ndarray, draws: int = 2000, seed: int = 1) -> np.ndarray:
    """2.5% and 97.5% points of each labeller's root-mean-square distance (noise of the
    reference taken out) over positions drawn again with replacement."""
    rng = np.random.default_rng(seed)
    samples = np.array([distances(rows[rng.integers(0, len(rows), len(rows))])[0]
                        for _ in range(draws)])
    rms = np.sqrt(np.maximum(samples, 0.0))
    return np.percentile(rms, [2.5, 97.5], axis=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a label directory (shards)")
    parser.add_argument("--shards", type=int, default=20, help="draw from the first N shards")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--kind", choices=sorted(KINDS), default="contact")
    parser.add_argument("--truth-games", type=int, default=2592)
    parser.add_argument("--rollout-games", type=int, default=144)
    parser.add_argument("--truncate", type=int, nargs="+", default=[7, 11, 0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--weights", type=Path, default=None)
    args = parser.parse_args(argv)

    engine = Engine.load(args.weights) if args.weights else Engine.load()
    boards, _ = load_shards(args.data, args.shards)
    candidates = np.nonzero(position_classes(boards) == KINDS[args.kind])[0]
    picked = np.random.default_rng(args.seed).choice(
        candidates, min(args.positions, len(candidates)), replace=False)
    settings = json.dumps([str(args.data), args.shards, args.kind, args.truth_games,
                           args.rollout_games, args.truncate, args.seed,
                           str(args.weights)]).encode()
    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / f"labellers-{hashlib.sha256(settings).hexdigest()[:12]}.txt"
    rows = [list(map(float, line.split())) for line in store.read_text().splitlines()
            if line.strip()] if store.exists() else []
    if rows:
        print(f"resuming: {len(rows)} positions already in {store}")
    names = labeller_names(args.rollout_games, args.truncate)
    started = time.perf_counter()
    with store.open("a") as out:
        for k in range(len(rows), len(picked)):
            position = Position.from_board(boards[picked[k]].tolist())
            row = measure_position(engine, position, args.rollout_games, args.truncate,
                                   args.truth_games, args.seed * 10_000 + k)
            rows.append(row)
            out.write(" ".join(f"{x:.6f}" for x in row) + "\n")
            out.flush()
            print(f"  {k + 1}/{len(picked)} positions "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)

    table = np.array(rows)
    squared, own = distances(table)
    low, high = bootstrap(table)
    print(f"{len(table)} {args.kind} positions from {args.data}, reference: full rollouts of "
          f"{args.truth_games} games (its noise, rms {np.sqrt((table[:, -1] ** 2).mean()):.4f},"
          " taken out)")
    print(f"{'labeller':32s} {'rms distance':>13s} {'95% interval':>16s} "
          f"{'own noise':>10s} {'without it':>11s}")
    for i, name in enumerate(names):
        systematic = np.sqrt(max(squared[i] - own[i], 0.0))
        print(f"{name:32s} {np.sqrt(max(squared[i], 0.0)):13.4f} "
              f"{low[i]:7.4f}-{high[i]:<8.4f} {np.sqrt(own[i]):10.4f} {systematic:11.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
