"""GNU Backgammon as the referee of the cube at the score (``gammon bench cube_vs_gnubg``).

The positions: every cube decision of seeded self-play matches of gammon's expert bot
(``--matches`` of each length in ``--lengths``, seed ``--seed``) where the side on roll may
double (and its cube does not already win it the match: GNU Backgammon forbids doubling
then) and either its cubeless winning chance is at least ``--min-win`` or it is the
post-Crawford trailer — the decisions where a double is in question. GNU Backgammon then
analyses each one's cube at ``--gnubg-ply`` (``hint`` after ``set matchid`` and ``set
board``: the cubeful equities of no double, double/take and double/pass, as equivalent money
equity normalised to the cube, EMG), and gammon's :class:`MatchBot` makes the same two
decisions at ``--ply``: whether to double, and, doubled, whether to take.

Graded as GNU Backgammon's analysis grades a player (and as the referee graded gammon's
matches): a **double decision** loses GNU's equity of its best action, ``max(ND, min(DT,
DP))``, minus GNU's equity of the action chosen (ND, or ``min(DT, DP)`` for a double, the
opponent answering right); an **answer** is graded on the positions GNU would double
(``min(DT, DP) >= ND``), and a wrong one loses ``|DT - DP|``. The report gives, overall and
per kind of score (money-like even scores, the leader or the trailer on roll, DMP/Crawford
and post-Crawford, and per cube value), how often gammon agrees and its mean error in
mEMG per decision with a 95% interval; also over its own doubles, takes and passes (the
referee's measure of gammon's matches against GNU Backgammon). A second report applies
gammon's cube model to GNU Backgammon's own cubeless probabilities (from the same
``hint``): the error left is the model's — the Janowski conversion at the score — and
the difference from the first is the evaluation's. With ``--context-ply P``, GNU
Backgammon's own cube at ``P`` plies is graded the same way (what a 0-ply cube can reach).
**Measurement only.** Another engine may measure the bot, never teach it: nothing this
benchmark produces may be used as training data or labels.

**Cache**: the positions and GNU Backgammon's equities are kept in
``benchmarks/results/cube-vs-gnubg<P>ply-<lengths>-seed<S>.json`` after each chunk: a run with
the same arguments resumes, and grading another gammon (``--ply``, ``--weights``) needs no
GNU Backgammon at all.

Run: ``gammon bench cube_vs_gnubg --lengths 3,5,7,9,11 --matches 10 --seed 1 --ply 0``
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gammon.core.actions import Action
from gammon.core.game import Phase, Rules
from gammon.core.match import Match
from gammon.core.position import Position
from gammon.engine.analysis import decision_match_id
from gammon.engine.cube import (
    CubeAction,
    CubeInfo,
    Response,
    cube_decision,
    cube_efficiency,
    take_decision,
)
from gammon.engine.matchbot import DOUBLE, MatchBot, cube_info, play_match
from gammon.engine.player import Engine, Probabilities
from gammon.formats.match_id import MatchKey

RESULTS = Path(__file__).resolve().parent / "results"
GNUBG = "/usr/games/gnubg"
CHUNK = 100
EQUITY = re.compile(r"^\s*\d\. (No double|Double, pass|Double, take)\s+([+-]\d+\.\d+)")
CUBELESS = re.compile(r"^\s+(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)$")
Answer = tuple[tuple[float, float, float], tuple[float, float, float, float, float]]


@dataclass(frozen=True, slots=True)
class Decision:
    """A cube decision: the side on roll's Position ID and Match ID (``turn`` = it, no
    dice), and GNU Backgammon's equities once known."""

    position_id: str
    match_id: str
    gnubg: tuple[float, float, float] | None = None
    """(no double, double/take, double/pass), EMG; None: not analysed yet."""
    gnubg_p: tuple[float, float, float, float, float] | None = None
    """GNU Backgammon's cubeless probabilities at its ply (win, win gammon, win
    backgammon, lose gammon, lose backgammon), for grading the cube model alone."""

    def info(self) -> CubeInfo:
        return CubeInfo.from_match_key(MatchKey.from_id(self.match_id))


