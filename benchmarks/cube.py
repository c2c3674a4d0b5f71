"""Two cube policies head to head with duplicate dice (``gammon bench cube``).

Both sides are :class:`gammon.engine.matchbot.MatchBot` with the same engine, checker play
(``--level``) and cube depth (``--plies``); the *variant* differs from the *base* (the
shipped bot) only where the flags say: the cube efficiency of one class of position
(``--contact-x``, ``--crashed-x``, ``--race-x`` for a flat race value, ``--race-offset`` to
move GNU Backgammon's race formula, bear-offs included) or ``--no-resign`` (never offers a
resignation; it still answers one) or ``--resign-plies N`` (an offer found at the cube's depth
is made only if an evaluation at ``N`` plies confirms it).

Pair ``p`` plays two games with the dice of ``random.Random(seed * 1_000_003 + p)``, the
variant first in seat 0, then in seat 1. At every cube or resignation decision the bot on
turn also asks the other policy what it would do; a game in which the two never disagree is
the base bot's game against itself, so a pair without any disagreement scores exactly 0 for
the variant (checked: a pair that breaks this stops the run). The interval therefore comes
from the pairs where the policies met a different decision, and the report counts them.

Prints the variant's points per game (money) or match-winning rate minus 50% (matches, with
``--length``) against the base with a 95% interval over pairs, the games with a
disagreement, and the resignations offered and accepted by each side. Each pair is saved as
one line of ``benchmarks/results/cube-<variant>-...txt`` (:func:`to_line`); a run with the
same arguments resumes, and one asking for no more pairs than are saved only reports.

Run: ``gammon bench cube --contact-x 0.60 --games 20000 --seed 1``
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from gammon.core.actions import AcceptResign, Action, OfferResign
from gammon.core.game import Phase, Rules
from gammon.engine.cube import DEFAULT_EFFICIENCY, CubeEfficiency
from gammon.engine.matchbot import MatchBot, play_match
from gammon.engine.player import WEIGHTS_FILE, Engine

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gammon.core.dice import Roll
    from gammon.core.match import Match
    from gammon.core.position import Position
    from gammon.engine.evaluator import Evaluator, Probabilities, RankedPlay

RESULTS = Path(__file__).parent / "results"
DECISIONS = (Phase.BEFORE_ROLL, Phase.CUBE_OFFERED, Phase.RESIGN_OFFERED)


class CachedEvaluator:
    """An engine that remembers its last evaluations before the roll: the two policies of
    a decision (and the resignation and cube questions of one turn) share one evaluation."""

    def __init__(self, engine: Evaluator, size: int = 256) -> None:
        self.engine = engine
        self.size = size
        self.cache: dict[tuple[Position, int], Probabilities] = {}
        self.hits = 0

    def evaluate(self, position: Position, *, plies: int = 0) -> Probabilities:
        key = (position, plies)
        found = self.cache.get(key)
        if found is not None:
            self.hits += 1
            return found
        if len(self.cache) >= self.size:
            self.cache.clear()
        found = self.cache[key] = self.engine.evaluate(position, plies=plies)
        return found

    def evaluate_batch(self, positions: Sequence[Position], *,
                       plies: int = 0) -> list[Probabilities]:
        return self.engine.evaluate_batch(positions, plies=plies)

    def rank_plays(self, position: Position, roll: Roll, *, plies: int = 0) -> list[RankedPlay]:
        own = getattr(self.engine, "rank_plays", None)
        if own is None:
            from gammon.engine.evaluator import rank_plays

            return rank_plays(self.engine, position, roll, plies=plies)
        ranked: list[RankedPlay] = own(position, roll, plies=plies)
        return ranked


@dataclass
class Watched:
    """A seat's bot, and the other policy asked the same question at every cube or
    resignation decision (the checker play is the same by construction)."""

    bot: MatchBot
    other: MatchBot
    disagreements: int = 0
    where: list[int] = field(default_factory=list)

    def decide(self, match: Match, player: int) -> Action | None:
        action = self.bot.decide(match, player)
        if (match.to_act == player and match.phase in DECISIONS
                and self.other.decide(match, player) != action):
            self.disagreements += 1
        return action


@dataclass(frozen=True)
class Policy:
    """What a bot's cube and resignation decisions depend on (see :class:`MatchBot`); the
    defaults are the shipped bot's."""

    efficiency: CubeEfficiency = DEFAULT_EFFICIENCY
    resign: bool = True
    resign_plies: int = MatchBot.resign_plies


@dataclass(frozen=True)
class Policies:
    base: Policy
    variant: Policy
    label: str


