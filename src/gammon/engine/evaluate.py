"""Position evaluation (0-ply) and play choice, compiled with numba.

``nets`` is a :class:`KernelArrays`, a named tuple of twenty arrays: the eight weight arrays
of a :class:`NetworkPair`'s contact and race networks, the one-sided bear-off tables (rolls
to finish, rolls to the first checker off) of :class:`gammon.engine.bearoff.BearoffDatabase`,
the four arrays of the crashed network (the contact network's again for the basic feature
set, which has none), the feature set (``int64[1]``), the four arrays of the pruning network
(the contact network's again when there is none) and how many plays it keeps (``int64[1]``,
0: no pruning), then the four arrays of the judge (the contact network's again when there is
none), how many plays it judges (``int64[1]``, 0: none) and within what margin
(``float64[1]``); build it with :func:`kernel_arrays`. Pure
bear-offs are evaluated exactly from the tables, every other position by its class's
network (:func:`network_for`). Every function here is numba-compiled so that self-play
training, benchmarks and search can call them in tight loops without returning to Python.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from gammon.engine.bearoff import (
    BearoffDatabase,
    checkers_on_board,
    is_bearoff_board,
    race_backgammons,
    race_probabilities,
)
from gammon.engine.expert import (
    CONTACT,
    CRASHED,
    RACE,
    encode_contact,
    encode_race,
    is_crashed,
    prune_sums,
)
from gammon.engine.features import encode, is_race
from gammon.engine.network import (
    BASIC,
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    MAX_INPUTS,
    OUTPUTS,
    WIN_BACKGAMMON,
    WIN_GAMMON,
    Arrays,
    NetworkPair,
    equity,
    forward,
    forward_from_sums,
    invert,
    make_consistent,
)

_jit = nb.njit(cache=True, nogil=True)
MAX_HIDDEN = 1024
PRUNE_KEEP = 6
"""Plays that the pruning network passes on to the full evaluation inside the search."""
JUDGE_KEEP = 3
JUDGE_MARGIN = 0.03
"""At most this many plays of a 0-ply ranking, within this margin of the best, get the
judge's evaluation first (:func:`judge_plays`). Chosen on positions-v2 (docs/training.md,
the thirteenth generation): more, or a wider margin, gained nothing GNU Backgammon's grade
could see; these judge about 1.8 plays of a contact decision."""
SEARCH_CACHE_ENTRIES = 1 << 15
"""Slots of the evaluation cache a search keeps (a 2-ply decision evaluates ~10,000
positions, a quarter of them more than once)."""


class KernelArrays(NamedTuple):
    """The networks and tables as the kernels take them (numba reads the fields by name)."""

    contact_w1: np.ndarray
    contact_b1: np.ndarray
    contact_w2: np.ndarray
    contact_b2: np.ndarray
    race_w1: np.ndarray
    race_b1: np.ndarray
    race_w2: np.ndarray
    race_b2: np.ndarray
    bearoff_rolls: np.ndarray
    bearoff_first_off: np.ndarray
    crashed_w1: np.ndarray
    crashed_b1: np.ndarray
    crashed_w2: np.ndarray
    crashed_b2: np.ndarray
    feature_set: np.ndarray
    prune_w1: np.ndarray
    prune_b1: np.ndarray
    prune_w2: np.ndarray
    prune_b2: np.ndarray
    prune_keep: np.ndarray
    judge_w1: np.ndarray
    judge_b1: np.ndarray
    judge_w2: np.ndarray
    judge_b2: np.ndarray
    judge_keep: np.ndarray
    judge_margin: np.ndarray


def kernel_arrays(nets: NetworkPair, bearoff: BearoffDatabase | None = None,
                  prune_keep: int = PRUNE_KEEP, judge_keep: int = JUDGE_KEEP) -> KernelArrays:
    """The ``nets`` tuple the kernels take: the weights, then the bear-off tables.
    ``prune_keep`` 0 turns the pruning network off (it is off when ``nets`` has none);
    ``judge_keep`` 0 the judge."""
    database = bearoff or BearoffDatabase.load()
    crashed = nets.crashed.arrays() if nets.crashed is not None else nets.contact.arrays()
    prune = nets.prune.arrays() if nets.prune is not None else nets.contact.arrays()
    keep = prune_keep if nets.prune is not None else 0
    judge = nets.judge.arrays() if nets.judge is not None else nets.contact.arrays()
    judged = judge_keep if nets.judge is not None else 0
    return KernelArrays._make((*nets.arrays(), database.rolls, database.first_off, *crashed,
                               np.array([nets.feature_set], dtype=np.int64), *prune,
                               np.array([keep], dtype=np.int64), *judge,
                               np.array([judged], dtype=np.int64),
                               np.array([JUDGE_MARGIN], dtype=np.float64)))


@_jit
def network_for(board: np.ndarray, nets: KernelArrays,
                inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Write ``board``'s inputs for the network of its class into ``inputs`` and return
    that network's weights (``board`` is not a pure bear-off)."""
    kind = _encode_for(board, nets, inputs, is_race(board))
    if kind == RACE:
        return nets.race_w1, nets.race_b1, nets.race_w2, nets.race_b2
    if kind == CRASHED:
        return nets.crashed_w1, nets.crashed_b1, nets.crashed_w2, nets.crashed_b2
    return nets.contact_w1, nets.contact_b1, nets.contact_w2, nets.contact_b2


