"""The benchmark set of checker-play decisions at match scores (``gammon bench positions
--scores N``, ``match-v1``): decisions drawn from self-play matches with their score and
cube, labelled at that score (at double match point a play's label is its cubeless winning
chance as an equity: gammons do not count), classes by score as defined, and the report per
score class, with --money-checkers the same nets choosing by money equity beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo, Owner
from gammon.engine.player import Engine
from tests.benchmarks.load import benchmark
from tests.benchmarks.test_positions import check_well_formed

positions = benchmark("positions")
MATCH_V1 = positions.DATA / "match-v1.npz"


def check_match_set(path: Path) -> Any:
    """A money set's checks, and each decision's context a score whose class count is in
    the metadata."""
    meta = check_well_formed(path)
    s = positions.PositionSet.load(path)
    assert s.at_score
    classes = [positions.score_class(s.decision(d).context) for d in range(len(s))]
    assert meta["score_classes"] == {name: classes.count(k)
                                     for k, name in enumerate(positions.SCORE_CLASSES)}
    return s


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("match") / "tiny-match.npz"
    positions.main(["--generate", "--out", str(out), "--scores", "1", "--shard-size", "4",
                    "--top", "2", "--seed", "5"])
    return out


def test_a_match_set_holds_one_decision_per_score_class_labelled_at_its_score(
        tiny: Path) -> None:
    s = check_match_set(tiny)
    assert len(s) == len(positions.SCORE_CLASSES)
    assert set(s.meta["score_classes"].values()) == {1}
    assert "score and cube" in s.meta["labelled_by"]["search"]
    assert str(s.meta["command"]).startswith("gammon bench positions --generate")
    # double match point: a play is worth its winning chance, gammons nothing (the money
    # equity of the same probabilities would count them)
    dmp = next(d for d in range(len(s)) if positions.score_class(s.decision(d).context) == 0)
    decision = s.decision(dmp)
    ranked = Engine.load().rank_plays(decision.position, decision.roll, plies=1,
                                      move_filter=positions.ALL_PLAYS,
                                      context=decision.context)
    win = {r.play.position.array().tobytes(): r.probabilities.win for r in ranked}
    for board, label in zip(s.plays[s.start[dmp]:s.start[dmp + 1]],
                            s.equity1[s.start[dmp]:s.start[dmp + 1]], strict=True):
        assert label == pytest.approx(2 * win[board.tobytes()] - 1, abs=1e-5)


def test_the_report_gives_errors_per_score_class_and_what_playing_at_the_score_gains(
        tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    positions.main(["--set", str(tiny), "--ply", "0", "--money-checkers"])
    text = capsys.readouterr().out
    tables = text.split("plays chosen by cubeless money equity")
    assert len(tables) == 2 and "at the score minus money" in tables[1]
    for name in positions.SCORE_CLASSES:
        assert f"\n{name} " in tables[0] and f"\n{name} " in tables[1]
    assert "mean error (mEMG)" in text and "difference (mEMG)" in text
    assert "mEMG per decision over 9 decisions" in text.splitlines()[-1]


def test_the_report_on_a_match_set_refuses_a_money_baseline(tiny: Path) -> None:
    with pytest.raises(SystemExit, match="--baseline is for money sets"):
        positions.main(["--set", str(tiny), "--baseline", str(positions.shipped_weights())])


def test_money_checkers_needs_a_match_set() -> None:
    with pytest.raises(SystemExit, match="--money-checkers is for a set of decisions at"):
        positions.main(["--set", "positions-v3", "--money-checkers", "--decisions", "1"])


@pytest.mark.parametrize(("info", "name"), [
    (CubeInfo.match(1, 1), "DMP"),
    (CubeInfo.match(1, 4, crawford=True), "Crawford-leader"),
    (CubeInfo.match(3, 1, crawford=True), "Crawford-trailer"),
    (CubeInfo.match(1, 4, post_crawford=True), "post-Crawford-leader"),
    (CubeInfo.match(3, 1, 2, Owner.OPPONENT, post_crawford=True), "post-Crawford-trailer"),
    (CubeInfo.match(2, 2), "2a-2a"),
    (CubeInfo.match(2, 4, 2, Owner.ME), "2a-4a"),
    (CubeInfo.match(4, 2), "4a-2a"),
    (CubeInfo.match(5, 3), "other"),
])
def test_score_classes_follow_the_side_on_rolls_score(info: CubeInfo, name: str) -> None:
    assert positions.SCORE_CLASSES[positions.score_class(info)] == name
    assert positions.context_of(positions.context_row(info)) == info


def test_a_context_that_is_no_score_is_refused() -> None:
    with pytest.raises(ValueError, match="not money"):
        positions.context_row(CubeInfo.money())
    for row in ([2, 2, 3, 0, 0], [2, 2, 1, 5, 0], [1, 3, 2, 1, 1], [0, 2, 1, 0, 0]):
        with pytest.raises(ValueError):
            positions.context_of(row)


def test_a_decision_keeps_its_context_through_the_set_file(tmp_path: Path) -> None:
    info = CubeInfo.match(3, 1, 2, Owner.ME, post_crawford=True)
    decision = positions.Decision(Position.initial(), Roll(3, 1), 0, info)
    labels = positions.label_at_score(Engine.load(), decision, 2)
    s = positions.assemble([decision], [labels], {"format": positions.SET_FORMAT})
    s.save(tmp_path / "one.npz")
    again = positions.PositionSet.load(tmp_path / "one.npz")
    assert again.decision(0) == decision
    assert np.sum(~np.isnan(again.equity2)) == 2


@pytest.mark.skipif(not MATCH_V1.exists(), reason="match-v1 is not made yet")
def test_the_committed_match_set_is_well_formed() -> None:
    s = check_match_set(MATCH_V1)
    assert min(s.meta["score_classes"].values()) >= 300
