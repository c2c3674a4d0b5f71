"""Versioned weights (basic and expert feature sets), routing of positions to their class's
network, resumable TD training, the evaluation's speed shortcuts and the judge of 0-ply
rankings (gammon.engine.network / evaluate / training / search)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gammon.core import _movegen
from gammon.core.position import Position
from gammon.engine import expert, features, search
from gammon.engine.evaluate import (
    JUDGE_KEEP,
    JUDGE_MARGIN,
    SEARCH_CACHE_ENTRIES,
    choose_play,
    evaluate_position,
    kernel_arrays,
    new_scratch,
)
from gammon.engine.network import (
    BASIC,
    EXPERT,
    Network,
    NetworkPair,
    equity,
    forward,
    forward_from_sums,
    hidden_sigmoid,
)
from gammon.engine.player import Engine
from gammon.training.td import TrainingRun, sole_writer, train
from tests.core.helpers import random_game_position

SHIPPED = Path(__file__).parents[2] / "src/gammon/engine/weights/gammon.npz"
FIRST_GENERATION = Path(__file__).parents[2] / "training/checkpoints/td-h128-seed1.npz"
"""The first networks (shipped until 2026-12-01), written before feature sets existed."""


def small_expert(seed: int = 3) -> NetworkPair:
    return NetworkPair.random(contact_hidden=8, race_hidden=4, crashed_hidden=6,
                              feature_set=EXPERT, seed=seed)


def test_files_without_a_feature_set_load_as_the_basic_feature_set() -> None:
    """Files written before feature sets existed (no feature_set key) are basic."""
    with np.load(FIRST_GENERATION) as data:
        assert "feature_set" not in data
    nets = NetworkPair.load(FIRST_GENERATION)
    assert nets.feature_set == BASIC and nets.crashed is None
    assert nets.contact.inputs == features.INPUTS


def test_shipped_weights_are_the_expert_networks_with_a_pruning_network_and_a_judge() -> None:
    """The shipped file holds the three expert-input networks, the search's pruning
    network (2-ply stays cheap only with it) and the judge of 0-ply rankings (its contact
    network joined with three others)."""
    nets = NetworkPair.load(SHIPPED)
    assert nets.feature_set == EXPERT
    assert nets.crashed is not None and nets.prune is not None
    assert nets.judge is not None and nets.judge.hidden == 4 * nets.contact.hidden
    np.testing.assert_array_equal(nets.judge.hidden_weights[:, :nets.contact.hidden],
                                  nets.contact.hidden_weights)
    assert nets.contact.inputs == expert.CONTACT_INPUTS
    assert nets.race.inputs == expert.RACE_INPUTS


def test_expert_networks_round_trip(tmp_path: Path) -> None:
    """save then load keeps the feature set, the three networks and every weight."""
    nets = small_expert()
    path = tmp_path / "expert.npz"
    nets.save(path, games_done=0)
    loaded = NetworkPair.load(path)
    assert loaded.feature_set == EXPERT
    for kind, net in nets.networks().items():
        for saved, read in zip(net.arrays(), loaded.networks()[kind].arrays(), strict=True):
            np.testing.assert_array_equal(saved, read)
    assert loaded.contact.inputs == expert.CONTACT_INPUTS
    assert loaded.crashed is not None and loaded.crashed.inputs == expert.CONTACT_INPUTS
    assert loaded.race.inputs == expert.RACE_INPUTS


def test_bad_weights_files_are_refused_clearly(tmp_path: Path) -> None:
    """A file whose arrays do not fit its feature set, or of an unknown feature set, or
    missing a network, raises ValueError naming the problem."""
    basic = NetworkPair.random(contact_hidden=4, race_hidden=4, seed=1)
    wrong = tmp_path / "wrong.npz"
    NetworkPair(basic.contact, basic.race).save(wrong)
    with np.load(wrong) as data:
        arrays = dict(data)
    np.savez(wrong, **{**arrays, "feature_set": np.int64(EXPERT),
                       "crashed_hidden_weights": arrays["contact_hidden_weights"],
                       "crashed_hidden_bias": arrays["contact_hidden_bias"],
                       "crashed_output_weights": arrays["contact_output_weights"],
                       "crashed_output_bias": arrays["contact_output_bias"]})
    with pytest.raises(ValueError, match="contact network has 210 inputs"):
        NetworkPair.load(wrong)
    np.savez(wrong, **{**arrays, "feature_set": np.int64(7)})
    with pytest.raises(ValueError, match="unknown feature set 7"):
        NetworkPair.load(wrong)
    np.savez(wrong, **{**arrays, "feature_set": np.int64(EXPERT)})
    with pytest.raises(ValueError, match="no 'crashed_hidden_weights' array"):
        NetworkPair.load(wrong)
    with pytest.raises(ValueError, match="crashed network"):
        NetworkPair(basic.contact, basic.race, basic.contact, BASIC)


def biased(net: Network, win: float) -> Network:
    """``net`` with its outputs forced to about ``win`` (and no gammons)."""
    out = net.copy()
    out.output_weights[:] = 0.0
    logit = np.log(win / (1 - win))
    out.output_bias[:] = [logit, -30, -30, -30, -30]
    return out


def test_each_class_is_evaluated_by_its_own_network() -> None:
    """Contact, crashed and race positions go to the contact, crashed and race networks;
    a pure bear-off is exact (not a network)."""
    nets = small_expert()
    assert nets.crashed is not None
    routed = NetworkPair(biased(nets.contact, 0.2), biased(nets.race, 0.4),
                         biased(nets.crashed, 0.6), EXPERT)
    arrays = kernel_arrays(routed)
    scratch = new_scratch()
    out = np.empty(5)
    cases = {
        0.2: Position.initial(),
        0.6: Position.from_points({1: 10, 6: 3, 13: 2}, {23: 2, 13: 5, 8: 3, 6: 5}),
        0.4: Position.from_points({6: 2, 12: 1, 20: 1}, {3: 3}),
    }
    for win, position in cases.items():
        evaluate_position(position.array(), arrays, scratch, out)
        assert out[0] == pytest.approx(win, abs=1e-5)
    evaluate_position(Position.from_points({1: 1}, {1: 2}).array(), arrays, scratch, out)
    assert out[0] == 1.0  # we bear off our last checker with any roll


def all_gammons(net: Network) -> Network:
    """``net`` with every output forced to about 0.45: a network that sees gammons and
    backgammons everywhere, for both sides."""
    out = net.copy()
    out.output_weights[:] = 0.0
    out.output_bias[:] = np.log(0.45 / 0.55)
    return out


def gammons_everywhere(position: Position) -> list[float]:
    """``position``'s probabilities (rounded) by networks that say 0.45 to everything."""
    nets = small_expert()
    assert nets.crashed is not None
    arrays = kernel_arrays(NetworkPair(all_gammons(nets.contact), all_gammons(nets.race),
                                       all_gammons(nets.crashed), EXPERT))
    out = np.empty(5)
    evaluate_position(position.array(), arrays, new_scratch(), out)
    return [round(float(p), 6) for p in out]


