"""Training data for the supervised stage: positions where 0-ply and deeper search disagree,
labelled by the project's own search (``gammon train --stage label``).

Self-play games are played at 0-ply with a little Gaussian noise on each play's equity (so
the games vary); at every decision the candidate plays are also ranked by the search with
the usual move filter (:func:`gammon.engine.search.rank_plays`). Where the search's best
play is not the 0-ply best, every candidate the search valued at full depth is kept: the
position it leaves (the opponent on roll, as the networks see it) and its probabilities at
that depth. Those are the positions the 0-ply networks get wrong, labelled by what the
search says — no other engine's evaluations are used. With ``rollout_games`` the same
positions are labelled instead by truncated 0-ply rollouts of that many games, ``truncate``
plies each, then judged by the networks (:func:`gammon.engine.search.rollout`): every
candidate of a decision is rolled out with the same dice, so their labels differ by the
plays, not by the luck. Their noise averages out in the fit (the cross-entropy is linear in
the target); their systematic error is smaller than 2-ply's (``gammon bench labellers``).

The networks are then fitted to the labels (:func:`fit`): stochastic gradient descent on
the cross-entropy of the five outputs, with a held-out share of the positions to watch;
with a *rank weight*, also on the error of each candidate's equity relative to the other
candidates of its decision (:func:`fit_epoch_grouped`), which is what a choice depends on
and what rollouts on common dice label most precisely.

Output is a directory of *shards*, ``shard-00000.npz`` and on: shard ``k`` holds the
positions of ``games`` games whose dice and noise come from ``seed * 1_000_003 + k``, and
records the SHA-256 of the labelling weights and every setting. Shards are written
atomically and never changed, so a stopped job resumes with the next shard, and a shard
can be regenerated bit for bit from its settings. A finished set is packed into one file
(:mod:`gammon.training.label_sets`), which the fit reads under the same name.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numba as nb
import numpy as np

from gammon.core import _movegen
from gammon.engine import search
from gammon.engine.bearoff import is_bearoff_board
from gammon.engine.evaluate import (
    MAX_HIDDEN,
    PRUNE_KEEP,
    SEARCH_CACHE_ENTRIES,
    KernelArrays,
    evaluate_after,
    evaluate_position,
    kernel_arrays,
    network_for,
    new_scratch,
    swap_board,
    terminal_result,
)
from gammon.engine.expert import (
    CLASS_NAMES,
    CONTACT,
    CRASHED,
    PRUNE_INPUTS,
    RACE,
    encode_prune,
    is_crashed,
)
from gammon.engine.features import is_race
from gammon.engine.network import (
    EQUITY_WEIGHTS,
    MAX_INPUTS,
    OUTPUTS,
    Arrays,
    Network,
    NetworkPair,
    equity,
    forward,
    invert,
    make_consistent,
)
from gammon.engine.playout import INITIAL, MAX_PLIES, end_turn, noisy_choice, roll_plays
from gammon.training.adam import AdamState, ClassFit, cosine_rate, encode_rows
from gammon.training.label_sets import (
    load_groups,
    load_shards,
    packed_path,
    shard_path,
    shard_paths,
)
from gammon.training.td import backpropagate, pubeval_score, sole_writer

_jit = nb.njit(cache=True, nogil=True)

KEEP = np.array([8, 2], dtype=np.int64)  # the engine's default move filter (player.py)
MARGIN = np.array([0.16, 0.04], dtype=np.float64)
CUBE_WINS_LOW, CUBE_WINS_HIGH = 0.55, 0.80
"""The side on roll's cubeless winning chances where a double or its take is close (the
cube decisions a money or match player gets wrong by its evaluation's noise)."""


