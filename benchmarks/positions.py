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

**Crashed decisions** (``benchmarks/data/crashed-v1.npz``, ``--set crashed-v1``): 2,000
crashed decisions alone, for the crashed network (positions-v2 holds 327, too few to tell
a change of 1 mpt), made with::

    gammon bench positions --generate --out benchmarks/data/crashed-v1.npz --seed 2027 \
        --contact 0 --crashed 2000 --race 0 --top 3 --margin 0.1

and graded by GNU Backgammon 2-ply from the committed cache (``gammon bench reference --set
benchmarks/data/crashed-v1.npz``).

**Decisions at match scores** (``benchmarks/data/match-v1.npz``, ``--set match-v1``): made
with ``--scores N``, N decisions of each score class (:data:`SCORE_CLASSES`: double match
point, the Crawford game's leader and trailer, after it, 2-away/2-away, 2-away/4-away,
4-away/2-away, every other score), met in MatchBot self-play matches started from random
scores (:func:`draw_match_decisions`). Each keeps its score and cube (the side on roll's
view) and is labelled at them: a play's value is its cubeful match winning chance after the
play as an equity (``mwc2eq``, normalised to the cube: mEMG, thousandths of an equivalent
money point), every play at 1-ply, the best 3 by the search's filter at the score at 2-ply
(:func:`label_at_score`; the error rule as above). The report chooses each play at the
decision's score and cube and prints the errors per score class; ``--money-checkers`` also
lets the same net choose by cubeless money equity, and the paired difference is what
playing at the score gains::

    gammon bench positions --generate --out benchmarks/data/match-v1.npz --seed 2026 \
        --scores 350 --top 3
    gammon bench positions --set match-v1 --ply 0 --money-checkers

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

from gammon.core.actions import Action
from gammon.core.dice import Roll
from gammon.core.game import Phase, Rules
from gammon.core.match import Match
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine import search
from gammon.engine.cube import CubeInfo, Owner
from gammon.engine.evaluate import SEARCH_CACHE_ENTRIES, kernel_arrays, new_scratch
from gammon.engine.expert import is_crashed
from gammon.engine.features import is_race
from gammon.engine.matchbot import MatchBot, cube_info, play_match
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
    context: CubeInfo | None = None
    """The score and cube as the side on roll sees them (a match set); None: money."""


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


# -- decisions at a match score -----------------------------------------------------------------

CONTEXT_FIELDS = ("away_me", "away_opp", "cube", "owner", "crawford_state")
"""A match set's context row: the side on roll's and the opponent's points to go, the cube
value, its owner (0 centred, 1 the side on roll, 2 the opponent) and 0 / 1 Crawford game /
2 after it."""
OWNERS = (Owner.CENTRED, Owner.ME, Owner.OPPONENT)
SCORE_CLASSES = ("DMP", "Crawford-leader", "Crawford-trailer", "post-Crawford-leader",
                 "post-Crawford-trailer", "2a-2a", "2a-4a", "4a-2a", "other")
"""A match decision's class by its score, as the side on roll sees it: double match point;
the Crawford game for the side 1-away and for the other (whose gammons matter to both); after
it (the trailer's gammons go, the leader at an even score saves them); the gammon-shy and
gammon-happy scores 2-away/2-away, 2-away/4-away, 4-away/2-away; every other score."""
SCORE_KEEP_CHANCE = (0.5, 0.4, 0.4, 0.4, 0.4, 0.5, 0.5, 0.5, 0.04)
"""Chance that a match decision of each score class is kept: the scores the classes name
come rarely, every other score all the time."""
MATCH_LENGTHS = (3, 5, 7)
MATCH_LEVELS = ("expert", "expert", "intermediate", "casual")
"""The self-play matches' checker-play levels (noise for variety, as draw_decisions)."""


def context_row(info: CubeInfo) -> tuple[int, int, int, int, int]:
    """``info`` (a match score) as a row of :data:`CONTEXT_FIELDS`."""
    score = info.score
    if score is None:
        raise ValueError("a match set's decisions are at a match score, not money")
    state = 1 if score.crawford else 2 if score.post_crawford else 0
    return (score.away_me, score.away_opp, info.value, OWNERS.index(info.owner), state)


