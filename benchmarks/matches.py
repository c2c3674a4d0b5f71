"""The bot against a weaker self in whole matches (``gammon bench matches``).

``--baseline cubeless`` (the default): the cube's worth. Both sides play the same checker
play (the engine at ``--level``, cubeless money equity); one side also uses the cube —
doubles, takes, drops, beavers, resigns — as :class:`gammon.engine.matchbot.MatchBot`
decides, the other (``cube=False``) never doubles or resigns and takes a double when its
cubeless equity is above -0.5.

``--baseline money-checkers``: the worth of checker play at the score. Both sides use the
cube the same way; one ranks its plays at the match score and cube (the default bot), the
other by cubeless money equity (``at_score=False``, the bot before match-aware play).

Money games (``--length 0``, one game each, Jacoby off) or matches to ``--length`` points.
Duplicate dice: pair ``p`` draws its dice from ``random.Random(seed * 1_000_003 + p)`` in
both seats.

Prints the cube side's points per game (money) or match-winning rate (matches) with a 95%
confidence interval over pairs. Results are saved per pair under ``benchmarks/results/`` and
a run with the same arguments resumes.

Run: ``python benchmarks/matches.py --games 400 --seed 1 [--length 0] [--level expert]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from gammon.core.events import GameEnded
from gammon.core.game import Rules
from gammon.core.match import Match
from gammon.engine.matchbot import MatchBot, play_match
from gammon.engine.player import Engine

RESULTS = Path(__file__).parent / "results"


def cube_side_result(match: Match, cube_player: int, rules: Rules) -> float:
    """Points won by the cube side (money) or 1/0 for winning the match."""
    if rules.is_money:
        result: GameEnded = match.results[-1]
        return float(result.points if result.winner == cube_player else -result.points)
    return 1.0 if match.winner == cube_player else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games (money) or matches")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--length", type=int, default=0, help="match length, 0 for money")
    parser.add_argument("--level", default="expert")
    parser.add_argument("--plies", type=int, default=0, help="ply of the cube decisions")
    parser.add_argument("--baseline", choices=("cubeless", "money-checkers"),
                        default="cubeless", help="the other side (see above)")
    args = parser.parse_args(argv)
    cubeless = args.baseline == "cubeless"

    rules = Rules(length=args.length)
    engine = Engine.load()
    pairs = max(args.games // 2, 1)
    RESULTS.mkdir(exist_ok=True)
    baseline = "" if cubeless else "-vs-money-checkers"
    store = RESULTS / (f"matches-len{args.length}-{args.level}-ply{args.plies}"
                       f"-seed{args.seed}{baseline}.txt")
    done: list[tuple[float, float]] = []
    if store.exists():
        done = [tuple(map(float, line.split())) for line in store.read_text().split("\n")
                if line.strip()]  # type: ignore[misc]
        print(f"resuming: {len(done)} pairs already in {store}")
    started = time.perf_counter()
    resumed = len(done)
    with store.open("a") as out:
        for pair in range(len(done), pairs):
            results = []
            for cube_player in (0, 1):
                # the side measured sits at cube_player (it has the cube, or plays at the score)
                bots = [MatchBot(engine, args.level, cube=not cubeless, plies=args.plies,
                                 rng=random.Random(pair), at_score=False) for _ in range(2)]
                bots[cube_player] = MatchBot(engine, args.level, cube=True, plies=args.plies,
                                             rng=random.Random(pair), at_score=not cubeless)
                dice = random.Random(args.seed * 1_000_003 + pair)
                match = play_match((bots[0], bots[1]), rules, dice)
                results.append(cube_side_result(match, cube_player, rules))
            done.append((results[0], results[1]))
            out.write(f"{results[0]} {results[1]}\n")
            out.flush()
            if (pair + 1) % 10 == 0 or pair + 1 == pairs:
                rate = (pair + 1 - resumed) / max(time.perf_counter() - started, 1e-9)
                print(f"  {pair + 1}/{pairs} pairs ({rate:.2f} pairs/s)", flush=True)

    per_pair = [(a + b) / 2 for a, b in done[:pairs]]
    mean = statistics.fmean(per_pair)
    half = 1.96 * statistics.stdev(per_pair) / len(per_pair) ** 0.5 if len(per_pair) > 1 else 0
    who = ("cube bot vs cubeless bot" if cubeless
           else "checker play at the score vs money checker play")
    if rules.is_money:
        print(f"{who} ({args.level}, {2 * len(per_pair)} money games, "
              f"seed {args.seed}): {mean:+.3f} ± {half:.3f} points per game")
    else:
        print(f"{who} ({args.level}, {2 * len(per_pair)} matches to "
              f"{args.length}, seed {args.seed}): {100 * mean:.1f}% ± {100 * half:.1f}% won")
    return 0


if __name__ == "__main__":
    sys.exit(main())
