"""Which labeller picks the better play? (``gammon bench labeller_choices``)

The label stage (``gammon train --stage label``) gives a decision's candidates their labels:
the plays the 1-ply search keeps after its move filter, each rolled out (``--rollout-games
G --truncate T --rollout-pruned``, the candidates of one decision on common dice) or valued
by the search itself (``--plies 2``). The fit learns from the *differences* between those
labels, so a labeller is only as good a teacher as the plays its labels would choose. Here
each labeller chooses, on the decisions of a position set, and GNU Backgammon's cached
2-ply equities grade the choice (``gammon bench reference``'s cache: no GNU Backgammon is
needed, and nothing it produced teaches the networks):

- the engine at 0-, 1- and 2-ply (the default move filter);
- for each ``--rollouts G:T``, the candidate with the best mean of a G-game rollout
  truncated after T plies (0: to the end), pruned play, one fresh seed per decision shared
  by its candidates, as the label stage draws it.

A rollout's choice carries its noise: a label's noise is about 0.024 relative to its
decision (``gammon bench label_noise``), as large as the differences between good plays, and
the fit averages it away over many decisions only where it is unbiased. So a rollout that
chooses worse than the search does may still teach well; one that chooses better is
better. Prints each labeller's mean error (millipoints per decision) with a bootstrap 95%
interval and the paired differences against 0-ply and 2-ply.

Each decision's errors are appended to ``benchmarks/results/labeller-choices-*.txt`` (named
by the settings' hash) as it is done; a run with the same arguments resumes.

Run: ``gammon bench labeller_choices --decisions 600 --rollouts 144:7,144:11
--weights training/checkpoints/td-expert-h256-seed3-gen10-race-crashed-prune.npz``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from gammon.core import _movegen
from gammon.engine import search
from gammon.engine.evaluate import KernelArrays, kernel_arrays, new_scratch, swap_board
from gammon.engine.network import NetworkPair, equity
from gammon.engine.player import MoveFilter
from reference import CLASSES, RESULTS, Cache, bootstrap, play_rows, positions


def parse_rollouts(text: str) -> list[tuple[int, int]]:
    """``"144:7,144:11"`` -> ``[(144, 7), (144, 11)]`` (games, truncation)."""
    out = []
    for part in filter(None, text.split(",")):
        games, _, truncate = part.partition(":")
        if not (games.isdigit() and truncate.isdigit()) or int(games) < 2:
            raise argparse.ArgumentTypeError(
                f"a rollout is GAMES:TRUNCATE, games >= 2, got {part!r}")
        out.append((int(games), int(truncate)))
    return out


class Chooser:
    """One thread's search and rollout buffers over one set of networks."""

    def __init__(self, nets: KernelArrays) -> None:
        self.nets = nets
        move_filter = MoveFilter()
        self.keep = np.array(move_filter.keep, dtype=np.int64)
        self.margin = np.array(move_filter.margin, dtype=np.float64)
        self.levels = search.new_levels()
        self.scratch = new_scratch(positions.SEARCH_CACHE_ENTRIES)
        self.rolling = _movegen.new_scratch()

    def ranked(self, plays: np.ndarray, plies: int) -> tuple[int, np.ndarray]:
        """The search's choice at ``plies`` and each play's depth."""
        count = len(plays)
        probs = np.empty((count, 5), dtype=np.float64)
        depth = np.empty(count, dtype=np.int64)
        search.rank_plays(plays, count, plies, self.keep, self.margin, self.nets, self.scratch,
                          self.levels[1], self.levels[2], probs, depth)
        return int(search.best_ranked(probs, depth, count)), depth

    def rolled_out(self, plays: np.ndarray, candidates: list[int], games: int, truncate: int,
                   seed: int) -> int:
        """The candidate whose rollout (the opponent on roll after it) is best for the mover."""
        after = np.empty(26, dtype=np.int8)
        values = []
        for i in candidates:
            swap_board(plays[i], after)
            mean = search.rollout(after, games, truncate, seed, self.nets, self.rolling,
                                  True).mean(axis=0)
            values.append(-equity(mean))
        return candidates[int(np.argmax(values))]