def variant_of(args: argparse.Namespace) -> Policies:
    """The variant the flags describe, and a label for its result file."""
    x = DEFAULT_EFFICIENCY
    parts = []
    if args.contact_x is not None:
        x = CubeEfficiency(**{**_fields(x), "contact": args.contact_x})
        parts.append(f"contact{args.contact_x:.2f}")
    if args.crashed_x is not None:
        x = CubeEfficiency(**{**_fields(x), "crashed": args.crashed_x})
        parts.append(f"crashed{args.crashed_x:.2f}")
    if args.race_x is not None:
        x = CubeEfficiency(**{**_fields(x), "race_base": args.race_x, "race_per_pip": 0.0,
                              "race_min": args.race_x, "race_max": args.race_x,
                              "bearoff": args.race_x})
        parts.append(f"race{args.race_x:.2f}")
    if args.race_offset:
        x = x.shifted_race(args.race_offset)
        parts.append(f"race{args.race_offset:+.2f}")
    resign = not args.no_resign
    if not resign:
        parts.append("noresign")
    resign_plies = Policy.resign_plies
    if args.resign_plies is not None and args.resign_plies != resign_plies:
        resign_plies = args.resign_plies
        parts.append(f"resign{resign_plies}ply")
    if not parts:
        raise SystemExit("the variant must differ from the base: give --contact-x, "
                         "--crashed-x, --race-x, --race-offset, --no-resign or "
                         "--resign-plies")
    return Policies(Policy(), Policy(x, resign, resign_plies), "-".join(parts))


def _fields(x: CubeEfficiency) -> dict[str, float]:
    return {name: getattr(x, name) for name in CubeEfficiency.__dataclass_fields__}


def _bot(engine: Evaluator, policy: Policy, level: str, plies: int, pair: int) -> MatchBot:
    return MatchBot(engine, level, cube=True, plies=plies, rng=random.Random(pair),
                    efficiency=policy.efficiency, resign=policy.resign,
                    resign_plies=policy.resign_plies)


def result_for(match: Match, player: int, rules: Rules) -> float:
    """Points won by ``player`` (money) or 1/0 for winning the match."""
    if rules.is_money:
        result = match.results[-1]
        return float(result.points if result.winner == player else -result.points)
    return 1.0 if match.winner == player else 0.0


def resignations(record: list[Action], variant_seat: int) -> dict[str, list[int]]:
    """Offers made and accepted, by the side ("base", "variant") that offered."""
    counts = {"base": [0, 0], "variant": [0, 0]}
    side = "base"
    for action in record:
        if isinstance(action, OfferResign):
            side = "variant" if action.player == variant_seat else "base"
            counts[side][0] += 1
        elif isinstance(action, AcceptResign):
            counts[side][1] += 1
    return counts


def play_pair(engine: Evaluator, policies: Policies, rules: Rules, seed: int, pair: int, *,
              level: str = "expert", plies: int = 0) -> dict[str, object]:
    """The two games of ``pair``: the variant's result in each, whether its policies
    disagreed anywhere, and the resignations."""
    points, differed = [], []
    offers = {"base": [0, 0], "variant": [0, 0]}
    for variant_seat in (0, 1):
        seats = []
        for seat in (0, 1):
            mine, theirs = ((policies.variant, policies.base) if seat == variant_seat
                            else (policies.base, policies.variant))
            seats.append(Watched(_bot(engine, mine, level, plies, pair),
                                 _bot(engine, theirs, level, plies, pair)))
        record: list[Action] = []
        match = play_match((seats[0], seats[1]), rules,
                           random.Random(seed * 1_000_003 + pair), record=record)
        points.append(result_for(match, variant_seat, rules))
        differed.append(any(s.disagreements for s in seats))
        for side, (made, accepted) in resignations(record, variant_seat).items():
            offers[side][0] += made
            offers[side][1] += accepted
    if not any(differed) and points[0] + points[1] != (0.0 if rules.is_money else 1.0):
        raise RuntimeError(f"pair {pair}: the policies never disagreed yet the games differ "
                           f"({points}); the games are not reproducible")
    return {"pair": pair, "points": points, "differed": differed, "offers": offers}


def to_line(row: dict[str, object]) -> str:
    """A pair as one line: the variant's two results, whether each game saw a disagreement,
    then resignations offered and accepted by the base and by the variant."""
    offers = row["offers"]
    assert isinstance(offers, dict)
    numbers = [*row["points"], *(int(d) for d in row["differed"]),  # type: ignore[misc]
               *offers["base"], *offers["variant"]]
    return " ".join(f"{n:g}" for n in numbers)


def from_line(pair: int, line: str) -> dict[str, object]:
    """The pair that :func:`to_line` wrote."""
    v = [float(n) for n in line.split()]
    return {"pair": pair, "points": v[0:2], "differed": [bool(v[2]), bool(v[3])],
            "offers": {"base": [int(v[4]), int(v[5])], "variant": [int(v[6]), int(v[7])]}}