def test_results_a_position_can_no_longer_reach_are_ruled_out() -> None:
    """RULES.md §4: a gammon needs the loser to have borne off no checker. A side that has
    borne off cannot be gammoned or backgammoned, whatever the network says; with contact
    a side with no checker back can still be backgammoned (it may be hit)."""
    # Contact, nobody off: everything stays possible.
    assert gammons_everywhere(Position.from_points(
        {6: 5, 8: 3, 13: 7}, {24: 2, 13: 5, 8: 3, 6: 5})) == [0.45, 0.45, 0.45, 0.45, 0.45]
    # They have borne off: we cannot win a gammon; we have not: we can lose one.
    assert gammons_everywhere(Position.from_points({6: 5, 8: 3, 13: 7}, {24: 2, 6: 5})) == [
        0.45, 0.0, 0.0, 0.45, 0.45]
    # We have borne off five and then been hit: we cannot lose a gammon.
    assert gammons_everywhere(Position.from_points({25: 1, 3: 5, 4: 4}, {24: 2, 13: 5, 6: 8})
                              ) == [0.45, 0.45, 0.45, 0.0, 0.0]


def test_race_backgammons_come_from_the_bear_off_tables() -> None:
    """RULES.md §4 (backgammon: the loser still has a checker in the winner's home board).
    In a race where the leader is all home, the backgammon chance is the chance that it
    bears off before the trailer's last checker leaves its home board; both counts of
    rolls come from the bear-off tables, whatever the network says (it says 0.45 here).
    Worked by hand: four checkers on the ace point come off in one roll with a double
    (6/36), else in two; a checker 4 pips from leaving gets out in one roll except with
    1-2 (2/36)."""
    # We lead, on roll: they are backgammoned if our double comes, or if their 1-2 comes.
    ours = gammons_everywhere(Position.from_points({1: 4}, {22: 1, 12: 14}))
    assert ours[2] == pytest.approx(6 / 36 + 30 / 36 * 2 / 36, abs=1e-6)
    assert ours[1] >= ours[2]
    # They lead; we roll first and are backgammoned only after our 1-2 and their double.
    theirs = gammons_everywhere(Position.from_points({22: 1, 10: 14}, {1: 4}))
    assert theirs[4] == pytest.approx(2 / 36 * 6 / 36, abs=1e-6)
    # Nobody has a checker in the other's home board: no backgammons, gammons as the
    # network says.
    assert gammons_everywhere(Position.from_points({8: 10, 12: 5}, {8: 10, 12: 5})) == [
        0.45, 0.45, 0.0, 0.45, 0.0]
    # 3 pips from leaving: we always get out first.
    assert gammons_everywhere(Position.from_points({21: 1, 6: 14}, {1: 4}))[4] == 0.0
    # The same checker stuck, but five of ours already off (it was hit during our
    # bear-off): no gammon, no backgammon.
    assert gammons_everywhere(Position.from_points({1: 6, 3: 2, 15: 1, 22: 1}, {1: 2}))[3:] == [
        0.0, 0.0]


