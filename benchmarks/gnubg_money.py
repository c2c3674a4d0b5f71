"""Cubeless money games against GNU Backgammon, gnubg as referee (``gammon bench gnubg_money``).

GNU Backgammon plays one side at its own 0-ply (``--gnubg-ply``; its net, no noise) with
``set cube use off`` and ``set jacoby off`` (gammons and backgammons count), rolls the dice
and scores each game; gammon plays the other side through ``gammon external`` at
``--level`` (``expert``: the 0-ply net, no noise) with ``--no-cube`` (every play valued
cubeless, as a game without a cube is played) and never resigns, so every game is played
out (gnubg may still resign a backgammon, which it accepts for gammon: the same result).
Runs before ``--no-cube`` existed (results files named ``gnubg-money-cubeless-…``) had
gammon value its plays as if a centred cube were in play.

Duplicate dice (``benchmarks/gnubg_play.py``, shared with ``gnubg_matches``): pair ``p``
plays two one-game money sessions after the same ``set seed SEED*1000003+p``, gammon as
gnubg's player 1 then as player 0, so each side is dealt the other's dice of the first game.
Each game is exported as a ``.mat`` file and replayed by gammon's own importer (every play
legal under gammon's rules, the result the one the rules give); its winner and points must
also be what gnubg printed, and the two games of a pair must have been thrown the same dice
for as long as both lasted, or the run stops.

Prints gammon's points per game (ppg) with a 95% interval over the pairs (each pair's mean:
the dice's luck mostly cancels within a pair), the same over single games for comparison,
and the wins, gammons and backgammons each side scored. Results are kept a line per pair,
``pair POINTS_AS_1 POINTS_AS_0`` (gammon's signed points in each game), under
``benchmarks/results/``, appended every ``--batch`` pairs (one gnubg run); a run with the
same arguments resumes, and a longer ``--games`` extends it.

``--weights FILE`` plays another network (``gammon external --weights``; the results file's
name gains ``-w`` and the file's SHA-256 prefix), and ``--baseline RESULTS`` compares two
networks on the same dice: the difference of this run's and the baseline file's mean points
over the pairs both have played, with its 95% interval over those pairs. Each pair starts
with the same rolls in both files, so much of the luck cancels again.

Run: ``nice -n 19 gammon bench gnubg_money --games 20000 --seed 1 --jobs 1``
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from gnubg_play import (
    GNUBG,
    RESULTS,
    SEATS,
    duplicate_script,
    external_server,
    interval,
    load_replayed,
    read_results,
    rolls,
    run_gnubg,
    run_pairs,
    same_dice,
)

SETTINGS = ["set cube use off", "set jacoby off", "set automatic game off"]
"""Cubeless money play, gammons counted, one game a session."""
SCORE = re.compile(r"The score \(after 1 game\) is: \S+ (\d+), \S+ (\d+) \(money session")
"""What gnubg prints as a session's only game ends: player 0's points, player 1's."""
NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


def pair_seed(seed: int, pair: int) -> int:
    return seed * 1_000_003 + pair


def record_files(folder: Path, seed: int, pair: int) -> list[Path]:
    """The records of a pair's two games, gammon in each of :data:`SEATS`."""
    return [folder / f"{pair_seed(seed, pair)}-gammon{seat}.mat" for seat in SEATS]


def play_pairs(port: int, pairs: Sequence[int], seed: int, gnubg_ply: int, folder: Path,
               keep: bool = False) -> dict[int, tuple[int, ...]]:
    """Play ``pairs`` in one gnubg run; gammon's signed points in each pair's two games
    (gammon as player 1, then as player 0). ``keep`` leaves the ``.mat`` records in
    ``folder``."""
    script = list(SETTINGS)
    for pair in pairs:
        script += duplicate_script(port, pair_seed(seed, pair), "new session", gnubg_ply,
                                   record_files(folder, seed, pair))
    output = run_gnubg(script, f"pairs {pairs[0]}..{pairs[-1]} of seed {seed}")
    printed = SCORE.findall(output)
    if len(printed) != 2 * len(pairs):
        raise SystemExit(f"gnubg reported {len(printed)} results for {2 * len(pairs)} games:\n"
                         f"{output[-3000:]}")
    results: dict[int, tuple[int, ...]] = {}
    for index, pair in enumerate(pairs):
        points, dice = [], []
        for game, (seat, file) in enumerate(zip(SEATS, record_files(folder, seed, pair),
                                                strict=True)):
            record, _ = load_replayed(file)
            ended = record.games[0].result if len(record.games) == 1 else None
            if ended is None:
                raise SystemExit(f"{file}: not one finished game")
            scored = tuple(map(int, printed[2 * index + game]))
            if scored[ended.winner] != ended.points or scored[1 - ended.winner] != 0:
                raise SystemExit(f"{file}: gnubg scored {scored}, gammon's replay "
                                 f"{ended.points} to player {ended.winner}")
            points.append(ended.points if ended.winner == seat else -ended.points)
            dice.append(rolls(record)[0])
            if not keep:
                file.unlink()
        if not same_dice(*dice):
            raise SystemExit(f"pair {pair} of seed {seed}: the two games had different dice")
        results[pair] = tuple(points)
    return results