def decision_errors(chooser: Chooser, plays: np.ndarray, grade: np.ndarray,
                    rollouts: list[tuple[int, int]], seed: int) -> list[float]:
    """The errors (GNU Backgammon's best equity minus the chosen play's) of the 0-, 1- and
    2-ply choices and of each rollout labeller's, on one decision."""
    choices = []
    for plies in (0, 1, 2):
        chosen, depth = chooser.ranked(plays, plies)
        choices.append(chosen)
        if plies == 1:  # the label stage's candidates
            candidates = [i for i in range(len(plays)) if depth[i] == 1]
    for games, truncate in rollouts:
        choices.append(chooser.rolled_out(plays, candidates, games, truncate, seed))
    best = float(grade.max())
    return [best - float(grade[c]) for c in choices]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=positions.DEFAULT_SET,
                        help="the position set (default benchmarks/data/positions-v2.npz)")
    parser.add_argument("--kind", choices=CLASSES, default="contact",
                        help="the class of decisions (default contact)")
    parser.add_argument("--decisions", type=int, default=600,
                        help="the first N decisions of the class (default 600)")
    parser.add_argument("--rollouts", type=parse_rollouts, default=parse_rollouts("144:7"),
                        help="rollout labellers, GAMES:TRUNCATE,... (default 144:7)")
    parser.add_argument("--seed", type=int, default=1, help="draws each decision's dice")
    parser.add_argument("--weights", type=Path, default=None,
                        help="the labeller (default: the shipped networks)")
    parser.add_argument("--cache", type=Path, default=RESULTS,
                        help="folder of GNU Backgammon's 2-ply cache (default "
                             "benchmarks/results)")
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error("--decisions must be at least 1")

    positions_set = positions.PositionSet.load(args.set)
    kind = CLASSES.index(args.kind)
    decisions = np.nonzero(positions_set.kinds == kind)[0][:args.decisions]
    cache = Cache(args.cache, positions_set, 2)
    missing = cache.missing(play_rows(positions_set, decisions))
    if len(missing):
        raise SystemExit(f"{cache.path} lacks GNU Backgammon's 2-ply equities of "
                         f"{len(missing):,} of these plays: run gammon bench "
                         f"reference --gnubg-ply 2 on the set first")
    grade = cache.results[:, 5].astype(np.float64)
    weights = args.weights or positions.shipped_weights()
    names = ["0-ply", "1-ply", "2-ply"] + [f"rollout {g}:{t}" for g, t in args.rollouts]

    settings = json.dumps([positions_set.meta.get("name"), args.kind, args.decisions,
                           args.rollouts, args.seed, positions.file_hash(weights)]).encode()
    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / f"labeller-choices-{hashlib.sha256(settings).hexdigest()[:12]}.txt"
    done = {int(line.split()[0]): [float(x) for x in line.split()[1:]]
            for line in store.read_text().splitlines()} if store.exists() else {}
    print(f"{positions_set.meta.get('name')}: {len(decisions)} {args.kind} decisions, labeller "
          f"{weights.name} ({positions.file_hash(weights)}), graded by GNU Backgammon 2-ply; "
          f"results {store}" + (f" (resuming: {len(done)} done)" if done else ""), flush=True)

    chooser = Chooser(kernel_arrays(NetworkPair.load(weights)))
    seeds = np.random.default_rng(args.seed).integers(0, 2**31 - 1, len(decisions))
    started = time.perf_counter()
    with store.open("a") as out:
        for k, d in enumerate(decisions):
            if k in done:
                continue
            first, last = positions_set.start[d], positions_set.start[d + 1]
            errors = decision_errors(chooser, positions_set.plays[first:last],
                                     grade[first:last], args.rollouts, int(seeds[k]))
            done[k] = errors
            out.write(f"{k} " + " ".join(f"{e:.6f}" for e in errors) + "\n")
            out.flush()
            if len(done) % 50 == 0:
                print(f"  {len(done)}/{len(decisions)} decisions "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)

    table = 1000 * np.array([done[k] for k in sorted(done)])
    print(f"\nmean error per decision (mpt) over {len(table)} decisions [bootstrap 95%]:")
    for i, name in enumerate(names):
        mean, low, high = bootstrap(table[:, i])
        print(f"  {name:18s} {mean:6.2f} [{low:6.2f}, {high:6.2f}]")
    for base in (0, 2):
        print(f"paired against {names[base]} (negative: better than it):")
        for i, name in enumerate(names):
            if i != base:
                mean, low, high = bootstrap(table[:, i] - table[:, base])
                print(f"  {name:18s} {mean:+6.2f} [{low:+6.2f}, {high:+6.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