def test_engine_plays_with_expert_networks(tmp_path: Path) -> None:
    """The Engine API takes an expert weights file like the shipped one."""
    path = tmp_path / "expert.npz"
    small_expert().save(path)
    engine = Engine.load(path)
    probabilities = engine.evaluate(Position.initial())
    assert 0.0 < probabilities.win < 1.0


class Interrupted(Exception):
    pass


def test_training_resumes_exactly(tmp_path: Path) -> None:
    """A run stopped after its checkpoint at 10 games and started again with the same
    settings ends with the same weights as the run never stopped."""
    run = TrainingRun(games=20, seed=5, chunk=5, checkpoint_every=10, benchmark_every=0,
                      contact_hidden=8, race_hidden=4, crashed_hidden=4,
                      feature_set=EXPERT)
    straight = train(tmp_path / "straight.npz", run, log=lambda line: None)

    def stop_at_15(line: str) -> None:
        if line.startswith("games 15/"):
            raise Interrupted

    resumed_path = tmp_path / "resumed.npz"
    with pytest.raises(Interrupted):
        train(resumed_path, run, log=stop_at_15)
    lines: list[str] = []
    resumed = train(resumed_path, run, log=lines.append)
    assert lines[0] == f"resuming {resumed_path} at 10 games"
    for kind, net in straight.networks().items():
        for a, b in zip(net.arrays(), resumed.networks()[kind].arrays(), strict=True):
            np.testing.assert_array_equal(a, b)
    assert not np.array_equal(straight.contact.hidden_weights,
                              small_expert(5).contact.hidden_weights)  # it learned
    with pytest.raises(ValueError, match="expert feature set, not basic"):
        train(resumed_path, TrainingRun(**{**run.__dict__, "feature_set": BASIC}),
              log=lambda line: None)


def test_a_second_job_on_the_same_checkpoint_is_refused(tmp_path: Path) -> None:
    """While one job holds a checkpoint, training into it again fails clearly and leaves
    the file alone."""
    path = tmp_path / "run.npz"
    run = TrainingRun(games=5, seed=5, chunk=5, checkpoint_every=5, benchmark_every=0,
                      contact_hidden=4, race_hidden=4, crashed_hidden=4, feature_set=EXPERT)
    with sole_writer(path), pytest.raises(ValueError, match="being written by another"):
        train(path, run, log=lambda line: None)
    assert not path.exists()
    train(path, run, log=lambda line: None)  # free again once the first job is done
    assert path.exists()


def test_the_hidden_units_table_sigmoid_is_within_1_3e_6_of_the_exact_function() -> None:
    """The forward pass takes its hidden units' sigmoid from an interpolated table (for
    speed): everywhere, including beyond the table's ends, it stays within 1.3e-6 of
    1 / (1 + e^-x), and it is monotone (a larger sum never gives a smaller activation)."""
    xs = np.concatenate([np.linspace(-40.0, 40.0, 400_001), [-16.0, 16.0, -15.995, 15.995]])
    table = np.array([hidden_sigmoid(float(x)) for x in np.sort(xs)])
    exact = 1.0 / (1.0 + np.exp(-np.sort(xs)))
    assert np.max(np.abs(table - exact)) < 1.3e-6
    assert np.all(np.diff(table) >= 0.0)


# -- the search's shortcuts: each must give what the plain computation gives -------------------

SEARCH_POSITIONS = [random_game_position(seed, turns)
                    for seed, turns in [(1, 4), (2, 9), (3, 15), (4, 22), (5, 30), (6, 41)]]