def context_of(row: Sequence[int] | np.ndarray) -> CubeInfo:
    """The score and cube of a context row (a ValueError for a row that is none)."""
    away_me, away_opp, cube, owner, state = (int(x) for x in row)
    if not 0 <= owner < len(OWNERS) or not 0 <= state <= 2:
        raise ValueError(f"owner {owner} and Crawford state {state} out of range")
    return CubeInfo.match(away_me, away_opp, cube, OWNERS[owner], crawford=state == 1,
                          post_crawford=state == 2)


def score_class(info: CubeInfo) -> int:
    """The index in :data:`SCORE_CLASSES` of a decision at ``info``."""
    score = info.score
    if score is None:
        raise ValueError("money play has no score class")
    me, opp = score.away_me, score.away_opp
    if me == opp == 1:
        return 0
    if score.crawford:
        return 1 if me == 1 else 2
    if score.post_crawford:
        return 3 if me == 1 else 4
    return {(2, 2): 5, (2, 4): 6, (4, 2): 7}.get((me, opp), 8)


@dataclass
class _Recorder:
    """A self-play bot that notes each checker-play decision it meets, with its context."""

    bot: MatchBot
    met: list[tuple[Position, Roll, CubeInfo]]

    def decide(self, match: Match, player: int) -> Action | None:
        game = match.game
        if match.to_act == player and game.phase is Phase.MOVING and game.roll is not None:
            self.met.append((game.position, game.roll, cube_info(match, player)))
        return self.bot.decide(match, player)


def draw_match_decisions(engine: Engine, wanted: Sequence[int], seed: int,
                         progress: Callable[[str], None] = print) -> list[Decision]:
    """Checker-play decisions of MatchBot self-play matches until every score class has
    ``wanted[class]`` of them. Match ``g`` draws everything from ``random.Random(S *
    1_000_003 + g)``: its length (3, 5 or 7), a starting score (any score short of the end,
    the Crawford game or after it alike), each side's level; it is played to its end (the
    cube in use, 0-ply cube decisions), then its decisions kept by chance
    (:data:`SCORE_KEEP_CHANCE`) while their class needs some, duplicates dropped."""
    taken: list[list[Decision]] = [[] for _ in SCORE_CLASSES]
    seen: set[tuple[Position, int, int, tuple[int, ...]]] = set()
    match_number = 0
    started = time.perf_counter()
    while any(len(taken[k]) < wanted[k] for k in range(len(SCORE_CLASSES))):
        rng = random.Random(seed * 1_000_003 + match_number)
        length = rng.choice(MATCH_LENGTHS)
        score = (rng.randrange(length), rng.randrange(length))
        at_point = [s == length - 1 for s in score]
        crawford_reached = all(at_point) or (any(at_point) and rng.random() < 0.5)
        rules = Rules(length=length)
        met: list[tuple[Position, Roll, CubeInfo]] = []
        bots = tuple(_Recorder(MatchBot(engine, rng.choice(MATCH_LEVELS),
                                        rng=random.Random(rng.random())), met)
                     for _ in range(2))
        play_match((bots[0], bots[1]), rules, rng,
                   start=Match.new(rules, score=score, crawford_reached=crawford_reached))
        for position, roll, info in met:
            k = score_class(info)
            keep = rng.random() < SCORE_KEEP_CHANCE[k]
            key = (position, max(roll.die1, roll.die2), min(roll.die1, roll.die2),
                   context_row(info))
            if (keep and len(taken[k]) < wanted[k] and key not in seen
                    and len(legal_plays(position, roll)) > 1):
                taken[k].append(Decision(position, roll, position_class(position), info))
                seen.add(key)
        match_number += 1
        if match_number % 20 == 0:
            counts = ", ".join(f"{len(t)} {name}"
                               for t, name in zip(taken, SCORE_CLASSES, strict=True))
            progress(f"  drawing: {match_number} matches, {counts} "
                     f"({time.perf_counter() - started:.0f} s)")
    order = sorted((i / max(wanted[k], 1), k, i) for k, t in enumerate(taken)
                   for i in range(len(t)))
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


ALL_PLAYS = MoveFilter(keep=(1_000_000, 1_000_000), margin=(math.inf, math.inf))
"""A move filter that lets every play through."""