@_jit
def _encode_for(board: np.ndarray, nets: KernelArrays, inputs: np.ndarray, race: bool) -> int:
    """Write ``board``'s inputs for the network of its class into ``inputs``; return the
    class (``CONTACT``, ``CRASHED`` or ``RACE``). ``race`` is :func:`is_race` of ``board``;
    the basic feature set has no crashed network."""
    if nets.feature_set[0] == BASIC:
        encode(board, inputs)
        return RACE if race else CONTACT
    if race:
        encode_race(board, inputs)
        return RACE
    encode_contact(board, inputs)
    return CRASHED if is_crashed(board) else CONTACT


@_jit
def new_scratch(cache_entries: int = 0) -> Arrays:
    """(inputs, hidden sums, probabilities, swapped board, bear-off tails) buffers, then an
    evaluation cache of ``cache_entries`` slots (a power of two; 0: none): boards, their
    probabilities, and which slots are filled. Only for work whose networks do not
    change while the scratch lives (a search, not training).

    The hidden sums are float32, as the weights are: twice as many per vector
    instruction; the outputs stay within 1e-6 of float64 sums (tests/engine/test_networks.py)."""
    return (np.empty(MAX_INPUTS, dtype=np.float32), np.empty(MAX_HIDDEN, dtype=np.float32),
            np.empty(OUTPUTS, dtype=np.float64), np.empty(26, dtype=np.int8),
            np.empty((2, 64), dtype=np.float64),
            np.empty((cache_entries, 26), dtype=np.int8),
            np.empty((cache_entries, OUTPUTS), dtype=np.float64),
            np.zeros(cache_entries, dtype=np.bool_))


@_jit
def _cache_slot(board: np.ndarray, entries: int) -> int:
    """The cache slot of ``board``: an FNV-1a hash of its 26 bytes."""
    h = np.uint64(14695981039346656037)
    for i in range(26):
        h = (h ^ np.uint64(board[i] & 0xFF)) * np.uint64(1099511628211)
    return int((h ^ (h >> np.uint64(32))) & np.uint64(entries - 1))


@_jit
def swap_board(board: np.ndarray, out: np.ndarray) -> None:
    """The board seen from the other side (see :meth:`Position.swap`)."""
    for i in range(26):
        out[i] = -board[25 - i]