def test_pruning_sums_from_the_board_equal_the_encoded_inputs_bit_for_bit() -> None:
    """The pruning network's hidden sums, added straight from the board (``prune_sums``),
    are exactly those of its 196 encoded inputs through the generic forward pass: stacks
    over three checkers, the bar and checkers off included, for both sides."""
    nets = NetworkPair.load(SHIPPED).prune
    assert nets is not None
    w1, b1, w2, b2 = nets.arrays()
    assert nets.hidden == 32
    boards = [p.array() for p in SEARCH_POSITIONS]
    boards += [p.swap().array() for p in SEARCH_POSITIONS]
    boards.append(Position.from_points({6: 15}, {6: 9, 25: 2}).array())  # 15 on a point, bar
    boards.append(Position.from_points({1: 4, 3: 3, 25: 3}, {20: 1}).array())  # most off
    inputs = np.zeros(expert.PRUNE_INPUTS, dtype=np.float32)
    for board in boards:
        expert.encode_prune(board, inputs)
        encoded_hidden, direct_hidden = np.empty(32, np.float32), np.empty(32, np.float32)
        encoded, direct = np.empty(5), np.empty(5)
        forward(inputs, w1, b1, w2, b2, encoded_hidden, encoded)
        expert.prune_sums(board, w1, b1, direct_hidden)
        forward_from_sums(direct_hidden, b1.shape[0], w2, b2, direct)
        np.testing.assert_array_equal(direct, encoded)
        np.testing.assert_array_equal(direct_hidden, encoded_hidden)


def test_float32_hidden_sums_stay_within_1e_6_of_float64_sums() -> None:
    """Evaluation sums the hidden units in float32 (the weights' own precision), training
    in float64: the outputs differ by less than 1e-6."""
    w1, b1, w2, b2 = NetworkPair.load(SHIPPED).contact.arrays()
    inputs = np.zeros(expert.CONTACT_INPUTS, dtype=np.float32)
    for position in SEARCH_POSITIONS:
        expert.encode_contact(position.array(), inputs)
        single, double = np.empty(5), np.empty(5)
        forward(inputs, w1, b1, w2, b2, np.empty(512, np.float32), single)
        forward(inputs, w1, b1, w2, b2, np.empty(512, np.float64), double)
        assert np.max(np.abs(single - double)) < 1e-6


def test_the_search_cache_changes_no_result() -> None:
    """A 2-ply search gives the same figures, to the bit, without the evaluation cache,
    with it kept from one search to the next, and with a two-slot cache where nearly every
    lookup lands on another board's slot."""
    arrays = kernel_arrays(NetworkPair.load(SHIPPED))
    keep, margin = np.array([8, 2]), np.array([1.0, 1.0])  # two plays reach 2-ply
    kept = new_scratch(SEARCH_CACHE_ENTRIES)
    for position, roll in zip(SEARCH_POSITIONS, [(6, 5), (3, 1), (4, 4), (6, 2), (5, 3), (2, 1)],
                              strict=True):
        level = _movegen.new_scratch()
        count = search._generate(position.array(), *roll, level)
        boards = level[0][:count].copy()
        figures = []
        for scratch in (new_scratch(), kept, new_scratch(2)):
            levels = search.new_levels()
            probs, depth = np.empty((count, 5)), np.empty(count, dtype=np.int64)
            search.rank_plays(boards, count, 2, keep, margin, arrays, scratch, levels[1],
                              levels[2], probs, depth)
            figures.append((probs, depth))
        assert max(figures[0][1]) == 2 or count == 1
        for probs, depth in figures[1:]:
            np.testing.assert_array_equal(probs, figures[0][0])
            np.testing.assert_array_equal(depth, figures[0][1])


# -- the judge: the last word on the best few plays of a 0-ply ranking ------------------------

TWELFTH = Path(__file__).parents[2] / "training/checkpoints/td-expert-h256-seed3-gen12-prune.npz"
TEACHER = Path(__file__).parents[2] / "training/checkpoints/teacher-contact-gen10-seed11.npz"


def _ranked(nets: NetworkPair, board: np.ndarray, roll: tuple[int, int],
            plies: int) -> tuple[np.ndarray, np.ndarray]:
    """Every play's probabilities and depth from ``search.rank_plays``: the default filter."""
    level = _movegen.new_scratch()
    count = search._generate(board, *roll, level)
    levels = search.new_levels()
    probs, depth = np.empty((count, 5)), np.empty(count, dtype=np.int64)
    search.rank_plays(level[0][:count].copy(), count, plies, np.array([8, 2]),
                      np.array([0.16, 0.04]), kernel_arrays(nets), new_scratch(), levels[1],
                      levels[2], probs, depth)
    return probs, depth


