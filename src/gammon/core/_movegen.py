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
_TABLE_BITS = 16
_TABLE_SIZE = 1 << _TABLE_BITS
_TABLE_MASK = _TABLE_SIZE - 1
MAX_MOVES = 4
NO_MOVE = -1
# A move is stored as (source, destination, hit); destination 0 means borne off.
MOVE_FIELDS = 3

_jit = nb.njit(cache=True, nogil=True)


@_jit
def _destination(board: np.ndarray, source: int, die: int) -> int:
    """Where a checker of the side on roll on ``source`` lands with ``die``, or -1 if it can't.

    RULES.md §3: checkers on the bar enter first; a move lands on an open point (empty, own,
    or a single opposing blot); bearing off needs all checkers home, an exact die, or a
    higher die from the highest occupied point.
    """
    if board[source] <= 0:
        return -1
    if board[25] > 0 and source != 25:
        return -1
    target = source - die
    if target >= 1:
        return target if board[target] >= -1 else -1
    for point in range(7, 26):
        if board[point] > 0:
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
                           np.ndarray, np.ndarray]:
    """Buffers for :func:`generate`: results, their moves, the key table and a state vector.

    ``state`` holds [count, best score, stamp].
    """
    boards = np.empty((CAPACITY, 26), dtype=np.int8)
    moves = np.empty((CAPACITY, MAX_MOVES, MOVE_FIELDS), dtype=np.int8)
    table_low = np.zeros(_TABLE_SIZE, dtype=np.uint64)
    table_high = np.zeros(_TABLE_SIZE, dtype=np.uint64)
    table_stamp = np.zeros(_TABLE_SIZE, dtype=np.int64)
    state = np.zeros(3, dtype=np.int64)
    line = np.full((MAX_MOVES, MOVE_FIELDS), NO_MOVE, dtype=np.int8)
    return boards, moves, table_low, table_high, table_stamp, state, line


@_jit
def _leaf(board, score, depth, line, boards, moves, table_low, table_high, table_stamp, state):
    """Record a finished line of play if it scores at least as well as the best so far."""
    if score < state[1]:
        return
    if score > state[1]:
        state[1] = score
        state[0] = 0
        state[2] += 1  # forget every key stored for worse-scoring leaves
    low, high = board_key(board)
    slot = np.int64(((low * np.uint64(0x9E3779B97F4A7C15)) ^ (high * np.uint64(0xC2B2AE3D27D4EB4F)))
                    >> np.uint64(64 - _TABLE_BITS))
    stamp = state[2]
    while table_stamp[slot] == stamp:
        if table_low[slot] == low and table_high[slot] == high:
            return
        slot = (slot + 1) & _TABLE_MASK
    table_stamp[slot] = stamp
    table_low[slot] = low
    table_high[slot] = high
    n = state[0]
    boards[n, :] = board
    for m in range(MAX_MOVES):
        for f in range(MOVE_FIELDS):
            moves[n, m, f] = line[m, f] if m < depth else NO_MOVE
    state[0] = n + 1


@_jit
def _search(board, dice, ndice, same_dice, line, boards, moves, table_low, table_high,
            table_stamp, state):
    """Depth-first expansion of one ordering of the dice (see the module doc).

    Iterative, with an explicit stack (``next_source`` per depth): numba cannot cache
    recursive functions.
    """
    next_source = np.empty(MAX_MOVES + 1, dtype=np.int64)
    moved = np.zeros(MAX_MOVES + 1, dtype=np.bool_)
    next_source[0] = 25
    depth = 0
    while depth >= 0:
        if depth == ndice:
            _leaf(board, 8 * depth, depth, line, boards, moves, table_low, table_high,
                  table_stamp, state)
        else:
            die = dice[depth]
            source = next_source[depth]
            target = -1
            while source >= 1:
                target = _destination(board, source, die)
                if target >= 0:
                    break
                source -= 1
            if source >= 1:
                next_source[depth] = source - 1
                moved[depth] = True
                line[depth, 0] = source
                line[depth, 1] = target
                line[depth, 2] = _apply(board, source, target)
                depth += 1
                # Doubles: the next move starts no higher than this one.
                next_source[depth] = source if same_dice else 25
                moved[depth] = False
                continue
            if not moved[depth]:
                # The rest of the roll cannot be played: a partial play. A die played
                # alone scores its value on top, so the higher die wins when only one can.
                score = 8 * depth + (dice[0] if depth == 1 else 0)
                _leaf(board, score, depth, line, boards, moves, table_low, table_high,
                      table_stamp, state)
        depth -= 1
        if depth >= 0:
            _undo(board, line[depth, 0], line[depth, 1], line[depth, 2])


@_jit
def generate(board, dice, boards, moves, table_low, table_high, table_stamp, state, line):
    """All distinct legal plays of ``board`` for ``dice`` (1 to 4 values still to play).

    ``dice`` is the list of moves still available: ``[a, b]`` for a roll of two different
    numbers, ``[d, d, d, d]`` for doubles, or fewer values in the middle of a turn (they
    must then all be equal, or be the two different numbers of the roll). Returns the
    number of plays; their resulting boards (seen from the mover) and moves are in
    ``boards[:n]`` and ``moves[:n]``. With no legal move there is one play: the board
    unchanged, with no moves.
    """
    work = board.copy()
    state[0] = 0
    state[1] = -1
    state[2] += 1
    ndice = dice.shape[0]
    same = True
    for i in range(1, ndice):
        if dice[i] != dice[0]:
            same = False
    _search(work, dice, ndice, same, line, boards, moves, table_low, table_high,
            table_stamp, state)
    if not same:
        reverse = dice[::-1].copy()
        _search(work, reverse, ndice, same, line, boards, moves, table_low, table_high,
                table_stamp, state)
    return state[0]


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
def count_plays_batch(positions: np.ndarray, rolls: np.ndarray) -> np.ndarray:
    """Number of distinct legal plays for each (board, roll) row — for tests and benchmarks."""
    boards, moves, table_low, table_high, table_stamp, state, line = new_scratch()
    n = positions.shape[0]
    counts = np.empty(n, dtype=np.int64)
    for i in range(n):
        dice = roll_dice(rolls[i, 0], rolls[i, 1])
        counts[i] = generate(positions[i], dice, boards, moves, table_low, table_high,
                             table_stamp, state, line)
    return counts


@_jit
def plays_batch(positions: np.ndarray, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The engine's batch path: every distinct resulting board for each (board, roll) row.

    Returns ``(offsets, results)``: the plays of row ``i`` are ``results[offsets[i]:
    offsets[i + 1]]``, boards seen from the side that moved. A roll with no legal move
    yields the unchanged board.
    """
    boards, moves, table_low, table_high, table_stamp, state, line = new_scratch()
    n = positions.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    capacity = max(1024, n * 32)
    results = np.empty((capacity, 26), dtype=np.int8)
    total = 0
    for i in range(n):
        dice = roll_dice(rolls[i, 0], rolls[i, 1])
        count = generate(positions[i], dice, boards, moves, table_low, table_high,
                         table_stamp, state, line)
        if total + count > capacity:
            while total + count > capacity:
                capacity *= 2
            grown = np.empty((capacity, 26), dtype=np.int8)
            grown[:total] = results[:total]
            results = grown
        results[total:total + count] = boards[:count]
        total += count
        offsets[i + 1] = total
    return offsets, results[:total].copy()
