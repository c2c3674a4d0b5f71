"""The expert inputs (gammon.engine.expert) on hand-built positions, with every expected
value worked out by hand from the definitions in the module (counts of the 36 rolls are
written out in the comments)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine import expert


def features(player: dict[int, int], opponent: dict[int, int]
             ) -> tuple[dict[str, float], dict[str, float]]:
    """Expert features (side on roll, opponent) of a board given by each side's points."""
    return expert.side_features(Position.from_points(player, opponent).array())


def test_direct_and_indirect_shots_need_an_open_intermediate_point() -> None:
    """hit1 counts a combination shot only through an open intermediate point."""
    # Our two checkers on 13, their blot on our 7 (their 18): six pips away.
    # A 6 (11 rolls), 5-1 and 4-2 (4), 3-3 and 2-2 (2): 17 rolls.
    mine, _ = features({13: 2}, {18: 1})
    assert mine["hit1"] == pytest.approx(17 / 36)
    assert mine["hit2"] == 0.0
    assert mine["pip_loss"] == pytest.approx(17 * 7 / 36 / 24)  # the blot is 7 pips home
    # Their points on our 10 and 11 (their 15 and 14) stop 3-3 and 2-2; 4-2 still
    # passes through our 9, 5-1 through our 8.
    mine, _ = features({13: 2}, {18: 1, 15: 2, 14: 2})
    assert mine["hit1"] == pytest.approx(15 / 36)
    # Their points on our 9 and 11 (their 16 and 14) block both ways of playing 4-2 and
    # stop 2-2; 5-1 and 3-3 still pass: 11 + 2 + 1 rolls.
    mine, _ = features({13: 2}, {18: 1, 16: 2, 14: 2})
    assert mine["hit1"] == pytest.approx(14 / 36)


def test_two_blots_hit_by_one_checker_or_two() -> None:
    """hit2: two checkers each hitting (6-4), one checker hitting on its way (4-2, 2-2)."""
    # Two on our 13; their blots on our 9 and 7 (4 and 6 pips away).
    # One or more: a 4 or a 6 (20 rolls), 3-1, 5-1, 1-1, 2-2, 3-3 (7): 27.
    mine, _ = features({13: 2}, {16: 1, 18: 1})
    assert mine["hit1"] == pytest.approx(27 / 36)
    assert mine["hit2"] == pytest.approx(5 / 36)
    # The farther blot (our 9) is hit by a 4 (11), 3-1 (2), 2-2, 1-1: 15 rolls; the 12
    # others hit only the one on our 7.
    assert mine["pip_loss"] == pytest.approx((15 * 9 + 12 * 7) / 36 / 24)


def test_doubles_share_their_four_moves_between_checkers() -> None:
    """A double hits two blots with two checkers only if the moves add up to four."""
    # Ours on 11 and 12; their blots on our 8 and 7.
    # One or more: a 3, 4 or 5 (24), 2-1 (2), every double but 6-6 (5): 31.
    # Two: 5-3, 4-1, 3-1 (6); 1-1 (one checker, 11 to 7), 2-2 (2 + 2 moves), 4-4: 9.
    mine, _ = features({11: 1, 12: 1}, {17: 1, 18: 1})
    assert mine["hit1"] == pytest.approx(31 / 36)
    assert mine["hit2"] == pytest.approx(9 / 36)
    # Our 8 is hit by 24 of them, only our 7 by 5-1, 5-2, 6-5 and 5-5 (7).
    assert mine["pip_loss"] == pytest.approx((24 * 8 + 7 * 7) / 36 / 24)


def test_shots_from_the_bar_enter_first() -> None:
    """With one checker on the bar it enters and the other die may hit; with two, only
    entering hits."""
    # Their blot on their 5 (our 20), their 6 made. One on the bar: a 5 (11), 4-1 and
    # 3-2 entering and moving on (4): 15.
    mine, _ = features({25: 1}, {5: 1, 6: 2})
    assert mine["hit1"] == pytest.approx(15 / 36)
    assert mine["pip_loss"] == pytest.approx(15 * 20 / 36 / 24)
    # Only 6-6 keeps the checker out: 24 pips lost in 1 roll of 36.
    assert mine["enter"] == pytest.approx(24 / 36 / 8)
    assert mine["enter2"] == pytest.approx(1 - (5 / 6) ** 2)
    mine, _ = features({25: 2}, {5: 1, 6: 2})
    assert mine["hit1"] == pytest.approx(11 / 36)
    # Each 6 of 6-1..6-5 (10 rolls) is lost, and all four of 6-6.
    assert mine["enter"] == pytest.approx((10 * 6 + 24) / 36 / 8)