def _judged_pair() -> tuple[NetworkPair, NetworkPair, NetworkPair]:
    """The twelfth networks without a judge, with the mean of their contact network and a
    teacher's as judge, and with that judge as their contact network (no judge): the
    judge's evaluation of every play, computed the plain way."""
    plain = NetworkPair.load(TWELFTH)
    assert plain.judge is None
    judge = plain.contact.joined(NetworkPair.load(TEACHER).contact)
    judged, as_contact = plain.copy(), plain.copy()
    judged.judge, as_contact.contact = judge, judge
    return plain, judged, as_contact


def test_the_judge_values_the_best_plays_of_a_0_ply_ranking_and_the_best_is_one_it_judged() -> None:
    """With a judge, a 0-ply ranking gives each play either the contact network's
    probabilities or the judge's: the judge's for the best few (at most JUDGE_KEEP, within
    JUDGE_MARGIN of the best by the contact network) and for the play ranked best at the
    end, so a play the judge never saw cannot overtake those it marked down; the others
    keep the contact network's. Plays that leave a race keep their race evaluation."""
    plain, judged, as_contact = _judged_pair()
    rolls = [(6, 5), (3, 1), (4, 4), (6, 2), (5, 3), (2, 1), (6, 6), (5, 4)]
    kept_plain = changed_choice = 0
    for seed in range(40):
        board = random_game_position(100 + seed, 3 + seed % 37).array()
        roll = rolls[seed % len(rolls)]
        mine, _ = _ranked(plain, board, roll, 0)
        theirs, _ = _ranked(as_contact, board, roll, 0)
        probs, depth = _ranked(judged, board, roll, 0)
        assert not depth.any()
        is_judge = np.all(np.abs(probs - theirs) < 1e-7, axis=1)
        is_plain = np.all(np.abs(probs - mine) < 1e-7, axis=1)
        assert np.all(is_judge | is_plain)
        equities = [equity(row) for row in mine]
        order = np.argsort(equities, kind="stable")[::-1]
        for i in order[:JUDGE_KEEP]:
            if equities[i] >= equities[order[0]] - JUDGE_MARGIN:
                assert is_judge[i]
        best = int(np.argmax([equity(row) for row in probs]))
        assert is_judge[best]
        kept_plain += int(np.sum(is_plain & ~is_judge))
        changed_choice += int(best != order[0])
        # the games' 0-ply player (benchmarks, self-play) makes the same choice
        level = _movegen.new_scratch()
        count = search._generate(board, *roll, level)
        assert choose_play(level[0], count, kernel_arrays(judged), new_scratch(),
                           np.empty(5)) == best
    assert kept_plain > 0 and changed_choice > 0  # the judge is not everywhere, and matters


def test_the_judge_leaves_deeper_searches_and_networks_without_one_as_they_were() -> None:
    """The judge speaks only at 0-ply: a 1-ply ranking is the same, to the bit, with or
    without it; the kernel arrays of networks without a judge judge nothing."""
    plain, judged, _ = _judged_pair()
    assert kernel_arrays(plain).judge_keep[0] == 0
    assert kernel_arrays(judged).judge_keep[0] == JUDGE_KEEP
    for position, roll in zip(SEARCH_POSITIONS, [(6, 5), (3, 1), (4, 4), (6, 2), (5, 3), (2, 1)],
                              strict=True):
        (a, da), (b, db) = (_ranked(nets, position.array(), roll, 1) for nets in (plain, judged))
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(da, db)


def test_a_judge_is_saved_and_loaded_and_one_of_other_inputs_refused(tmp_path: Path) -> None:
    nets = small_expert()
    nets.judge = nets.contact.joined(small_expert(seed=9).contact)
    nets.save(tmp_path / "judged.npz")
    loaded = NetworkPair.load(tmp_path / "judged.npz")
    assert loaded.judge is not None and loaded.judge.hidden == 16
    for saved, read in zip(nets.judge.arrays(), loaded.judge.arrays(), strict=True):
        np.testing.assert_array_equal(saved, read)
    assert loaded.copy().judge is not None
    with pytest.raises(ValueError, match="the judge has 4 inputs"):
        NetworkPair(nets.contact, nets.race, nets.crashed, EXPERT, None,
                    Network.random(3, seed=1, inputs=4))
