"""The benchmark position set: checker-play decisions labelled by deep search, and the
error rate of a net on them.

**The set** (``benchmarks/data/positions-v2.npz``; ``positions-v1.npz`` holds the same
decisions with the first networks' labels) holds checker-play decisions — a position with
the side on roll's dice, at least two distinct legal plays — met in varied self-play:
each game draws a noise level (Gaussian noise of 0, 0.02, 0.05 or 0.1 equity added to each
play's 0-ply evaluation before choosing) and plays its first 0 to 3 plies at random; a
decision is kept (with a chance of 0.15 for contact, 0.5 for crashed, 0.3 for race) while
its class still needs some, duplicates dropped. Game ``g`` of seed ``S`` draws everything
from ``random.Random(S * 1_000_003 + g)``. Classes:

* ``race``: no contact (:meth:`Position.is_race`);
* ``crashed``: contact, and a side has at most 6 active checkers — the engine's own rule,
  :func:`gammon.engine.expert.is_crashed` (checkers in play, all but one of those on the
  ace point left out), so each class is the positions its network sees;
* ``contact``: every other position.

Each decision is labelled by the labelling net's search (cubeless money equity of each
play for the side that makes it): **every legal play at 1-ply**, and the best of them by
1-ply **at 2-ply**: at most ``--top`` (default 3), within ``--margin`` (default 0.1) of the
best. The error of a play is its 2-ply equity below the best 2-ply equity when it has
one; a play without a 2-ply label gets the larger of the worst 2-ply error stored for the
decision and its 1-ply equity below the best 1-ply equity (so a play the labeller ranked
below the candidates never counts as better than the worst of them).

Make the set (seeded, sharded, resumable; the exact command is stored in the file)::

    gammon bench positions --generate --out benchmarks/data/positions-v1.npz --seed 2026 \\
        --contact 3000 --crashed 750 --race 1250 --top 3 --margin 0.1

Decisions are drawn first (kept in ``<out>.work/``), then labelled in shards of
``--shard-size`` decisions, each saved as it is done; run the command again to resume, or
run ``--part I/N`` in N processes to split the shards. When the last shard is done the set
is written. ``--from-set FILE`` relabels the decisions of an existing set with
``--label-weights`` (a stronger net makes the next label version, ``--label-version``).

**The report**: ``gammon bench positions --weights FILE --ply 0|1|2`` lets the net choose
each decision's play as the engine does (the default move filter at 1 and 2 ply) and prints
the mean error per decision in millipoints (thousandths of a point of equity), the share
of decisions with an error and the share of blunders (error > 0.08), overall and per class,
each with a 95% interval (mean ± 1.96·sd/√n). ``--baseline FILE2`` also lets FILE2 choose
and prints the paired difference of the two nets' errors, decision by decision (a much
narrower interval than either error rate's). A net judged at the labeller's own depth
scores nearly 0 by construction: the set is only a yardstick for nets weaker than its
labeller, and is relabelled when a stronger net comes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import BinaryIO

import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine import search
from gammon.engine.evaluate import SEARCH_CACHE_ENTRIES, kernel_arrays, new_scratch
from gammon.engine.expert import is_crashed
from gammon.engine.features import is_race
from gammon.engine.network import NetworkPair, equity
from gammon.engine.player import Engine, MoveFilter

DATA = Path(__file__).resolve().parent / "data"
DEFAULT_SET = DATA / "positions-v2.npz"
"""The set labelled by the strongest networks so far (the shipped ones)."""
SET_FORMAT = 1
"""Layout of the set file; a set of another layout is refused."""
CLASSES = ("contact", "crashed", "race")
CONTACT, CRASHED, RACE = range(3)
NOISE_LEVELS = (0.0, 0.02, 0.05, 0.1)
RANDOM_PLIES = 4
"""Games play their first 0 to RANDOM_PLIES - 1 plies at random."""
KEEP_CHANCE = (0.15, 0.5, 0.3)
"""Chance that a decision of each class is kept: the rarer the class, the higher, so that
every class is drawn from about the same number of games."""
BLUNDER = 0.08
DRAW_FORMAT = 3
"""Version of the drawing procedure above; part of the work folder's settings (3: the
engine's crashed rule)."""
CLASS_RULE = ("race: no contact; crashed: contact and a side has at most 6 active checkers "
              "(in play, all but one on its ace point left out: "
              "gammon.engine.expert.is_crashed); contact: the rest")