def test_escapes_rescapes_containment_and_mobility() -> None:
    """Escapes of their rearmost checker past our points, and containment."""
    # We hold our 4 and 6 points; their rearmost checker on our 1 (their 24) has our
    # points 3 and 5 pips ahead. It escapes with 31, 42, 43, 51, 52, 54, 61..65 (22) and
    # 1-1, 2-2, 4-4, 6-6 (4): 26 rolls; jumping past our 4 (more than 3 pips): 25.
    mine, theirs = features({4: 2, 6: 2}, {24: 1, 1: 2})
    assert mine["back_escapes"] == pytest.approx(26 / 36)
    assert mine["back_rescapes"] == pytest.approx(25 / 36)
    # From our points 2..9 a checker escapes more often (29, 30, 34, 35, 36...), so the
    # fewest is from our 1.
    assert mine["contain"] == pytest.approx(10 / 36)
    assert mine["contain2"] == pytest.approx((10 / 36) ** 2)
    assert mine["acontain"] == pytest.approx(10 / 36)
    # Their one checker in our half, 12 pips from our 13, escaping 26/36 of the time.
    assert mine["mobility"] == pytest.approx(12 * 26 / 36 / 100)
    # Nothing of theirs blocks our checkers: everything escapes, nothing is contained.
    assert theirs["back_escapes"] == pytest.approx(1.0)
    assert theirs["contain"] == 0.0


def test_containment_is_zero_when_nothing_of_theirs_is_behind_our_9_point() -> None:
    """acontain looks only from our 9 point back to their rearmost checker."""
    # A full prime on our 2..7 but their rearmost checker already on our 10 (their 15).
    mine, _ = features({p: 2 for p in range(2, 8)}, {15: 2})
    assert mine["contain"] == pytest.approx(1.0)  # from our 1 nothing gets out
    assert mine["acontain"] == 0.0
    assert mine["back_escapes"] == pytest.approx(1.0)


def test_structure_features_of_a_position() -> None:
    """Pips, checkers off, contact, anchors, moment, timing, backbone, back game."""
    mine, theirs = features({24: 2, 20: 2, 13: 3, 8: 2, 6: 3}, {18: 2, 3: 3})
    assert mine["pips"] == pytest.approx(161 / 100)
    assert (mine["off_low"], mine["off_mid"], mine["off_high"]) == (1.0, 0.0, 0.0)  # 3 off
    # Their rearmost checker is on our 7: 2*18 + 2*14 + 3*7 + 2*2 pips to pass it.
    assert mine["break_contact"] == pytest.approx(89 / 167)
    assert mine["free_pips"] == pytest.approx(3 * 6 / 100)
    assert mine["back_checker"] == pytest.approx(23 / 24)
    assert mine["back_anchor"] == pytest.approx(1.0)
    assert mine["forward_anchor"] == pytest.approx(1 / 12)  # our 13 point
    mean = 161 / 12
    moment = (2 * (24 - mean) ** 2 + 2 * (20 - mean) ** 2) / 12
    assert mine["moment2"] == pytest.approx(moment / 400)
    # Spares: one on 13 (12 pips to the ace point) and one on 6 (5 pips).
    assert mine["timing"] == pytest.approx(17 / 100)
    # In front of our 24 anchor: 20 (4 pips, counts 1) and 13 (11 pips, counts 1/2).
    assert mine["backbone"] == pytest.approx(1.5 / 6)
    assert (mine["backgame"], mine["backgame1"]) == (pytest.approx(4 / 6), 0.0)
    assert mine["enter"] == 0.0
    assert mine["enter2"] == pytest.approx(1 - (5 / 6) ** 2)  # they hold their 3 point
    assert theirs["pips"] == pytest.approx(45 / 100)
    assert (theirs["off_low"], theirs["off_mid"]) == (1.0, 1.0)
    assert theirs["off_high"] == pytest.approx(4 / 9)  # 10 off
    assert theirs["break_contact"] == pytest.approx(45 / 167)  # our rearmost: their 1
    assert theirs["forward_anchor"] == pytest.approx(0.5)  # their 18 point
    assert (theirs["backgame"], theirs["backgame1"]) == (0.0, 0.0)  # nothing on 19..24
    _, nothing_forward = features({24: 2}, {6: 2})
    assert nothing_forward["forward_anchor"] == 2.0  # no point of theirs on 13..24


