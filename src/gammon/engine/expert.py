"""Expert inputs and position classes for the second generation of networks (numba).

Positions fall in three classes, each with its own network:

* **race** — no contact (:func:`gammon.engine.features.is_race`); pure bear-offs among them
  are not learned but read from the bear-off database;
* **crashed** — contact, and a side has at most ``CRASHED_CHECKERS`` *active* checkers:
  checkers in play (board and bar), not counting the ones piled beyond the first on its
  ace point, which can never move again;
* **contact** — everything else.

Contact and crashed positions share the *contact inputs*: for each side, the raw point
encoding of :mod:`gammon.engine.features` (four units per point, bar, checkers off) and
the hand-made features of ``EXPERT_NAMES`` (described in ``shared/ENGINE-INPUTS.md``;
each is documented at the line that computes it). Races get the *race inputs*: the raw
point encoding without the bar, a one-hot "exactly k checkers off", the pip count and
the crossovers (checkers times home-board quadrants still to cross).

Each side's features are computed from its own view (its points 1..24, its bar 25); the
opponent's checker on its own point ``q`` stands on our point ``25 - q``. The side on
roll's inputs come first, then the opponent's.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gammon.engine.features import POINT_UNITS, _both_sides, _encode_points, _rearmost

CRASHED_CHECKERS = 6

EXPERT_NAMES = (
    "pips",  # pip count / 100
    "off_low", "off_mid", "off_high",  # checkers off as three ramps: 0-3, 3-6, 6-15
    "break_contact",  # pips still needed to get past the opponent's rearmost checker / 167
    "free_pips",  # pips of checkers already past the opponent's rearmost checker / 100
    "back_checker",  # (point of our rearmost checker - 1) / 24
    "back_anchor",  # point of our rearmost made point / 24 (0: none)
    "forward_anchor",  # most advanced made point on points 13..24: (p - 12) / 12; 2: none
    "hit1",  # share of the 36 rolls that hit at least one opposing blot
    "hit2",  # ... at least two
    "pip_loss",  # expected pips the opponent loses to our hits (farthest blot) / 24
    "back_escapes",  # rolls / 36 with which their rearmost checker escapes past our points
    "back_rescapes",  # ... and jumps past our nearest made point in front of it
    "contain",  # 1 - fewest escapes / 36 of a checker on our points 9..1
    "contain2",  # its square
    "acontain",  # 1 - fewest escapes / 36 from our point 9 back to their rearmost checker
    "acontain2",  # its square
    "mobility",  # their checkers on our points 0..12: sum of (their point - 12) x escapes
    #              / 36 of each, / 100
    "moment2",  # sum over checkers behind our mean point of (p - mean)^2 / checkers / 400
    "enter",  # expected pips of a roll lost because our bar checkers cannot enter / 8
    "enter2",  # 1 - (1 - c/6)^2, c = points made in the opponent's home board
    "timing",  # pips our spare checkers can play without breaking a made point / 100
    "backbone",  # made points 1-6 (weight 1) or 7-11 (weight 1/2) in front of our anchor / 6
    "backgame",  # checkers on points 19..24 / 6 when we hold two or more points there
    "backgame1",  # the same when we hold exactly one
)
EXPERT_FEATURES = len(EXPERT_NAMES)
RAW_SIDE = 24 * POINT_UNITS + 2  # the points, the bar, the checkers off
CONTACT_SIDE = RAW_SIDE + EXPERT_FEATURES
CONTACT_INPUTS = 2 * CONTACT_SIDE
RACE_SIDE = 24 * POINT_UNITS + 15 + 2  # the points, exactly k off (k < 15), pips, crossovers
RACE_INPUTS = 2 * RACE_SIDE
PRUNE_INPUTS = 2 * RAW_SIDE  # the pruning network's (see gammon.engine.evaluate)

CONTACT, CRASHED, RACE = 0, 1, 2
CLASS_NAMES = ("contact", "crashed", "race")


def _roll_weights() -> tuple[np.ndarray, np.ndarray]:
    """Per blocking mask of the 12 points in front of a checker (bit i-1: the point i pips
    ahead is made), the weight out of 36 of the rolls that carry it past: the landing
    point open and, for a non-double, at least one of the two intermediate points open
    (a double d needs d and 2d open). The second table counts only the rolls that also
    jump past the nearest made point."""
    escapes = np.zeros(4096, dtype=np.int64)
    rescapes = np.zeros(4096, dtype=np.int64)
    for mask in range(4096):
        nearest = 0
        for i in range(1, 13):
            if mask >> (i - 1) & 1:
                nearest = i
                break
        for a in range(1, 7):
            for b in range(1, a + 1):
                if a == b:
                    passes = not mask & (1 << (a - 1) | 1 << (2 * a - 1))
                else:
                    landing_open = not mask >> (a + b - 1) & 1
                    passes = landing_open and (mask >> (a - 1) & mask >> (b - 1) & 1) == 0
                if passes:
                    weight = 1 if a == b else 2
                    escapes[mask] += weight
                    if nearest == 0 or a + b > nearest:
                        rescapes[mask] += weight
    return escapes, rescapes


ESCAPES, RESCAPES = _roll_weights()

_jit = nb.njit(cache=True, nogil=True)


@_jit
def _made_mask(mine: np.ndarray) -> int:
    """Bit p set for each of our points p (1..24) holding two or more checkers."""
    mask = 0
    for p in range(1, 25):
        if mine[p] >= 2:
            mask |= 1 << p
    return mask


@_jit
def _front_mask(made: int, q: int) -> int:
    """The 12-bit blocking mask in front of an opposing checker on its point ``q`` (its bar
    is 25): bit i-1 is our made point i pips ahead of it, our point 25 - q + i."""
    return (made >> (26 - q)) & 0xFFF


@_jit
def _hits_non_double(mine: np.ndarray, opp: np.ndarray, blots: np.ndarray, count: int,
                     a: int, b: int) -> tuple[int, int]:
    """Blots hit (0, 1 or 2) and the farthest one hit (our point, 0 if none) with the
    roll a-b, a != b. ``opp[t]``: opposing checkers on our point t; ``blots[:count]``: the
    points of their blots."""
    bar = mine[25]
    hits = 0
    farthest = 0
    if bar >= 2:  # both dice enter, or the checkers stay on the bar
        for d in (a, b):
            if opp[25 - d] == 1:
                hits += 1
                farthest = max(farthest, 25 - d)
        return hits, farthest
    if bar == 1:  # enter with one die, then any checker plays the other
        for x, y in ((a, b), (b, a)):
            entry = 25 - x
            if opp[entry] >= 2:
                continue
            first = 1 if opp[entry] == 1 else 0
            if first:
                farthest = max(farthest, entry)
            second = 0
            for k in range(count):
                t = blots[k]
                if t != entry and t + y <= 24 and (mine[t + y] > 0 or t + y == entry):
                    second = 1
                    farthest = max(farthest, t)
            hits = max(hits, first + second)
        return hits, farthest
    for k in range(count):
        t = blots[k]
        hit_a = t + a <= 24 and mine[t + a] > 0
        hit_b = t + b <= 24 and mine[t + b] > 0
        if t + a + b <= 24 and mine[t + a + b] > 0:
            mid_b, mid_a = t + b, t + a  # where the checker stops playing a first / b first
            if opp[mid_b] < 2 or opp[mid_a] < 2:
                farthest = max(farthest, t)
                hits = max(hits, 1)
                if opp[mid_b] == 1 or opp[mid_a] == 1:  # it hits on its way too
                    hits = 2
        if hit_a or hit_b:
            farthest = max(farthest, t)
            hits = max(hits, 1)
            if hits == 2:
                continue
            for m in range(count):  # another checker hits another blot with the other die
                u = blots[m]
                if u == t:
                    continue
                if hit_a and u + b <= 24 and mine[u + b] > (1 if u + b == t + a else 0):
                    hits = 2
                if hit_b and u + a <= 24 and mine[u + a] > (1 if u + a == t + b else 0):
                    hits = 2
    return hits, farthest


@_jit
def _hits_double(mine: np.ndarray, opp: np.ndarray, blots: np.ndarray, count: int,
                 d: int) -> tuple[int, int]:
    """As :func:`_hits_non_double` for the double d-d: checkers on the bar enter first,
    then the moves left (four in all) go to checkers anywhere."""
    bar = mine[25]
    entry = 25 - d
    entry_hit = 0
    farthest = 0
    if bar > 0:
        if opp[entry] >= 2:
            return 0, 0
        if opp[entry] == 1:
            entry_hit = 1
            farthest = entry
    moves = max(4 - bar, 0)
    board_hits = 0
    # The fewest moves for a checker to reach a blot, and to reach a different blot.
    cheapest, cheapest_blot, other = 99, 0, 99
    for k in range(count):
        t = blots[k]
        if entry_hit and t == entry:
            continue
        passed = 0  # blots between t and the nearest checker behind it
        for j in range(1, moves + 1):
            p = t + j * d
            if p > 24:
                break
            if mine[p] > 0 or (bar > 0 and p == entry):
                farthest = max(farthest, t)
                board_hits = max(board_hits, 2 if passed else 1)
                if j < cheapest:
                    if t != cheapest_blot:
                        other = cheapest
                    cheapest, cheapest_blot = j, t
                elif j < other:
                    other = j
                break
            if opp[p] >= 2:
                break
            if opp[p] == 1:
                passed += 1
    if cheapest + other <= moves:  # two checkers, each hitting a different blot
        board_hits = 2
    return min(entry_hit + board_hits, 2), farthest


@_jit
def _hits_non_double_masks(mine: np.ndarray, occupied: int, blocked: int, blot_mask: int,
                           blots: np.ndarray, count: int, a: int, b: int) -> tuple[int, int]:
    """:func:`_hits_non_double` without checkers on the bar, on bit masks (bit p: our
    point p): ``occupied`` our points 1..24 with a checker, ``blocked`` the points they
    hold, ``blot_mask`` their blots. The same rules, the same results; about a tenth of
    the work, as the loops over pairs of blots become a few shifts."""
    hit_a = (occupied >> a) & blot_mask  # blots a pips in front of one of our checkers
    hit_b = (occupied >> b) & blot_mask
    # a checker a + b pips behind, with a landing point between open
    combined = (occupied >> (a + b)) & blot_mask & ~((blocked >> a) & (blocked >> b))
    hit = hit_a | hit_b | combined
    if hit == 0:
        return 0, 0
    farthest = 0
    for k in range(count - 1, -1, -1):
        if hit >> blots[k] & 1:
            farthest = blots[k]
            break
    if combined & ((blot_mask >> a) | (blot_mask >> b)):  # it hits on its way too
        return 2, farthest
    for k in range(count):  # one checker hits t with the a, another u != t with the b
        t = blots[k]
        if not hit_a >> t & 1:
            continue
        others = hit_b & ~(1 << t)
        u = t + a - b  # the b from u lands where the a from t does: two checkers needed
        if u >= 1 and mine[t + a] == 1:
            others &= ~(1 << u)
        if others:
            return 2, farthest
    return 1, farthest


@_jit
def _hit_features(mine: np.ndarray, opp: np.ndarray) -> tuple[float, float, float]:
    """(share of rolls hitting one blot or more, two or more, expected pips lost / 24)."""
    return _hit_shares(mine, opp, True)


@_jit
def _hit_features_reference(mine: np.ndarray, opp: np.ndarray) -> tuple[float, float, float]:
    """:func:`_hit_features` by the direct loops only (kept to test the masks against)."""
    return _hit_shares(mine, opp, False)


@_jit
def _hit_shares(mine: np.ndarray, opp: np.ndarray,
                masks: bool) -> tuple[float, float, float]:
    """:func:`_hit_features`, counting a non-double's hits without checkers on the bar on
    bit masks (:func:`_hits_non_double_masks`) when ``masks``, else by the direct loops."""
    blots = np.empty(15, dtype=np.int64)
    count = 0
    occupied = 0
    blocked = 0
    blot_mask = 0
    for t in range(1, 25):
        if opp[t] == 1:
            blots[count] = t
            count += 1
            blot_mask |= 1 << t
        elif opp[t] >= 2:
            blocked |= 1 << t
        if mine[t] > 0:
            occupied |= 1 << t
    if count == 0:
        return 0.0, 0.0, 0.0
    one = 0
    two = 0
    loss = 0
    for a in range(1, 7):
        for b in range(1, a + 1):
            if a == b:
                hits, farthest = _hits_double(mine, opp, blots, count, a)
                weight = 1
            elif masks and mine[25] == 0:
                hits, farthest = _hits_non_double_masks(mine, occupied, blocked, blot_mask,
                                                        blots, count, a, b)
                weight = 2
            else:
                hits, farthest = _hits_non_double(mine, opp, blots, count, a, b)
                weight = 2
            if hits >= 1:
                one += weight
                loss += weight * farthest
            if hits >= 2:
                two += weight
    return one / 36.0, two / 36.0, loss / 36.0 / 24.0


@_jit
def _enter_loss(mine: np.ndarray, theirs: np.ndarray) -> float:
    """Expected pips of a roll lost because our checkers on the bar cannot enter."""
    bar = mine[25]
    if bar == 0:
        return 0.0
    lost = 0
    for a in range(1, 7):
        for b in range(1, a + 1):
            a_shut = theirs[a] >= 2  # we enter with die d on their point d
            if a == b:
                if a_shut:
                    lost += 4 * a
                continue
            b_shut = theirs[b] >= 2
            if bar == 1:
                if a_shut and b_shut:
                    lost += 2 * (a + b)
            else:
                lost += 2 * ((a if a_shut else 0) + (b if b_shut else 0))
    return lost / 36.0


@_jit
def _expert_side(mine: np.ndarray, theirs: np.ndarray, out: np.ndarray, offset: int) -> None:
    """The ``EXPERT_NAMES`` features of the side with checkers ``mine``, from ``offset``."""
    in_play = 0
    pips = 0
    for p in range(1, 26):
        in_play += mine[p]
        pips += mine[p] * p
    off = 15 - in_play
    opp = np.zeros(26, dtype=np.int64)  # their checkers on our points 1..24
    for q in range(1, 25):
        opp[25 - q] = theirs[q]
    their_back = _rearmost(theirs)  # their rearmost checker, on their own point (25: the bar)
    contact_point = 25 - their_back  # the same on our points (0: the bar)

    f = offset
    out[f] = pips / 100.0
    out[f + 1] = min(off, 3) / 3.0
    out[f + 2] = min(max(off - 3, 0), 3) / 3.0
    out[f + 3] = max(off - 6, 0) / 9.0

    to_break = 0
    free = 0
    for p in range(1, 26):
        if p > contact_point:
            to_break += mine[p] * (p - contact_point + 1)
        elif p < contact_point:
            free += mine[p] * p
    out[f + 4] = to_break / 167.0
    out[f + 5] = free / 100.0

    back = _rearmost(mine)
    out[f + 6] = (back - 1) / 24.0 if back > 0 else 0.0
    anchor = 0
    for p in range(24, 0, -1):
        if mine[p] >= 2:
            anchor = p
            break
    out[f + 7] = anchor / 24.0
    forward = 0
    for p in range(13, 25):
        if mine[p] >= 2:
            forward = p
            break
    out[f + 8] = (forward - 12) / 12.0 if forward > 0 else 2.0

    hit1, hit2, loss = _hit_features(mine, opp)
    out[f + 9] = hit1
    out[f + 10] = hit2
    out[f + 11] = loss

    made = _made_mask(mine)
    if their_back > 0:
        mask = _front_mask(made, their_back)
        out[f + 12] = ESCAPES[mask] / 36.0
        out[f + 13] = RESCAPES[mask] / 36.0
    else:
        out[f + 12] = 0.0
        out[f + 13] = 0.0
    fewest = 36
    for q in range(16, 25):  # their points 16..24 are our points 9..1
        fewest = min(fewest, ESCAPES[_front_mask(made, q)])
    contain = 1.0 - fewest / 36.0
    out[f + 14] = contain
    out[f + 15] = contain * contain
    fewest = 36
    for q in range(16, their_back + 1):
        fewest = min(fewest, ESCAPES[_front_mask(made, q)])
    contain = 1.0 - fewest / 36.0
    out[f + 16] = contain
    out[f + 17] = contain * contain
    mobility = 0.0
    for q in range(13, 26):
        if theirs[q] > 0:
            mobility += theirs[q] * (q - 12) * ESCAPES[_front_mask(made, q)] / 36.0
    out[f + 18] = mobility / 100.0

    moment = 0.0
    if in_play > 0:
        mean = pips / in_play
        for p in range(1, 26):
            if p > mean:
                moment += mine[p] * (p - mean) * (p - mean)
        moment /= in_play
    out[f + 19] = moment / 400.0

    out[f + 20] = _enter_loss(mine, theirs) / 8.0
    closed = 0
    for q in range(1, 7):
        if theirs[q] >= 2:
            closed += 1
    out[f + 21] = 1.0 - (1.0 - closed / 6.0) ** 2

    timing = 0
    for p in range(2, 26):
        n = mine[p]
        spare = n - 2 if n >= 2 and p <= 24 else n
        timing += spare * (p - 1)
    out[f + 22] = timing / 100.0

    support = 0.0
    if anchor > 0:
        for p in range(1, anchor):
            if mine[p] >= 2:
                distance = anchor - p
                if distance <= 6:
                    support += 1.0
                elif distance <= 11:
                    support += 0.5
    out[f + 23] = min(support / 6.0, 1.0)

    back_points = 0
    back_checkers = 0
    for p in range(19, 25):
        back_checkers += mine[p]
        if mine[p] >= 2:
            back_points += 1
    out[f + 24] = back_checkers / 6.0 if back_points >= 2 else 0.0
    out[f + 25] = back_checkers / 6.0 if back_points == 1 else 0.0


@_jit
def _raw_side(mine: np.ndarray, out: np.ndarray, offset: int) -> None:
    """The ``RAW_SIDE`` inputs: the points, the bar, the checkers off."""
    _encode_points(mine, out, offset)
    in_play = 0
    for p in range(1, 26):
        in_play += mine[p]
    base = offset + 24 * POINT_UNITS
    out[base] = mine[25] / 2.0
    out[base + 1] = (15 - in_play) / 15.0


@_jit
def _contact_side(mine: np.ndarray, theirs: np.ndarray, out: np.ndarray, offset: int) -> None:
    _raw_side(mine, out, offset)
    _expert_side(mine, theirs, out, offset + RAW_SIDE)


@_jit
def encode_contact(board: np.ndarray, out: np.ndarray) -> None:
    """Write the ``CONTACT_INPUTS`` inputs of ``board`` (side on roll first) into ``out``."""
    mine, theirs = _both_sides(board)
    _contact_side(mine, theirs, out, 0)
    _contact_side(theirs, mine, out, CONTACT_SIDE)


@_jit
def encode_prune(board: np.ndarray, out: np.ndarray) -> None:
    """Write the ``PRUNE_INPUTS`` inputs of the pruning network (the raw encoding of each
    side, no hand-made features: cheap to compute) into ``out``."""
    mine, theirs = _both_sides(board)
    _raw_side(mine, out, 0)
    _raw_side(theirs, out, RAW_SIDE)


@_jit
def prune_sums(board: np.ndarray, w1: np.ndarray, b1: np.ndarray, hidden: np.ndarray) -> None:
    """The pruning network's hidden-unit input sums for ``board`` (side on roll first),
    straight from the board: the sums of :func:`encode_prune` then the first layer of
    :func:`~gammon.engine.network.forward`, added in the same order (so bit for bit the
    same), without writing and scanning the 196 inputs, most of them zero."""
    units = b1.shape[0]
    for j in range(units):
        hidden[j] = b1[j]
    _add_raw_side_sums(board, 0, w1, 0, hidden, units)
    _add_raw_side_sums(board, 1, w1, RAW_SIDE, hidden, units)


@_jit
def _add_row(w1: np.ndarray, row: int, x: np.float32, hidden: np.ndarray, units: int) -> None:
    for j in range(units):
        hidden[j] += x * w1[row, j]


@_jit
def _add_raw_side_sums(board: np.ndarray, side: int, w1: np.ndarray, offset: int,
                       hidden: np.ndarray, units: int) -> None:
    """Add the rows of one side's ``RAW_SIDE`` inputs that are not zero (see
    :func:`_raw_side`), each times its input, in input order."""
    in_play = 0
    for p in range(1, 25):
        n = board[p] if side == 0 else -board[25 - p]
        if n <= 0:
            continue
        in_play += n
        base = offset + (p - 1) * POINT_UNITS
        _add_row(w1, base + min(n, 3) - 1, np.float32(1.0), hidden, units)
        if n > 3:
            _add_row(w1, base + 3, np.float32((n - 3) / 2.0), hidden, units)
    bar = board[25] if side == 0 else -board[0]
    in_play += bar
    base = offset + 24 * POINT_UNITS
    if bar > 0:
        _add_row(w1, base, np.float32(bar / 2.0), hidden, units)
    if in_play < 15:
        _add_row(w1, base + 1, np.float32((15 - in_play) / 15.0), hidden, units)


@_jit
def _race_side(mine: np.ndarray, out: np.ndarray, offset: int) -> None:
    _encode_points(mine, out, offset)
    in_play = 0
    pips = 0
    crossovers = 0
    for p in range(1, 25):
        in_play += mine[p]
        pips += mine[p] * p
        crossovers += mine[p] * ((p - 1) // 6)
    base = offset + 24 * POINT_UNITS
    for k in range(15):
        out[base + k] = 1.0 if 15 - in_play == k else 0.0
    out[base + 15] = pips / 100.0
    out[base + 16] = crossovers / 10.0


@_jit
def encode_race(board: np.ndarray, out: np.ndarray) -> None:
    """Write the ``RACE_INPUTS`` inputs of a race ``board`` (side on roll first)."""
    mine, theirs = _both_sides(board)
    _race_side(mine, out, 0)
    _race_side(theirs, out, RACE_SIDE)


@_jit
def _active(counts: np.ndarray) -> int:
    """Checkers in play that can still move: all but the extra ones on the ace point."""
    total = 0
    for p in range(1, 26):
        total += counts[p]
    if counts[1] > 1:
        total -= counts[1] - 1
    return total


@_jit
def is_crashed(board: np.ndarray) -> bool:
    """A side has at most ``CRASHED_CHECKERS`` active checkers (see the module text)."""
    mine, theirs = _both_sides(board)
    return _active(mine) <= CRASHED_CHECKERS or _active(theirs) <= CRASHED_CHECKERS


def side_features(board: np.ndarray) -> tuple[dict[str, float], dict[str, float]]:
    """The expert features of the side on roll and of its opponent, by name."""
    out = np.zeros(CONTACT_INPUTS, dtype=np.float32)
    encode_contact(np.asarray(board, dtype=np.int8), out)
    return tuple(  # type: ignore[return-value]
        {name: float(out[side * CONTACT_SIDE + RAW_SIDE + i])
         for i, name in enumerate(EXPERT_NAMES)}
        for side in (0, 1)
    )
