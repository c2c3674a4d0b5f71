"""The supervised stage (gammon.training.supervised): labels are the project's own search
values, shards are reproducible, resumable and refuse mixing; the fit follows the
cross-entropy's gradient and resumes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import gammon.cli.main as cli
from gammon.core import _movegen
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine import evaluate, search
from gammon.engine.bearoff import is_bearoff_board
from gammon.engine.evaluate import (
    MAX_HIDDEN,
    MONEY_WEIGHTS,
    choose_play,
    choose_play_pruned,
    kernel_arrays,
    network_for,
    new_scratch,
)
from gammon.engine.expert import CONTACT, CRASHED, PRUNE_INPUTS, RACE
from gammon.engine.network import MAX_INPUTS, Network, NetworkPair, equity, forward
from gammon.engine.player import Engine
from gammon.training.label_sets import infer_groups, load_groups, load_shards, shard_path
from gammon.training.supervised import (
    FitRun,
    LabelRun,
    PruneRun,
    fit,
    fit_epoch_grouped,
    group_slices,
    label,
    position_classes,
    race_deficit,
    relative_equity_error,
    train_prune,
)
from gammon.training.td import backpropagate

LABELLER = (Path(__file__).parents[2]
            / "training/checkpoints/td-expert-h256-seed3-g4m-rank1-td100k-prune.npz")
"""Fixed, committed networks (the fourth generation, shipped 2026-12-02): the tests' games,
and so the classes of the positions they reach, stay the same when the shipped ones change."""
UNPRUNED = Path(__file__).parents[2] / "training/checkpoints/td-expert-h128-seed1-g1m.npz"
"""Networks without a pruning network (the second generation's)."""
RUN = LabelRun(shards=2, games=1, seed=1, noise=0.05, plies=1)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("labels")
    assert label(LABELLER, directory, RUN, log=lambda line: None) == 2
    # the class tests below need both contact and race positions (which the games reach
    # depends on the networks)
    kinds = position_classes(load_shards(directory)[0])
    assert (kinds != RACE).sum() >= 10 and (kinds == RACE).sum() >= 10
    return directory


def assert_one_ply_values(boards: np.ndarray, labels: np.ndarray) -> None:
    """Each board's label is its 1-ply value for the side on roll, recomputed here."""
    arrays = kernel_arrays(NetworkPair.load(LABELLER))
    scratch, level = new_scratch(), _movegen.new_scratch()
    out = np.empty(5)
    for board, expected in zip(boards, labels, strict=True):
        search.position_value(board, 1, arrays, scratch, level, level, out)
        np.testing.assert_allclose(out, expected, atol=1e-6)


def test_labels_are_the_search_value_of_each_position(shards: Path) -> None:
    """Each kept board's label is its 1-ply value for the side on roll, recomputed here."""
    boards, labels = load_shards(shards)
    assert len(boards) > 0 and labels.shape == (len(boards), 5)
    for board in boards[:20]:
        assert (board[1:26].clip(0).sum() <= 15) and (-board[0:25].clip(None, 0).sum() <= 15)
    assert_one_ply_values(boards[:20], labels[:20])
    with np.load(shard_path(shards, 0)) as data:
        assert int(data["disagreements"]) <= int(data["decisions"])
        assert int(data["disagreements"]) > 0


def test_a_lost_shard_is_regenerated_identically(shards: Path, tmp_path: Path) -> None:
    """Resuming writes only the missing shards, and a shard comes out bit for bit the same."""
    copy = tmp_path / "copy"
    copy.mkdir()
    first = shard_path(shards, 0).read_bytes()
    shard_path(copy, 0).write_bytes(first)
    lines: list[str] = []
    assert label(LABELLER, copy, RUN, log=lines.append) == 1
    assert lines[0] == f"resuming {copy} after 1 shard(s)"
    with np.load(shard_path(shards, 1)) as a, np.load(shard_path(copy, 1)) as b:
        np.testing.assert_array_equal(a["boards"], b["boards"])
        np.testing.assert_array_equal(a["labels"], b["labels"])


def test_crashed_only_shards_hold_crashed_positions_with_their_search_value(
        tmp_path: Path) -> None:
    """--crashed-only keeps every crashed position met (side on roll), each labelled with
    its search value, and its shards do not mix with the disagreement shards."""
    run = LabelRun(shards=1, games=12, seed=5, plies=1, crashed_only=True)
    label(LABELLER, tmp_path, run, log=lambda line: None)
    boards, labels = load_shards(tmp_path)
    assert len(boards) > 0
    assert (position_classes(boards) == CRASHED).all()
    with np.load(shard_path(tmp_path, 0)) as data:
        assert int(data["disagreements"]) == len(boards)  # here: the crashed positions met
    assert_one_ply_values(boards[:10], labels[:10])
    with pytest.raises(ValueError, match="was made with"):
        label(LABELLER, tmp_path, LabelRun(shards=2, games=12, seed=5, plies=1))


def test_race_only_shards_hold_race_positions_rolled_out_to_the_end(tmp_path: Path) -> None:
    """--race-only keeps every race position met that is not a pure bear-off (those are
    exact from the database), labelled by rollouts played to the end: real results, so a
    side that has borne off a checker is never gammoned (RULES.md §4) and a side with no
    checker left in the opponent's home board or on the bar is never backgammoned."""
    run = LabelRun(shards=1, games=6, seed=5, plies=1, race_only=True, rollout_games=16)
    label(LABELLER, tmp_path, run, log=lambda line: None)
    boards, labels = load_shards(tmp_path)
    assert len(boards) > 0
    assert (position_classes(boards) == RACE).all()
    assert not any(is_bearoff_board(board) for board in boards)
    mine_off = 15 - np.where(boards > 0, boards, 0).sum(axis=1)
    mine_back = (boards[:, 19:26] > 0).any(axis=1)
    assert (mine_off > 0).any() and (mine_off == 0).any()
    assert (labels[mine_off > 0, 3:] == 0).all()
    assert (labels[~mine_back, 4] == 0).all()
    assert (labels[:, 1] <= labels[:, 0] + 1e-6).all()
    with pytest.raises(ValueError, match="only one of them"):
        label(LABELLER, tmp_path / "both", LabelRun(crashed_only=True, race_only=True))


def test_cube_only_shards_hold_the_positions_where_a_double_is_close(tmp_path: Path) -> None:
    """--cube-only keeps every contact position met (side on roll, before its roll) whose
    0-ply winning chance is 55-80%, the range where doubles and takes are decided, each
    labelled by a rollout; races, and positions too far ahead or behind, are left."""
    run = LabelRun(shards=1, games=4, seed=5, plies=1, cube_only=True, rollout_games=4,
                   truncate=2)
    label(LABELLER, tmp_path, run, log=lambda line: None)
    boards, labels = load_shards(tmp_path)
    assert len(boards) > 0
    assert (position_classes(boards) != RACE).all()
    arrays = kernel_arrays(NetworkPair.load(LABELLER))
    scratch, level = new_scratch(), _movegen.new_scratch()
    out = np.empty(5)
    for board in boards:
        search.position_value(board, 0, arrays, scratch, level, level, out)
        assert 0.55 <= out[0] <= 0.80
    assert (labels[:, 1] <= labels[:, 0] + 1e-6).all()
    with np.load(shard_path(tmp_path, 0)) as data:
        assert int(data["disagreements"]) == len(boards)
        assert int(data["decisions"]) > 2 * len(boards)  # most positions are not kept
    with pytest.raises(ValueError, match="only one of them"):
        label(LABELLER, tmp_path / "both", LabelRun(cube_only=True, race_only=True))


def test_shards_of_other_settings_are_refused(shards: Path, tmp_path: Path) -> None:
    """Adding shards made with another seed (or other weights) to a directory is refused,
    as are impossible settings."""
    with pytest.raises(ValueError, match="was made with"):
        label(LABELLER, shards, LabelRun(shards=3, games=1, seed=4, plies=1))
    other = tmp_path / "other.npz"
    NetworkPair.random(contact_hidden=4, race_hidden=4).save(other)
    with pytest.raises(ValueError, match="was made with"):
        label(other, shards, LabelRun(shards=3, games=1, seed=3, plies=1))
    with pytest.raises(ValueError, match="not 3-ply"):
        label(LABELLER, tmp_path / "x", LabelRun(plies=3))


def test_rollout_labels_are_truncated_rollouts_of_each_position(tmp_path: Path) -> None:
    """--rollout-games labels each kept position by a truncated 0-ply rollout: the mean of
    that many games, each judged by the networks after --truncate plies. Checked against a
    fresh rollout of the same board with other dice (within five of its standard errors),
    and the shards are reproducible and do not mix with search-labelled ones."""
    run = LabelRun(shards=1, games=1, seed=3, plies=1, rollout_games=64, truncate=3)
    label(LABELLER, tmp_path / "a", run, log=lambda line: None)
    boards, labels = load_shards(tmp_path / "a")
    assert len(boards) > 0
    arrays = kernel_arrays(NetworkPair.load(LABELLER))
    scratch, level = new_scratch(), _movegen.new_scratch()
    searched = np.empty(5)
    differ = 0
    for board, got in zip(boards[:8], labels[:8], strict=True):
        assert got[0] >= got[1] >= got[2] >= 0 and got[3] >= got[4] >= 0
        fresh = search.rollout(board, 400, 3, 12345, arrays, level)
        mean = fresh.mean(axis=0)
        error = np.sqrt(fresh.var(axis=0, ddof=1) / 400 + got * (1 - got) / 64 + 1e-6)
        assert (np.abs(got - mean) <= 5 * error).all()
        search.position_value(board, 1, arrays, scratch, level, level, searched)
        differ += not np.allclose(searched, got, atol=1e-6)
    assert differ > 0  # not the search's values
    label(LABELLER, tmp_path / "b", run, log=lambda line: None)
    with np.load(shard_path(tmp_path / "a", 0)) as a, np.load(shard_path(tmp_path / "b", 0)) as b:
        np.testing.assert_array_equal(a["labels"], b["labels"])
    with pytest.raises(ValueError, match="was made with"):
        label(LABELLER, tmp_path / "a", LabelRun(shards=2, games=1, seed=3, plies=1))
    with pytest.raises(ValueError, match="2 games or more"):
        label(LABELLER, tmp_path / "c", LabelRun(rollout_games=1))


def test_pruned_rollouts_choose_as_the_inner_plies_do(tmp_path: Path) -> None:
    """--rollout-pruned plays the rollouts' moves with the pruning network's help: when it
    passes every play to the full evaluation the games are those of the plain rollout,
    and when it passes one the games differ. Its labels agree with plain ones within the
    rollouts' noise; its shards record the setting and do not mix with plain ones."""
    run = LabelRun(shards=1, games=1, seed=3, plies=1, rollout_games=64, truncate=3)
    pruned = LabelRun(**{**run.__dict__, "rollout_pruned": True})
    label(LABELLER, tmp_path / "p", pruned, log=lambda line: None)
    label(LABELLER, tmp_path / "q", run, log=lambda line: None)
    boards, labels = load_shards(tmp_path / "p")
    same, plain_labels = load_shards(tmp_path / "q")
    np.testing.assert_array_equal(boards, same)  # the same positions, chosen by the search
    assert not np.array_equal(labels, plain_labels)
    noise = np.sqrt(2 * labels * (1 - labels) / 64 + 1e-4)
    assert (np.abs(labels - plain_labels) <= 5 * noise).all()
    nets = NetworkPair.load(LABELLER)
    level = _movegen.new_scratch()
    everything = kernel_arrays(nets, prune_keep=_movegen.CAPACITY)
    one = kernel_arrays(nets, prune_keep=1)
    differ = 0
    for board in boards[:6]:
        plain = search.rollout(board, 32, 5, 7, everything, level)
        np.testing.assert_array_equal(search.rollout(board, 32, 5, 7, everything, level, True),
                                      plain)
        differ += not np.array_equal(search.rollout(board, 32, 5, 7, one, level, True), plain)
    assert differ > 0
    with np.load(shard_path(tmp_path / "p", 0)) as data:
        assert data["meta_rollout_pruned"].item() is True
    with pytest.raises(ValueError, match="was made with"):
        label(LABELLER, tmp_path / "p", LabelRun(**{**run.__dict__, "shards": 2}))
    with pytest.raises(ValueError, match="applies to rollout labels"):
        label(LABELLER, tmp_path / "r", LabelRun(rollout_pruned=True))


def test_crashed_decisions_keep_the_disagreements_of_crashed_positions(tmp_path: Path) -> None:
    """--crashed-decisions looks only at the decisions of crashed positions: every kept
    position is crashed (most of a plain job's are not), labelled by the search like any
    other, from fewer decisions looked at than the games hold."""
    run = LabelRun(shards=1, games=3, seed=2, plies=1)
    label(LABELLER, tmp_path / "all", run, log=lambda line: None)
    label(LABELLER, tmp_path / "crashed", LabelRun(**{**run.__dict__, "crashed_decisions": True}),
          log=lambda line: None)
    boards, _ = load_shards(tmp_path / "all")
    crashed, labels = load_shards(tmp_path / "crashed")
    assert len(crashed) > 0 and (position_classes(crashed) == CRASHED).all()
    assert (position_classes(boards) != CRASHED).sum() > len(boards) / 2
    with np.load(shard_path(tmp_path / "all", 0)) as plain, \
            np.load(shard_path(tmp_path / "crashed", 0)) as data:
        assert 0 < int(data["disagreements"]) <= int(data["decisions"]) < int(plain["decisions"])
        assert data["meta_crashed_decisions"].item() is True
    assert_one_ply_values(crashed[:10], labels[:10])
    with pytest.raises(ValueError, match="only one of them"):
        label(LABELLER, tmp_path / "x", LabelRun(crashed_decisions=True, crashed_only=True))


def test_race_decisions_keep_the_disagreements_of_races_not_yet_bearing_off(
        tmp_path: Path) -> None:
    """--race-decisions looks only at the decisions of race positions that are not pure
    bear-offs: every kept position is a race (no pure bear-off among them: those are
    exact), labelled by the search, from fewer decisions than the games hold."""
    run = LabelRun(shards=1, games=6, seed=2, plies=1)  # 3 games meet no such decision
    label(LABELLER, tmp_path / "all", run, log=lambda line: None)
    label(LABELLER, tmp_path / "race", LabelRun(**{**run.__dict__, "race_decisions": True}),
          log=lambda line: None)
    boards, _ = load_shards(tmp_path / "all")
    races, labels = load_shards(tmp_path / "race")
    assert len(races) > 0 and (position_classes(races) == RACE).all()
    assert not any(is_bearoff_board(board) for board in races)
    assert (position_classes(boards) != RACE).sum() > 0
    with np.load(shard_path(tmp_path / "all", 0)) as plain, \
            np.load(shard_path(tmp_path / "race", 0)) as data:
        assert 0 < int(data["disagreements"]) <= int(data["decisions"]) < int(plain["decisions"])
        assert data["meta_race_decisions"].item() is True
    assert_one_ply_values(races[:10], labels[:10])
    with pytest.raises(ValueError, match="only one of them"):
        label(LABELLER, tmp_path / "x", LabelRun(race_decisions=True, crashed_decisions=True))


def test_the_race_deficit_is_the_pip_count_of_the_side_on_roll_minus_its_opponent_s() -> None:
    """The deficit --behind compares is the difference of the pip counts the position
    reports (a checker on the bar counts 25), for positions across whole games."""
    from gammon.engine.playout import INITIAL, MAX_PLIES, end_turn, roll_plays

    gen, result = _movegen.new_scratch(), np.empty(5)
    board, seen = np.array(INITIAL, dtype=np.int8), 0
    np.random.seed(4)
    for ply in range(MAX_PLIES):
        mine, theirs = Position.from_board(board).pips()
        assert race_deficit(board) == mine - theirs
        seen += board[25] > 0 or board[0] < 0  # a checker on the bar met
        count = roll_plays(board, ply == 0, gen)
        if end_turn(gen[0][np.random.randint(count)], board, result):
            break
    assert seen > 0


def test_behind_keeps_the_disagreements_of_contact_positions_far_behind_in_the_race(
        tmp_path: Path) -> None:
    """--behind PIPS looks only at the decisions of contact positions whose side on roll
    trails by PIPS or more: every kept play leaves its mover trailing by at least PIPS
    less the roll it played (at most 24), in contact, from fewer decisions than the games
    hold, labelled by the search like any other."""
    run = LabelRun(shards=1, games=6, seed=2, plies=1)
    label(LABELLER, tmp_path / "all", run, log=lambda line: None)
    label(LABELLER, tmp_path / "behind", LabelRun(**{**run.__dict__, "behind": 30}),
          log=lambda line: None)
    kept, labels = load_shards(tmp_path / "behind")
    assert len(kept) > 0 and (position_classes(kept) != RACE).all()
    for board in kept:  # the opponent on roll: the mover's deficit is minus its own
        assert -race_deficit(board) >= 30 - 24
    with np.load(shard_path(tmp_path / "all", 0)) as plain, \
            np.load(shard_path(tmp_path / "behind", 0)) as data:
        assert 0 < int(data["disagreements"]) <= int(data["decisions"]) < int(plain["decisions"])
        assert data["meta_behind"].item() == 30
    assert_one_ply_values(kept[:10], labels[:10])
    with pytest.raises(ValueError, match="picks contact decisions"):
        label(LABELLER, tmp_path / "x", LabelRun(behind=30, race_decisions=True))
    with pytest.raises(ValueError, match="count of pips"):
        label(LABELLER, tmp_path / "y", LabelRun(behind=-1))


def test_shards_record_the_decision_of_each_candidate(shards: Path) -> None:
    """Each kept position's group is the decision it is a candidate of: the boards of a
    group are different plays of one roll (the mover's pips the same in each unless it
    bears off), and groups are numbered across shards. The rule that infers groups for
    shards written before they were recorded finds the same ones here."""
    boards, _ = load_shards(shards)
    groups = load_groups(shards)
    assert len(groups) == len(boards) and (np.diff(groups) >= 0).all()
    assert len(np.unique(groups)) < len(boards)  # decisions with several candidates
    for group in np.unique(groups):
        members = boards[groups == group]
        assert len({member.tobytes() for member in members}) == len(members)
        mover = -members.clip(None, 0)
        if (mover.sum(axis=1) == 15).all():
            assert len({int((row * (25 - np.arange(26))).sum()) for row in mover}) == 1
    for index in range(2):
        with np.load(shard_path(shards, index)) as data:
            recorded, inferred = data["groups"], infer_groups(data["boards"])
        np.testing.assert_array_equal(np.diff(recorded) != 0, np.diff(inferred) != 0)


def grouped_loss(arrays: tuple, boards: np.ndarray, labels: np.ndarray,
                 rank_weight: float) -> float:
    """The cross-entropy of a group plus ``rank_weight`` times the squared errors of the
    candidates' equities relative to the group's mean, computed plainly."""
    inputs, hidden, out = np.empty(MAX_INPUTS, dtype=np.float32), np.empty(512), np.empty(5)
    total, misses = 0.0, []
    for board, label_ in zip(boards, labels, strict=True):
        forward(inputs, *network_for(board, arrays, inputs), hidden, out)
        total -= float((label_ * np.log(out) + (1 - label_) * np.log(1 - out)).sum())
        misses.append(equity(out) - equity(label_))
    relative = np.array(misses) - np.mean(misses)
    return total + rank_weight * float((relative ** 2).sum())


def test_grouped_fit_follows_the_gradient_of_its_loss(shards: Path) -> None:
    """A grouped step (small alpha) moves the output weights by minus alpha times the
    finite-difference gradient of cross-entropy plus rank_weight times the relative
    equity error, for rank weights 0 and 4 (which differ)."""
    boards, labels = load_shards(shards)
    groups = load_groups(shards)
    contact = position_classes(boards) != RACE
    sizes = np.bincount(groups)
    group = next(g for g in np.unique(groups)
                 if sizes[g] >= 3 and contact[groups == g].all())
    rows = np.flatnonzero(groups == group)
    member_boards, member_labels = boards[rows], labels[rows].astype(np.float64)
    steps = {}
    for rank_weight in (0.0, 4.0):
        nets = NetworkPair.load(LABELLER)
        start = nets.contact.output_weights.copy()
        alpha = 1e-4
        fit_epoch_grouped(kernel_arrays(nets), member_boards, member_labels,
                          np.arange(len(rows)), np.array([0, len(rows)]), np.array([0]),
                          alpha, rank_weight)
        step = (start - nets.contact.output_weights) / alpha
        eps = 1e-2
        for entry in ((0, 0), (5, 1), (9, 3)):
            numeric = []
            for sign in (1, -1):
                moved = NetworkPair.load(LABELLER)
                moved.contact.output_weights[entry] += sign * eps
                numeric.append(grouped_loss(kernel_arrays(moved), member_boards,
                                            member_labels, rank_weight))
            gradient = (numeric[0] - numeric[1]) / (2 * eps)
            assert step[entry] == pytest.approx(gradient, rel=5e-2, abs=1e-3)
        steps[rank_weight] = step
    assert not np.allclose(steps[0.0], steps[4.0])


def test_relative_equity_error_is_the_spread_of_the_misses_within_groups(
        shards: Path) -> None:
    """Labels equal to the networks' own outputs but for a win chance lowered by d_i give
    the root mean square of 2 (d_i - the group's mean d); groups of one are left out."""
    boards, _ = load_shards(shards)
    nets = kernel_arrays(NetworkPair.load(LABELLER))
    inputs, hidden = np.empty(MAX_INPUTS, dtype=np.float32), np.empty(512)
    labels = np.empty((len(boards), 5))
    for i, board in enumerate(boards):
        forward(inputs, *network_for(board, nets, inputs), hidden, labels[i])
    groups = load_groups(shards)
    shift = np.random.default_rng(5).uniform(0.0, 0.02, len(boards))
    labels[:, 0] -= shift
    rows, starts = group_slices(groups, np.arange(len(boards)))
    expected = []
    for g in range(len(starts) - 1):
        members = rows[starts[g]:starts[g + 1]]
        if len(members) > 1:
            expected.extend(2 * (shift[members] - shift[members].mean()))
    got = relative_equity_error(nets, boards, labels, rows, starts)
    assert got == pytest.approx(float(np.sqrt(np.mean(np.square(expected)))), rel=1e-4)
    assert got > 0.004


def test_a_grouped_fit_reads_several_directories_as_one_data_set(
        shards: Path, tmp_path: Path) -> None:
    """Two directories are fitted as one data set (with a rank weight, by whole
    decisions), the rank weight is recorded; a negative rank weight is refused."""
    lines: list[str] = []
    fit(LABELLER, [shards, shards], tmp_path / "fit.npz",
        FitRun(epochs=1, alpha=0.01, holdout=0.3, seed=1, benchmark_pairs=0, min_class=1,
               rank_weight=2.0), log=lines.append)
    boards, _ = load_shards(shards)
    total = int(re.findall(r"([0-9,]+) positions to fit", lines[1])[0].replace(",", ""))
    held = int(re.findall(r"([0-9,]+) held out", lines[1])[0].replace(",", ""))
    assert total + held == 2 * len(boards)
    with np.load(tmp_path / "fit.npz") as data:
        assert float(data["meta_rank_weight"]) == 2.0
    lines = []
    fit(LABELLER, [shards, shards], tmp_path / "counts.npz",
        FitRun(epochs=1, alpha=0.01, seed=1, benchmark_pairs=0, min_class=1, shards=(2, 1)),
        log=lines.append)
    total = int(re.findall(r"([0-9,]+) positions to fit", lines[1])[0].replace(",", ""))
    held = int(re.findall(r"([0-9,]+) held out", lines[1])[0].replace(",", ""))
    assert total + held == len(boards) + len(load_shards(shards, 1)[0])
    with pytest.raises(ValueError, match="cannot be negative"):
        fit(LABELLER, shards, tmp_path / "x.npz", FitRun(rank_weight=-1.0))
    with pytest.raises(ValueError, match="3 shard counts for 2 directories"):
        fit(LABELLER, [shards, shards], tmp_path / "x.npz", FitRun(shards=(1, 1, 1)))


def test_repeat_weighs_each_directorys_decisions_by_its_count(
        shards: Path, tmp_path: Path) -> None:
    """--repeat takes each directory's training decisions that many times an epoch: the
    positions to fit count each copy, the held-out ones do not change, and the set
    repeated pulls the fit toward its labels. Counts that are not one per directory, or
    below 1, are refused."""
    boards, _ = load_shards(shards)
    shifted = tmp_path / "shifted"  # the same positions, labels with more wins
    shifted.mkdir()
    with np.load(shard_path(shards, 0)) as data:
        arrays = dict(data)
    arrays["labels"] = np.clip(arrays["labels"] + [0.08, 0, 0, 0, 0], 0, 1).astype(np.float32)
    np.savez_compressed(shard_path(shifted, 0), **arrays)
    run = FitRun(epochs=2, alpha=0.003, holdout=0.2, seed=1, benchmark_pairs=0, min_class=1,
                 rank_weight=2.0, optimiser="adam", batch=16, classes=("contact",))
    counts, wins = {}, {}
    for repeat in ((1, 1), (1, 4), (4, 1)):
        lines: list[str] = []
        out = tmp_path / f"fit-{repeat[0]}-{repeat[1]}.npz"
        nets = fit(LABELLER, [shards, shifted], out,
                   FitRun(**{**run.__dict__, "repeat": repeat}), log=lines.append)
        counts[repeat] = [int(n.replace(",", "")) for n in re.findall(
            r"([0-9,]+) positions to fit, ([0-9,]+) held out", lines[1])[0]]
        arrays_now, inputs = kernel_arrays(nets), np.empty(MAX_INPUTS, dtype=np.float32)
        hidden, out_row, total = np.empty(512), np.empty(5), 0.0
        contact = boards[position_classes(boards) == CONTACT]
        for board in contact:
            forward(inputs, *network_for(board, arrays_now, inputs), hidden, out_row)
            total += out_row[0]
        wins[repeat] = total / len(contact)
        with np.load(out) as data:
            assert data["meta_repeat"].item() == f"{repeat[0]},{repeat[1]}"
    once, shifted_more, plain_more = counts[(1, 1)], counts[(1, 4)], counts[(4, 1)]
    assert shifted_more[1] == plain_more[1] == once[1]  # the held-out rows stay as they are
    assert shifted_more[0] > once[0] and plain_more[0] > once[0]
    assert shifted_more[0] + plain_more[0] == 5 * once[0]  # every copy counted
    assert wins[(1, 4)] > wins[(1, 1)] > wins[(4, 1)]
    with pytest.raises(ValueError, match="a count of 1 or more for each of the 2"):
        fit(LABELLER, [shards, shifted], tmp_path / "x.npz", FitRun(repeat=(1,)))
    with pytest.raises(ValueError, match="a count of 1 or more"):
        fit(LABELLER, [shards, shifted], tmp_path / "y.npz", FitRun(repeat=(0, 2)))


def cross_entropy(net: Network, inputs: np.ndarray, target: np.ndarray) -> float:
    hidden, out = np.empty(512), np.empty(5)
    forward(inputs, *net.arrays(), hidden, out)
    return float(-(target * np.log(out) + (1 - target) * np.log(1 - out)).sum())


def test_backpropagation_is_the_cross_entropy_gradient() -> None:
    """The step fit_epoch takes (alpha = 1) equals minus the finite-difference gradient."""
    rng = np.random.default_rng(4)
    net = Network.random(6, seed=2, inputs=10)
    net.output_weights[:] = rng.normal(0, 1, net.output_weights.shape)
    inputs = rng.uniform(0, 1, 10).astype(np.float32)
    inputs[3] = 0.0
    target = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    hidden, out, delta_hidden = np.empty(512), np.empty(5), np.empty(512)
    forward(inputs, *net.arrays(), hidden, out)
    stepped = net.copy()
    backpropagate(inputs, *stepped.arrays(), hidden, out - target, delta_hidden, 1.0)
    eps = 1e-3
    for array_index, entry in ((0, (2, 4)), (1, (5,)), (2, (3, 1)), (3, (0,))):
        numeric = []
        for sign in (1, -1):
            moved = net.copy()
            moved.arrays()[array_index][entry] += sign * eps
            numeric.append(cross_entropy(moved, inputs, target))
        gradient = (numeric[0] - numeric[1]) / (2 * eps)
        step = net.arrays()[array_index][entry] - stepped.arrays()[array_index][entry]
        assert step == pytest.approx(gradient, rel=2e-2, abs=1e-4)
    assert (stepped.hidden_weights[3] == net.hidden_weights[3]).all()  # a zero input


def test_fit_learns_the_labels_and_resumes(shards: Path, tmp_path: Path) -> None:
    """Fitting lowers the cross-entropy on the labels; a fit stopped after its first
    epoch and resumed ends with the weights of one never stopped."""
    run = FitRun(epochs=2, alpha=0.01, holdout=0.2, seed=1, benchmark_pairs=0, min_class=1)
    lines: list[str] = []
    straight = fit(LABELLER, shards, tmp_path / "straight.npz", run, log=lines.append)
    first = float(re.findall(r"held-out cross-entropy ([0-9.]+)", lines[1])[0])
    last = float(re.findall(r"held out ([0-9.]+)", lines[-1])[0])
    assert last < first  # held-out cross-entropy, before and after
    assert re.search(r"\(contact [0-9.]+, .*race [0-9.]+\), relative equity error [0-9.]+$",
                     lines[-1])  # and by class
    fit(LABELLER, shards, tmp_path / "resumed.npz", FitRun(**{**run.__dict__, "epochs": 1}),
        log=lambda line: None)
    lines = []
    resumed = fit(LABELLER, shards, tmp_path / "resumed.npz", run, log=lines.append)
    assert lines[0] == f"resuming {tmp_path / 'resumed.npz'} after epoch 1"
    for a, b in zip(straight.contact.arrays(), resumed.contact.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="was fitted with"):
        fit(LABELLER, shards, tmp_path / "resumed.npz", FitRun(**{**run.__dict__, "seed": 2}),
            log=lambda line: None)


def test_an_adam_fit_learns_the_labels_and_resumes_where_it_stopped(
        shards: Path, tmp_path: Path) -> None:
    """With Adam the fit lowers the held-out cross-entropy too; a fit stopped after its
    first epoch (its checkpoint holds Adam's moments) and run again ends with the weights
    of one never stopped; other settings are refused."""
    run = FitRun(epochs=2, alpha=0.003, holdout=0.2, seed=1, benchmark_pairs=0, min_class=1,
                 rank_weight=2.0, optimiser="adam", batch=16)
    lines: list[str] = []
    straight = fit(LABELLER, shards, tmp_path / "straight.npz", run, log=lines.append)
    first = float(re.findall(r"held-out cross-entropy ([0-9.]+)", lines[1])[0])
    last = float(re.findall(r"held out ([0-9.]+)", lines[-1])[0])
    assert last < first

    class Stopped(Exception):
        pass

    def stop_at_the_second_epoch(line: str) -> None:
        if line.startswith("epoch 2/"):
            raise Stopped  # after epoch 2's work, before its checkpoint

    with pytest.raises(Stopped):
        fit(LABELLER, shards, tmp_path / "resumed.npz", run, log=stop_at_the_second_epoch)
    lines = []
    resumed = fit(LABELLER, shards, tmp_path / "resumed.npz", run, log=lines.append)
    assert lines[0] == f"resuming {tmp_path / 'resumed.npz'} after epoch 1"
    for a, b in zip(straight.arrays(), resumed.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    start = NetworkPair.load(LABELLER)
    assert not np.array_equal(straight.contact.hidden_weights, start.contact.hidden_weights)
    with pytest.raises(ValueError, match="was fitted with"):
        fit(LABELLER, shards, tmp_path / "resumed.npz", FitRun(**{**run.__dict__, "epochs": 3}),
            log=lambda line: None)
    with pytest.raises(ValueError, match="sgd or adam"):
        fit(LABELLER, shards, tmp_path / "other.npz", FitRun(optimiser="lbfgs"))


def test_a_class_with_too_few_positions_is_left_as_it_is(shards: Path, tmp_path: Path) -> None:
    """Only classes with at least ``min_class`` training positions are fitted; the others'
    networks come out unchanged."""
    boards, _ = load_shards(shards)
    kinds = position_classes(boards)
    contact = int((kinds != RACE).sum())  # contact and crashed positions
    assert contact > 4
    lines: list[str] = []
    result = fit(LABELLER, shards, tmp_path / "fit.npz",
                 FitRun(epochs=1, alpha=0.01, seed=1, benchmark_pairs=0, min_class=10_000),
                 log=lines.append)
    assert lines[0].startswith("fitting contact (") and "left as it is" in lines[0]
    start = NetworkPair.load(LABELLER)
    for a, b in zip(result.arrays(), start.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    result = fit(LABELLER, shards, tmp_path / "fit2.npz",
                 FitRun(epochs=1, alpha=0.01, seed=1, benchmark_pairs=0, min_class=2),
                 log=lambda line: None)
    assert not np.array_equal(result.contact.hidden_weights, start.contact.hidden_weights)


def test_only_the_chosen_classes_are_fitted(shards: Path, tmp_path: Path) -> None:
    """--classes race fits the race network alone; the contact network comes out as it went
    in, though it has the positions to be fitted. An unknown class is refused."""
    start = NetworkPair.load(LABELLER)
    lines: list[str] = []
    result = fit(LABELLER, shards, tmp_path / "race.npz",
                 FitRun(epochs=1, alpha=0.01, seed=1, benchmark_pairs=0, min_class=2,
                        classes=("race",)), log=lines.append)
    assert "contact (" in lines[0] and "not chosen: left as it is" in lines[0]
    for a, b in zip(result.contact.arrays(), start.contact.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert result.race is not None and start.race is not None
    assert not np.array_equal(result.race.hidden_weights, start.race.hidden_weights)
    with pytest.raises(ValueError, match="no class bearoff"):
        fit(LABELLER, shards, tmp_path / "x.npz", FitRun(classes=("bearoff",)))


def check_teacher_labels(boards: np.ndarray, labels: np.ndarray, groups: np.ndarray,
                         teachers: tuple[str, ...], labeller: Path, every: int,
                         at_least: int) -> None:
    """Every ``every``-th decision's labels are the mean of the teachers' probabilities
    (from the engine's evaluator), moved so that over the decision's candidates they
    average the labeller's own (where nothing needed clamping); at least ``at_least``
    labels checked."""
    engines = [Engine.load(path) for path in teachers]
    own_engine = Engine.load(labeller)
    checked = consistent = 0
    for group in np.unique(groups)[::every]:
        rows = np.flatnonzero(groups == group)
        positions_ = [Position.from_board(board) for board in boards[rows]]
        taught = np.array([np.mean([e.evaluate(p).as_tuple() for e in engines], axis=0)
                           for p in positions_])
        own = np.array([own_engine.evaluate(p).as_tuple() for p in positions_])
        expected = taught - (taught - own).mean(axis=0)
        for got, want in zip(labels[rows], expected, strict=True):
            checked += 1
            if (want >= 0).all() and (want <= 1).all() and want[1] <= want[0] \
                    and want[2] <= want[1] and want[3] <= 1 - want[0] and want[4] <= want[3]:
                consistent += 1  # nothing to clamp: the label is exactly that
                np.testing.assert_allclose(got, want, atol=1e-5)
    assert checked >= at_least and consistent > 0.8 * checked


def test_teacher_labels_are_the_teachers_differences_at_the_labellers_level(
        tmp_path: Path) -> None:
    """With teachers, every legal play of each decision that leaves a contact position is
    kept (the opponent on roll). Its label is the mean of the teachers' 0-ply
    probabilities, moved so that over the decision's candidates it averages what the
    labeller's own network gives them; each network's probabilities are taken here from
    the engine's evaluator. Other teachers' shards are refused."""
    teachers = (str(LABELLER), str(UNPRUNED))
    run = LabelRun(shards=1, games=2, seed=3, teachers=teachers)
    label(UNPRUNED, tmp_path, run, log=lambda line: None)
    boards, labels = load_shards(tmp_path)
    groups = load_groups(tmp_path)
    assert len(boards) > 100 and (position_classes(boards) == CONTACT).all()
    check_teacher_labels(boards, labels, groups, teachers, UNPRUNED, every=9, at_least=51)
    # the first decision is the opening roll's: its candidates are that roll's legal plays
    opening = {bytes(b) for b in boards[groups == groups[0]]}
    rolls = [Roll(a, b) for a in range(1, 7) for b in range(a + 1, 7)]
    left = [{bytes(play.next_position.array()) for play in
             legal_plays(Position.initial(), roll)} for roll in rolls]
    assert opening in left
    with np.load(shard_path(tmp_path, 0)) as data:
        assert int(data["disagreements"]) == len(boards)  # here: the positions kept
        assert int(data["decisions"]) == len(np.unique(groups))
    with pytest.raises(ValueError, match="was made with"):
        label(UNPRUNED, tmp_path, LabelRun(shards=2, games=2, seed=3, teachers=teachers[:1]),
              log=lambda line: None)
    with pytest.raises(ValueError, match="no rollouts"):
        label(LABELLER, tmp_path / "x", LabelRun(teachers=teachers, rollout_games=144))


def test_teacher_labels_of_crashed_decisions_keep_only_crashed_positions(
        tmp_path: Path) -> None:
    """With teachers and crashed decisions, the candidates kept are those of the decisions
    that leave a crashed position (each decision's candidates from one position and
    roll), labelled as the contact ones are."""
    teachers = (str(LABELLER), str(UNPRUNED))
    run = LabelRun(shards=1, games=20, seed=5, teachers=teachers, crashed_decisions=True)
    label(UNPRUNED, tmp_path, run, log=lambda line: None)
    boards, labels = load_shards(tmp_path)
    groups = load_groups(tmp_path)
    assert len(np.unique(groups)) > 10 and (position_classes(boards) == CRASHED).all()
    for group in np.unique(groups):  # one roll's plays: the mover's pips fall alike
        mover = -boards[groups == group].clip(None, 0)
        if (mover.sum(axis=1) == 15).all():
            assert len({int((row * (25 - np.arange(26))).sum()) for row in mover}) == 1
    check_teacher_labels(boards, labels, groups, teachers, UNPRUNED, every=3,
                         at_least=11)


def test_a_fresh_fit_starts_from_random_weights_drawn_from_its_seed(
        shards: Path, tmp_path: Path) -> None:
    """--fresh: the chosen classes' networks start from random weights of their size drawn
    from the seed, so the start's own weights of those classes do not matter, while its
    other classes come through unchanged; it needs the classes named."""
    start = NetworkPair.load(LABELLER)
    other = start.copy()
    other.contact.hidden_weights += 0.5  # another start, the same shapes
    other.save(tmp_path / "other.npz")
    run = FitRun(epochs=1, alpha=0.003, seed=4, benchmark_pairs=0, min_class=2,
                 classes=("contact",), fresh=True)
    first = fit(LABELLER, shards, tmp_path / "a.npz", run, log=lambda line: None)
    second = fit(tmp_path / "other.npz", shards, tmp_path / "b.npz", run, log=lambda line: None)
    for a, b in zip(first.contact.arrays(), second.contact.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert first.contact.hidden == start.contact.hidden
    fitted_from_start = fit(LABELLER, shards, tmp_path / "c.npz",
                            FitRun(**{**run.__dict__, "fresh": False}), log=lambda line: None)
    assert not np.allclose(first.contact.hidden_weights, fitted_from_start.contact.hidden_weights,
                           atol=0.01)
    for a, b in zip(first.race.arrays(), start.race.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="names the classes"):
        fit(LABELLER, shards, tmp_path / "d.npz", FitRun(fresh=True))


def test_a_fresh_fit_may_make_its_networks_larger(shards: Path, tmp_path: Path) -> None:
    """--fresh-hidden: the fresh networks have that many hidden units (a larger teacher),
    are fitted (the held-out cross-entropy falls from one epoch to the next) and evaluate
    positions as the engine's networks do; without --fresh it is refused."""
    start = NetworkPair.load(LABELLER)
    wider = 2 * start.contact.hidden
    run = FitRun(epochs=2, alpha=0.003, seed=4, benchmark_pairs=0, min_class=2,
                 classes=("contact",), fresh=True, fresh_hidden=wider, optimiser="adam")
    lines: list[str] = []
    fitted = fit(LABELLER, shards, tmp_path / "wide.npz", run, log=lines.append)
    assert fitted.contact.hidden == wider
    assert NetworkPair.load(tmp_path / "wide.npz").contact.hidden == wider
    losses = [float(line.split("held out ")[1].split()[0]) for line in lines
              if line.startswith("epoch")]
    assert len(losses) == 2 and losses[1] < losses[0]
    board = Position.initial().array()
    inputs, hidden, plain = np.empty(MAX_INPUTS, dtype=np.float32), np.empty(wider), np.empty(5)
    arrays = kernel_arrays(fitted)
    forward(inputs, *network_for(board, arrays, inputs), hidden, plain)
    engine = Engine.load(tmp_path / "wide.npz").evaluate(Position.initial())
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = plain
    win_gammon = min(win_gammon, win)  # the engine's outputs are made consistent
    lose_gammon = min(lose_gammon, 1.0 - win)
    np.testing.assert_allclose(
        [engine.win, engine.win_gammon, engine.win_backgammon, engine.lose_gammon,
         engine.lose_backgammon],
        [win, win_gammon, min(win_backgammon, win_gammon), lose_gammon,
         min(lose_backgammon, lose_gammon)], atol=1e-5)
    with pytest.raises(ValueError, match="random weights"):
        fit(LABELLER, shards, tmp_path / "e.npz", FitRun(classes=("contact",), fresh_hidden=8))
    with pytest.raises(ValueError, match="at most"):
        fit(LABELLER, shards, tmp_path / "f.npz",
            FitRun(**{**run.__dict__, "fresh_hidden": MAX_HIDDEN + 1}))


def test_a_widened_fit_starts_from_the_same_evaluations_with_more_units(
        shards: Path, tmp_path: Path) -> None:
    """--widen: the chosen classes' networks gain hidden units that are silent at first, so
    before any step they evaluate every position exactly as the start does (checked on the
    labelled positions with the engine's forward pass); the fit then moves them (the
    held-out cross-entropy falls) and the other classes come through unchanged; a fresh
    fit, no classes or too many units are refused."""
    start = NetworkPair.load(LABELLER)
    wider = start.contact.hidden + 24
    widened = start.contact.widened(wider, seed=3)
    assert widened.hidden == wider
    boards, _ = load_shards(shards)
    inputs = np.empty(MAX_INPUTS, dtype=np.float32)
    hidden, before, after = np.empty(wider), np.empty(5), np.empty(5)
    wide_pair = start.copy()
    wide_pair.contact = widened
    for board in boards[position_classes(boards) == CONTACT][:50]:
        forward(inputs, *network_for(board, kernel_arrays(start), inputs), hidden, before)
        forward(inputs, *network_for(board, kernel_arrays(wide_pair), inputs), hidden, after)
        np.testing.assert_allclose(after, before, rtol=1e-6, atol=1e-7)
    run = FitRun(epochs=2, alpha=0.003, seed=4, benchmark_pairs=0, min_class=2,
                 classes=("contact",), widen=wider, optimiser="adam")
    lines: list[str] = []
    fitted = fit(LABELLER, shards, tmp_path / "wide.npz", run, log=lines.append)
    assert NetworkPair.load(tmp_path / "wide.npz").contact.hidden == wider
    assert np.abs(fitted.contact.output_weights[start.contact.hidden:]).max() > 0
    first = float(lines[1].split("held-out cross-entropy ")[1].split()[0])
    losses = [float(line.split("held out ")[1].split()[0]) for line in lines
              if line.startswith("epoch")]
    assert len(losses) == 2 and losses[1] < first
    for a, b in zip(fitted.race.arrays(), start.race.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="names the classes"):
        fit(LABELLER, shards, tmp_path / "a.npz", FitRun(widen=wider))
    with pytest.raises(ValueError, match="names the classes"):
        fit(LABELLER, shards, tmp_path / "b.npz", FitRun(**{**run.__dict__, "fresh": True}))
    with pytest.raises(ValueError, match="at most"):
        fit(LABELLER, shards, tmp_path / "c.npz",
            FitRun(**{**run.__dict__, "widen": MAX_HIDDEN + 1}))
    with pytest.raises(ValueError, match="cannot widen"):
        start.contact.widened(start.contact.hidden - 1, seed=3)


def test_joined_networks_compute_the_mean_of_their_output_sums() -> None:
    """Network.joined: one network of all their hidden units whose five outputs are the
    sigmoids of the mean of the networks' output sums (their logits), on any input, for
    two networks as for three; networks of different inputs are refused."""
    a, b = Network.random(7, seed=1, inputs=12), Network.random(5, seed=2, inputs=12)
    c = Network.random(4, seed=5, inputs=12)
    b.output_bias[:] = np.random.default_rng(3).normal(0, 1, 5)
    c.output_bias[:] = np.random.default_rng(6).normal(0, 1, 5)
    rng = np.random.default_rng(4)
    hidden = np.empty(16)
    for members in ((a, b), (a, b, c)):
        joined = members[0].joined(*members[1:])
        assert joined.hidden == sum(m.hidden for m in members) and joined.inputs == 12
        for _ in range(20):
            x = rng.uniform(0, 1, 12).astype(np.float32)
            outs = []
            for net in (*members, joined):
                out = np.empty(5)
                forward(x, *net.arrays(), hidden, out)
                outs.append(out)
            logits = [np.log(p / (1 - p)) for p in outs[:-1]]
            np.testing.assert_allclose(outs[-1], 1 / (1 + np.exp(-np.mean(logits, axis=0))),
                                       rtol=1e-5)
    with pytest.raises(ValueError, match="cannot join"):
        a.joined(b, Network.random(5, seed=2, inputs=13))


def test_a_joined_fit_starts_from_the_two_networks_side_by_side(
        shards: Path, tmp_path: Path) -> None:
    """--join WEIGHTS: the chosen classes' networks are joined with WEIGHTS' before the
    fit (its file and digest recorded), the fit moves them, and the other classes come
    through unchanged; no classes, or a widened or fresh fit beside it, are refused."""
    start, partner = NetworkPair.load(LABELLER), NetworkPair.load(UNPRUNED)
    run = FitRun(epochs=1, alpha=0.003, seed=4, benchmark_pairs=0, min_class=2,
                 classes=("contact",), join=str(UNPRUNED), optimiser="adam")
    fitted = fit(LABELLER, shards, tmp_path / "joined.npz", run, log=lambda line: None)
    expected = start.contact.joined(partner.contact)
    assert fitted.contact.hidden == start.contact.hidden + partner.contact.hidden
    assert not np.allclose(fitted.contact.output_weights, expected.output_weights)
    for a, b in zip(fitted.race.arrays(), start.race.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    with np.load(tmp_path / "joined.npz") as data:
        assert data["meta_join"].item().startswith(f"{UNPRUNED} ")
    for bad in ({"classes": None}, {"widen": 300}, {"fresh": True}):
        with pytest.raises(ValueError, match="names the classes to join"):
            fit(LABELLER, shards, tmp_path / "x.npz", FitRun(**{**run.__dict__, **bad}))


def test_cli_stages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gammon train --stage label / fit: missing or impossible settings are refused with
    a clear error and write nothing; a small run writes its shard and its networks."""
    out = tmp_path / "labels"
    assert cli.main(["train", "--stage", "label", "--out", str(out)]) == 2
    assert "--stage label needs --from" in capsys.readouterr().err
    assert cli.main(["train", "--stage", "label", "--from", str(LABELLER), "--out", str(out),
                     "--plies", "3"]) == 2
    assert "not 3-ply" in capsys.readouterr().err
    assert cli.main(["train", "--stage", "label", "--from", str(LABELLER), "--out", str(out),
                     "--shards", "2", "3"]) == 2
    assert "give --shards one count" in capsys.readouterr().err
    assert not out.exists()
    assert cli.main(["train", "--stage", "fit", "--from", str(LABELLER),
                     "--out", str(tmp_path / "fit.npz")]) == 2
    assert "--stage fit needs --from WEIGHTS and --data" in capsys.readouterr().err
    assert cli.main(["train", "--stage", "label", "--from", str(LABELLER), "--out", str(out),
                     "--shards", "1", "--games", "1", "--plies", "1", "--seed", "3"]) == 0
    assert shard_path(out, 0).exists() and not shard_path(out, 1).exists()
    assert cli.main(["train", "--stage", "fit", "--from", str(LABELLER), "--data", str(out),
                     "--out", str(tmp_path / "fit.npz"), "--epochs", "1",
                     "--alpha-start", "0.003"]) == 0
    fitted = NetworkPair.load(tmp_path / "fit.npz")
    assert fitted.feature_set == NetworkPair.load(LABELLER).feature_set  # the start's inputs


@pytest.fixture(scope="module")
def pruned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("prune") / "pruned.npz"
    lines: list[str] = []
    train_prune(UNPRUNED, path, PruneRun(games=20, hidden=8, epochs=2, keep=5),
                log=lines.append)
    assert lines[0].endswith("held out") and len(lines) == 3
    return path


def test_a_pruning_network_is_saved_with_the_networks(pruned: Path) -> None:
    """The pruning network travels in the weights file, the other networks unchanged;
    files without one load without one."""
    nets = NetworkPair.load(pruned)
    assert nets.prune is not None and nets.prune.inputs == PRUNE_INPUTS
    assert nets.prune.hidden == 8
    unpruned = NetworkPair.load(UNPRUNED)
    assert unpruned.prune is None
    for a, b in zip(nets.arrays(), unpruned.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="pruning network has"):
        NetworkPair(unpruned.contact, unpruned.race, prune=Network.random(4, 1, 10))


def test_pruned_choice_evaluates_only_the_plays_the_pruning_network_rates_best(
        pruned: Path) -> None:
    """Inside the search, the full evaluation sees only the ``keep`` plays the pruning
    network rates best: keeping every play gives the full choice; keeping one gives the
    pruning network's own best; without a pruning network nothing changes."""
    nets = NetworkPair.load(pruned)
    level = _movegen.new_scratch()
    board = Position.initial().array()
    count = search._generate(board, 6, 4, level)
    assert count > 5
    best = np.empty(5)
    full = choose_play(level[0], count, kernel_arrays(nets, prune_keep=0), new_scratch(), best)
    for keep in (0, count):
        arrays = kernel_arrays(nets, prune_keep=keep)
        chosen = choose_play_pruned(level[0], count, arrays, new_scratch(), best, MONEY_WEIGHTS)
        assert chosen == full
    arrays = kernel_arrays(nets, prune_keep=1)
    scratch = new_scratch()
    scores = [evaluate.prune_equity(level[0][i], arrays, scratch) for i in range(count)]
    chosen = choose_play_pruned(level[0], count, arrays, scratch, best, MONEY_WEIGHTS)
    assert chosen == int(np.argmax(scores))
    arrays = kernel_arrays(nets, prune_keep=3)
    kept = np.argsort(-np.array(scores), kind="stable")[:3]
    full_equities = []
    for i in kept:
        probs = np.empty(5)
        evaluate.evaluate_after(level[0][i], arrays, scratch, probs)
        full_equities.append(equity(probs))
    chosen = choose_play_pruned(level[0], count, arrays, scratch, best, MONEY_WEIGHTS)
    assert chosen == kept[int(np.argmax(full_equities))]
    assert equity(best) == pytest.approx(max(full_equities))
    plain = kernel_arrays(NetworkPair.load(UNPRUNED), prune_keep=1)
    assert plain[19][0] == 0  # no pruning network: no pruning
    assert choose_play_pruned(level[0], count, plain, new_scratch(), best, MONEY_WEIGHTS) == full


def test_cli_prune_stage(pruned: Path, tmp_path: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:
    """gammon train --stage prune needs the networks to mimic and positive settings."""
    out = tmp_path / "p.npz"
    assert cli.main(["train", "--stage", "prune", "--out", str(out)]) == 2
    assert "--stage prune needs --from" in capsys.readouterr().err
    assert cli.main(["train", "--stage", "prune", "--from", str(LABELLER), "--out", str(out),
                     "--games", "0"]) == 2
    assert "must be positive" in capsys.readouterr().err
    assert not out.exists()