def collect(engine: Engine, lengths: Sequence[int], matches: int, seed: int,
            min_win: float) -> list[Decision]:
    """The cube decisions of seeded expert self-play matches (see the module doc)."""
    found: dict[tuple[str, str], Decision] = {}
    for length in lengths:
        for m in range(matches):
            match_seed = seed * 1_000_003 + length * 1_009 + m
            bots = (MatchBot(engine, rng=random.Random(match_seed)),
                    MatchBot(engine, rng=random.Random(match_seed + 1)))
            record: list[Action] = []
            rules = Rules(length=length)
            play_match(bots, rules, random.Random(match_seed), record=record)
            match = Match.new(rules)
            for action in record:
                if _in_question(engine, match, min_win):
                    d = Decision(match.game.position.id(),
                                 decision_match_id(match, match.game.turn))
                    found.setdefault((d.position_id, d.match_id), d)
                match, _ = match.apply(action)
    return list(found.values())


def _in_question(engine: Engine, match: Match, min_win: float) -> bool:
    """Whether the side on roll has a cube decision worth grading now."""
    game = match.game
    if (match.phase is not Phase.BEFORE_ROLL or match.is_over
            or not game.can_double(game.turn)):
        return False
    score = cube_info(match, game.turn).score
    if score is not None and score.away_me <= game.cube.value:
        return False  # its cube already wins it the match: GNU forbids doubling
    if score is not None and score.post_crawford and score.away_me > 1:
        return True  # the post-Crawford trailer
    return engine.evaluate(game.position).win >= min_win


def gnubg_equities(decisions: Sequence[Decision], ply: int) -> list[Answer | None]:
    """GNU Backgammon's cube equities and cubeless probabilities of each decision (None
    where it would not analyse it), from one ``gnubg -t`` run. Each ``set board`` prints
    the board with its Position ID and Match ID: a ``hint``'s cube analysis belongs to the
    last pair printed."""
    script = ["set automatic roll off", f"set evaluation cubedecision evaluation plies {ply}",
              f"set evaluation chequerplay evaluation plies {ply}", "set output mwc off",
              "new match 1"]
    for d in decisions:
        script += [f"set matchid {d.match_id}", f"set board {d.position_id}", "hint"]
    done = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(script) + "\n",
                          capture_output=True, text=True, timeout=7200, check=False)
    if done.returncode != 0:
        raise SystemExit(f"gnubg failed: {done.stderr[-2000:]}")
    found: dict[tuple[str, str], Answer] = {}
    position_id = match_id = ""
    block: dict[str, float] = {}
    cubeless: tuple[float, ...] = ()
    for line in done.stdout.splitlines():
        if "Position ID:" in line:
            position_id = line.split("Position ID:")[1].strip()
        elif "Match ID   :" in line:
            match_id = line.split(":", 1)[1].strip()
        elif line.startswith("Cube analysis"):
            block, cubeless = {}, ()
        elif (c := CUBELESS.match(line)) is not None:
            w, wg, wb, _, lg, lb = map(float, c.groups())
            cubeless = (w, wg, wb, lg, lb)
        elif (m := EQUITY.match(line)) is not None:
            block[m.group(1)] = float(m.group(2))
            if len(block) == 3 and len(cubeless) == 5:
                found[position_id, match_id] = (
                    (block["No double"], block["Double, take"], block["Double, pass"]),
                    cubeless)
                block, cubeless = {}, ()
    return [found.get((d.position_id, d.match_id)) for d in decisions]


def score_kind(info: CubeInfo) -> str:
    s = info.score
    if s is None:
        return "money"
    if s.crawford or (s.away_me == 1 and s.away_opp == 1):
        return "DMP/Crawford"
    if s.post_crawford:
        return "post-Crawford"
    if s.away_me == s.away_opp:
        return "even score"
    return "leader on roll" if s.away_me < s.away_opp else "trailer on roll"


@dataclass
class Tally:
    """The errors of one class of decisions, and how many agreed with GNU Backgammon's
    (None: not counted)."""

    errors: list[float]
    agree: int | None = 0

    def line(self, name: str) -> str:
        n = len(self.errors)
        if n == 0:
            return f"  {name:<24} {0:>5}"
        mean = 1000 * statistics.fmean(self.errors)
        half = 1960 * statistics.stdev(self.errors) / math.sqrt(n) if n > 1 else 0.0
        agree = "" if self.agree is None else f"agree {100 * self.agree / n:5.1f}%  "
        return f"  {name:<24} {n:>5}  {agree:<14}error {mean:6.1f} ± {half:4.1f} mEMG"


Chooser = Callable[[Decision], tuple[bool, bool]]
"""A cube policy: for a decision, whether the side on roll doubles, and whether its
opponent takes the double."""


