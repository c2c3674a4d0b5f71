"""Playing strength: cubeless money games with duplicate dice against a reference player.

The player (the networks at 0, 1 or 2 ply) plays ``--games`` games against ``--opponent``
(pubeval, the networks at 0/1/2 ply — the same weights, or ``--opponent-weights`` for a
comparison of two weight files — or random play). Games come in duplicate pairs: each
pair's dice are played twice, once from each seat, which cancels most of the luck. Pair
``p`` of a run seeded ``S`` has seed ``S * 1_000_000 + p``, so a pair's result does not
depend on how the run is split into chunks.

The run goes in chunks (``--chunk`` pairs), printing progress after each and saving every
game's result to ``benchmarks/results/`` under a name made of the arguments and a hash of
each weights file (one character a game, so 100,000 games take 100 kB); run again with
the same arguments (any ``--games``) and it resumes from there, also after an interruption
(the file is replaced atomically after each chunk). ``--jobs N`` plays each chunk on N
threads (the compiled games release the GIL); the results do not depend on it.

The result is points per game for the player with a 95% confidence interval computed over
pairs (mean ± 1.96·sd/√pairs), the win rate and the gammon rates. ``--baseline WEIGHTS``
also prints the paired difference from another weights file's saved run of the same
arguments (its results file must exist: run the same command with ``--weights WEIGHTS``
first): the mean over the pairs both have of the two pairs' differences, with its 95%
interval — the same dice, so far narrower than the two intervals apart.

Run: ``python benchmarks/strength.py --opponent pubeval --games 2000 --seed 1``
(also ``gammon bench strength ...``). The last line is the summary to quote; for a 95%
interval of about ±0.01 ppg against pubeval play 100,000 games (``--games 100000``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import numpy as np

from gammon.engine import arena
from gammon.engine.evaluate import kernel_arrays
from gammon.engine.network import NetworkPair

RESULTS = Path(__file__).resolve().parent / "results"
FORMAT = 2
"""Version of the results file; files of another version are not resumed."""
SCORE_CHARACTERS = "0123456"
"""A game's result in the results file: the character at index ``points + 3``."""

KINDS = {
    "0ply": arena.NEURAL,
    "1ply": arena.NEURAL_1PLY,
    "2ply": arena.NEURAL_2PLY,
    "pubeval": arena.PUBEVAL,
    "random": arena.RANDOM,
}
NEURAL_KINDS = ("0ply", "1ply", "2ply")
DEFAULT_CHUNK = {"0ply": 250, "pubeval": 250, "random": 250, "1ply": 10, "2ply": 2}
"""Pairs per chunk by the slowest player: a chunk takes a few seconds."""


def shipped_weights() -> Path:
    with resources.as_file(resources.files("gammon.engine") / "weights" / "gammon.npz") as path:
        return Path(path)


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def pair_seed(seed: int, pair: int) -> int:
    return seed * 1_000_000 + pair


def results_path(args: argparse.Namespace, weights_hash: str, opponent_hash: str | None) -> Path:
    name = f"strength-{args.player}-vs-{args.opponent}-seed{args.seed}-w{weights_hash}"
    if opponent_hash is not None:
        name += f"-o{opponent_hash}"
    return Path(args.results) / f"{name}.json"


def encode_pairs(pairs: list[list[float]]) -> str:
    """The pairs' games as one character each (points -3 to 3), two per pair."""
    return "".join(SCORE_CHARACTERS[int(points) + 3] for pair in pairs for points in pair)


def decode_pairs(games: str) -> list[list[float]]:
    if len(games) % 2 or any(c not in SCORE_CHARACTERS for c in games):
        raise ValueError("the results file's games are not pairs of results -3 to 3")
    points = [float(SCORE_CHARACTERS.index(c) - 3) for c in games]
    return [points[i:i + 2] for i in range(0, len(points), 2)]


def load_pairs(path: Path, meta: dict[str, object]) -> list[list[float]]:
    """The pairs saved by an earlier run with the same settings (none if there is none)."""
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    if data.get("meta") != meta:
        raise ValueError(f"{path} was made with other settings: {data.get('meta')}; "
                         f"delete it to start again")
    return decode_pairs(data["games"])