def shipped_weights() -> Path:
    with resources.as_file(resources.files("gammon.engine") / "weights" / "gammon.npz") as path:
        return Path(path)


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


# -- classes and decisions --------------------------------------------------------------------


def position_class(position: Position) -> int:
    """The class of the network that evaluates ``position`` (the engine's rules)."""
    board = position.array()
    if is_race(board):
        return RACE
    return CRASHED if is_crashed(board) else CONTACT


@dataclass(frozen=True, slots=True)
class Decision:
    position: Position
    roll: Roll
    kind: int


def draw_decisions(engine: Engine, wanted: Sequence[int], seed: int,
                   progress: Callable[[str], None] = print) -> list[Decision]:
    """Decisions of varied self-play until every class has ``wanted[class]`` of them."""
    taken: list[list[Decision]] = [[] for _ in CLASSES]
    seen: set[tuple[Position, int, int]] = set()
    game = 0
    started = time.perf_counter()
    while any(len(taken[k]) < wanted[k] for k in range(len(CLASSES))):
        rng = random.Random(seed * 1_000_003 + game)
        noise = rng.choice(NOISE_LEVELS)
        random_plies = rng.randrange(RANDOM_PLIES)
        position = Position.initial()
        for ply in range(10_000):
            roll = Roll.roll(rng)
            while ply == 0 and roll.is_double():  # the opening roll is never a double
                roll = Roll.roll(rng)
            ranked = engine.rank_plays(position, roll, plies=0)
            kind = position_class(position)
            keep = rng.random() < KEEP_CHANCE[kind]  # drawn always: games ignore the quotas
            key = (position, max(roll.die1, roll.die2), min(roll.die1, roll.die2))
            if keep and len(ranked) > 1 and key not in seen and len(taken[kind]) < wanted[kind]:
                taken[kind].append(Decision(position, roll, kind))
                seen.add(key)
            if ply < random_plies:
                play = rng.choice(ranked).play
            else:
                play = max(ranked, key=lambda r: r.equity + rng.gauss(0.0, noise)).play
            if play.position.winner() is not None:
                break
            position = play.position.swap()
        game += 1
        if game % 200 == 0:
            counts = ", ".join(f"{len(t)} {name}" for t, name in zip(taken, CLASSES, strict=True))
            progress(f"  drawing: {game} games, {counts} "
                     f"({time.perf_counter() - started:.0f} s)")
    # classes interleaved, in the order met: any prefix of the set is a fair sample
    order = sorted((i / wanted[k], k, i) for k, t in enumerate(taken) for i in range(len(t)))
    return [taken[k][i] for _, k, i in order]


# -- labelling ----------------------------------------------------------------------------------


