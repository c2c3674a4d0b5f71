"""The legal-play generator: the one implementation of RULES.md §3, compiled with numba.

Everything here works on the ``int8[26]`` board of :mod:`gammon.core.position` (index 25 the
bar of the side on roll, 1..24 the points, 0 the opponent's bar, opponent counts negative).
The Python API in :mod:`gammon.core.moves` and the engine's batch path both call these
kernels, so the rules exist once.

How a roll is expanded (the approach of GNU Backgammon and wildbg):

* Each die is one move of one checker. Dice that differ are tried in both orders; doubles
  give four moves, generated with non-increasing source points so each multiset of moves is
  tried once (any legal order of a multiset can be reordered highest-source-first: the bar
  comes first, checkers come home before bearing off, and an own move never blocks a point).
* Every line of play ends in a *leaf*: all dice used, or no move left for the next die. A
  leaf scores ``8 * dice used`` plus, for a one-die play, the die's value — so the
  maximum-dice rule and the higher-die rule reduce to "keep only the best-scoring leaves".
* Leaves that reach the same board are one play: an exact 128-bit key per board (5 bits a
  point, 4 bits a bar) in an open-addressing table, cleared in O(1) by bumping a stamp.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# Bounds that make overflow impossible: doubles give at most C(25 + 3, 4) = 20,475
# non-increasing source sequences; differing dice at most 2 * 25 * 25 = 1,250.
CAPACITY = 32768
MAX_MOVES = 4
NO_MOVE = -1
# A move is stored as (source, destination, hit); destination 0 means borne off.
MOVE_FIELDS = 3

# The dedup table starts small enough to stay in the L1 cache (most rolls give a few dozen
# plays) and is rebuilt at full size when a roll has many plays.
_SMALL_TABLE = 1 << 10
_LARGE_TABLE = 1 << 16
# state vector slots
_COUNT, _BEST, _STAMP, _MASK = 0, 1, 2, 3

_jit = nb.njit(cache=True, nogil=True)


@_jit
def _destination(board: np.ndarray, source: int, die: int, outside: int) -> int:
    """Where a checker of the side on roll on ``source`` lands with ``die``, or -1 if it can't.

    RULES.md §3: checkers on the bar enter first; a move lands on an open point (empty, own,
    or a single opposing blot); bearing off needs all checkers home (``outside`` counts the
    mover's checkers on points 7..24 and the bar), an exact die, or a higher die from the
    highest occupied point.
    """
    if board[source] <= 0:
        return -1
    if board[25] > 0 and source != 25:
        return -1
    target = source - die
    if target >= 1:
        return target if board[target] >= -1 else -1
    if outside > 0:
        return -1
    if target == 0:
        return 0
    for point in range(source + 1, 7):
        if board[point] > 0:
            return -1
    return 0


@_jit
def _apply(board: np.ndarray, source: int, target: int) -> int:
    """Move one checker; returns 1 if it hit a blot (sent to the opponent's bar)."""
    board[source] -= 1
    if target == 0:
        return 0
    if board[target] == -1:
        board[target] = 1
        board[0] -= 1
        return 1
    board[target] += 1
    return 0


@_jit
def _undo(board: np.ndarray, source: int, target: int, hit: int) -> None:
    board[source] += 1
    if target == 0:
        return
    if hit:
        board[target] = -1
        board[0] += 1
    else:
        board[target] -= 1


@_jit
def board_key(board: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """An exact 128-bit key: points 1..12 and the own bar, points 13..24 and the other bar."""
    low = np.uint64(board[25])
    high = np.uint64(-board[0])
    for i in range(12):
        low = (low << np.uint64(5)) | np.uint64(board[1 + i] + 15)
        high = (high << np.uint64(5)) | np.uint64(board[13 + i] + 15)
    return low, high


@_jit
def new_scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                           np.ndarray]:
    """Buffers for :func:`generate`, allocated once and reused for every roll.

    ``(boards, moves, keys, table, state, line)``: the resulting boards, their moves, their
    keys, the dedup table (low, high, stamp per slot), ``state`` = [count, best score,
    stamp, table mask], and the moves of the line being searched.
    """
    boards = np.empty((CAPACITY, 26), dtype=np.int8)
    moves = np.empty((CAPACITY, MAX_MOVES, MOVE_FIELDS), dtype=np.int8)
    keys = np.empty((CAPACITY, 2), dtype=np.uint64)
    table = np.zeros((_LARGE_TABLE, 3), dtype=np.uint64)
    state = np.zeros(4, dtype=np.int64)
    line = np.full((MAX_MOVES, MOVE_FIELDS), NO_MOVE, dtype=np.int8)
    return boards, moves, keys, table, state, line


@_jit
def _insert(table: np.ndarray, mask: int, stamp: np.uint64, low: np.uint64,
            high: np.uint64) -> bool:
    """Add a key to the table; False if it was already there."""
    slot = np.int64(((low * np.uint64(0x9E3779B97F4A7C15))
                     ^ (high * np.uint64(0xC2B2AE3D27D4EB4F))) >> np.uint64(40)) & mask
    while table[slot, 2] == stamp:
        if table[slot, 0] == low and table[slot, 1] == high:
            return False
        slot = (slot + 1) & mask
    table[slot, 0] = low
    table[slot, 1] = high
    table[slot, 2] = stamp
    return True


@_jit
def _leaf(board: np.ndarray, score: int, depth: int, line: np.ndarray, boards: np.ndarray,
          moves: np.ndarray, keys: np.ndarray, table: np.ndarray, state: np.ndarray) -> None:
    """Record a finished line of play if it scores at least as well as the best so far."""
    if score < state[_BEST]:
        return
    if score > state[_BEST]:
        state[_BEST] = score
        state[_COUNT] = 0
        state[_STAMP] += 1  # forget every key stored for worse-scoring leaves
    low, high = board_key(board)
    if not _insert(table, state[_MASK], np.uint64(state[_STAMP]), low, high):
        return
    n = state[_COUNT]
    for i in range(26):  # explicit loops: cheaper than slice assignment in numba
        boards[n, i] = board[i]
    keys[n, 0] = low
    keys[n, 1] = high
    for m in range(depth):
        moves[n, m, 0] = line[m, 0]
        moves[n, m, 1] = line[m, 1]
        moves[n, m, 2] = line[m, 2]
    for m in range(depth, MAX_MOVES):
        moves[n, m, 0] = NO_MOVE
    n += 1
    state[_COUNT] = n
    if n == _SMALL_TABLE // 2 and state[_MASK] == _SMALL_TABLE - 1:
        # Many plays: move to the large table before the small one gets crowded.
        state[_MASK] = _LARGE_TABLE - 1
        state[_STAMP] += 1
        stamp = np.uint64(state[_STAMP])
        for i in range(n):
            _insert(table, state[_MASK], stamp, keys[i, 0], keys[i, 1])


@_jit
def _search(board: np.ndarray, dice: np.ndarray, ndice: int, same_dice: bool, outside: int,
            line: np.ndarray, boards: np.ndarray, moves: np.ndarray, keys: np.ndarray,
            table: np.ndarray, state: np.ndarray) -> None:
    """Depth-first expansion of one ordering of the dice (see the module doc).

    Iterative, with an explicit stack (``next_source`` per depth): numba cannot cache
    recursive functions. ``outside`` (checkers not yet home) is kept up to date per depth.
    """
    next_source = np.empty(MAX_MOVES + 1, dtype=np.int64)
    outside_at = np.empty(MAX_MOVES + 1, dtype=np.int64)
    moved = np.zeros(MAX_MOVES + 1, dtype=np.bool_)
    next_source[0] = 25
    outside_at[0] = outside
    depth = 0
    while depth >= 0:
        if depth == ndice:
            _leaf(board, 8 * depth, depth, line, boards, moves, keys, table, state)
        else:
            die = dice[depth]
            source = next_source[depth]
            target = -1
            while source >= 1:
                target = _destination(board, source, die, outside_at[depth])
                if target >= 0:
                    break
                source -= 1
            if source >= 1:
                next_source[depth] = source - 1
                moved[depth] = True
                line[depth, 0] = source
                line[depth, 1] = target
                line[depth, 2] = _apply(board, source, target)
                outside_at[depth + 1] = outside_at[depth] - (1 if source > 6 >= target else 0)
                depth += 1
                # Doubles: the next move starts no higher than this one.
                next_source[depth] = source if same_dice else 25
                moved[depth] = False
                continue
            if not moved[depth]:
                # The rest of the roll cannot be played: a partial play. A die played
                # alone scores its value on top, so the higher die wins when only one can.
                score = 8 * depth + (dice[0] if depth == 1 else 0)
                _leaf(board, score, depth, line, boards, moves, keys, table, state)
        depth -= 1
        if depth >= 0:
            _undo(board, line[depth, 0], line[depth, 1], line[depth, 2])


@_jit
def generate(board: np.ndarray, dice: np.ndarray, boards: np.ndarray, moves: np.ndarray,
             keys: np.ndarray, table: np.ndarray, state: np.ndarray, line: np.ndarray) -> int:
    """All distinct legal plays of ``board`` for ``dice`` (1 to 4 values still to play).

    ``dice`` is the list of moves still available: ``[a, b]`` for a roll of two different
    numbers, ``[d, d, d, d]`` for doubles, or fewer values in the middle of a turn (they
    must then all be equal, or be the two different numbers of the roll). Returns the
    number of plays; their resulting boards (seen from the mover) and moves are in
    ``boards[:n]`` and ``moves[:n]``. With no legal move there is one play: the board
    unchanged, with no moves.
    """
    work = board.copy()
    state[_COUNT] = 0
    state[_BEST] = -1
    state[_STAMP] += 1
    state[_MASK] = _SMALL_TABLE - 1
    outside = 0
    for point in range(7, 26):
        if work[point] > 0:
            outside += work[point]
    ndice = dice.shape[0]
    same = True
    for i in range(1, ndice):
        if dice[i] != dice[0]:
            same = False
    _search(work, dice, ndice, same, outside, line, boards, moves, keys, table, state)
    if not same:
        reverse = dice[::-1].copy()
        _search(work, reverse, ndice, same, outside, line, boards, moves, keys, table, state)
    return int(state[_COUNT])


@_jit
def roll_dice(die1: int, die2: int) -> np.ndarray:
    """The moves a roll gives: two values, or four for doubles."""
    if die1 == die2:
        return np.full(4, die1, dtype=np.int64)
    out = np.empty(2, dtype=np.int64)
    out[0] = max(die1, die2)
    out[1] = min(die1, die2)
    return out


@_jit
def plays_batch(positions: np.ndarray, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The engine's batch path: every distinct resulting board for each (board, roll) row.

    Returns ``(offsets, results)``: the plays of row ``i`` are ``results[offsets[i]:
    offsets[i + 1]]``, boards seen from the side that moved. A roll with no legal move
    yields the unchanged board.
    """
    boards, moves, keys, table, state, line = new_scratch()
    n = positions.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    capacity = max(1024, n * 32)
    results = np.empty((capacity, 26), dtype=np.int8)
    total = 0
    for i in range(n):
        dice = roll_dice(rolls[i, 0], rolls[i, 1])
        count = generate(positions[i], dice, boards, moves, keys, table, state, line)
        if total + count > capacity:
            while total + count > capacity:
                capacity *= 2
            grown = np.empty((capacity, 26), dtype=np.int8)
            grown[:total] = results[:total]
            results = grown
        results[total:total + count] = boards[:count]
        total += count
        offsets[i + 1] = total
    return offsets, results[:total]  # a view: copying 16 MB would cost a few percent