def save_pairs(path: Path, meta: dict[str, object], pairs: list[list[float]]) -> None:
    """Write atomically: an interrupted run leaves the previous checkpoint intact."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as file:
        json.dump({"meta": meta, "games": encode_pairs(pairs)}, file)
    os.chmod(temporary, 0o644)  # mkstemp makes it private
    os.replace(temporary, path)


def play_pairs(kind: int, opponent: int, nets: tuple[np.ndarray, ...],
               opponent_nets: tuple[np.ndarray, ...], seed: int, first: int,
               count: int) -> list[list[float]]:
    """Pairs ``first .. first + count - 1``: each a one-pair duplicate match with its own seed."""
    results = []
    for pair in range(first, first + count):
        points = arena.duplicate_match(kind, opponent, nets, opponent_nets, 1,
                                       pair_seed(seed, pair))
        results.append([float(points[0, 0]), float(points[0, 1])])
    return results


def play_pairs_on_threads(pool: ThreadPoolExecutor, jobs: int, kind: int, opponent: int,
                          nets: tuple[np.ndarray, ...], opponent_nets: tuple[np.ndarray, ...],
                          seed: int, first: int, count: int) -> list[list[float]]:
    """:func:`play_pairs` split into ``jobs`` consecutive runs played at the same time."""
    bounds = [first + count * j // jobs for j in range(jobs + 1)]
    parts = pool.map(lambda j: play_pairs(kind, opponent, nets, opponent_nets, seed,
                                          bounds[j], bounds[j + 1] - bounds[j]), range(jobs))
    return [pair for part in parts for pair in part]


def paired_difference(pairs: np.ndarray, baseline: np.ndarray) -> tuple[float, float, int]:
    """The player's points a game minus the baseline's over the pairs both played (the
    first ``min`` of each: pair ``p`` is the same dice in both): the mean of the pairs'
    differences, its 95% half-width and the number of pairs."""
    count = min(len(pairs), len(baseline))
    if count < 2:
        raise ValueError("a paired difference needs at least two pairs in both runs")
    differences = pairs[:count].mean(axis=1) - baseline[:count].mean(axis=1)
    return (float(differences.mean()),
            1.96 * float(differences.std(ddof=1)) / math.sqrt(count), count)


def summarise(pairs: np.ndarray) -> dict[str, float]:
    """Points per game with its 95% half-width over pairs, and result rates per game."""
    per_pair = pairs.mean(axis=1)
    games = pairs.ravel()
    count = len(per_pair)
    spread = float(per_pair.std(ddof=1)) if count > 1 else math.nan
    return {
        "pairs": count,
        "games": games.size,
        "ppg": float(per_pair.mean()),
        "half_width": 1.96 * spread / math.sqrt(count),
        "wins": float(np.mean(games > 0)),
        "gammons_won": float(np.mean(games >= 2)),
        "backgammons_won": float(np.mean(games >= 3)),
        "gammons_lost": float(np.mean(games <= -2)),
        "backgammons_lost": float(np.mean(games <= -3)),
        "unfinished": float(np.mean(games == 0)),
    }


def describe(s: dict[str, float]) -> str:
    return (f"{s['ppg']:+.3f} ± {s['half_width']:.3f} ppg over {s['games']:,.0f} games, "
            f"wins {100 * s['wins']:.1f}%, gammons {100 * s['gammons_won']:.1f}% won / "
            f"{100 * s['gammons_lost']:.1f}% lost, backgammons "
            f"{100 * s['backgammons_won']:.1f}% / {100 * s['backgammons_lost']:.1f}%")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", choices=["pubeval", *NEURAL_KINDS, "random"],
                        default="pubeval")
    parser.add_argument("--player", choices=NEURAL_KINDS, default="0ply")
    parser.add_argument("--games", type=int, default=2000,
                        help="total games, played as games/2 duplicate pairs (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", type=Path, default=None,
                        help="the player's weights (default: the shipped networks)")
    parser.add_argument("--opponent-weights", type=Path, default=None,
                        help="the opponent's weights, for a neural opponent (default: the "
                             "player's)")
    parser.add_argument("--chunk", type=int, default=None,
                        help="pairs per chunk (progress and checkpoint); default by speed")
    parser.add_argument("--jobs", type=int, default=1,
                        help="threads playing each chunk (default 1; at most the free cores)")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="folder of the results files (default benchmarks/results)")
    parser.add_argument("--fresh", action="store_true",
                        help="ignore (and overwrite) the saved results of these arguments")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another weights file whose run of the same arguments is saved: "
                             "print the paired difference from it")
    args = parser.parse_args(argv)

    if args.games < 2:
        raise ValueError(f"--games must be at least 2 (one duplicate pair), got {args.games}")
    if args.seed < 0:
        raise ValueError(f"--seed is a number from 0 up, got {args.seed}")
    if args.opponent_weights is not None and args.opponent not in NEURAL_KINDS:
        raise ValueError(f"--opponent-weights needs a neural opponent, not {args.opponent}")
    weights = args.weights or shipped_weights()
    nets = kernel_arrays(NetworkPair.load(weights))
    weights_hash = file_hash(weights)
    opponent_hash = None
    opponent_nets = nets
    if args.opponent in NEURAL_KINDS and args.opponent_weights is not None:
        opponent_nets = kernel_arrays(NetworkPair.load(args.opponent_weights))
        opponent_hash = file_hash(args.opponent_weights)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    pairs_wanted = args.games // 2
    if args.chunk is not None and args.chunk < 1:
        raise ValueError(f"--chunk must be at least 1, got {args.chunk}")
    chunk = args.chunk or args.jobs * min(DEFAULT_CHUNK[args.player],
                                          DEFAULT_CHUNK[args.opponent])

    path = results_path(args, weights_hash, opponent_hash)
    meta: dict[str, object] = {
        "format": FORMAT, "player": args.player, "opponent": args.opponent, "seed": args.seed,
        "weights": weights_hash, "opponent_weights": opponent_hash or weights_hash,
    }
    pairs = [] if args.fresh else load_pairs(path, meta)
    opponent_name = args.opponent + (f" ({args.opponent_weights.name})"
                                     if opponent_hash is not None else "")
    print(f"{args.player} ({weights.name} {weights_hash}) vs {opponent_name}: "
          f"{2 * pairs_wanted:,} games in {pairs_wanted:,} duplicate pairs, seed {args.seed}",
          flush=True)
    if pairs:
        used = min(len(pairs), pairs_wanted)
        print(f"resuming from {path}: {len(pairs):,} pairs saved, {used:,} used", flush=True)

    kind, opponent = KINDS[args.player], KINDS[args.opponent]
    play_pairs(kind, opponent, nets, opponent_nets, args.seed, 0, 1)  # compile outside timing
    started = time.perf_counter()
    played = 0
    pool = ThreadPoolExecutor(args.jobs)
    while len(pairs) < pairs_wanted:
        count = min(chunk, pairs_wanted - len(pairs))
        pairs += play_pairs_on_threads(pool, args.jobs, kind, opponent, nets, opponent_nets,
                                       args.seed, len(pairs), count)
        played += count
        save_pairs(path, meta, pairs)
        rate = 2 * played / (time.perf_counter() - started)
        s = summarise(np.array(pairs))
        print(f"  {2 * len(pairs):>{len(f'{2 * pairs_wanted}')}}/{2 * pairs_wanted} games  "
              f"{s['ppg']:+.3f} ± {s['half_width']:.3f} ppg  wins {100 * s['wins']:.1f}%  "
              f"({rate:,.1f} games/s)", flush=True)
    pool.shutdown()

    s = summarise(np.array(pairs[:pairs_wanted]))
    if s["unfinished"]:
        print(f"note: {100 * s['unfinished']:.2f}% of games hit the ply limit and score 0")
    print(f"{args.player} vs {opponent_name} (weights {weights_hash}, seed {args.seed}): "
          f"{describe(s)}")
    if args.baseline is not None:
        baseline_hash = file_hash(args.baseline)
        baseline_path = results_path(args, baseline_hash, opponent_hash)
        saved = load_pairs(baseline_path, {**meta, "weights": baseline_hash,
                                           "opponent_weights": opponent_hash or baseline_hash})
        if not saved:
            raise SystemExit(f"no saved run of the baseline ({baseline_path}): run the same "
                             f"command with --weights {args.baseline} first")
        mean, half, count = paired_difference(np.array(pairs[:pairs_wanted]), np.array(saved))
        print(f"paired against {args.baseline.name} ({baseline_hash}): {mean:+.4f} ± "
              f"{half:.4f} ppg over {count:,} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