def grade(decisions: Iterable[Decision], choose: Chooser) -> dict[str, dict[str, Tally]]:
    """Per decision kind ("double", "answer") and score class, the errors of ``choose``."""
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(lambda: Tally([])))
    for d in decisions:
        if d.gnubg is None:
            continue
        nd, dt, dp = d.gnubg
        info = d.info()
        doubles, takes = choose(d)
        double_value = min(dt, dp)
        best = max(nd, double_value)
        classes = ("all", score_kind(info), f"cube {info.value}")
        error = best - (double_value if doubles else nd)
        right = (double_value >= nd) == doubles
        for c in (*classes, "its doubles") if doubles else classes:
            tallies["double"][c].errors.append(error)
            tallies["double"][c].agree = (tallies["double"][c].agree or 0) + right
        if double_value >= nd:  # GNU doubles here: its answer is graded
            take_error = max(0.0, dt - dp) if takes else max(0.0, dp - dt)
            for c in (*classes, "its takes" if takes else "its passes"):
                tallies["answer"][c].errors.append(take_error)
                tallies["answer"][c].agree = (tallies["answer"][c].agree or 0) + (
                    (dt <= dp) == takes)
    return tallies


def every_error(tallies: dict[str, dict[str, Tally]]) -> list[float]:
    """Every decision's error, doubles then answers, in the decisions' order (the same items
    for every chooser: which answers are graded depends on GNU Backgammon's equities)."""
    return tallies["double"]["all"].errors + tallies["answer"]["all"].errors


def gammon_chooser(bot: MatchBot) -> Chooser:
    """The bot's own decisions: its evaluation, its cube model."""
    def choose(d: Decision) -> tuple[bool, bool]:
        position, info = Position.from_id(d.position_id), d.info()
        doubles = bot.before_roll(position, info, may_double=True,
                                  may_resign=lambda level: False) == DOUBLE
        takes = bot.answer_double(position, info, may_beaver=False) is not Response.PASS
        return doubles, takes
    return choose


def model_chooser(plies: int) -> Chooser:
    """The bot's cube model on GNU Backgammon's own cubeless probabilities: what is left
    of the error is the model's (the Janowski conversion at the score), not the
    evaluation's."""
    def choose(d: Decision) -> tuple[bool, bool]:
        assert d.gnubg_p is not None
        p = Probabilities(*d.gnubg_p)
        position, info = Position.from_id(d.position_id), d.info()
        x = cube_efficiency(position)
        decision = cube_decision(p, info, efficiency=x, plies=plies)
        answer = take_decision(p, info, efficiency=x, plies=plies)
        return (decision.action in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS),
                answer.response is not Response.PASS)
    return choose


def gnubg_chooser(own: dict[tuple[str, str], tuple[float, float, float]]) -> Chooser:
    """GNU Backgammon's own decisions at another ply: the actions its equities there say."""
    def choose(d: Decision) -> tuple[bool, bool]:
        nd, dt, dp = own[d.position_id, d.match_id]
        return min(dt, dp) >= nd, dt <= dp
    return choose