@_jit
def terminal_result(after: np.ndarray, out: np.ndarray) -> bool:
    """If the mover has borne off all 15 in ``after`` (mover's view), write the result.

    Gammon: the loser has borne off none; backgammon: and still has a checker in the
    winner's home board (points 1..6) or on the bar (RULES.md §4). The compiled copy of the
    core's :func:`~gammon.core.cube.win_level`, checked against it by
    ``tests/engine/test_kernel_rules.py``.
    """
    for i in range(1, 26):
        if after[i] > 0:
            return False
    loser_on_board = 0
    loser_back = False
    for i in range(0, 25):
        if after[i] < 0:
            loser_on_board -= after[i]
            if i <= 6:
                loser_back = True
    gammon = loser_on_board == 15
    out[0] = 1.0
    out[1] = 1.0 if gammon else 0.0
    out[2] = 1.0 if gammon and loser_back else 0.0
    out[3] = 0.0
    out[4] = 0.0
    return True


@_jit
def lost_result(board: np.ndarray, out: np.ndarray) -> bool:
    """If the opponent has already borne off all 15, write the side on roll's (lost)
    result: a gammon if it has borne off none, a backgammon if also a checker of its is
    on the bar or in the opponent's home board (its points 19..24). A compiled copy of the
    core's :func:`~gammon.core.cube.win_level`, checked against it by
    ``tests/engine/test_kernel_rules.py``."""
    for i in range(0, 25):
        if board[i] < 0:
            return False
    on_board = 0
    back = board[25] > 0
    for i in range(1, 26):
        if board[i] > 0:
            on_board += board[i]
            if i >= 19:
                back = True
    gammon = on_board == 15
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0
    out[3] = 1.0 if gammon else 0.0
    out[4] = 1.0 if gammon and back else 0.0
    return True


@_jit
def rule_out_impossible(board: np.ndarray, out: np.ndarray) -> None:
    """Zero the gammons (and backgammons) that ``board`` (side on roll's view) can no
    longer reach, whatever a network says (RULES.md §4): a side that has borne off a
    checker cannot lose one. (In races the backgammons are computed instead:
    :func:`~gammon.engine.bearoff.race_backgammons`.)"""
    mine, theirs = checkers_on_board(board)
    if mine < 15:
        out[LOSE_GAMMON] = 0.0
        out[LOSE_BACKGAMMON] = 0.0
    if theirs < 15:
        out[WIN_GAMMON] = 0.0
        out[WIN_BACKGAMMON] = 0.0


@_jit
def evaluate_position(board: np.ndarray, nets: KernelArrays, scratch: Arrays,
                      out: np.ndarray) -> None:
    """Probabilities for the side on roll of ``board`` (before it rolls), from the
    scratch's cache when it has one and holds them."""
    keys, cached, filled = scratch[5], scratch[6], scratch[7]
    if keys.shape[0] == 0:
        _evaluate_position(board, nets, scratch, out)
        return
    slot = _cache_slot(board, keys.shape[0])
    if filled[slot]:
        same = True
        for i in range(26):
            if keys[slot, i] != board[i]:
                same = False
                break
        if same:
            out[:] = cached[slot]
            return
    _evaluate_position(board, nets, scratch, out)
    keys[slot] = board
    cached[slot] = out
    filled[slot] = True


@_jit
def _evaluate_position(board: np.ndarray, nets: KernelArrays, scratch: Arrays,
                       out: np.ndarray) -> None:
    if lost_result(board, out):
        return
    if is_bearoff_board(board):
        race_probabilities(board, nets.bearoff_rolls, nets.bearoff_first_off, out, scratch[4])
        make_consistent(out)  # the tables are float32: keep the bounds exact
        return
    inputs, hidden = scratch[0], scratch[1]
    race = is_race(board)
    kind = _encode_for(board, nets, inputs, race)
    # a call per network, not one on weights returned by a helper: 0.4 µs faster
    if kind == RACE:
        forward(inputs, nets.race_w1, nets.race_b1, nets.race_w2, nets.race_b2, hidden, out)
    elif kind == CRASHED:
        forward(inputs, nets.crashed_w1, nets.crashed_b1, nets.crashed_w2, nets.crashed_b2,
                hidden, out)
    else:
        forward(inputs, nets.contact_w1, nets.contact_b1, nets.contact_w2, nets.contact_b2,
                hidden, out)
    if race:  # the backgammons from the bear-off tables (a gammon is at least one)
        race_backgammons(board, nets.bearoff_rolls, out, scratch[4][0])
        out[WIN_GAMMON] = max(out[WIN_GAMMON], out[WIN_BACKGAMMON])
        out[LOSE_GAMMON] = max(out[LOSE_GAMMON], out[LOSE_BACKGAMMON])
    rule_out_impossible(board, out)
    make_consistent(out)


