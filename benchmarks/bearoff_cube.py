"""What the two-sided bear-off database changes in short races (``gammon bench bearoff_cube``).

Money play, the cube centred: for ``--positions`` seeded races of ``--min``..6 checkers a
side in the home boards where the side on roll has at least ``--min-win`` cubeless winning
chances, the cube decision of the engine's Janowski model (the cube efficiency of a
bear-off, on the network's 0-ply probabilities, and on the database's exact winning chance)
is graded by the database's exact cubeful equities (:mod:`gammon.engine.twosided`): the
loss of the chosen action (doubling, and the opponent's answer) against the best, in mEMG
per decision, with a 95% interval. The database's own decisions lose nothing by
construction; this is what the bots and the analysis gained by reading it.

Run: ``gammon bench bearoff_cube --positions 2000 --seed 1``
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys

from gammon.core.position import Position
from gammon.engine import twosided
from gammon.engine.cube import CubeInfo, Response, cube_decision, cube_efficiency
from gammon.engine.player import Engine, Probabilities


def random_home(rng: random.Random, checkers: int) -> dict[int, int]:
    board: dict[int, int] = {}
    for _ in range(checkers):
        point = rng.randint(1, 6)
        board[point] = board.get(point, 0) + 1
    return board


def losses(position: Position, probabilities: Probabilities) -> tuple[float, float]:
    """The exact equity lost by the model's double decision and by its answer."""
    nd, dt, dp = twosided.money_cube(position, "centred")
    decision = cube_decision(probabilities, CubeInfo(), efficiency=cube_efficiency(position))
    best = max(nd, min(dt, dp))
    chosen = min(dt, dp) if decision.action.doubles else nd
    takes = decision.response is not Response.PASS
    answer = max(0.0, dt - dp) if takes else max(0.0, dp - dt)
    return best - chosen, answer


def line(name: str, values: list[float]) -> str:
    mean = 1000 * statistics.fmean(values)
    half = 1960 * statistics.stdev(values) / math.sqrt(len(values))
    wrong = sum(v > 1e-9 for v in values)
    return (f"  {name:<34} {mean:6.2f} ± {half:4.2f} mEMG   wrong in {wrong} of "
            f"{len(values)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min", type=int, default=2, help="fewest checkers a side")
    parser.add_argument("--min-win", type=float, default=0.5)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    engine = Engine.load()
    found: list[Position] = []
    while len(found) < args.positions:
        position = Position.from_points(random_home(rng, rng.randint(args.min, 6)),
                                        random_home(rng, rng.randint(args.min, 6)))
        if twosided.win_probability(position) >= args.min_win:
            found.append(position)
    net: tuple[list[float], list[float]] = ([], [])
    exact: tuple[list[float], list[float]] = ([], [])
    for position in found:
        for out, p in ((net, engine.evaluate(position)),
                       (exact, Probabilities(twosided.win_probability(position), 0, 0, 0, 0))):
            double, answer = losses(position, p)
            out[0].append(double)
            out[1].append(answer)
    print(f"money cube of {args.positions} races of {args.min}-6 checkers a side, the side on "
          f"roll at least {args.min_win:.0%} to win (seed {args.seed}), graded exactly:")
    print(line("model on 0-ply probabilities: double", net[0]))
    print(line("                              answer", net[1]))
    print(line("model on exact win chances:   double", exact[0]))
    print(line("                              answer", exact[1]))
    print("  the two-sided database:              0.00 mEMG (exact)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