@_jit
def _grown(boards: np.ndarray, labels: np.ndarray, groups: np.ndarray, capacity: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``boards``, ``labels`` and ``groups`` (full, ``capacity`` rows) copied into buffers
    twice as long."""
    more_boards = np.empty((2 * capacity, 26), dtype=np.int8)
    more_boards[:capacity] = boards
    more_labels = np.empty((2 * capacity, OUTPUTS), dtype=np.float64)
    more_labels[:capacity] = labels
    more_groups = np.empty(2 * capacity, dtype=np.int32)
    more_groups[:capacity] = groups
    return more_boards, more_labels, more_groups, 2 * capacity


@_jit
def _rollout_label(board: np.ndarray, games: int, truncate: int, pruned: bool,
                   nets: KernelArrays, level: Arrays, out: np.ndarray) -> None:
    """``out`` = the mean of a truncated rollout of ``board`` (side on roll), its dice
    seeded from the self-play's random stream, which then goes on from a fresh draw (the
    rollout reseeds the generator game by game)."""
    rollout_seed = np.random.randint(0, 2**31 - 1)
    resume_seed = np.random.randint(0, 2**31 - 1)
    rows = search.rollout(board, games, truncate, rollout_seed, nets, level, pruned)
    for k in range(OUTPUTS):
        out[k] = rows[:, k].mean()
    np.random.seed(resume_seed)


@_jit
def race_deficit(board: np.ndarray) -> int:
    """The side on roll's pip count minus its opponent's (positive: it trails)."""
    deficit = 0
    for point in range(1, 26):  # 25 is the side on roll's bar, 0 the opponent's
        if board[point] > 0:
            deficit += board[point] * point
    for point in range(25):
        if board[point] < 0:
            deficit += board[point] * (25 - point)
    return deficit


@_jit
def label_games(nets: KernelArrays, games: int, seed: int, noise: float, plies: int,
                keep: np.ndarray, margin: np.ndarray, crashed_only: bool = False,
                rollout_games: int = 0, truncate: int = 0, race_only: bool = False,
                rollout_pruned: bool = False, crashed_decisions: bool = False,
                cube_only: bool = False, race_decisions: bool = False, behind: int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play ``games`` noisy 0-ply self-play games; returns the kept boards (side on roll),
    their labels at ``plies`` (side on roll's probabilities), the counts [decisions,
    disagreements] and each board's group: the number of the decision it is a candidate
    of (the candidates of one decision are the plays a fit compares). With
    ``crashed_only`` the kept boards are instead every crashed position met with the side
    on roll (before its roll), labelled at ``plies``, and the counts are [decisions,
    crashed positions]; with ``race_only`` every race position met that is not a pure
    bear-off (those are exact already), and the counts are [decisions, race positions];
    with ``cube_only`` every contact position met whose side on roll would consider a double
    (its 0-ply winning chance in [``CUBE_WINS_LOW``, ``CUBE_WINS_HIGH``]: the positions the
    cube decisions and their takes are made in), and the counts are [decisions, those].
    With ``rollout_games`` the kept boards are labelled by rollouts of that many games
    truncated after ``truncate`` plies (0: none), their plays chosen with the pruning
    network when ``rollout_pruned``; the candidates of one decision share their dice.
    With ``crashed_decisions`` only the decisions of crashed positions are looked at (the
    counts are then of those), with ``race_decisions`` only those of race positions that
    are not pure bear-offs, with ``behind`` only those of contact positions whose side on
    roll trails in the race by ``behind`` pips or more (holding and back games)."""
    np.random.seed(seed)
    gen = _movegen.new_scratch()
    level1 = _movegen.new_scratch()
    level2 = _movegen.new_scratch()
    rolling = _movegen.new_scratch()
    scratch = new_scratch(SEARCH_CACHE_ENTRIES)  # the networks stay fixed: cache the search
    ranked = np.empty((_movegen.CAPACITY, OUTPUTS), dtype=np.float64)
    depth = np.empty(_movegen.CAPACITY, dtype=np.int64)
    shallow_equity = np.empty(_movegen.CAPACITY, dtype=np.float64)
    probs = np.empty(OUTPUTS, dtype=np.float64)
    result = np.empty(OUTPUTS, dtype=np.float64)
    capacity = 1024
    boards = np.empty((capacity, 26), dtype=np.int8)
    labels = np.empty((capacity, OUTPUTS), dtype=np.float64)
    groups = np.empty(capacity, dtype=np.int32)
    n = 0
    counts = np.zeros(2, dtype=np.int64)
    board = np.empty(26, dtype=np.int8)
    for _ in range(games):
        board[:] = INITIAL
        for ply in range(MAX_PLIES):
            count = roll_plays(board, ply == 0, gen)
            shallow = 0
            for i in range(count):
                evaluate_after(gen[0][i], nets, scratch, probs)
                shallow_equity[i] = equity(probs)
                if shallow_equity[i] > shallow_equity[shallow]:
                    shallow = i
            looked_at = count > 1 and (not crashed_decisions
                                       or (not is_race(board) and is_crashed(board)))
            if race_decisions:
                looked_at = looked_at and is_race(board) and not is_bearoff_board(board)
            if behind > 0:
                looked_at = looked_at and not is_race(board) and race_deficit(board) >= behind
            if looked_at:
                counts[0] += 1
            if crashed_only or race_only or cube_only:
                if race_only:
                    wanted = is_race(board) and not is_bearoff_board(board)
                elif cube_only:
                    wanted = False
                    if not is_race(board):
                        evaluate_position(board, nets, scratch, probs)
                        wanted = CUBE_WINS_LOW <= probs[0] <= CUBE_WINS_HIGH
                else:
                    wanted = not is_race(board) and is_crashed(board)
                if wanted:
                    counts[1] += 1
                    if n == capacity:
                        boards, labels, groups, capacity = _grown(boards, labels, groups,
                                                                  capacity)
                    boards[n] = board
                    groups[n] = counts[0]
                    if rollout_games > 0:
                        _rollout_label(board, rollout_games, truncate, rollout_pruned,
                                       nets, rolling, labels[n])
                    else:
                        search.position_value(board, plies, nets, scratch, level1, level2,
                                              labels[n])
                    n += 1
            elif looked_at:
                search.rank_plays(gen[0], count, plies, keep, margin, nets, scratch, level1,
                                  level2, ranked, depth)
                if search.best_ranked(ranked, depth, count) != shallow:
                    counts[1] += 1
                    # one rollout seed for every candidate of the decision (common dice)
                    decision_seed = np.random.randint(0, 2**31 - 1)
                    for i in range(count):
                        if depth[i] != plies or terminal_result(gen[0][i], result):
                            continue
                        if n == capacity:
                            boards, labels, groups, capacity = _grown(boards, labels,
                                                                      groups, capacity)
                        swap_board(gen[0][i], boards[n])
                        groups[n] = counts[0]
                        if is_bearoff_board(boards[n]):
                            continue  # exact from the bear-off database already
                        if rollout_games > 0:
                            np.random.seed(decision_seed)
                            _rollout_label(boards[n], rollout_games, truncate,
                                           rollout_pruned, nets, rolling, labels[n])
                        else:
                            invert(ranked[i], labels[n])
                        n += 1
            # the game goes on with the noisy 0-ply choice
            chosen = noisy_choice(shallow_equity, count, noise)
            if end_turn(gen[0][chosen], board, result):
                break
    return boards[:n].copy(), labels[:n].copy(), counts, groups[:n].copy()


@dataclass
class LabelRun:
    """Settings of a labelling job; with the labeller's weights they determine every
    shard exactly."""

    shards: int = 100
    games: int = 50  # per shard
    seed: int = 1
    noise: float = 0.05
    plies: int = 2
    crashed_only: bool = False  # every crashed position met instead of the disagreements
    race_only: bool = False  # every race position met (not a pure bear-off) instead
    rollout_games: int = 0  # label by truncated rollouts of this many games (0: by search)
    truncate: int = 0  # plies of each rollout game (0: to the end)
    rollout_pruned: bool = False  # rollout plays chosen with the pruning network's help
    crashed_decisions: bool = False  # only the disagreements of crashed positions
    race_decisions: bool = False  # only the disagreements of race positions
    behind: int = 0  # only the disagreements of contact positions trailing by this many pips
    cube_only: bool = False  # every contact position met where a double is worth a look
    # label every candidate of every decision that leaves a contact position (a crashed
    # one with crashed_decisions) by the mean of these networks' 0-ply probabilities, at
    # the labeller's level (files; see teacher_games)
    teachers: tuple[str, ...] = ()


