"""Play now's pairing rule (:mod:`gammon.server.pairing`) on simulated arrivals: players come
at random (a Poisson stream of ``--per-hour`` arrivals in all, shared among ``--pools`` pools
with Zipf-like weights: the first pool the busiest), ratings drawn from a normal law (mean
1500, ``--spread`` standard deviation), and a pass of the pure rule runs in every pool each
``--interval`` seconds, as the server's passes do (an arrival's own pass is left out: at most
one interval more of waiting). A player not paired after ``--patience`` seconds leaves
unpaired (or, as with the bot fallback, plays the bot).

Prints, for the players paired, the waiting time (median, 90th and 99th percentile, longest)
and the rating gap of their pair (median, 90th, 99th, largest), then how many left
unpaired; with ``--json``, one JSON line too. No server, no database: the rule alone.

Run: ``python benchmarks/pairing.py [--per-hour 2000] [--pools 20] [--hours 4]
[--spread 200] [--interval 1] [--patience 300] [--seed 1]`` (also ``gammon bench
pairing``); the band's thresholds are the server's defaults unless
``--band-start/--band-step/--band-every/--band-max`` say otherwise.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys

from gammon.server.pairing import Band, Seeker, pairs


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of ``values``, 0 when empty."""
    if not values:
        return 0.0
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, round(q / 100 * len(ranked)) - 1))]


def simulate(*, per_hour: float, pools: int, hours: float, spread: float, interval: float,
             patience: float, rule: Band, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    weights = [1 / (n + 1) for n in range(pools)]
    end = hours * 3600
    arrivals: list[tuple[float, int, Seeker]] = []
    t, n = 0.0, 0
    while True:
        t += rng.expovariate(per_hour / 3600)
        if t >= end:
            break
        n += 1
        pool = rng.choices(range(pools), weights)[0]
        arrivals.append((t, pool, Seeker(n, rng.gauss(1500, spread), t)))
    waiting: list[list[Seeker]] = [[] for _ in range(pools)]
    waits: list[float] = []
    gaps: list[float] = []
    left = 0
    upcoming = iter(arrivals)
    pending = next(upcoming, None)
    now = 0.0
    while now < end or any(waiting):
        now += interval
        while pending is not None and pending[0] <= now:
            waiting[pending[1]].append(pending[2])
            pending = next(upcoming, None)
        for members in waiting:
            if len(members) < 2 and not (members and now - members[0].since > patience):
                continue
            made = pairs(members, now, rule)
            taken = set()
            for a, b in made:
                waits += [now - a.since, now - b.since]
                gaps.append(abs(a.rating - b.rating))
                taken.update((a.id, b.id))
            stay = [s for s in members if s.id not in taken and now - s.since <= patience]
            left += len(members) - len(taken) - len(stay)
            members[:] = stay
        if now >= end and pending is None:
            left += sum(len(m) for m in waiting)
            break
    return {"arrivals": len(arrivals), "paired": len(waits), "left_unpaired": left,
            "wait_p50": percentile(waits, 50), "wait_p90": percentile(waits, 90),
            "wait_p99": percentile(waits, 99), "wait_max": max(waits, default=0.0),
            "wait_mean": statistics.fmean(waits) if waits else 0.0,
            "gap_p50": percentile(gaps, 50), "gap_p90": percentile(gaps, 90),
            "gap_p99": percentile(gaps, 99), "gap_max": max(gaps, default=0.0)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = Band()
    parser.add_argument("--per-hour", type=float, default=2000.0)
    parser.add_argument("--pools", type=int, default=20)
    parser.add_argument("--hours", type=float, default=4.0)
    parser.add_argument("--spread", type=float, default=200.0)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--patience", type=float, default=300.0)
    parser.add_argument("--band-start", type=float, default=defaults.start)
    parser.add_argument("--band-step", type=float, default=defaults.step)
    parser.add_argument("--band-every", type=float, default=defaults.every)
    parser.add_argument("--band-max", type=float, default=defaults.most)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rule = Band(start=args.band_start, step=args.band_step, every=args.band_every,
                most=args.band_max)
    result = simulate(per_hour=args.per_hour, pools=args.pools, hours=args.hours,
                      spread=args.spread, interval=args.interval, patience=args.patience,
                      rule=rule, seed=args.seed)
    print(f"{result['arrivals']} arrivals in {args.hours:g} h over {args.pools} pools "
          f"({args.per_hour:g} an hour), band {rule.start:g} + {rule.step:g} every "
          f"{rule.every:g} s, at most {rule.most:g}")
    print(f"paired {result['paired']}, left unpaired after {args.patience:g} s: "
          f"{result['left_unpaired']}")
    print("wait (s): p50 {wait_p50:.0f}  p90 {wait_p90:.0f}  p99 {wait_p99:.0f}  "
          "max {wait_max:.0f}  mean {wait_mean:.1f}".format(**result))
    print("rating gap: p50 {gap_p50:.0f}  p90 {gap_p90:.0f}  p99 {gap_p99:.0f}  "
          "max {gap_max:.0f}".format(**result))
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