def summary(results: Sequence[tuple[int, ...]]) -> dict[str, float]:
    """ppg over pairs and over games with their 95% half-widths, and what each side won."""
    games = [points for result in results for points in result]
    ppg, half = interval([sum(result) / 2 for result in results])
    single, single_half = interval(games)
    counts: dict[str, float] = {"games": len(games), "ppg": ppg, "half": half,
                                "single_ppg": single, "single_half": single_half}
    for side, sign in (("gammon", 1), ("gnubg", -1)):
        for points, name in NAMES.items():
            counts[f"{side}_{name}"] = sum(1 for g in games if sign * g == points)
    return counts


def describe(counts: dict[str, float]) -> str:
    def won(side: str) -> str:
        total = sum(int(counts[f"{side}_{name}"]) for name in NAMES.values())
        return (f"{side} won {total} ({int(counts[f'{side}_gammon'])} gammons, "
                f"{int(counts[f'{side}_backgammon'])} backgammons)")

    return (f"{counts['ppg']:+.3f} ± {counts['half']:.3f} ppg over pairs "
            f"(single games ± {counts['single_half']:.3f}); {won('gammon')}, {won('gnubg')}")


def paired_difference(results: dict[int, tuple[int, ...]],
                      baseline: dict[int, tuple[int, ...]]) -> tuple[float, float, int]:
    """This run's mean points a game minus the baseline's over the pairs both played: the
    mean of the pairs' differences, its 95% half-width and the number of pairs."""
    common = sorted(set(results) & set(baseline))
    if not common:
        raise SystemExit("the baseline results file has none of this run's pairs")
    mean, half = interval([(sum(results[p]) - sum(baseline[p])) / 2 for p in common])
    return mean, half, len(common)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games (two per pair)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="expert", help="gammon's checker-play level")
    parser.add_argument("--gnubg-ply", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=5,
                        help="pairs per gnubg run, and so per checkpoint (default 5)")
    parser.add_argument("--results", type=Path, default=None,
                        help="the results file (default: named after the settings, under "
                             "benchmarks/results/)")
    parser.add_argument("--weights", type=Path, default=None,
                        help="gammon's networks (default: the shipped ones)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another run's results file: print the paired difference")
    args = parser.parse_args(argv)
    if args.games < 2 or args.jobs < 1 or args.batch < 1 or args.gnubg_ply < 0:
        parser.error("--games is at least 2, --jobs and --batch at least 1, --gnubg-ply >= 0")
    if not os.access(GNUBG, os.X_OK):
        raise SystemExit(f"GNU Backgammon is not installed ({GNUBG})")

    pairs = args.games // 2
    extra = ["--no-resign", "--no-cube"]
    tag = ""
    if args.weights is not None:
        extra += ["--weights", str(args.weights)]
        tag = "-w" + hashlib.sha256(args.weights.read_bytes()).hexdigest()[:12]
    store = args.results or RESULTS / (f"gnubg-money-nocube-{args.level}"
                                       f"-vs-gnubg{args.gnubg_ply}ply-seed{args.seed}{tag}.txt")
    print(f"gammon ({args.level}) vs GNU Backgammon {args.gnubg_ply}-ply, cubeless money, "
          f"{2 * pairs} games on duplicate dice, seed {args.seed}: {store}", flush=True)

    def play(port: int, chunk: list[int], folder: Path) -> dict[int, tuple[int, ...]]:
        return play_pairs(port, chunk, args.seed, args.gnubg_ply, folder)

    done = run_pairs(
        store, 2, pairs, args.jobs, args.batch,
        lambda job: external_server(args.level, 0, args.seed * 7919 + job, extra),
        play, lambda done: describe(summary(list(done.values()))).split(";")[0],
        every=max(args.batch, 50))
    print(describe(summary([done[p] for p in range(pairs)])))
    if args.baseline is not None:
        mean, half, common = paired_difference(
            {p: done[p] for p in range(pairs)}, read_results(args.baseline, 2))
        print(f"paired against {args.baseline.name}: {mean:+.4f} ± {half:.4f} ppg "
              f"over {common} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