def label_at_score(engine: Engine, decision: Decision, top: int) -> Labels:
    """:func:`label` at the decision's score and cube: each play's value there for the side
    that makes it (:meth:`Engine.rank_plays` with ``context``: its cubeful match winning
    chance as ``mwc2eq`` shows it, an equity-like figure in points per game), every play at
    1-ply, then at 2-ply the ``top`` best by the search's own filter at the score (which
    weighs the 1-ply gammons as the score does), with no margin: the search looks no deeper
    at a lone candidate within a margin, and every decision needs a 2-ply label."""
    position, roll, info = decision.position, decision.roll, decision.context
    if info is None:
        raise ValueError("a decision at a score needs its context")
    ranked1 = engine.rank_plays(position, roll, plies=1, move_filter=ALL_PLAYS, context=info)
    plays = np.stack([r.play.position.array() for r in ranked1])
    equity1 = np.array([r.equity for r in ranked1], dtype=np.float64)
    deep = MoveFilter(keep=(1_000_000, max(top, 2)), margin=(math.inf, math.inf))
    ranked2 = engine.rank_plays(position, roll, plies=2, move_filter=deep, context=info)
    at_two = {r.play.position.array().tobytes(): r.equity for r in ranked2 if r.ply == 2}
    equity2 = np.array([at_two.get(board.tobytes(), np.nan) for board in plays])
    return Labels(plays, equity1, equity2)


def choose_at_score(positions: PositionSet, engine: Engine, plies: int,
                    decisions: Iterable[int], *, money: bool = False) -> list[int]:
    """The play the engine picks at ``plies`` (default move filter) for each decision of a
    match set, ranked at the decision's score and cube, or (``money``) by cubeless money
    equity as if the score did not matter."""
    chosen = []
    for d in decisions:
        decision = positions.decision(d)
        context = None if money else decision.context
        best = engine.rank_plays(decision.position, decision.roll, plies=plies,
                                 context=context)[0].play.position.array().tobytes()
        boards = [b.tobytes() for b in positions.plays[positions.start[d]:positions.start[d + 1]]]
        chosen.append(boards.index(best))
    return chosen


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
    contexts: np.ndarray | None = None  # int8[N, 5] (context_row), a match set's scores

    @property
    def at_score(self) -> bool:
        """A match set: each decision at its score and cube, labelled there."""
        return self.contexts is not None

    def __len__(self) -> int:
        return len(self.boards)

    def decision(self, d: int) -> Decision:
        return Decision(Position.from_board(self.boards[d].tolist()),
                        Roll(int(self.dice[d, 0]), int(self.dice[d, 1])), int(self.kinds[d]),
                        None if self.contexts is None else context_of(self.contexts[d]))

    def prefix(self, count: int) -> PositionSet:
        """The first ``count`` decisions (a fair sample: the classes are interleaved)."""
        plays = self.start[count]
        return PositionSet(self.boards[:count], self.dice[:count], self.kinds[:count],
                           self.start[:count + 1], self.plays[:plays], self.equity1[:plays],
                           self.equity2[:plays], self.meta,
                           None if self.contexts is None else self.contexts[:count])

    def save(self, path: Path) -> None:
        scores = {} if self.contexts is None else {"contexts": self.contexts}
        write_atomically(path, lambda file: np.savez_compressed(
            file, boards=self.boards, dice=self.dice, kinds=self.kinds, start=self.start,
            plays=self.plays, equity1=self.equity1, equity2=self.equity2,
            meta=np.array(json.dumps(self.meta, indent=1)), **scores))

    @classmethod
    def load(cls, path: Path) -> PositionSet:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("format") != SET_FORMAT:
                raise ValueError(f"{path} has set format {meta.get('format')}, not {SET_FORMAT}")
            arrays = {name: data[name] for name in ("boards", "dice", "kinds", "start", "plays",
                                                     "equity1", "equity2")}
            contexts = data["contexts"] if "contexts" in data.files else None
        result = cls(**arrays, meta=meta, contexts=contexts)
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
        if self.contexts is not None:
            problems.append(self.contexts.shape != (n, len(CONTEXT_FIELDS)))
        if any(problems):
            raise ValueError("the position set's arrays do not fit together")
        if self.contexts is not None:
            for d, row in enumerate(self.contexts):
                try:
                    context_of(row)
                except ValueError as error:
                    raise ValueError(f"decision {d}: no score and cube: {error}") from None
        for d in range(n):
            if np.all(np.isnan(self.equity2[self.start[d]:self.start[d + 1]])):
                raise ValueError(f"decision {d} has no play labelled at 2-ply")


