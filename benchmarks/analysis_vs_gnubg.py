"""gammon's analysis of GNU Backgammon's own matches next to GNU Backgammon's analysis of them
(``gammon bench analysis_vs_gnubg``).

GNU Backgammon (Debian's ``/usr/games/gnubg``) plays ``--matches`` matches against itself at
0-ply (``set seed SEED+i``, Mersenne Twister) and exports each as a ``.mat`` file. Then both
programs analyse every file at ``--ply``: gnubg with ``analyse match`` (checker play and
cube at that many plies), gammon with :func:`gammon.engine.analysis.analyse_actions`.
GNU BG only measures here, as a referee; nothing of it is learnt from.

Printed per match and player: the checker-play error rate (mEMG per unforced move: the
equity lost at the score, normalised to the cube), then the means over all players and
gammon's gap to gnubg. A world-class player's error rate is a few mEMG; an analysis whose
rate for gnubg's own play is far above gnubg's own verdict invents errors.

The files and each program's figures are kept under ``benchmarks/results/analysis-gnubg/``;
a run with the same arguments resumes (re-analyses nothing already done).

Run: ``gammon bench analysis_vs_gnubg --matches 5 --length 7 --seed 1 --ply 2``
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from gammon.engine.analysis import Recheck, analyse_actions
from gammon.formats import mat

RESULTS = Path(__file__).parent / "results" / "analysis-gnubg"
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"


def gnubg(commands: list[str]) -> str:
    done = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(commands) + "\n",
                          capture_output=True, text=True, timeout=3600, check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise SystemExit(f"gnubg failed:\n{output[-3000:]}")
    return output


def self_play(file: Path, seed: int, length: int) -> None:
    """A match gnubg 0-ply plays against itself, exported to ``file``."""
    players = [f"set player {side} {setting}" for side in (0, 1)
               for setting in ("gnubg", "chequerplay evaluation plies 0",
                               "cubedecision evaluation plies 0")]
    gnubg([*players, "set display off", "set rng mersenne", f"set seed {seed}",
           f"new match {length}", f"export match mat {file}"])


def gnubg_rates(file: Path, plies: int) -> list[float]:
    """gnubg's checker-play error rate (mEMG per unforced move) of players 0 and 1."""
    output = gnubg([f"import mat {file}",
                    f"set analysis chequerplay evaluation plies {plies}",
                    f"set analysis cubedecision evaluation plies {plies}",
                    "analyse match", "show statistics match"])
    # the first "Error rate mEMG" line is the checker play's (then luck, cube, overall)
    row = re.search(r"Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)", output)
    if not row:
        raise SystemExit(f"no error rate in gnubg's statistics of {file}:\n{output[-2000:]}")
    return [abs(float(row.group(1))), abs(float(row.group(2)))]


def gammon_rates(file: Path, plies: int, recheck: Recheck | None) -> list[float]:
    """gammon's checker-play error rate of players 0 and 1, in the same unit."""
    record = mat.load(file)
    analysis = analyse_actions(record.actions(), record.rules, plies=plies,
                               start=record.new_match(), recheck=recheck)
    rates = []
    for player in (0, 1):
        losses = [d.loss for d in analysis.decisions if d.player == player and not d.forced]
        rates.append(1000.0 * statistics.fmean(losses) if losses else 0.0)
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--length", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ply", type=int, default=2, help="both analyses' depth")
    parser.add_argument("--tag", default="", help="names gammon's figures (e.g. a version)")
    parser.add_argument("--recheck-games", type=int, default=0,
                        help="gammon's errors graded again by rollouts of N games (0: none)")
    parser.add_argument("--recheck-truncate", type=int, default=7)
    args = parser.parse_args(argv)
    recheck = (Recheck(args.recheck_games, args.recheck_truncate) if args.recheck_games
               else None)
    if recheck is not None:
        args.tag += f"-recheck{args.recheck_games}x{args.recheck_truncate}"

    RESULTS.mkdir(parents=True, exist_ok=True)
    # gnubg's verdicts do not depend on gammon's version: one file for every tag
    stores = {"gnubg": RESULTS / f"gnubg-rates-ply{args.ply}.json",
              "gammon": RESULTS / f"gammon-rates-ply{args.ply}{args.tag}.json"}
    rates: dict[str, dict[str, list[float]]] = {
        who: json.loads(store.read_text()) if store.exists() else {}
        for who, store in stores.items()}
    analyse = {"gnubg": gnubg_rates,
               "gammon": lambda file, plies: gammon_rates(file, plies, recheck)}
    for i in range(args.matches):
        seed = args.seed + i
        file = RESULTS / f"gnubg-selfplay-len{args.length}-seed{seed}.mat"
        if not file.exists():
            self_play(file, seed, args.length)
        for who in ("gnubg", "gammon"):
            if file.name not in rates[who]:
                started = time.perf_counter()
                rates[who][file.name] = analyse[who](file, args.ply)
                stores[who].write_text(json.dumps(rates[who], indent=1) + "\n")
                print(f"  {file.name}: {who} {args.ply}-ply in "
                      f"{time.perf_counter() - started:.0f} s", flush=True)

    names = [f"gnubg-selfplay-len{args.length}-seed{args.seed + i}.mat"
             for i in range(args.matches)]
    print(f"checker-play error rate, mEMG per unforced move, {args.ply}-ply analyses of "
          f"{args.matches} GNU BG 0-ply self-play matches to {args.length}")
    print(f"{'match':<34} {'player':>6} {'gnubg':>7} {'gammon':>7}")
    gaps = []
    for name in names:
        for player in (0, 1):
            theirs, ours = rates["gnubg"][name][player], rates["gammon"][name][player]
            gaps.append(ours - theirs)
            print(f"{name:<34} {player:>6} {theirs:>7.2f} {ours:>7.2f}")
    theirs = statistics.fmean(rates["gnubg"][n][p] for n in names for p in (0, 1))
    ours = statistics.fmean(rates["gammon"][n][p] for n in names for p in (0, 1))
    half = 1.96 * statistics.stdev(gaps) / len(gaps) ** 0.5 if len(gaps) > 1 else 0.0
    print(f"mean over {len(gaps)} players: gnubg {theirs:.2f}, gammon {ours:.2f}, "
          f"gap {ours - theirs:+.2f} ± {half:.2f} mEMG")
    return 0


if __name__ == "__main__":
    sys.exit(main())
