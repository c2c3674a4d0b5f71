"""How much of a rollout label is noise? The same decisions labelled twice
(``gammon bench label_noise``).

A label set's rollout labels (``gammon train --stage label --rollout-games N``) are noisy:
each is the mean of N truncated games. The fit compares the candidates of one decision, and
the candidates of a decision share their dice, so what matters is the noise of a label
*relative to its decision's mean*, the quantity the fit's held-out "relative equity error"
measures. This draws ``--decisions`` decisions of two or more candidates from a label set,
labels each candidate again with the set's own labeller and settings but other dice (one
fresh seed per decision, shared by its candidates, as the label stage does), and prints:

- the noise of one label, absolute and relative to its decision: the root mean square of
  the difference between the two labels, divided by √2;
- the networks' relative error against the stored labels and against the fresh ones (the
  networks were fitted to the stored ones, never to the fresh; ``--networks`` judges other
  networks than the labeller);
- the networks' relative error against the labeller's expectation (the labels without their
  noise): the square root of (error against the fresh labels)² − (one label's noise)².
  If it is small beside the noise, the held-out error of a fit is the labels' noise and
  more labels of the same kind teach the networks little.

Each interval is a 95% bootstrap over decisions. Rows are appended to a file under
``benchmarks/results/`` as they come, and a run with the same arguments resumes.

Run: ``gammon bench label_noise --data training/data/label-roll144t7p-gen9-seed20
--decisions 2000 --weights training/checkpoints/td-expert-h256-seed3-gen9-td100k-prune.npz
[--networks FILE]`` (``--weights`` must be the set's labeller, whose SHA-256 the manifest
lists; by default the shipped networks).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from gammon.core import _movegen
from gammon.engine import search
from gammon.engine.evaluate import evaluate_position, kernel_arrays, new_scratch
from gammon.engine.network import NetworkPair, equity
from gammon.training.label_sets import load_groups, load_shards, read_manifest
from gammon.training.supervised import group_slices, position_classes

RESULTS = Path(__file__).parent / "results"
WEIGHTS = (Path(__file__).resolve().parents[1] / "src" / "gammon" / "engine" / "weights"
           / "gammon.npz")
CLASS_NAMES = ("contact", "crashed", "race")


def labeller_settings(data: Path) -> tuple[str, int, int, bool]:
    """The set's labeller (weights SHA-256) and rollout settings, from the manifest beside
    it (its labelling command): games, truncation, pruned plays."""
    entry = read_manifest(data.parent / "MANIFEST.tsv")[data.name + ".npz"]
    words = entry.command.split()

    def value(flag: str) -> int:
        return int(words[words.index(flag) + 1]) if flag in words else 0

    games = value("--rollout-games")
    if games < 2:
        raise SystemExit(f"{data.name} is not labelled by rollouts: nothing to relabel")
    return entry.labeller_sha256, games, value("--truncate"), "--rollout-pruned" in words


def relative(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``values`` minus the mean of their decision (consecutive rows ``starts[g]`` to
    ``starts[g + 1]``)."""
    out = np.empty_like(values)
    for first, last in itertools.pairwise(starts):
        out[first:last] = values[first:last] - values[first:last].mean()
    return out


def figures(rows: np.ndarray, starts: np.ndarray) -> dict[str, float]:
    """Rows: stored equity, fresh equity, networks' equity, class. Root mean squares."""
    stored, fresh, networks = rows[:, 0], rows[:, 1], rows[:, 2]
    noise = np.sqrt(np.mean((stored - fresh) ** 2) / 2)
    relative_noise = np.sqrt(np.mean(relative(stored - fresh, starts) ** 2) / 2)
    against_stored = np.sqrt(np.mean(relative(networks - stored, starts) ** 2))
    against_fresh = np.sqrt(np.mean(relative(networks - fresh, starts) ** 2))
    return {"noise": noise, "relative noise": relative_noise,
            "networks vs stored": against_stored, "networks vs fresh": against_fresh,
            "networks vs expectation": np.sqrt(max(against_fresh ** 2 - relative_noise ** 2,
                                                   0.0))}