# LabelRun settings recorded in a shard only when set, so that shards written before a
# setting existed stay valid
OPTIONAL_SETTINGS = ("crashed_only", "race_only", "rollout_games", "truncate", "rollout_pruned",
                     "crashed_decisions", "cube_only", "race_decisions", "behind",
                     "teachers_sha256")


def weights_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def label(weights: Path, directory: Path, run: LabelRun,
          log: Callable[[str], None] = print) -> int:
    """Write shards ``0 .. run.shards - 1`` into ``directory``, resuming after the shards
    already there (which must come from the same weights and settings). Returns the
    number of shards written now."""
    if run.plies not in (1, 2):
        raise ValueError(f"labels come from 1-ply or 2-ply search, not {run.plies}-ply")
    if run.shards < 1 or run.games < 1:
        raise ValueError("shards and games per shard must be positive")
    if (run.crashed_only + run.race_only + run.crashed_decisions + run.cube_only
            + run.race_decisions > 1):
        raise ValueError("a job keeps crashed positions, race positions, crashed decisions, "
                         "race decisions or cube positions, only one of them")
    if run.rollout_games < 0 or run.rollout_games == 1 or run.truncate < 0:
        raise ValueError("a rollout label needs 2 games or more, truncated after 0 "
                         "(to the end) or more plies")
    if run.behind < 0:
        raise ValueError(f"--behind is a count of pips, not {run.behind}")
    if run.behind and (run.crashed_only or run.race_only or run.cube_only
                       or run.race_decisions):
        raise ValueError("--behind picks contact decisions: it does not go with "
                         "--crashed-only, --race-only, --cube-only or --race-decisions")
    if run.rollout_pruned and not run.rollout_games:
        raise ValueError("--rollout-pruned applies to rollout labels (--rollout-games)")
    if run.teachers and (run.rollout_games or run.crashed_only or run.race_only
                         or run.cube_only or run.race_decisions or run.behind):
        raise ValueError("teachers label every contact (or, with crashed decisions, crashed) "
                         "decision's candidates themselves: no rollouts, and no other choice "
                         "of positions")
    packed = packed_path(directory)
    if packed.exists() and not shard_paths(directory):
        raise ValueError(f"{packed} holds this label set packed: label into another folder "
                         f"(a packed set is not extended)")
    with sole_writer(directory):
        return _label(weights, directory, run, log)


def _label(weights: Path, directory: Path, run: LabelRun, log: Callable[[str], None]) -> int:
    # Every shard records what determines it (a job may be extended to more shards).
    settings = {**asdict(run), "weights_sha256": weights_digest(weights)}
    del settings["shards"]
    teachers = settings.pop("teachers")
    settings["teachers_sha256"] = ",".join(weights_digest(Path(t)) for t in teachers)
    for optional in OPTIONAL_SETTINGS:
        if not settings[optional]:  # shards written before the setting existed stay valid
            del settings[optional]
    directory.mkdir(parents=True, exist_ok=True)
    done = 0
    while shard_path(directory, done).exists():
        with np.load(shard_path(directory, done)) as data:
            recorded = {key: data[f"meta_{key}"].item()
                        for key in {*settings, *OPTIONAL_SETTINGS}
                        if f"meta_{key}" in data}
        if recorded != settings:
            raise ValueError(f"{shard_path(directory, done)} was made with {recorded}, "
                             f"not {settings}")
        done += 1
    if done:
        log(f"resuming {directory} after {done} shard(s)")
    arrays = kernel_arrays(NetworkPair.load(weights))
    teachers = [kernel_arrays(NetworkPair.load(Path(t))) for t in run.teachers]
    written = 0
    for index in range(done, run.shards):
        began = time.perf_counter()
        if teachers:
            boards, labels, counts, groups = teacher_games(
                arrays, teachers, run.games, run.seed * 1_000_003 + index, run.noise,
                CRASHED if run.crashed_decisions else CONTACT)
        else:
            boards, labels, counts, groups = label_games(
                arrays, run.games, run.seed * 1_000_003 + index, run.noise, run.plies, KEEP,
                MARGIN, run.crashed_only, run.rollout_games, run.truncate, run.race_only,
                run.rollout_pruned, run.crashed_decisions, run.cube_only, run.race_decisions,
                run.behind)
        path = shard_path(directory, index)
        temporary = path.with_suffix(".tmp.npz")
        np.savez_compressed(temporary, boards=boards, labels=labels.astype(np.float32),
                            groups=groups, decisions=counts[0], disagreements=counts[1],
                            **{f"meta_{key}": value for key, value in settings.items()})
        temporary.replace(path)
        written += 1
        if teachers:
            kept = (f"positions of {counts[0]:,} decisions, labelled by the mean of "
                    f"{len(teachers)} networks")
        elif run.crashed_only or run.race_only or run.cube_only:
            kind = "crashed" if run.crashed_only else "race" if run.race_only else "cube"
            kept = f"{kind} positions in {run.games} games ({counts[0]:,} decisions)"
        else:
            kept = (f"positions from {counts[1]:,} of {counts[0]:,} "
                    f"{'crashed ' if run.crashed_decisions else ''}"
                    f"{'race ' if run.race_decisions else ''}"
                    f"{f'{run.behind}+ pips behind ' if run.behind else ''}decisions where "
                    f"{run.plies}-ply disagrees")
        if run.rollout_games:
            kept += (f", labelled by rollouts of {run.rollout_games} games"
                     + (" (pruned plays)" if run.rollout_pruned else ""))
        log(f"shard {index + 1}/{run.shards}: {len(boards):,} {kept} "
            f"({time.perf_counter() - began:.0f} s)")
    return written