def summary(pairs: list[dict[str, object]], rules: Rules) -> dict[str, float]:
    """Mean and 95% half-interval of the variant's result per game (money: points; match:
    match-winning rate minus one half), and the counts of disagreement and resignations."""
    offset = 0.0 if rules.is_money else 0.5
    per_pair = [sum(p["points"]) / 2 - offset for p in pairs]  # type: ignore[arg-type]
    n = len(per_pair)
    mean = statistics.fmean(per_pair) if n else 0.0
    half = 1.96 * statistics.stdev(per_pair) / n ** 0.5 if n > 1 else 0.0
    games_differed = sum(sum(p["differed"]) for p in pairs)  # type: ignore[arg-type]
    pairs_differed = sum(any(p["differed"]) for p in pairs)  # type: ignore[arg-type]
    out = {"pairs": n, "mean": mean, "half": half, "games_differed": games_differed,
           "pairs_differed": pairs_differed}
    for side in ("base", "variant"):
        out[f"{side}_offers"] = sum(p["offers"][side][0] for p in pairs)  # type: ignore[index]
        out[f"{side}_accepted"] = sum(p["offers"][side][1] for p in pairs)  # type: ignore[index]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games (two per pair)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--length", type=int, default=0, help="match length, 0 for money")
    parser.add_argument("--level", default="expert")
    parser.add_argument("--plies", type=int, default=0, help="ply of the cube decisions")
    parser.add_argument("--contact-x", type=float)
    parser.add_argument("--crashed-x", type=float)
    parser.add_argument("--race-x", type=float, help="one race efficiency for every race")
    parser.add_argument("--race-offset", type=float, default=0.0,
                        help="added to every race efficiency of the formula")
    parser.add_argument("--no-resign", action="store_true")
    parser.add_argument("--resign-plies", type=int, choices=(0, 1, 2),
                        help="depth of the second look that confirms a resignation offer")
    parser.add_argument("--cpu-minutes", type=float,
                        help="stop (resumably) after so much CPU time of this run")
    parser.add_argument("--every", type=int, default=500, help="progress every so many pairs")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    policies = variant_of(args)
    rules = Rules(length=args.length)
    pairs = max(args.games // 2, 1)
    args.results.mkdir(parents=True, exist_ok=True)
    # Pairs played by other networks must not be resumed: the shipped file's hash is in
    # the name (files of the second generation, before it was, have none).
    shipped = resources.files("gammon.engine") / "weights" / WEIGHTS_FILE
    weights = hashlib.sha256(shipped.read_bytes()).hexdigest()[:12]
    store = args.results / (f"cube-{policies.label}-len{args.length}-{args.level}"
                            f"-ply{args.plies}-seed{args.seed}-w{weights}.txt")
    done: list[dict[str, object]] = []
    if store.exists():
        done = [from_line(i, line) for i, line in
                enumerate(line for line in store.read_text().splitlines() if line.strip())]
        print(f"resuming: {len(done)} pairs already in {store}", flush=True)
    if len(done) < pairs:
        engine = CachedEvaluator(Engine.load())
        started = time.perf_counter()
        cpu_started = time.process_time()
        resumed = len(done)
        with store.open("a") as out:
            for pair in range(len(done), pairs):
                row = play_pair(engine, policies, rules, args.seed, pair, level=args.level,
                                plies=args.plies)
                done.append(row)
                out.write(to_line(row) + "\n")
                out.flush()
                if (pair + 1) % args.every == 0 or pair + 1 == pairs:
                    s = summary(done, rules)
                    rate = (pair + 1 - resumed) / max(time.perf_counter() - started, 1e-9)
                    print(f"  {pair + 1}/{pairs} pairs ({rate:.1f} pairs/s): "
                          f"{s['mean']:+.4f} ± {s['half']:.4f}, "
                          f"{s['games_differed']} games differed", flush=True)
                if (args.cpu_minutes is not None
                        and time.process_time() - cpu_started > 60 * args.cpu_minutes):
                    print(f"stopping after {args.cpu_minutes} CPU minutes; the same command "
                          f"resumes", flush=True)
                    break
    if not done:
        return 0
    s = summary(done[:pairs], rules)
    unit = "points per game" if rules.is_money else "match-winning rate above 50%"
    game = "money games" if rules.is_money else f"matches to {args.length}"
    print(f"{policies.label} vs shipped ({args.level}, cube at {args.plies}-ply, "
          f"{2 * s['pairs']:.0f} {game}, seed {args.seed}): {s['mean']:+.4f} ± {s['half']:.4f} "
          f"{unit}")
    print(f"  games with a disagreement: {s['games_differed']:.0f} of {2 * s['pairs']:.0f} "
          f"({s['pairs_differed']:.0f} pairs); pairs without one, each exactly 0: "
          f"{s['pairs'] - s['pairs_differed']:.0f}")
    print(f"  resignations offered / accepted / refused: shipped {s['base_offers']:.0f} / "
          f"{s['base_accepted']:.0f} / {s['base_offers'] - s['base_accepted']:.0f}, variant "
          f"{s['variant_offers']:.0f} / {s['variant_accepted']:.0f} / "
          f"{s['variant_offers'] - s['variant_accepted']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