@_jit
def evaluate_after(after: np.ndarray, nets: KernelArrays, scratch: Arrays, out: np.ndarray) -> None:
    """Probabilities for the side that just moved, given the board after its play."""
    if terminal_result(after, out):
        return
    theirs, swapped = scratch[2], scratch[3]
    swap_board(after, swapped)
    evaluate_position(swapped, nets, scratch, theirs)
    invert(theirs, out)


MONEY_WEIGHTS = np.empty(0)
"""No weights: a play is chosen by its cubeless money equity."""


@_jit
def play_score(probs: np.ndarray, weights: np.ndarray) -> float:
    """What the side choosing a play maximises, from its probabilities after the play:
    cubeless money equity, or with ``weights`` (:func:`gammon.engine.cube.filter_weights`)
    its cubeless value at a match score, less a constant."""
    if weights.shape[0] == 0:
        return equity(probs)
    value = 0.0
    for k in range(OUTPUTS):
        value += weights[k] * probs[k]
    return value


@_jit
def choose_play(boards: np.ndarray, count: int, nets: KernelArrays, scratch: Arrays,
                best_probs: np.ndarray) -> int:
    """Index of the play with the highest cubeless equity at 0-ply, after the judge's word
    when ``nets`` has a judge (as a 0-ply ranking has it, :func:`judge_plays`); its
    probabilities go to ``best_probs``."""
    if nets.judge_keep[0] <= 0:
        return choose_play_weighted(boards, count, nets, scratch, best_probs, MONEY_WEIGHTS)
    probs = np.empty((count, OUTPUTS), dtype=np.float64)
    for i in range(count):
        evaluate_after(boards[i], nets, scratch, probs[i])
    judge_plays(boards, count, nets, scratch, probs, MONEY_WEIGHTS)
    best = 0
    for i in range(1, count):
        if equity(probs[i]) > equity(probs[best]):
            best = i
    best_probs[:] = probs[best]
    return best


@_jit
def choose_play_weighted(boards: np.ndarray, count: int, nets: KernelArrays, scratch: Arrays,
                         best_probs: np.ndarray, weights: np.ndarray) -> int:
    """:func:`choose_play` by :func:`play_score` with ``weights``."""
    probs = np.empty(OUTPUTS, dtype=np.float64)
    best = 0
    best_score = -1e9
    for i in range(count):
        evaluate_after(boards[i], nets, scratch, probs)
        e = play_score(probs, weights)
        if e > best_score:
            best_score = e
            best = i
            best_probs[:] = probs
    return best


@_jit
def judge_plays(boards: np.ndarray, count: int, nets: KernelArrays, scratch: Arrays,
                probs: np.ndarray, weights: np.ndarray) -> None:
    """The judge's word on a 0-ply ranking of the plays ``boards[:count]``, whose 0-ply
    probabilities are ``probs``: the best few by :func:`play_score` with ``weights`` (at
    most ``nets.judge_keep[0]``, within ``nets.judge_margin[0]`` of the best), then
    whichever play is best once they are judged, until the best is one the judge has seen,
    get the judge network's probabilities in place of the contact network's (plays that
    leave no contact position keep theirs). The judge is the mean of several contact
    networks, whose errors partly cancel: too slow for every play of every search, cheap
    for two plays a decision. Judging only the top would let the next play overtake them
    on the contact network's word alone: the plays a network rates best are the ones it
    overrates."""
    keep = nets.judge_keep[0]
    if keep <= 0:
        return
    scores = np.empty(count, dtype=np.float64)
    for i in range(count):
        scores[i] = play_score(probs[i], weights)
    seen = np.zeros(count, dtype=np.bool_)  # judged, or not the judge's to judge
    order = np.argsort(-scores, kind="mergesort")
    floor = scores[order[0]] - nets.judge_margin[0]
    for rank in range(min(keep, count)):
        i = order[rank]
        if scores[i] < floor:
            break
        judge_after(boards[i], nets, scratch, probs[i])
        scores[i] = play_score(probs[i], weights)
        seen[i] = True
    while True:
        best = int(np.argmax(scores))
        if seen[best]:
            return
        judge_after(boards[best], nets, scratch, probs[best])
        scores[best] = play_score(probs[best], weights)
        seen[best] = True