def assemble(decisions: Sequence[Decision], labels: Sequence[Labels],
             meta: dict[str, object]) -> PositionSet:
    counts = [len(lab.plays) for lab in labels]
    contexts = [d.context for d in decisions]
    return PositionSet(
        boards=np.stack([d.position.array() for d in decisions]).astype(np.int8),
        dice=np.array([(d.roll.die1, d.roll.die2) for d in decisions], dtype=np.int8),
        kinds=np.array([d.kind for d in decisions], dtype=np.int8),
        start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        plays=np.concatenate([lab.plays for lab in labels]).astype(np.int8),
        equity1=np.concatenate([lab.equity1 for lab in labels]).astype(np.float32),
        equity2=np.concatenate([lab.equity2 for lab in labels]).astype(np.float32),
        meta=meta,
        contexts=None if any(c is None for c in contexts) else np.array(
            [context_row(c) for c in contexts if c is not None], dtype=np.int8))


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


def choose_all_at_score(positions: PositionSet, engine: Engine, plies: int, jobs: int, *,
                        money: bool = False) -> np.ndarray:
    """:func:`choose_at_score` for every decision of a match set, in ``jobs`` threads."""
    parts = np.array_split(np.arange(len(positions)), jobs)
    with ThreadPoolExecutor(jobs) as pool:
        return np.array([c for part in pool.map(
            lambda p: choose_at_score(positions, engine, plies, p.tolist(), money=money),
            parts) for c in part])


def paired_lines(errors: np.ndarray, base: np.ndarray, kinds: np.ndarray,
                 names: Sequence[str] = CLASSES, unit: str = "mpt") -> list[str]:
    """Per class (``names[kinds[d]]``), the mean of ``errors - base`` (millipoints) with
    its 95% interval over the decisions (paired: the same decisions, so the interval is much
    narrower than each error rate's), and how many decisions each side gets better."""
    width = max(9, *map(len, names))
    lines = [f"{'':{width}} {'decisions':>9}  {f'difference ({unit})':>17}  {'better':>7}  "
             f"{'worse':>7}"]
    groups = [("all", np.ones(len(errors), dtype=bool))]
    groups += [(name, kinds == k) for k, name in enumerate(names)]
    for name, members in groups:
        difference = 1000 * (errors[members] - base[members])
        if not len(difference):
            continue
        mean, half = interval(difference)
        lines.append(f"{name:{width}} {len(difference):>9,}  {mean:+8.2f} ± {half:5.2f}   "
                     f"{int((difference < 0).sum()):>7,}  {int((difference > 0).sum()):>7,}")
    return lines


def interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width."""
    if len(values) < 2:
        return float(np.mean(values)) if len(values) else math.nan, math.nan
    return float(values.mean()), 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))


def report_lines(errors: np.ndarray, kinds: np.ndarray,
                 names: Sequence[str] = CLASSES, unit: str = "mpt") -> list[str]:
    """Mean error (millipoints), share with an error and share of blunders, with 95%
    intervals: overall, then per class (``names[kinds[d]]``)."""
    width = max(9, *map(len, names))
    lines = [f"{'':{width}} {'decisions':>9}  {f'mean error ({unit})':>17}  "
             f"{'with an error':>15}  "
             f"{f'blunders > {BLUNDER}':>15}"]
    groups = [("all", np.ones(len(errors), dtype=bool))]
    groups += [(name, kinds == k) for k, name in enumerate(names)]
    for name, members in groups:
        e = errors[members]
        if not len(e):
            continue
        mean, half = interval(1000 * e)
        wrong, wrong_half = interval(100 * (e > 0))
        blunders, blunders_half = interval(100 * (e > BLUNDER))
        lines.append(f"{name:{width}} {len(e):>9,}  {mean:8.1f} ± {half:5.1f}   "
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
            contexts = ([context_of(row) for row in data["contexts"]]
                        if "contexts" in data.files else [None] * len(boards))
        return [Decision(Position.from_board(b.tolist()), Roll(int(x), int(y)), int(k), c)
                for b, (x, y), k, c in zip(boards, dice, kinds, contexts, strict=True)]
    if args.from_set:
        source = PositionSet.load(args.from_set)
        decisions = [source.decision(d) for d in range(len(source))]
        print(f"{len(decisions):,} decisions from {args.from_set}", flush=True)
    elif args.scores:
        print(f"drawing {args.scores:,} decisions of each of {len(SCORE_CLASSES)} score "
              f"classes from self-play matches (seed {args.seed})", flush=True)
        decisions = draw_match_decisions(engine, [args.scores] * len(SCORE_CLASSES),
                                         args.seed,
                                         progress=lambda text: print(text, flush=True))
    else:
        wanted = (args.contact, args.crashed, args.race)
        print(f"drawing {sum(wanted):,} decisions from self-play (seed {args.seed})", flush=True)
        decisions = draw_decisions(engine, wanted, args.seed,
                                   progress=lambda text: print(text, flush=True))
    scores = {} if any(d.context is None for d in decisions) else {
        "contexts": np.array([context_row(d.context) for d in decisions if d.context],
                             dtype=np.int8)}
    write_atomically(path, lambda file: np.savez_compressed(
        file, settings=np.array(json.dumps(settings)),
        boards=np.stack([d.position.array() for d in decisions]),
        dice=np.array([(d.roll.die1, d.roll.die2) for d in decisions], dtype=np.int8),
        kinds=np.array([d.kind for d in decisions], dtype=np.int8), **scores))
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
    if args.scores:
        settings["scores"] = args.scores  # a match set (and the older sets' settings kept)
        settings["wanted"] = [args.scores] * len(SCORE_CLASSES)
    decisions = decisions_file(work, settings, engine, args)
    shards = range(math.ceil(len(decisions) / args.shard_size))
    index, parts = args.part
    mine = [s for s in shards if s % parts == index]
    todo = [s for s in mine if not (work / f"shard-{s:04d}.npz").exists()]
    print(f"labelling {len(decisions):,} decisions in {len(shards)} shards of "
          f"{args.shard_size} (part {index}/{parts}: {len(mine) - len(todo)} of {len(mine)} "
          f"done) with {weights.name} ({weights_hash}), 2-ply for the best "
          + (f"{max(args.top, 2)} at each decision's score and cube" if decisions[0].context
             else f"{args.top} within {args.margin}"), flush=True)
    started = time.perf_counter()
    pool = ThreadPoolExecutor(args.jobs)
    for done, shard in enumerate(todo, start=1):
        batch = decisions[shard * args.shard_size:(shard + 1) * args.shard_size]
        labels = list(pool.map(
            lambda d: label(d, nets, args.top, args.margin) if d.context is None
            else label_at_score(engine, d, args.top), batch))
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
    at_score = decisions[0].context is not None
    meta: dict[str, object] = {
        "format": SET_FORMAT,
        "name": out.stem,
        "label_version": args.label_version,
        "labelled_by": {"weights": weights.name, "sha256_12": weights_hash,
                        "search": (f"every play at 1-ply; at 2-ply the best {max(args.top, 2)} "
                                   f"by the search's filter at the decision's score and cube, "
                                   f"no margin (gammon.engine.player.Engine.rank_plays with "
                                   f"context)" if at_score else
                                   f"every play at 1-ply; at 2-ply the best by 1-ply, at most "
                                   f"{args.top}, within {args.margin} of the best "
                                   f"(gammon.engine.search.rank_plays)")},
        "error_rule": "error = best 2-ply equity - the play's 2-ply equity; a play without a "
                      "2-ply label: max(worst stored 2-ply error of the decision, best 1-ply "
                      "equity - the play's 1-ply equity)",
        "equity": ("the play's cubeful value at the decision's score and cube for the side "
                   "that makes it: its match winning chance as mwc2eq shows it, in points "
                   "per game normalised to the cube (EMG; gammon.engine.cube.play_equity)"
                   if at_score else "cubeless money equity of the side that makes the play"),
        "classes": {name: kinds.count(k) for k, name in enumerate(CLASSES)},
        "class_rule": CLASS_RULE,
        "drawn_by": ("MatchBot self-play matches from random scores, see "
                     "draw_match_decisions in benchmarks/positions.py" if at_score
                     else "varied 0-ply self-play, see benchmarks/positions.py"),
        "seed": args.seed,
        "settings": settings,
        "command": "gammon bench positions " + shlex.join(argv),
        "made": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if at_score:
        classes = [score_class(d.context) for d in decisions if d.context is not None]
        meta["score_classes"] = {name: classes.count(k) for k, name in enumerate(SCORE_CLASSES)}
        meta["context_fields"] = list(CONTEXT_FIELDS)
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
    if positions.at_score:
        return report_at_score(args, positions, weights)
    if args.money_checkers:
        raise SystemExit("--money-checkers is for a set of decisions at match scores")
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


def report_at_score(args: argparse.Namespace, positions: PositionSet, weights: Path) -> int:
    """The report on a match set: errors (mEMG: thousandths of a point of equity at the
    score) per score class, the plays chosen at each decision's score and cube; with
    ``--money-checkers`` also chosen by cubeless money equity, and the paired difference:
    what playing at the score gains."""
    assert positions.contexts is not None
    if args.baseline is not None:
        raise SystemExit("--baseline is for money sets; a match set compares --money-checkers")
    engine = Engine.load(weights)
    classes = np.array([score_class(context_of(row)) for row in positions.contexts])
    choose_at_score(positions, engine, args.ply, [0])  # compile outside timing
    started = time.perf_counter()
    errors = decision_errors(positions, choose_all_at_score(positions, engine, args.ply,
                                                            args.jobs))
    elapsed = time.perf_counter() - started
    print("plays chosen at the score (mEMG: thousandths of a point of equity at the score):")
    for line in report_lines(errors, classes, SCORE_CLASSES, "mEMG"):
        print(line)
    if args.money_checkers:
        money = decision_errors(positions, choose_all_at_score(
            positions, engine, args.ply, args.jobs, money=True))
        print("plays chosen by cubeless money equity, the same decisions and labels:")
        for line in report_lines(money, classes, SCORE_CLASSES, "mEMG"):
            print(line)
        print("at the score minus money (mEMG; negative: playing at the score gains):")
        for line in paired_lines(errors, money, classes, SCORE_CLASSES, "mEMG"):
            print(line)
    mean, half = interval(1000 * errors)
    print(f"{weights.name} {args.ply}-ply at the score on {positions.meta['name']}: "
          f"{mean:.1f} ± {half:.1f} mEMG per decision over {len(errors):,} decisions "
          f"({elapsed:.0f} s)")
    return 0


def set_path(text: str) -> Path:
    """``--set``: a file, or the name of a set in ``benchmarks/data/`` (``match-v1``)."""
    path = Path(text)
    named = DATA / f"{text}.npz"
    return named if not path.exists() and named.exists() else path


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generate", action="store_true",
                        help="make (or resume making) a labelled set instead of a report")
    parser.add_argument("--set", type=set_path, default=DEFAULT_SET,
                        help=f"the set to report on, a file or a name in benchmarks/data/ "
                             f"(default {DEFAULT_SET.stem})")
    parser.add_argument("--weights", type=Path, default=None,
                        help="the net to report on (default: the shipped networks)")
    parser.add_argument("--ply", type=int, choices=[0, 1, 2], default=0)
    parser.add_argument("--jobs", type=int, default=1, help="threads (default 1)")
    parser.add_argument("--decisions", type=int, default=None,
                        help="report on the first N decisions only (a fair sample)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="also choose with these networks and report the paired "
                             "difference of the error rates")
    parser.add_argument("--money-checkers", action="store_true",
                        help="a match set: also choose by cubeless money equity and report "
                             "what playing at the score gains")
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
    making.add_argument("--scores", type=int, default=0,
                        help="make a match set instead: this many decisions of each score "
                             "class from self-play matches, labelled at their score")
    making.add_argument("--shard-size", type=int, default=100)
    making.add_argument("--part", type=parse_part, default=(0, 1),
                        help="label only shards s with s %% N == I (default 0/1: all)")
    args = parser.parse_args(argv)
    if args.decisions is not None and args.decisions < 1:
        parser.error("--decisions must be at least 1")
    for name in ("jobs", "top", "shard_size", "label_version"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    for name in ("contact", "crashed", "race", "seed", "scores"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} must be 0 or more")
    if args.generate:
        if not args.margin >= 0:
            parser.error("--margin must be 0 or more")
        return generate(args, argv)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
