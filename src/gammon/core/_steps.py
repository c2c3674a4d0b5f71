"""The search for the legal steps of a turn and the points each checker can reach, compiled
with numba: :meth:`Game.legal_steps_and_reach <gammon.core.game.Game.legal_steps_and_reach>`
in one call, over the generator's kernels (:mod:`gammon.core._movegen`, the one
implementation of RULES.md §3).

A step (one checker, one die) is legal iff some legal full play of the turn can still be
completed after it: the legal plays from the rest of the dice (:func:`_movegen.generate`,
the maximum-dice and higher-die rules included) reach one of the turn's plays. The one-die
moves of a checker are the generator's for one die: :func:`_movegen._destination` and
:func:`_movegen._apply`, as its search makes them.

Iterative, with explicit stacks (numba cannot cache recursive functions); what the rest of
the dice can finish is remembered per board and dice within a call.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gammon.core._movegen import MAX_MOVES, NO_MOVE, _apply, _destination, board_key, generate

_jit = nb.njit(cache=True, nogil=True)

REACH_FIELDS = 3 + MAX_MOVES
"""A row of the reach: source, point reached, number of dice, then the dice in order."""
_MEMO = 256


@_jit
def _outside(board: np.ndarray) -> int:
    """The mover's checkers not yet home (points 7..24 and the bar), as the generator counts
    them for bearing off."""
    outside = 0
    for point in range(7, 26):
        if board[point] > 0:
            outside += board[point]
    return outside


@_jit
def _slot(low: np.uint64, high: np.uint64, mask: int) -> int:
    """The slot a key starts from in a table of ``mask + 1`` slots (as the generator's)."""
    return int(np.int64(((low * np.uint64(0x9E3779B97F4A7C15))
                         ^ (high * np.uint64(0xC2B2AE3D27D4EB4F))) >> np.uint64(40)) & mask)


@_jit
def _target_table(targets: np.ndarray) -> np.ndarray:
    """An open-addressing set of the keys of ``targets`` (int8[n, 26]): rows of (low, high,
    used)."""
    size = 16
    while size < 2 * targets.shape[0]:
        size *= 2
    table = np.zeros((size, 3), dtype=np.uint64)
    mask = size - 1
    for i in range(targets.shape[0]):
        low, high = board_key(targets[i])
        slot = _slot(low, high, mask)
        while table[slot, 2] != 0:
            if table[slot, 0] == low and table[slot, 1] == high:
                break
            slot = (slot + 1) & mask
        table[slot, 0] = low
        table[slot, 1] = high
        table[slot, 2] = 1
    return table


@_jit
def _is_target(table: np.ndarray, low: np.uint64, high: np.uint64) -> bool:
    mask = table.shape[0] - 1
    slot = _slot(low, high, mask)
    while table[slot, 2] != 0:
        if table[slot, 0] == low and table[slot, 1] == high:
            return True
        slot = (slot + 1) & mask
    return False


@_jit
def _dice_code(dice: np.ndarray, count: int) -> int:
    """The multiset of ``dice[:count]`` as one number: how many of each value, 3 bits
    each."""
    code = 0
    for i in range(count):
        code += 1 << (3 * (dice[i] - 1))
    return code


@_jit
def _without(dice: np.ndarray, count: int, die: int, out: np.ndarray) -> int:
    """``dice[:count]`` less one ``die``, in order, into ``out``; returns how many are left."""
    n = 0
    removed = False
    for i in range(count):
        if not removed and dice[i] == die:
            removed = True
            continue
        out[n] = dice[i]
        n += 1
    return n


@_jit
def _distinct_descending(dice: np.ndarray, count: int, out: np.ndarray) -> int:
    """The different values of ``dice[:count]``, highest first, into ``out``."""
    n = 0
    for i in range(count):
        seen = False
        for j in range(n):
            if out[j] == dice[i]:
                seen = True
        if not seen:
            out[n] = dice[i]
            n += 1
    for i in range(1, n):  # at most a few values: insertion sort
        value = out[i]
        j = i - 1
        while j >= 0 and out[j] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = value
    return n


@_jit
def _known(board: np.ndarray, dice: np.ndarray, count: int, targets: np.ndarray,
           memo: np.ndarray, memo_state: np.ndarray) -> int:
    """Whether playing ``dice[:count]`` on from ``board`` can end in one of the turn's plays
    (``targets``, a :func:`_target_table`), when known without the generator: 1 or 0, or
    -1 when the generator must say (:func:`_remember` then keeps its answer)."""
    low, high = board_key(board)
    if count == 0:
        return 1 if _is_target(targets, low, high) else 0
    code = np.uint64(_dice_code(dice, count))
    for i in range(memo_state[0]):
        if memo[i, 0] == low and memo[i, 1] == high and memo[i, 2] == code:
            return 1 if memo[i, 3] == 1 else 0
    return -1


@_jit
def _remember(board: np.ndarray, dice: np.ndarray, count: int, targets: np.ndarray,
              keys: np.ndarray, plays: int, memo: np.ndarray, memo_state: np.ndarray) -> bool:
    """Whether one of the generator's ``plays`` (their ``keys``) for ``board`` and
    ``dice[:count]`` is one of ``targets``, remembered for :func:`_known`."""
    found = False
    for i in range(plays):
        if _is_target(targets, keys[i, 0], keys[i, 1]):
            found = True
            break
    used = memo_state[0]
    if used < memo.shape[0]:
        low, high = board_key(board)
        memo[used, 0] = low
        memo[used, 1] = high
        memo[used, 2] = np.uint64(_dice_code(dice, count))
        memo[used, 3] = 1 if found else 0
        memo_state[0] = used + 1
    return found


@_jit
def steps_and_reach(board: np.ndarray, dice: np.ndarray, plays: np.ndarray, reach: bool,
                    boards: np.ndarray, moves: np.ndarray, keys: np.ndarray,
                    table: np.ndarray, state: np.ndarray,
                    line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal steps of ``board`` (int8[26], the mover's view mid-turn) with ``dice`` (the
    dice left, 1 to 4) towards ``plays`` (int8[n, 26], the boards of the turn's legal full
    plays), and, with ``reach``, every point each checker with a legal step can reach.

    Returns ``(steps, found)``: ``steps`` rows of (source, die, destination, hit), by die
    from the highest and then by source from the bar down; ``found`` rows of
    :data:`REACH_FIELDS` (source, point, number of dice, the dice), the sources in the order
    of ``steps``, each source's points in the order first found, each with the fewest dice
    first found. Both empty when the play is complete (no die left, or none playable). The
    last four arguments are the generator's scratch buffers (:func:`_movegen.new_scratch`).
    """
    count = dice.shape[0]
    steps = np.empty((0, 4), dtype=np.int64)
    found = np.empty((0, REACH_FIELDS), dtype=np.int64)
    if count == 0:
        return steps, found
    if generate(board, dice, boards, moves, keys, table, state, line) > 0 \
            and moves[0, 0, 0] == NO_MOVE:
        return steps, found  # no die can be played: the play is complete
    targets = _target_table(plays)
    memo = np.zeros((_MEMO, 4), dtype=np.uint64)
    memo_state = np.zeros(1, dtype=np.int64)
    values = np.empty(MAX_MOVES, dtype=np.int64)
    rest = np.empty(MAX_MOVES, dtype=np.int64)
    after = np.empty(26, dtype=np.int8)
    steps = np.empty((2 * 26, 4), dtype=np.int64)
    nsteps = 0
    outside = _outside(board)
    for k in range(_distinct_descending(dice, count, values)):
        die = values[k]
        left = _without(dice, count, die, rest)
        for source in range(25, 0, -1):
            target = _destination(board, source, die, outside)
            if target < 0:
                continue
            for i in range(26):
                after[i] = board[i]
            hit = _apply(after, source, target)
            known = _known(after, rest, left, targets, memo, memo_state)
            if known < 0:  # the generator's calls stay in this function: compiled once
                made = generate(after, rest[:left].copy(), boards, moves, keys, table, state,
                                 line)
                known = 1 if _remember(after, rest, left, targets, keys, made, memo,
                                       memo_state) else 0
            if known:
                steps[nsteps, 0] = source
                steps[nsteps, 1] = die
                steps[nsteps, 2] = target
                steps[nsteps, 3] = hit
                nsteps += 1
    steps = steps[:nsteps]
    if not reach:
        return steps, found
    # the sources with a legal step, in the order of the steps
    sources = np.empty(nsteps, dtype=np.int64)
    nsources = 0
    for i in range(nsteps):
        seen = False
        for j in range(nsources):
            if sources[j] == steps[i, 0]:
                seen = True
        if not seen:
            sources[nsources] = steps[i, 0]
            nsources += 1
    found = np.empty((nsources * 26, REACH_FIELDS), dtype=np.int64)
    nfound = 0
    depth_boards = np.empty((MAX_MOVES + 1, 26), dtype=np.int8)
    depth_dice = np.empty((MAX_MOVES + 1, MAX_MOVES), dtype=np.int64)
    depth_count = np.zeros(MAX_MOVES + 1, dtype=np.int64)
    depth_values = np.empty((MAX_MOVES + 1, MAX_MOVES), dtype=np.int64)
    depth_nvalues = np.zeros(MAX_MOVES + 1, dtype=np.int64)
    depth_next = np.zeros(MAX_MOVES + 1, dtype=np.int64)
    depth_checker = np.zeros(MAX_MOVES + 1, dtype=np.int64)
    path = np.empty(MAX_MOVES, dtype=np.int64)
    row_of = np.empty(26, dtype=np.int64)  # point -> its row in found (this source), or -1
    for s in range(nsources):
        for i in range(26):
            row_of[i] = -1
        # depth 0: the board now, the checker on its source, every die left
        for i in range(26):
            depth_boards[0, i] = board[i]
        for i in range(count):
            depth_dice[0, i] = dice[i]
        depth_count[0] = count
        depth_checker[0] = sources[s]
        depth_nvalues[0] = _distinct_descending(dice, count, depth_values[0])
        depth_next[0] = 0
        depth = 0
        while depth >= 0:
            if depth_next[depth] >= depth_nvalues[depth]:
                depth -= 1
                continue
            die = depth_values[depth, depth_next[depth]]
            depth_next[depth] += 1
            here = depth_boards[depth]
            checker = depth_checker[depth]
            target = _destination(here, checker, die, _outside(here))
            if target < 0:
                continue
            nxt = depth + 1
            for i in range(26):
                depth_boards[nxt, i] = here[i]
            _apply(depth_boards[nxt], checker, target)
            left = _without(depth_dice[depth], depth_count[depth], die, depth_dice[nxt])
            reached = depth_boards[nxt]
            known = _known(reached, depth_dice[nxt], left, targets, memo, memo_state)
            if known < 0:
                made = generate(reached, depth_dice[nxt, :left].copy(), boards, moves, keys,
                                 table, state, line)
                known = 1 if _remember(reached, depth_dice[nxt], left, targets, keys, made,
                                       memo, memo_state) else 0
            if not known:
                continue
            path[depth] = die
            row = row_of[target]
            if row < 0:
                row = nfound
                nfound += 1
                row_of[target] = row
                found[row, 0] = sources[s]
                found[row, 1] = target
                found[row, 2] = MAX_MOVES + 1  # longer than any path: replaced below
            if nxt < found[row, 2]:
                found[row, 2] = nxt
                for i in range(MAX_MOVES):
                    found[row, 3 + i] = path[i] if i < nxt else 0
            if target != 0 and left > 0:
                depth_count[nxt] = left
                depth_checker[nxt] = target
                depth_nvalues[nxt] = _distinct_descending(depth_dice[nxt], left,
                                                          depth_values[nxt])
                depth_next[nxt] = 0
                depth = nxt
    return steps, found[:nfound]


@_jit
def walk(board: np.ndarray, steps: np.ndarray, dice: np.ndarray) -> tuple[int, np.ndarray,
                                                                          np.ndarray]:
    """Single-checker ``steps`` (int64[n, 2]: source, destination) played in order from
    ``board`` with ``dice``: each by the lowest die left that moves that checker there (a
    checker travels its die exactly, or bears off with a higher die when the rules allow).

    Returns ``(walked, used, after)``: how many steps could be played (``n`` when all could),
    and for each of them ``used`` (die, hit) and ``after`` (the board after it).
    """
    n = steps.shape[0]
    used = np.empty((n, 2), dtype=np.int64)
    after = np.empty((n, 26), dtype=np.int8)
    work = board.copy()
    left = dice.copy()
    count = left.shape[0]
    for k in range(n):
        source = steps[k, 0]
        destination = steps[k, 1]
        distance = source - destination
        chosen = -1
        if 1 <= source <= 25:
            outside = _outside(work)
            best = 7
            for i in range(count):  # the lowest die that makes this move
                die = left[i]
                if die < best and (die == distance or (destination == 0 and die > distance)) \
                        and _destination(work, source, die, outside) == destination:
                    best = die
                    chosen = i
        if chosen < 0:
            return k, used, after
        die = left[chosen]
        for i in range(chosen, count - 1):
            left[i] = left[i + 1]
        count -= 1
        used[k, 0] = die
        used[k, 1] = _apply(work, source, destination)
        for i in range(26):
            after[k, i] = work[i]
    return n, used, after