@_jit
def judge_after(after: np.ndarray, nets: KernelArrays, scratch: Arrays, out: np.ndarray) -> bool:
    """The judge's probabilities of a play for the side that made it, from the board after
    it, into ``out``; False (``out`` left as it is) when the play leaves no contact
    position or ``nets`` has no judge."""
    theirs, swapped, inputs, hidden = scratch[2], scratch[3], scratch[0], scratch[1]
    if nets.judge_keep[0] <= 0 or terminal_result(after, theirs):
        return False
    swap_board(after, swapped)
    if is_race(swapped) or _encode_for(swapped, nets, inputs, False) != CONTACT:
        return False
    forward(inputs, nets.judge_w1, nets.judge_b1, nets.judge_w2, nets.judge_b2, hidden, theirs)
    rule_out_impossible(swapped, theirs)
    make_consistent(theirs)
    invert(theirs, out)
    return True


@_jit
def prune_equity(after: np.ndarray, nets: KernelArrays, scratch: Arrays) -> float:
    """The pruning network's cubeless equity of a play for the side that made it, from
    the board after it (exact when the play wins)."""
    return _prune_equity(after, nets.prune_w1, nets.prune_b1, nets.prune_w2, nets.prune_b2,
                         scratch[1], scratch[3], scratch[2])


@_jit
def _prune_equity(after: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                  b2: np.ndarray, hidden: np.ndarray, swapped: np.ndarray,
                  probs: np.ndarray) -> float:
    """:func:`prune_equity` on the arrays themselves: taking an array out of ``nets`` or
    ``scratch`` costs reference counting, so a loop takes them out once."""
    if terminal_result(after, probs):
        return equity(probs)
    swap_board(after, swapped)
    prune_sums(swapped, w1, b1, hidden)
    forward_from_sums(hidden, b1.shape[0], w2, b2, probs)
    return -equity(probs)  # the opponent's equity, seen from the mover


@_jit
def choose_play_pruned(boards: np.ndarray, count: int, nets: KernelArrays, scratch: Arrays,
                       best_probs: np.ndarray, weights: np.ndarray) -> int:
    """:func:`choose_play` for the search's inner plies: when the networks have a pruning
    network and the position is not a race, only the ``nets.prune_keep[0]`` plays it rates best
    get the full evaluation (as GNU Backgammon's pruning networks do). Ties go to the
    first play, as in :func:`choose_play`. The pruning network itself ranks by money
    equity; the full evaluations are compared by :func:`play_score` with ``weights``."""
    keep = nets.prune_keep[0]
    if keep <= 0 or count <= keep or is_race(boards[0]):
        return choose_play_weighted(boards, count, nets, scratch, best_probs, weights)
    scores = np.empty(count, dtype=np.float64)
    w1, b1, w2, b2 = nets.prune_w1, nets.prune_b1, nets.prune_w2, nets.prune_b2
    hidden, swapped, outputs = scratch[1], scratch[3], scratch[2]
    for i in range(count):
        scores[i] = _prune_equity(boards[i], w1, b1, w2, b2, hidden, swapped, outputs)
    probs = np.empty(OUTPUTS, dtype=np.float64)
    best = -1
    best_score = -1e9
    for _ in range(keep):
        top = 0
        for i in range(1, count):
            if scores[i] > scores[top]:
                top = i
        scores[top] = -1e18
        evaluate_after(boards[top], nets, scratch, probs)
        e = play_score(probs, weights)
        if e > best_score or (e == best_score and top < best):
            best_score = e
            best = top
            best_probs[:] = probs
    return best