def equities(probs: np.ndarray) -> np.ndarray:
    return np.array([equity(p) for p in probs], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Labels:
    """The plays of one decision (boards after the play, mover's view) and their equities
    at 1-ply and 2-ply (NaN where not labelled at 2-ply)."""

    plays: np.ndarray
    equity1: np.ndarray
    equity2: np.ndarray


def label(decision: Decision, nets: tuple[np.ndarray, ...], top: int, margin: float) -> Labels:
    """Every legal play at 1-ply, then the best by 1-ply at 2-ply: at most ``top``, within
    ``margin`` of the best 1-ply equity."""
    plays = np.stack([p.position.array() for p in legal_plays(decision.position, decision.roll)])
    count = len(plays)
    levels = search.new_levels()
    scratch = new_scratch(SEARCH_CACHE_ENTRIES)
    probs = np.empty((count, 5), dtype=np.float64)
    depth = np.empty(count, dtype=np.int64)
    search.rank_plays(plays, count, 1, np.array([count]), np.array([np.inf]), nets, scratch,
                      levels[1], levels[2], probs, depth)
    equity1 = equities(probs)
    best = np.argsort(-equity1, kind="stable")[:top]
    best = best[equity1[best] >= equity1[best[0]] - margin]
    chosen = np.ascontiguousarray(plays[best])
    keep = np.array([len(best), len(best)])
    search.rank_plays(chosen, len(best), 2, keep, np.array([np.inf, np.inf]), nets, scratch,
                      levels[1], levels[2], probs, depth)
    equity2 = np.full(count, np.nan)
    equity2[best] = equities(probs[:len(best)])
    return Labels(plays, equity1, equity2)


# -- the set file -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PositionSet:
    """A labelled set: decision ``d``'s plays are rows ``start[d]:start[d + 1]``."""

    boards: np.ndarray  # int8[N, 26], side on roll's view
    dice: np.ndarray  # int8[N, 2]
    kinds: np.ndarray  # int8[N], index into CLASSES
    start: np.ndarray  # int64[N + 1]
    plays: np.ndarray  # int8[M, 26], boards after each play, mover's view
    equity1: np.ndarray  # float32[M]
    equity2: np.ndarray  # float32[M], NaN where not labelled at 2-ply
    meta: dict[str, object]

    def __len__(self) -> int:
        return len(self.boards)

    def decision(self, d: int) -> Decision:
        return Decision(Position.from_board(self.boards[d].tolist()),
                        Roll(int(self.dice[d, 0]), int(self.dice[d, 1])), int(self.kinds[d]))

    def prefix(self, count: int) -> PositionSet:
        """The first ``count`` decisions (a fair sample: the classes are interleaved)."""
        plays = self.start[count]
        return PositionSet(self.boards[:count], self.dice[:count], self.kinds[:count],
                           self.start[:count + 1], self.plays[:plays], self.equity1[:plays],
                           self.equity2[:plays], self.meta)

    def save(self, path: Path) -> None:
        write_atomically(path, lambda file: np.savez_compressed(
            file, boards=self.boards, dice=self.dice, kinds=self.kinds, start=self.start,
            plays=self.plays, equity1=self.equity1, equity2=self.equity2,
            meta=np.array(json.dumps(self.meta, indent=1))))

    @classmethod
    def load(cls, path: Path) -> PositionSet:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("format") != SET_FORMAT:
                raise ValueError(f"{path} has set format {meta.get('format')}, not {SET_FORMAT}")
            arrays = {name: data[name] for name in ("boards", "dice", "kinds", "start", "plays",
                                                     "equity1", "equity2")}
        result = cls(**arrays, meta=meta)
        result.check_shape()
        return result

    def check_shape(self) -> None:
        """Refuse a file whose arrays do not fit together."""
        n, m = len(self.boards), len(self.plays)
        problems = [
            self.boards.shape != (n, 26), self.dice.shape != (n, 2), self.kinds.shape != (n,),
            self.start.shape != (n + 1,), self.plays.shape != (m, 26),
            self.equity1.shape != (m,), self.equity2.shape != (m,),
            n > 0 and (self.start[0] != 0 or self.start[-1] != m
                       or bool(np.any(np.diff(self.start) < 2))),
            bool(np.any((self.kinds < 0) | (self.kinds >= len(CLASSES)))),
        ]
        if any(problems):
            raise ValueError("the position set's arrays do not fit together")
        for d in range(n):
            if np.all(np.isnan(self.equity2[self.start[d]:self.start[d + 1]])):
                raise ValueError(f"decision {d} has no play labelled at 2-ply")


def assemble(decisions: Sequence[Decision], labels: Sequence[Labels],
             meta: dict[str, object]) -> PositionSet:
    counts = [len(lab.plays) for lab in labels]
    return PositionSet(
        boards=np.stack([d.position.array() for d in decisions]).astype(np.int8),
        dice=np.array([(d.roll.die1, d.roll.die2) for d in decisions], dtype=np.int8),
        kinds=np.array([d.kind for d in decisions], dtype=np.int8),
        start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        plays=np.concatenate([lab.plays for lab in labels]).astype(np.int8),
        equity1=np.concatenate([lab.equity1 for lab in labels]).astype(np.float32),
        equity2=np.concatenate([lab.equity2 for lab in labels]).astype(np.float32),
        meta=meta)


def write_atomically(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write through a temporary file: an interruption leaves the old file (or none)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
        os.chmod(temporary, 0o644)  # mkstemp makes it private
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# -- errors and the report ----------------------------------------------------------------------


def decision_errors(positions: PositionSet, chosen: np.ndarray) -> np.ndarray:
    """The error of play ``chosen[d]`` (an index among decision d's plays) of each decision,
    by the rule of the module doc."""
    errors = np.empty(len(positions), dtype=np.float64)
    for d in range(len(positions)):
        lo, hi = positions.start[d], positions.start[d + 1]
        if not 0 <= chosen[d] < hi - lo:
            raise ValueError(f"decision {d} has {hi - lo} plays, not a play {chosen[d]}")
        e1 = positions.equity1[lo:hi].astype(np.float64)
        e2 = positions.equity2[lo:hi].astype(np.float64)
        best2 = np.nanmax(e2)
        mine2 = e2[chosen[d]]
        if not np.isnan(mine2):
            errors[d] = best2 - mine2
        else:
            errors[d] = max(best2 - np.nanmin(e2), e1.max() - e1[chosen[d]])
    return errors


def choose_plays(positions: PositionSet, nets: tuple[np.ndarray, ...], plies: int,
                 decisions: Iterable[int]) -> list[int]:
    """The play the engine picks at ``plies`` (default move filter) for each decision."""
    move_filter = MoveFilter()
    keep = np.array(move_filter.keep, dtype=np.int64)
    margin = np.array(move_filter.margin, dtype=np.float64)
    levels = search.new_levels()
    scratch = new_scratch(SEARCH_CACHE_ENTRIES)
    chosen = []
    for d in decisions:
        plays = positions.plays[positions.start[d]:positions.start[d + 1]]
        count = len(plays)
        probs = np.empty((count, 5), dtype=np.float64)
        depth = np.empty(count, dtype=np.int64)
        search.rank_plays(plays, count, plies, keep, margin, nets, scratch, levels[1], levels[2],
                          probs, depth)
        chosen.append(int(search.best_ranked(probs, depth, count)))
    return chosen


def choose_all(positions: PositionSet, nets: tuple[np.ndarray, ...], plies: int,
               jobs: int) -> np.ndarray:
    """:func:`choose_plays` for every decision of ``positions``, in ``jobs`` threads."""
    parts = np.array_split(np.arange(len(positions)), jobs)
    with ThreadPoolExecutor(jobs) as pool:
        return np.array([c for part in pool.map(
            lambda p: choose_plays(positions, nets, plies, p.tolist()), parts) for c in part])


def paired_lines(errors: np.ndarray, base: np.ndarray, kinds: np.ndarray) -> list[str]:
    """Per class, the mean of ``errors - base`` (millipoints) with its 95% interval over
    the decisions (paired: the same decisions, so the interval is much narrower than each
    error rate's), and how many decisions each side gets better."""
    lines = [f"{'':9} {'decisions':>9}  {'difference (mpt)':>17}  {'better':>7}  {'worse':>7}"]
    groups = [("all", np.ones(len(errors), dtype=bool))]
    groups += [(name, kinds == k) for k, name in enumerate(CLASSES)]
    for name, members in groups:
        difference = 1000 * (errors[members] - base[members])
        if not len(difference):
            continue
        mean, half = interval(difference)
        lines.append(f"{name:9} {len(difference):>9,}  {mean:+8.2f} ± {half:5.2f}   "
                     f"{int((difference < 0).sum()):>7,}  {int((difference > 0).sum()):>7,}")
    return lines


def interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width."""
    if len(values) < 2:
        return float(np.mean(values)) if len(values) else math.nan, math.nan
    return float(values.mean()), 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))


def report_lines(errors: np.ndarray, kinds: np.ndarray) -> list[str]:
    """Mean error (millipoints), share with an error and share of blunders, with 95%
    intervals: overall, then per class."""
    lines = [f"{'':9} {'decisions':>9}  {'mean error (mpt)':>17}  {'with an error':>15}  "
             f"{f'blunders > {BLUNDER}':>15}"]
    groups = [("all", np.ones(len(errors), dtype=bool))]
    groups += [(name, kinds == k) for k, name in enumerate(CLASSES)]
    for name, members in groups:
        e = errors[members]
        if not len(e):
            continue
        mean, half = interval(1000 * e)
        wrong, wrong_half = interval(100 * (e > 0))
        blunders, blunders_half = interval(100 * (e > BLUNDER))
        lines.append(f"{name:9} {len(e):>9,}  {mean:8.1f} ± {half:5.1f}   "
                     f"{wrong:5.1f}% ± {wrong_half:4.1f}   {blunders:5.1f}% ± {blunders_half:4.1f}")
    return lines


# -- commands -----------------------------------------------------------------------------------


def parse_part(text: str) -> tuple[int, int]:
    try:
        index, parts = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--part is I/N (e.g. 0/2), got {text!r}") from None
    if not 0 <= index < parts:
        raise argparse.ArgumentTypeError(f"--part I/N needs 0 <= I < N, got {text!r}")
    return index, parts


def decisions_file(work: Path, settings: dict[str, object], engine: Engine,
                   args: argparse.Namespace) -> list[Decision]:
    """The set's decisions: drawn once and kept in the work folder (or read from
    ``--from-set``)."""
    path = work / "decisions.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as data:
            if json.loads(str(data["settings"])) != settings:
                raise ValueError(f"{work} was made with other settings; delete it to start "
                                 f"again: {data['settings']!s}")
            boards, dice, kinds = data["boards"], data["dice"], data["kinds"]
        return [Decision(Position.from_board(b.tolist()), Roll(int(x), int(y)), int(k))
                for b, (x, y), k in zip(boards, dice, kinds, strict=True)]
    if args.from_set:
        source = PositionSet.load(args.from_set)
        decisions = [source.decision(d) for d in range(len(source))]
        print(f"{len(decisions):,} decisions from {args.from_set}", flush=True)
    else:
        wanted = (args.contact, args.crashed, args.race)
        print(f"drawing {sum(wanted):,} decisions from self-play (seed {args.seed})", flush=True)
        decisions = draw_decisions(engine, wanted, args.seed,
                                   progress=lambda text: print(text, flush=True))
    write_atomically(path, lambda file: np.savez_compressed(
        file, settings=np.array(json.dumps(settings)),
        boards=np.stack([d.position.array() for d in decisions]),
        dice=np.array([(d.roll.die1, d.roll.die2) for d in decisions], dtype=np.int8),
        kinds=np.array([d.kind for d in decisions], dtype=np.int8)))
    return decisions


def shard_writer(labels: Sequence[Labels]) -> Callable[[BinaryIO], None]:
    def write(file: BinaryIO) -> None:
        np.savez_compressed(file, counts=[len(lab.plays) for lab in labels],
                            plays=np.concatenate([lab.plays for lab in labels]),
                            equity1=np.concatenate([lab.equity1 for lab in labels]),
                            equity2=np.concatenate([lab.equity2 for lab in labels]))
    return write


def generate(args: argparse.Namespace, argv: Sequence[str]) -> int:
    weights = args.label_weights or shipped_weights()
    engine = Engine.load(weights)
    nets = kernel_arrays(NetworkPair.load(weights))
    weights_hash = file_hash(weights)
    out: Path = args.out
    work = out.with_name(out.name + ".work")
    settings: dict[str, object] = {
        "draw_format": DRAW_FORMAT, "seed": args.seed, "weights": weights_hash,
        "wanted": [args.contact, args.crashed, args.race], "top": args.top,
        "margin": args.margin,
        "shard_size": args.shard_size,
        "from_set": None if args.from_set is None else file_hash(args.from_set),
    }
    decisions = decisions_file(work, settings, engine, args)
    shards = range(math.ceil(len(decisions) / args.shard_size))
    index, parts = args.part
    mine = [s for s in shards if s % parts == index]
    todo = [s for s in mine if not (work / f"shard-{s:04d}.npz").exists()]
    print(f"labelling {len(decisions):,} decisions in {len(shards)} shards of "
          f"{args.shard_size} (part {index}/{parts}: {len(mine) - len(todo)} of {len(mine)} "
          f"done) with {weights.name} ({weights_hash}), 2-ply for the best {args.top} within "
          f"{args.margin}", flush=True)
    started = time.perf_counter()
    pool = ThreadPoolExecutor(args.jobs)
    for done, shard in enumerate(todo, start=1):
        batch = decisions[shard * args.shard_size:(shard + 1) * args.shard_size]
        labels = list(pool.map(lambda d: label(d, nets, args.top, args.margin), batch))
        write_atomically(work / f"shard-{shard:04d}.npz", shard_writer(labels))
        elapsed = time.perf_counter() - started
        print(f"  shard {shard + 1}/{len(shards)} labelled  ({elapsed / done:.0f} s a shard, "
              f"{elapsed / done * (len(todo) - done) / 60:.0f} min to go)", flush=True)
    pool.shutdown()

    missing = [s for s in shards if not (work / f"shard-{s:04d}.npz").exists()]
    if missing:
        print(f"{len(missing)} shards still to label (other parts); run again when they are "
              f"done to write {out}")
        return 0
    labels = []
    for shard in shards:
        with np.load(work / f"shard-{shard:04d}.npz", allow_pickle=False) as data:
            ends = np.cumsum(data["counts"])
            for lo, hi in zip(ends - data["counts"], ends, strict=True):
                labels.append(Labels(data["plays"][lo:hi], data["equity1"][lo:hi],
                                     data["equity2"][lo:hi]))
    kinds = [d.kind for d in decisions]
    meta: dict[str, object] = {
        "format": SET_FORMAT,
        "name": out.stem,
        "label_version": args.label_version,
        "labelled_by": {"weights": weights.name, "sha256_12": weights_hash,
                        "search": f"every play at 1-ply; at 2-ply the best by 1-ply, at most "
                                  f"{args.top}, within {args.margin} of the best "
                                  f"(gammon.engine.search.rank_plays)"},
        "error_rule": "error = best 2-ply equity - the play's 2-ply equity; a play without a "
                      "2-ply label: max(worst stored 2-ply error of the decision, best 1-ply "
                      "equity - the play's 1-ply equity)",
        "equity": "cubeless money equity of the side that makes the play",
        "classes": {name: kinds.count(k) for k, name in enumerate(CLASSES)},
        "class_rule": CLASS_RULE,
        "drawn_by": "varied 0-ply self-play, see benchmarks/positions.py",
        "seed": args.seed,
        "settings": settings,
        "command": "gammon bench positions " + shlex.join(argv),
        "made": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    positions = assemble(decisions, labels, meta)
    positions.check_shape()
    positions.save(out)
    print(f"wrote {out}: {len(positions):,} decisions, {len(positions.plays):,} plays, "
          f"{out.stat().st_size / 1e6:.2f} MB; the work folder {work} can go")
    return 0


def report(args: argparse.Namespace) -> int:
    weights = args.weights or shipped_weights()
    nets = kernel_arrays(NetworkPair.load(weights))
    positions = PositionSet.load(args.set)
    labeller = positions.meta["labelled_by"]
    assert isinstance(labeller, dict)
    print(f"{positions.meta['name']} (label version {positions.meta['label_version']}, "
          f"labelled by {labeller['weights']} {labeller['sha256_12']}): {len(positions):,} "
          f"decisions; {weights.name} ({file_hash(weights)}) at {args.ply}-ply", flush=True)
    if args.decisions is not None and args.decisions < len(positions):
        positions = positions.prefix(args.decisions)
        print(f"the first {len(positions):,} decisions only (--decisions)", flush=True)
    choose_plays(positions, nets, args.ply, [0])  # compile (or load the cache) outside timing
    started = time.perf_counter()
    errors = decision_errors(positions, choose_all(positions, nets, args.ply, args.jobs))
    elapsed = time.perf_counter() - started
    for line in report_lines(errors, positions.kinds):
        print(line)
    if args.baseline is not None:
        base_nets = kernel_arrays(NetworkPair.load(args.baseline))
        base = decision_errors(positions, choose_all(positions, base_nets, args.ply, args.jobs))
        print(f"paired against {args.baseline.name} ({file_hash(args.baseline)}) at "
              f"{args.ply}-ply, the same decisions: difference of the mean error (mpt; "
              f"negative: {weights.name} is better)")
        for line in paired_lines(errors, base, positions.kinds):
            print(line)
    if file_hash(weights) == labeller["sha256_12"] and args.ply == 2:
        print("note: this net labelled the set at 2-ply, so its 2-ply error is near 0 by "
              "construction (only the move filter can miss the labelled best)")
    mean, half = interval(1000 * errors)
    print(f"{weights.name} {args.ply}-ply on {positions.meta['name']}: {mean:.1f} ± {half:.1f} "
          f"mpt per decision over {len(errors):,} decisions ({elapsed:.0f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generate", action="store_true",
                        help="make (or resume making) a labelled set instead of a report")
    parser.add_argument("--set", type=Path, default=DEFAULT_SET,
                        help=f"the set to report on (default benchmarks/data/{DEFAULT_SET.name})")
    parser.add_argument("--weights", type=Path, default=None,
                        help="the net to report on (default: the shipped networks)")
    parser.add_argument("--ply", type=int, choices=[0, 1, 2], default=0)
    parser.add_argument("--jobs", type=int, default=1, help="threads (default 1)")
    parser.add_argument("--decisions", type=int, default=None,
                        help="report on the first N decisions only (a fair sample)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="also choose with these networks and report the paired "
                             "difference of the error rates")
    making = parser.add_argument_group("making a set (--generate)")
    making.add_argument("--out", type=Path, default=DEFAULT_SET)
    making.add_argument("--seed", type=int, default=2026)
    making.add_argument("--contact", type=int, default=3000)
    making.add_argument("--crashed", type=int, default=750)
    making.add_argument("--race", type=int, default=1250)
    making.add_argument("--top", type=int, default=3,
                        help="plays labelled at 2-ply at most (default 3)")
    making.add_argument("--margin", type=float, default=0.1,
                        help="only plays within this 1-ply equity of the best get 2-ply "
                             "(default 0.1)")
    making.add_argument("--label-weights", type=Path, default=None,
                        help="the labelling (and self-play) net (default: the shipped networks)")
    making.add_argument("--label-version", type=int, default=1)
    making.add_argument("--from-set", type=Path, default=None,
                        help="relabel the decisions of this set instead of drawing new ones")
    making.add_argument("--shard-size", type=int, default=100)
    making.add_argument("--part", type=parse_part, default=(0, 1),
                        help="label only shards s with s %% N == I (default 0/1: all)")
    args = parser.parse_args(argv)
    if args.decisions is not None and args.decisions < 1:
        parser.error("--decisions must be at least 1")
    for name in ("jobs", "top", "shard_size", "label_version"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    for name in ("contact", "crashed", "race", "seed"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} must be 0 or more")
    if args.generate:
        if not args.margin >= 0:
            parser.error("--margin must be 0 or more")
        return generate(args, argv)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
