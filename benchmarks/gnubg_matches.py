"""Whole matches against GNU Backgammon, with gnubg as referee (``gammon bench gnubg_matches``).

GNU Backgammon (Debian's ``/usr/games/gnubg``, unmodified) plays one side at its own
settings (``--gnubg-ply``, 0 by default: its 0-ply net, no noise) and rolls the dice, keeps
the score and applies its rules (Crawford on); gammon plays the other side through
``gammon external`` (GNU BG's external-player protocol, :mod:`gammon.cli.external`), the
engine at ``--level`` with its cube at ``--ply``.

Duplicate dice: pair ``p`` plays two matches in one gnubg run, both after ``set seed
SEED*1000003+p`` (Mersenne Twister): gammon as gnubg's player 1, then as player 0, so the two
matches start with the same rolls for the other seat (the driving is shared with
``gnubg_money``: ``benchmarks/gnubg_play.py``). Each match is exported as a ``.mat`` file and
read back by gammon's own importer, which replays every play and cube action under gammon's
rules; the winner comes from that replay, so a match gnubg and gammon would score
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
import sys
from pathlib import Path

from gnubg_play import (
    GNUBG,
    RESULTS,
    SEATS,
    duplicate_script,
    external_server,
    interval,
    load_replayed,
    run_gnubg,
    run_pairs,
)


def play_pair(port: int, pair_seed: int, length: int, gnubg_ply: int,
              folder: Path) -> tuple[int, int, int, int]:
    """Two matches on the same dice; gammon's (won, points) in each, gammon as player 1 then
    as player 0."""
    files = [folder / f"{pair_seed}-gammon{seat}.mat" for seat in SEATS]
    run_gnubg(duplicate_script(port, pair_seed, f"new match {length}", gnubg_ply, files),
              f"seed {pair_seed}")
    results: list[int] = []
    for seat, file in zip(SEATS, files, strict=True):
        _, match = load_replayed(file)  # every action legal under gammon's rules
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
    store = RESULTS / (f"gnubg-matches-len{args.length}-{args.level}-ply{args.ply}"
                       f"-vs-gnubg{args.gnubg_ply}ply-seed{args.seed}{args.tag}.txt")

    def play(port: int, chunk: list[int], folder: Path) -> dict[int, tuple[int, ...]]:
        return {pair: play_pair(port, args.seed * 1_000_003 + pair, args.length,
                                args.gnubg_ply, folder) for pair in chunk}

    done = run_pairs(store, 4, pairs, args.jobs, 1,
                     lambda job: external_server(args.level, args.ply, args.seed * 7919 + job),
                     play, lambda done: "")
    results = [done[p] for p in range(pairs)]
    per_pair = [(r[0] + r[2]) / 2 for r in results]
    points = [(r[1] + r[3]) / 2 for r in results]
    won = sum(r[0] + r[2] for r in results)
    rate, half = interval(per_pair)
    margin, margin_half = interval(points)
    print(f"gammon ({args.level}, cube {args.ply}-ply) vs GNU Backgammon {args.gnubg_ply}-ply, "
          f"{2 * pairs} matches to {args.length}, seed {args.seed}: won {won} "
          f"({100 * rate:.1f}% ± {100 * half:.1f}%), "
          f"points per match {margin:+.2f} ± {margin_half:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