def report(title: str, tallies: dict[str, dict[str, Tally]]) -> None:
    print(title)
    for kind in ("double", "answer"):
        print(f"{kind}s:")
        cubes = sorted((c for c in tallies[kind] if c.startswith("cube ")),
                       key=lambda c: int(c.split()[1]))
        order = ["all", "its doubles", "its takes", "its passes", "money", "even score",
                 "leader on roll", "trailer on roll", "DMP/Crawford", "post-Crawford", *cubes]
        for c in order:
            if c in tallies[kind]:
                print(tallies[kind][c].line(c))
    print(Tally(every_error(tallies), None).line("every decision"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="3,5,7,9,11", help="match lengths, comma-separated")
    parser.add_argument("--matches", type=int, default=10, help="self-play matches per length")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-win", type=float, default=0.55)
    parser.add_argument("--gnubg-ply", type=int, default=2)
    parser.add_argument("--ply", type=int, default=0, help="gammon's cube decisions' ply")
    parser.add_argument("--weights", default=None)
    parser.add_argument("--baseline", default=None,
                        help="other weights: their cube graded on the same decisions, and "
                             "the paired difference")
    parser.add_argument("--context-ply", type=int, default=None,
                        help="also grade GNU Backgammon's own cube at this ply")
    args = parser.parse_args(argv)
    lengths = [int(n) for n in args.lengths.split(",")]

    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / (f"cube-vs-gnubg{args.gnubg_ply}ply-len{'-'.join(map(str, lengths))}"
                       f"-m{args.matches}-seed{args.seed}-win{args.min_win}.json")
    engine = Engine.load(args.weights)
    if store.exists():
        decisions = [Decision(d["position_id"], d["match_id"],
                              None if d["gnubg"] is None else tuple(d["gnubg"]),
                              None if d.get("gnubg_p") is None else tuple(d["gnubg_p"]))
                     for d in json.loads(store.read_text())]
        print(f"resuming: {len(decisions)} positions in {store}", flush=True)
    else:
        started = time.perf_counter()
        decisions = collect(engine, lengths, args.matches, args.seed, args.min_win)
        print(f"{len(decisions)} cube decisions from self-play in "
              f"{time.perf_counter() - started:.0f} s", flush=True)

    def save() -> None:
        store.write_text(json.dumps(
            [{"position_id": d.position_id, "match_id": d.match_id,
              "gnubg": None if d.gnubg is None else list(d.gnubg),
              "gnubg_p": None if d.gnubg_p is None else list(d.gnubg_p)} for d in decisions],
            indent=0) + "\n")

    todo = [i for i, d in enumerate(decisions) if d.gnubg is None or (
        d.gnubg_p is None and not math.isnan(d.gnubg[0]))]
    save()
    for start in range(0, len(todo), CHUNK):
        chunk = todo[start:start + CHUNK]
        started = time.perf_counter()
        answers = gnubg_equities([decisions[i] for i in chunk], args.gnubg_ply)
        for i, answer in zip(chunk, answers, strict=True):
            # gnubg refuses a few (a cube it will not turn): kept, never asked again
            d = decisions[i]
            decisions[i] = (Decision(d.position_id, d.match_id, (math.nan,) * 3)
                            if answer is None else Decision(d.position_id, d.match_id, *answer))
        save()
        print(f"  gnubg {args.gnubg_ply}-ply: {start + len(chunk)} of {len(todo)} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)

    graded = [d for d in decisions if d.gnubg is not None and not math.isnan(d.gnubg[0])]
    what = (f"{len(graded)} decisions of {args.matches} self-play matches to each of "
            f"{args.lengths}, seed {args.seed}")
    report(f"gammon's cube at {args.ply}-ply judged by GNU Backgammon {args.gnubg_ply}-ply, "
           f"{what}", grade(graded, gammon_chooser(MatchBot(engine, plies=args.ply))))
    if args.baseline:
        mine = every_error(grade(graded, gammon_chooser(MatchBot(engine, plies=args.ply))))
        theirs = every_error(grade(graded, gammon_chooser(
            MatchBot(Engine.load(args.baseline), plies=args.ply))))
        differences = [a - b for a, b in zip(mine, theirs, strict=True)]
        mean = 1000 * statistics.fmean(differences)
        half = 1960 * statistics.stdev(differences) / math.sqrt(len(differences))
        print(f"\npaired against {args.baseline} at {args.ply}-ply, every decision "
              f"({len(differences)}): {mean:+.2f} ± {half:.2f} mEMG (negative: the weights "
              f"graded above lose less); {sum(d < 0 for d in differences)} better, "
              f"{sum(d > 0 for d in differences)} worse", flush=True)
    report(f"\ngammon's cube model on GNU Backgammon's {args.gnubg_ply}-ply cubeless "
           f"probabilities, the same grading", grade(graded, model_chooser(args.gnubg_ply)))
    if args.context_ply is not None:
        context = store.with_name(store.name.replace(f"gnubg{args.gnubg_ply}ply",
                                                     f"gnubg{args.context_ply}ply"))
        own = json.loads(context.read_text()) if context.exists() else {}
        missing = [d for d in graded if f"{d.position_id}:{d.match_id}" not in own]
        if missing:
            for d, answer in zip(missing, gnubg_equities(missing, args.context_ply),
                                 strict=True):
                own[f"{d.position_id}:{d.match_id}"] = None if answer is None else answer[0]
            context.write_text(json.dumps(own, indent=0) + "\n")
        known = {tuple(k.split(":")): v for k, v in own.items() if v is not None}
        report(f"\nGNU Backgammon's own cube at {args.context_ply}-ply, the same grading",
               grade([d for d in graded if (d.position_id, d.match_id) in known],
                     gnubg_chooser(known)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