def bootstrap(rows: np.ndarray, starts: np.ndarray, draws: int = 1000, seed: int = 1
              ) -> dict[str, tuple[float, float]]:
    """2.5% and 97.5% points of each figure, decisions drawn again with replacement."""
    rng = np.random.default_rng(seed)
    groups = len(starts) - 1
    samples: dict[str, list[float]] = {}
    for _ in range(draws):
        picked = rng.integers(0, groups, groups)
        parts = [rows[starts[g]:starts[g + 1]] for g in picked]
        sizes = np.array([len(p) for p in parts])
        drawn_starts = np.concatenate([[0], np.cumsum(sizes)])
        for name, value in figures(np.concatenate(parts), drawn_starts).items():
            samples.setdefault(name, []).append(value)
    return {name: tuple(np.percentile(values, [2.5, 97.5])) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="a rollout label set, e.g. training/data/label-roll144t7p-gen9-seed20")
    parser.add_argument("--decisions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1,
                        help="draws the decisions and the fresh dice")
    parser.add_argument("--weights", type=Path, default=WEIGHTS, help="the set's labeller")
    parser.add_argument("--networks", type=Path, default=None,
                        help="the networks whose distance from the labels is shown "
                             "(default: the labeller's)")
    args = parser.parse_args(argv)

    labeller, games, truncate, pruned = labeller_settings(args.data)
    if hashlib.sha256(args.weights.read_bytes()).hexdigest() != labeller:
        raise SystemExit(f"{args.weights} did not label {args.data.name} "
                         f"(its labeller is {labeller[:12]}…): give --weights")
    boards, labels = load_shards(args.data)
    groups = load_groups(args.data)
    order, bounds = group_slices(groups, np.arange(len(groups)))
    sizeable = np.nonzero(np.diff(bounds) >= 2)[0]
    rng = np.random.default_rng(args.seed)
    picked = rng.choice(sizeable, min(args.decisions, len(sizeable)), replace=False)
    seeds = rng.integers(0, 2**31 - 1, len(picked))

    settings = json.dumps([args.data.name, args.decisions, args.seed, labeller]).encode()
    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / f"label-noise-{hashlib.sha256(settings).hexdigest()[:12]}.txt"
    done = [line.split() for line in store.read_text().splitlines()] if store.exists() else []
    if done:
        print(f"resuming: {len({row[0] for row in done})} decisions already in {store}")
    finished = {int(row[0]) for row in done}

    pair = NetworkPair.load(args.weights)
    nets = kernel_arrays(pair)
    level = _movegen.new_scratch()
    scratch = new_scratch()
    networks = np.empty(5, dtype=np.float64)
    started = time.perf_counter()
    with store.open("a") as out:
        for k, g in enumerate(picked):
            if k in finished:
                continue
            for row in order[bounds[g]:bounds[g + 1]]:
                board = boards[row]
                fresh = search.rollout(board.astype(np.int8), games, truncate, int(seeds[k]),
                                       nets, level, pruned).mean(axis=0)
                evaluate_position(board.astype(np.int8), nets, scratch, networks)
                out.write(f"{k} {equity(labels[row]):.6f} "
                          f"{equity(fresh):.6f} "
                          f"{equity(networks):.6f} "
                          f"{int(position_classes(board[None].astype(np.int8))[0])}\n")
            out.flush()
            if (k + 1) % 50 == 0:
                print(f"  {k + 1}/{len(picked)} decisions ({time.perf_counter() - started:.0f} s)",
                      flush=True)

    table = np.array([[float(x) for x in line.split()] for line in store.read_text().splitlines()])
    keys = table[:, 0].astype(int)
    starts = np.concatenate([[0], np.nonzero(np.diff(keys))[0] + 1, [len(keys)]])
    rows = table[:, 1:]
    if args.networks is not None:  # the same candidates, in the order they were written
        written = np.concatenate([order[bounds[g]:bounds[g + 1]] for g in picked])[:len(rows)]
        judged = kernel_arrays(NetworkPair.load(args.networks))
        for i, row in enumerate(written):
            evaluate_position(boards[row].astype(np.int8), judged, scratch, networks)
            rows[i, 2] = equity(networks)
        print(f"the networks: {args.networks}")
    print(f"{len(starts) - 1} decisions ({len(rows):,} candidates) of {args.data.name}, "
          f"labelled again by rollouts of {games} games"
          + (f" truncated after {truncate} plies" if truncate else "")
          + (" (pruned plays)" if pruned else "") + f"; results {store}")
    intervals = bootstrap(rows, starts)
    for name, value in figures(rows, starts).items():
        low, high = intervals[name]
        print(f"  {name:26s} {value:.4f}  [{low:.4f}, {high:.4f}]")
    for kind, name in enumerate(CLASS_NAMES):
        keep = np.array([rows[starts[g]:starts[g + 1], 3].max() == kind
                         for g in range(len(starts) - 1)])
        if keep.sum() >= 20:
            parts = [rows[starts[g]:starts[g + 1]] for g in np.nonzero(keep)[0]]
            sub_starts = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
            shown = figures(np.concatenate(parts), sub_starts)
            print(f"  {name} decisions ({keep.sum()}): relative noise "
                  f"{shown['relative noise']:.4f}, networks vs expectation "
                  f"{shown['networks vs expectation']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