@_jit
def _cross_entropy(out: np.ndarray, target: np.ndarray) -> float:
    total = 0.0
    for k in range(OUTPUTS):
        p = min(max(out[k], 1e-7), 1.0 - 1e-7)
        total -= target[k] * np.log(p) + (1.0 - target[k]) * np.log(1.0 - p)
    return total


def fit_epoch(nets: KernelArrays, boards: np.ndarray, labels: np.ndarray, order: np.ndarray,
              alpha: float) -> float:
    """One pass of SGD over ``boards[order]`` (each by its class's network) on the
    cross-entropy; returns the mean cross-entropy met on the way."""
    singles = np.arange(len(order) + 1, dtype=np.int64)  # each position a group of its own
    return fit_epoch_grouped(nets, boards, labels, order, singles, singles[:-1], alpha, 0.0)




@_jit
def fit_epoch_grouped(nets: KernelArrays, boards: np.ndarray, labels: np.ndarray,
                      rows: np.ndarray, starts: np.ndarray, order: np.ndarray, alpha: float,
                      rank_weight: float) -> float:
    """One pass of SGD over the groups ``order`` (group ``g`` is ``rows[starts[g]:
    starts[g + 1]]``, the candidates of one decision) on the cross-entropy plus
    ``rank_weight`` times the squared error of each candidate's equity relative to its
    group's mean. The candidates of a decision share their rollout dice, so the
    differences between their labels are far less noisy than the labels, and they are
    what a choice between the plays depends on. Returns the mean cross-entropy met."""
    inputs = np.empty(MAX_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    delta_hidden = np.empty(512, dtype=np.float64)
    delta_out = np.empty(OUTPUTS, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    largest = 1
    for g in range(len(starts) - 1):
        largest = max(largest, starts[g + 1] - starts[g])
    miss = np.zeros(largest, dtype=np.float64)  # equity minus the label's equity
    total = 0.0
    count = 0
    for g in order:
        first, last = starts[g], starts[g + 1]
        mean_miss = 0.0
        if rank_weight:
            for m in range(first, last):
                miss[m - first] = _equity_miss(boards[rows[m]], labels[rows[m]], nets,
                                               inputs, hidden, out)
                mean_miss += miss[m - first]
            mean_miss /= last - first
        for m in range(first, last):
            i = rows[m]
            w1, b1, w2, b2 = network_for(boards[i], nets, inputs)
            forward(inputs, w1, b1, w2, b2, hidden, out)
            total += _cross_entropy(out, labels[i])
            count += 1
            relative = 2.0 * rank_weight * (miss[m - first] - mean_miss)
            for k in range(OUTPUTS):
                delta_out[k] = (out[k] - labels[i, k]
                                + relative * EQUITY_WEIGHTS[k] * out[k] * (1.0 - out[k]))
            backpropagate(inputs, w1, b1, w2, b2, hidden, delta_out, delta_hidden, alpha)
    return total / max(count, 1)


@_jit
def _equity_miss(board: np.ndarray, label: np.ndarray, nets: KernelArrays,
                 inputs: np.ndarray, hidden: np.ndarray, out: np.ndarray) -> float:
    """The networks' equity of ``board`` minus its label's."""
    w1, b1, w2, b2 = network_for(board, nets, inputs)
    forward(inputs, w1, b1, w2, b2, hidden, out)
    value = 0.0
    for k in range(OUTPUTS):
        value += EQUITY_WEIGHTS[k] * (out[k] - label[k])
    return value


@_jit
def relative_equity_error(nets: KernelArrays, boards: np.ndarray, labels: np.ndarray,
                          rows: np.ndarray, starts: np.ndarray) -> float:
    """Root mean square, over the candidates of groups of two or more, of the error in
    equity relative to the group's mean: how far the networks are from the labels on what
    decides between the plays."""
    inputs = np.empty(MAX_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    miss = np.empty(len(rows), dtype=np.float64)
    for m in range(len(rows)):
        miss[m] = _equity_miss(boards[rows[m]], labels[rows[m]], nets, inputs, hidden, out)
    squares = 0.0
    count = 0
    for g in range(len(starts) - 1):
        first, last = starts[g], starts[g + 1]
        if last - first < 2:
            continue
        mean_miss = miss[first:last].mean()
        for m in range(first, last):
            squares += (miss[m] - mean_miss) ** 2
            count += 1
    return float(np.sqrt(squares / max(count, 1)))


def group_slices(groups: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` sorted by group and each group's start in them (the last entry the end)."""
    ordered = rows[np.argsort(groups[rows], kind="stable")]
    _, first = np.unique(groups[ordered], return_index=True)
    return ordered, np.append(first, len(ordered)).astype(np.int64)


@_jit
def position_classes(boards: np.ndarray) -> np.ndarray:
    """Each board's class (``expert.CONTACT``, ``CRASHED`` or ``RACE``), by the engine's
    rules."""
    kinds = np.empty(len(boards), dtype=np.int64)
    for i in range(len(boards)):
        if is_race(boards[i]):
            kinds[i] = RACE
        else:
            kinds[i] = CRASHED if is_crashed(boards[i]) else CONTACT
    return kinds


@_jit
def mean_cross_entropy(nets: KernelArrays, boards: np.ndarray, labels: np.ndarray,
                       rows: np.ndarray) -> float:
    inputs = np.empty(MAX_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    total = 0.0
    for i in rows:
        w1, b1, w2, b2 = network_for(boards[i], nets, inputs)
        forward(inputs, w1, b1, w2, b2, hidden, out)
        total += _cross_entropy(out, labels[i])
    return total / max(len(rows), 1)


@dataclass
class FitRun:
    """Settings of a fit; with the shards and the starting weights they determine the
    result exactly."""

    epochs: int = 5
    alpha: float = 0.003
    holdout: float = 0.1  # share of the positions kept out of training
    seed: int = 1
    benchmark_pairs: int = 500
    # the first this many shards of each directory, or a count for each (None: all)
    shards: int | tuple[int, ...] | None = None
    # each directory's training decisions taken this many times an epoch, a count for each
    # (None: once): a small set of precise labels weighed against a large one
    repeat: tuple[int, ...] | None = None
    min_class: int = 300  # a class's network is fitted only on at least this many positions
    classes: tuple[str, ...] | None = None  # fit only these classes' networks (None: all)
    # weight of the candidates' equities relative to their decision's mean (0: plain
    # cross-entropy, positions held out one by one; otherwise whole decisions held out)
    rank_weight: float = 0.0
    # "sgd": per-position SGD at ``alpha`` in the engine's kernels; "adam": minibatches of
    # whole decisions (about ``batch`` positions), Adam at a peak ``alpha`` decaying to 0
    # over the fit (gammon.training.adam)
    optimiser: str = "sgd"
    batch: int = 512
    # the chosen classes' networks start from random weights (``Network.random`` of their
    # size, drawn from ``seed``) instead of ``start``'s: independent networks of the same
    # labels, whose mean is a better teacher than any one of them (``LabelRun.teachers``)
    fresh: bool = False
    # hidden units of the fresh networks (None: those of ``start``'s networks they replace)
    fresh_hidden: int | None = None
    # the chosen classes' networks widened to this many hidden units before the fit
    # (``Network.widened``: the new units start silent, so the fit starts from ``start``'s
    # evaluations, with room to learn more of its labels)
    widen: int | None = None
    # the chosen classes' networks joined side by side with this file's (``Network.joined``:
    # the fit starts from the mean of the two networks' output sums, as one network)
    join: str | None = None


def _repeated(boards: np.ndarray, labels: np.ndarray, group_of: np.ndarray,
              train_rows: np.ndarray, times: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The data with each training row ``r`` present ``times[r]`` times: the copies are
    appended as decisions of their own (new group numbers), the held-out rows untouched."""
    copies = [train_rows[times[train_rows] > k] for k in range(1, int(times.max()))]
    if not copies:
        return boards, labels, group_of, train_rows
    extra = np.concatenate(copies)
    step = int(group_of.max()) + 1
    numbers = np.concatenate([group_of[rows] + (k + 1) * step for k, rows in enumerate(copies)])
    added = np.arange(len(boards), len(boards) + len(extra))
    return (np.concatenate([boards, boards[extra]]), np.concatenate([labels, labels[extra]]),
            np.concatenate([group_of, numbers]), np.concatenate([train_rows, added]))


def _hidden_units(count: int) -> int:
    """``count`` hidden units for a network the fit makes, or a clear refusal."""
    if not 0 < count <= MAX_HIDDEN:
        raise ValueError(f"networks have 1 to at most {MAX_HIDDEN} hidden units, not {count}")
    return count


def fit(start: Path, directory: Path | Sequence[Path], path: Path, run: FitRun,
        log: Callable[[str], None] = print) -> NetworkPair:
    """Fit the networks of ``start`` to the shards in ``directory`` (or in each of several
    directories, the first ``run.shards`` of each); the result after each epoch goes to
    ``path``, and a stopped fit resumes from it. Logs the training and held-out
    cross-entropy and the held-out relative equity error per epoch, and a quick duplicate
    match against pubeval at the end."""
    if not 0.0 < run.holdout < 1.0:
        raise ValueError(f"the held-out share must be between 0 and 1, not {run.holdout}")
    if run.rank_weight < 0.0:
        raise ValueError(f"the rank weight cannot be negative, not {run.rank_weight}")
    directories = [directory] if isinstance(directory, Path) else list(directory)
    limits: tuple[int | None, ...] = (
        run.shards if isinstance(run.shards, tuple) else (run.shards,))
    if len(limits) == 1:
        limits *= len(directories)
    if len(limits) != len(directories):
        raise ValueError(f"{len(limits)} shard counts for {len(directories)} directories")
    parts = [load_shards(one, limit) for one, limit in zip(directories, limits, strict=True)]
    boards = np.concatenate([one[0] for one in parts])
    labels64 = np.concatenate([one[1] for one in parts]).astype(np.float64)
    groups, offset = [], 0
    for one, limit in zip(directories, limits, strict=True):
        numbers = load_groups(one, limit)
        groups.append(numbers + offset)
        offset += int(numbers.max()) + 1 if len(numbers) else 0
    group_of = np.concatenate(groups)
    rng = np.random.default_rng(run.seed)
    if run.rank_weight:
        held_groups = rng.permutation(offset)[:max(1, int(offset * run.holdout))]
        is_held = np.isin(group_of, held_groups)
        held, train_rows = np.flatnonzero(is_held), np.flatnonzero(~is_held)
    else:
        rows = rng.permutation(len(boards))
        held = rows[:max(1, int(len(rows) * run.holdout))]
        train_rows = rows[len(held):]
    settings = {"start": str(start), "shards": ",".join(map(str, directories)),
                "positions": len(boards), "alpha": run.alpha, "holdout": run.holdout,
                "seed": run.seed, "min_class": run.min_class}
    if run.repeat is not None:
        if len(run.repeat) != len(directories) or min(run.repeat) < 1:
            raise ValueError(f"--repeat takes a count of 1 or more for each of the "
                             f"{len(directories)} directories, not {list(run.repeat)}")
        settings["repeat"] = ",".join(map(str, run.repeat))
        boards, labels64, group_of, train_rows = _repeated(
            boards, labels64, group_of, train_rows,
            np.repeat(run.repeat, [len(one[0]) for one in parts]))
    if run.rank_weight:
        settings["rank_weight"] = run.rank_weight
    if run.optimiser not in ("sgd", "adam"):
        raise ValueError(f"the optimiser is sgd or adam, not {run.optimiser!r}")
    if run.fresh:
        if run.classes is None:
            raise ValueError("a fit from random weights names the classes to start afresh")
        settings["fresh"] = True
        if run.fresh_hidden is not None:
            settings["fresh_hidden"] = _hidden_units(run.fresh_hidden)
    elif run.fresh_hidden is not None:
        raise ValueError("the hidden units of fresh networks need a fit from random weights")
    if run.widen is not None:
        if run.fresh or run.classes is None:
            raise ValueError("a widened fit names the classes to widen and starts from --from")
        settings["widen"] = _hidden_units(run.widen)
    partner = None
    if run.join is not None:
        if run.fresh or run.widen is not None or run.classes is None:
            raise ValueError("a joined fit names the classes to join and starts from --from "
                             "and --join, neither fresh nor widened")
        partner = NetworkPair.load(Path(run.join))
        settings["join"] = f"{run.join} {weights_digest(Path(run.join))}"
    if run.optimiser == "adam":  # the step's schedule spans the epochs
        settings |= {"optimiser": run.optimiser, "batch": run.batch, "epochs": run.epochs}
    if run.classes is not None:
        unknown = set(run.classes) - set(CLASS_NAMES)
        if unknown:
            raise ValueError(f"no class {', '.join(sorted(unknown))} "
                             f"(the classes: {', '.join(CLASS_NAMES)})")
        settings["classes"] = ",".join(run.classes)
    done = 0
    if path.exists():
        with np.load(path) as data:
            done = int(data["meta_epochs_done"])
            recorded = {key: data[f"meta_{key}"].item() for key in settings
                        if f"meta_{key}" in data}
        if recorded != settings:
            raise ValueError(f"{path} was fitted with {recorded}, not {settings}")
        nets = NetworkPair.load(path)
        log(f"resuming {path} after epoch {done}")
    else:
        nets = NetworkPair.load(start)
        for name, net in nets.networks().items():  # the chosen ones afresh or widened
            if name not in (run.classes or ()):
                continue
            if run.fresh:
                setattr(nets, name, Network.random(run.fresh_hidden or net.hidden, run.seed,
                                                   net.inputs))
            elif run.widen is not None:
                setattr(nets, name, net.widened(run.widen, run.seed))
            elif partner is not None:
                other = partner.networks().get(name)
                if other is None:
                    raise ValueError(f"{run.join} has no {name} network to join")
                _hidden_units(net.hidden + other.hidden)
                setattr(nets, name, net.joined(other))
    arrays = kernel_arrays(nets)  # the kernels update these arrays in place
    kinds = position_classes(boards)
    if nets.crashed is None:
        kinds[kinds == CRASHED] = CONTACT  # the contact network evaluates them
    # A class with few positions is left as it is: a few hundred positions move its
    # network away from what TD taught it more than they teach it (crashed positions on
    # 110 made the benchmark set's crashed decisions worse by 7.6 ± 4.1 mpt).
    train_counts = np.bincount(kinds[train_rows], minlength=len(CLASS_NAMES))
    fitted = train_counts >= run.min_class
    chosen = np.array([run.classes is None or name in run.classes for name in CLASS_NAMES])

    def why_left(count: int, name: str) -> str:
        if run.classes is not None and name not in run.classes:
            return ", not chosen: left as it is"
        return "" if count >= run.min_class else f", fewer than {run.min_class}: left as it is"

    fitted &= chosen
    log("fitting " + ", ".join(
        f"{name} ({count:,} positions{why_left(count, name)})"
        for name, count in zip(CLASS_NAMES, train_counts, strict=True)
        if name in nets.networks()))
    train_rows = train_rows[fitted[kinds[train_rows]]]
    held_by_class = [held[kinds[held] == k] for k in range(len(CLASS_NAMES))]

    def by_class() -> str:
        return ", ".join(f"{name} {mean_cross_entropy(arrays, boards, labels64, rows):.5f}"
                         for name, rows in zip(CLASS_NAMES, held_by_class, strict=True)
                         if len(rows))

    held_sorted, held_starts = group_slices(group_of, held)

    def relative() -> str:
        error = relative_equity_error(arrays, boards, labels64, held_sorted, held_starts)
        return f"relative equity error {error:.5f}"

    counts = ", ".join(f"{name} {len(rows):,}"
                       for name, rows in zip(CLASS_NAMES, held_by_class, strict=True))
    log(f"{len(train_rows):,} positions to fit, {len(held):,} held out ({counts}); held-out "
        f"cross-entropy {mean_cross_entropy(arrays, boards, labels64, held):.5f} "
        f"({by_class()}), {relative()}")
    train_sorted, train_starts = group_slices(group_of, train_rows)
    adam_fits = (_adam_fits(nets, boards, labels64, group_of, train_sorted, kinds, fitted, path,
                            run) if run.optimiser == "adam" else [])
    for epoch in range(done + 1, run.epochs + 1):
        shuffle = np.random.default_rng(run.seed * 1_000_003 + epoch)
        if adam_fits:
            losses = [one.epoch(shuffle, run.batch, rate, run.rank_weight)
                      for one, rate in adam_fits]
            train_loss = float(np.mean(losses))
        elif run.rank_weight:
            order = shuffle.permutation(len(train_starts) - 1)
            train_loss = fit_epoch_grouped(arrays, boards, labels64, train_sorted,
                                           train_starts, order, run.alpha, run.rank_weight)
        else:
            order = train_rows[shuffle.permutation(len(train_rows))]
            train_loss = fit_epoch(arrays, boards, labels64, order, run.alpha)
        held_loss = mean_cross_entropy(arrays, boards, labels64, held)
        log(f"epoch {epoch}/{run.epochs}: training {train_loss:.5f}, held out {held_loss:.5f} "
            f"({by_class()}), {relative()}")
        moments = {key: value for i, (one, _) in enumerate(adam_fits)
                   for key, value in one.state.arrays(f"adam{i}").items()}
        nets.save(path, epochs_done=epoch, heldout_cross_entropy=held_loss, **settings,
                  **moments)  # Adam's moments in the checkpoint: saved with it, atomically
    if run.benchmark_pairs:
        mean, half = pubeval_score(nets, run.benchmark_pairs, seed=999)
        log(f"  vs pubeval ({2 * run.benchmark_pairs} games): {mean:+.3f} ± {half:.3f} ppg")
    return nets


def _adam_fits(nets: NetworkPair, boards: np.ndarray, labels: np.ndarray,
               group_of: np.ndarray, train_sorted: np.ndarray, kinds: np.ndarray,
               fitted: np.ndarray, path: Path, run: FitRun
               ) -> list[tuple[ClassFit, Callable[[int], float]]]:
    """A :class:`ClassFit` for each class fitted (its training rows in decision order),
    with its learning rate by step; the moments of a stopped fit restored."""
    if nets.crashed is None:
        raise ValueError("the Adam fit encodes the expert feature set's inputs only")
    fits = []
    for kind, name in enumerate(CLASS_NAMES):
        if not fitted[kind]:
            continue
        rows = train_sorted[kinds[train_sorted] == kind]
        changes = np.flatnonzero(np.diff(group_of[rows])) + 1
        starts = np.concatenate([[0], changes, [len(rows)]]).astype(np.int64)
        one = ClassFit(nets.networks()[name], encode_rows(boards[rows], kind == RACE),
                       labels[rows].astype(np.float32), starts)
        steps = run.epochs * len(one.batches(np.random.default_rng(0), run.batch))
        fits.append((one, cosine_rate(run.alpha, steps)))
    if path.exists():  # a stopped fit: its moments are in its checkpoint
        with np.load(path) as data:
            for i, (one, _) in enumerate(fits):
                one.state = AdamState.load(data, f"meta_adam{i}")
    return fits


# -- labels from several networks -------------------------------------------------------------


@_jit
def _add_probabilities(boards: np.ndarray, nets: KernelArrays, out: np.ndarray) -> None:
    """``out[k] +=`` the networks' probabilities of ``boards[k]`` (its side on roll)."""
    scratch = new_scratch()
    probs = np.empty(OUTPUTS, dtype=np.float64)
    for k in range(len(boards)):
        evaluate_position(boards[k], nets, scratch, probs)
        for j in range(OUTPUTS):
            out[k, j] += probs[j]


def teacher_labels(boards: np.ndarray, teachers: Sequence[KernelArrays]) -> np.ndarray:
    """The mean of the ``teachers``' 0-ply probabilities of each board (its side on roll).
    Networks fitted independently to the same noisy labels err differently, so their mean
    chooses better than any one of them; one network fitted to that mean learns part of
    the difference (docs/journal/training-journal.md, 2026-12-07, afternoon)."""
    labels = np.zeros((len(boards), OUTPUTS), dtype=np.float64)
    for nets in teachers:
        _add_probabilities(boards, nets, labels)
    return labels / len(teachers)


def level_to(own: np.ndarray, taught: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """``taught`` moved, decision by decision, so that its mean over each decision's
    candidates is ``own``'s (then made consistent): the teachers give the differences
    between the candidates, what a choice depends on, and the labeller their level, which
    the cube depends on. (Networks fitted from random weights to the candidates of
    disagreements rank plays well and value positions badly: one of them loses 27 mEMG a
    cube decision against GNU 2-ply, the tenth 6.)"""
    _, inverse, sizes = np.unique(decision, return_inverse=True, return_counts=True)
    shifts = np.zeros((len(sizes), OUTPUTS), dtype=np.float64)
    np.add.at(shifts, inverse, taught - own)
    labels = taught - shifts[inverse] / sizes[inverse, None]
    for row in labels:
        make_consistent(row)
    return labels


def teacher_games(nets: KernelArrays, teachers: Sequence[KernelArrays], games: int, seed: int,
                  noise: float, kind: int = CONTACT
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Noisy 0-ply self-play by ``nets`` (:func:`prune_positions`): every candidate play of
    every decision that leaves a position of class ``kind`` (contact or crashed), as that
    position (opponent on roll), labelled by :func:`teacher_labels` brought to the level of
    ``nets``' own probabilities (:func:`level_to`). Returns the boards, labels, the counts
    [decisions, positions] and each position's decision number."""
    boards, own, decision = prune_positions(nets, games, seed, noise)
    kept = position_classes(boards) == kind
    boards, own, decision = boards[kept], own[kept], decision[kept]
    counts = np.array([len(np.unique(decision)), len(boards)], dtype=np.int64)
    labels = level_to(own, teacher_labels(boards, teachers), decision)
    return boards, labels, counts, decision.astype(np.int32)


# -- the pruning network ------------------------------------------------------------------------


@_jit
def prune_positions(nets: KernelArrays, games: int, seed: int, noise: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training data for the pruning network: noisy 0-ply self-play games; at every
    decision of a position that is not a race, each candidate play's position (opponent
    on roll) with the full networks' probabilities. Returns boards, labels and each
    position's decision number (so that whole decisions can be held out)."""
    np.random.seed(seed)
    gen = _movegen.new_scratch()
    scratch = new_scratch()
    shallow_equity = np.empty(_movegen.CAPACITY, dtype=np.float64)
    probs = np.empty(OUTPUTS, dtype=np.float64)
    result = np.empty(OUTPUTS, dtype=np.float64)
    capacity = 65536
    boards = np.empty((capacity, 26), dtype=np.int8)
    labels = np.empty((capacity, OUTPUTS), dtype=np.float64)
    decision = np.empty(capacity, dtype=np.int64)
    n = 0
    decisions = 0
    board = np.empty(26, dtype=np.int8)
    for _ in range(games):
        board[:] = INITIAL
        for ply in range(MAX_PLIES):
            count = roll_plays(board, ply == 0, gen)
            keep = count > 1 and not is_race(board)
            for i in range(count):
                evaluate_after(gen[0][i], nets, scratch, probs)
                shallow_equity[i] = equity(probs)
                if not keep or terminal_result(gen[0][i], result):
                    continue
                if n == capacity:
                    capacity *= 2
                    more_boards = np.empty((capacity, 26), dtype=np.int8)
                    more_boards[:n] = boards
                    boards = more_boards
                    more_labels = np.empty((capacity, OUTPUTS), dtype=np.float64)
                    more_labels[:n] = labels
                    labels = more_labels
                    more_decision = np.empty(capacity, dtype=np.int64)
                    more_decision[:n] = decision
                    decision = more_decision
                swap_board(gen[0][i], boards[n])
                invert(probs, labels[n])
                decision[n] = decisions
                n += 1
            if keep:
                decisions += 1
            chosen = noisy_choice(shallow_equity, count, noise)
            if end_turn(gen[0][chosen], board, result):
                break
    return boards[:n].copy(), labels[:n].copy(), decision[:n].copy()


@_jit
def prune_epoch(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                boards: np.ndarray, labels: np.ndarray, order: np.ndarray,
                alpha: float) -> float:
    """One pass of SGD of the pruning network over ``boards[order]`` on the cross-entropy
    of the five outputs; returns the mean cross-entropy met on the way."""
    inputs = np.empty(PRUNE_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    delta_hidden = np.empty(512, dtype=np.float64)
    delta_out = np.empty(OUTPUTS, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    total = 0.0
    for i in order:
        encode_prune(boards[i], inputs)
        forward(inputs, w1, b1, w2, b2, hidden, out)
        total += _cross_entropy(out, labels[i])
        for k in range(OUTPUTS):
            delta_out[k] = out[k] - labels[i, k]
        backpropagate(inputs, w1, b1, w2, b2, hidden, delta_out, delta_hidden, alpha)
    return total / max(len(order), 1)


@_jit
def prune_recall(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                 boards: np.ndarray, labels: np.ndarray, decision: np.ndarray,
                 rows: np.ndarray, keep: int) -> tuple[float, float]:
    """Over the decisions of ``rows`` (sorted, each decision's rows together): the share
    whose best play by the full networks is among the ``keep`` the pruning network rates
    best, and the mean equity lost where it is not (the best of those kept against the
    best)."""
    inputs = np.empty(PRUNE_INPUTS, dtype=np.float32)
    hidden = np.empty(512, dtype=np.float64)
    out = np.empty(OUTPUTS, dtype=np.float64)
    found = 0
    lost = 0.0
    total = 0
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and decision[rows[end]] == decision[rows[start]]:
            end += 1
        count = end - start
        score = np.empty(count, dtype=np.float64)
        true = np.empty(count, dtype=np.float64)
        for k in range(count):
            i = rows[start + k]
            encode_prune(boards[i], inputs)
            forward(inputs, w1, b1, w2, b2, hidden, out)
            score[k] = -equity(out)
            true[k] = -equity(labels[i])
        order = np.argsort(-score)
        best = true.max()
        kept_best = -1e9
        for r in range(min(keep, count)):
            kept_best = max(kept_best, true[order[r]])
        total += 1
        if kept_best >= best:
            found += 1
        else:
            lost += best - kept_best
        start = end
    return found / max(total, 1), lost / max(total, 1)


@dataclass
class PruneRun:
    """Settings of a pruning network's training; with the networks they determine it."""

    games: int = 1000
    hidden: int = 16
    epochs: int = 8
    alpha: float = 0.05
    seed: int = 1
    noise: float = 0.05
    keep: int = PRUNE_KEEP


def train_prune(weights: Path, path: Path, run: PruneRun,
                log: Callable[[str], None] = print) -> NetworkPair:
    """Train a pruning network that mimics the networks of ``weights`` on the candidate
    plays of self-play decisions, and write the networks with it to ``path``. Logs the
    held-out cross-entropy and how often the full networks' best play is among the
    ``run.keep`` the pruning network passes on (10% of the decisions held out)."""
    if min(run.games, run.hidden, run.epochs, run.keep) < 1 or run.alpha <= 0:
        raise ValueError("games, hidden units, epochs, plays kept and the learning rate "
                         "must be positive")
    nets = NetworkPair.load(weights)
    began = time.perf_counter()
    boards, labels, decision = prune_positions(kernel_arrays(nets, prune_keep=0), run.games,
                                               run.seed * 1_000_003, run.noise)
    held_decisions = np.random.default_rng(run.seed).random(int(decision[-1]) + 1) < 0.1
    held = np.flatnonzero(held_decisions[decision])
    train_rows = np.flatnonzero(~held_decisions[decision])
    log(f"{len(boards):,} positions from {int(decision[-1]) + 1:,} decisions "
        f"({time.perf_counter() - began:.0f} s); {len(held):,} held out")
    prune = Network.random(run.hidden, run.seed, PRUNE_INPUTS)
    arrays = prune.arrays()
    for epoch in range(1, run.epochs + 1):
        alpha = run.alpha / epoch
        order = train_rows[np.random.default_rng(run.seed * 1_000_003 + epoch)
                           .permutation(len(train_rows))]
        loss = prune_epoch(*arrays, boards, labels, order, alpha)
        found, lost = prune_recall(*arrays, boards, labels, decision, held, run.keep)
        log(f"epoch {epoch}/{run.epochs}: training {loss:.5f}; held out: best play among "
            f"the {run.keep} kept {found:.2%}, {lost * 1000:.2f} mpt lost a decision")
    result = nets.copy()
    result.prune = prune
    result.save(path, prune_games=run.games, prune_seed=run.seed, prune_hidden=run.hidden,
                prune_epochs=run.epochs, prune_alpha=run.alpha, prune_from=str(weights))
    return result