def test_crashed_counts_active_checkers() -> None:
    """Crashed: a side with six or fewer checkers that can still move (the extra ones on
    its ace point cannot)."""
    opponent = {23: 2, 13: 5, 8: 3, 6: 5}
    crashed = Position.from_points({1: 10, 6: 3, 13: 2}, opponent)  # 15 - 9 = 6 active
    assert expert.is_crashed(crashed.array())
    assert expert.is_crashed(crashed.swap().array())  # whichever side is on roll
    healthy = Position.from_points({1: 9, 6: 4, 13: 2}, opponent)  # 7 active
    assert not expert.is_crashed(healthy.array())
    few = Position.from_points({6: 3, 13: 3}, opponent)  # six left, nine off
    assert expert.is_crashed(few.array())


def test_race_inputs_see_checkers_off_pips_and_crossovers() -> None:
    """Race inputs: exactly-k-off one-hot, pips and crossovers, for each side."""
    board = Position.from_points({6: 2, 12: 1, 20: 1}, {3: 3}).array()
    out = np.zeros(expert.RACE_INPUTS, dtype=np.float32)
    expert.encode_race(board, out)
    base = 24 * 4
    assert list(np.flatnonzero(out[base:base + 15])) == [11]  # 11 off
    assert out[base + 15] == pytest.approx(44 / 100)
    assert out[base + 16] == pytest.approx((1 + 3) / 10)  # 12: one quadrant, 20: three
    assert out[base - 4 * 5 + 0] == 1.0  # the blot on our 20 point: its n == 1 unit
    theirs = expert.RACE_SIDE + base
    assert list(np.flatnonzero(out[theirs:theirs + 15])) == [12]
    assert out[theirs + 15] == pytest.approx(9 / 100)
    assert out[theirs + 16] == 0.0


def test_escape_tables() -> None:
    """Nothing in front: all 36 rolls escape; six points in a row: none."""
    assert expert.ESCAPES[0] == 36 and expert.RESCAPES[0] == 36
    assert expert.ESCAPES[0b111111] == 0
    # One point 6 pips ahead: everything but 5-1, 4-2 (landing on it), 6-6 and 3-3
    # (a double needs d and 2d open; 2-2 only goes 4 pips).
    assert expert.ESCAPES[1 << 5] == 36 - 6


def test_hit_features_agree_with_the_legal_plays() -> None:
    """hit1 and hit2 equal what the legal plays of each roll can hit, over positions from
    random games; pip_loss too, but for the rare roll where a hit is only possible in a
    play that would not use as much of the roll as the rules require (the feature does
    not apply that rule)."""
    rolls = [Roll(a, b) for a in range(1, 7) for b in range(1, a + 1)]
    rng = random.Random(5)
    position = Position.initial()
    loss_differs = 0
    for _ in range(300):
        play = rng.choice(legal_plays(position, Roll.roll(rng)))
        position = (Position.initial() if play.position.winner() is not None
                    else play.position.swap())
        before = position.array()
        one = two = loss = 0
        for roll in rolls:
            weight = 1 if roll.is_double() else 2
            hits, farthest = 0, 0
            for candidate in legal_plays(position, roll):
                after = candidate.position.array()
                hits = max(hits, int(before[0]) - int(after[0]))  # their bar, negative
                farthest = max([farthest] + [t for t in range(1, 25)
                                             if before[t] == -1 and after[t] >= 0])
            one += weight * (hits >= 1)
            two += weight * (hits >= 2)
            loss += weight * farthest
        mine, _ = expert.side_features(before)
        assert mine["hit1"] == pytest.approx(one / 36, abs=1e-6)
        assert mine["hit2"] == pytest.approx(two / 36, abs=1e-6)
        loss_differs += mine["pip_loss"] != pytest.approx(loss / 36 / 24, abs=1e-6)
    assert loss_differs <= 3


def test_hit_counts_on_bit_masks_equal_the_direct_loops() -> None:
    """The fast hit counting (bit masks) gives exactly the direct loops' hit1, hit2 and
    pip_loss, for both sides of positions from random games (bar checkers included)."""
    rng = random.Random(11)
    position = Position.initial()
    compared = 0
    for _ in range(2000):
        play = rng.choice(legal_plays(position, Roll.roll(rng)))
        position = (Position.initial() if play.position.winner() is not None
                    else play.position.swap())
        for side in (position, position.swap()):
            board = side.array().astype(np.int64)
            mine = np.maximum(board, 0)  # ours on points 1..24 and the bar (25)
            theirs = np.maximum(-board, 0)  # theirs on our points 1..24
            mine[0] = theirs[0] = theirs[25] = 0
            assert expert._hit_features(mine, theirs) == expert._hit_features_reference(
                mine, theirs)
            compared += int(any(theirs == 1))
    assert compared > 1000  # most positions have a blot to shoot at
