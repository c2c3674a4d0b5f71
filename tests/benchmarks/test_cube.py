"""``gammon bench cube``: the pairing of two cube policies with duplicate dice, the saved
lines and the resumption of an interrupted run."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import pytest

from gammon.core.actions import AcceptResign, OfferResign, RejectResign
from gammon.core.cube import Level
from gammon.core.game import Rules
from gammon.engine.cube import DEFAULT_EFFICIENCY, CubeEfficiency
from gammon.engine.matchbot import MatchBot
from gammon.engine.player import Engine
from tests.benchmarks.load import benchmark

cube = benchmark("cube")


@pytest.fixture(scope="module")
def engine() -> object:
    return cube.CachedEvaluator(Engine.load())


def flags(*argv: str) -> argparse.Namespace:
    return argparse.Namespace(**{"contact_x": None, "crashed_x": None, "race_x": None,
                                 "race_offset": 0.0, "no_resign": False, "resign_plies": None,
                                 **dict(zip(argv[::2], argv[1::2], strict=True))})


def test_the_flags_change_only_the_named_class() -> None:
    p = cube.variant_of(flags("contact_x", 0.6))
    assert p.base == cube.Policy(DEFAULT_EFFICIENCY, True)
    assert p.variant == cube.Policy(CubeEfficiency(contact=0.6), True)
    assert p.label == "contact0.60"
    p = cube.variant_of(flags("race_offset", -0.05))
    assert p.variant.efficiency == DEFAULT_EFFICIENCY.shifted_race(-0.05)
    assert p.label == "race-0.05"
    p = cube.variant_of(flags("race_x", 0.65))
    x = p.variant.efficiency
    assert x.race(20) == x.race(150) == x.bearoff == 0.65
    p = cube.variant_of(flags("no_resign", True))
    assert p.variant == cube.Policy(DEFAULT_EFFICIENCY, False) and p.label == "noresign"
    p = cube.variant_of(flags("resign_plies", 2))
    assert p.variant == cube.Policy(resign_plies=2) and p.label == "resign2ply"
    assert p.base.resign_plies == MatchBot.resign_plies != 2
    with pytest.raises(SystemExit):
        cube.variant_of(flags())
    with pytest.raises(SystemExit):  # the shipped depth is no variant
        cube.variant_of(flags("resign_plies", MatchBot.resign_plies))


def test_a_pair_is_saved_as_one_line_and_read_back() -> None:
    row = {"pair": 7, "points": [-2.0, 4.0], "differed": [True, False],
           "offers": {"base": [1, 0], "variant": [3, 2]}}
    assert cube.to_line(row) == "-2 4 1 0 1 0 3 2"
    assert cube.from_line(7, cube.to_line(row)) == row


def test_resignations_are_counted_for_the_side_that_offered() -> None:
    record = [OfferResign(1, Level.SINGLE), RejectResign(0), OfferResign(1, Level.SINGLE),
              AcceptResign(0)]
    assert cube.resignations(record, variant_seat=1) == {"base": [0, 0], "variant": [2, 1]}
    assert cube.resignations(record, variant_seat=0) == {"base": [2, 1], "variant": [0, 0]}


def test_policies_that_never_disagree_score_exactly_zero(engine: object) -> None:
    same = cube.Policies(cube.Policy(), cube.Policy(CubeEfficiency(race_max=0.7)), "same")
    for pair in range(3):
        row = cube.play_pair(engine, same, Rules(), 5, pair)
        assert row["differed"] == [False, False]
        first, second = row["points"]
        assert first != 0 and first == -second  # the same game, the seats swapped


def test_a_different_policy_is_seen_and_its_pairs_are_not_forced_to_zero(
        engine: object) -> None:
    dead = cube.Policies(cube.Policy(), cube.Policy(CubeEfficiency(contact=0.0)), "dead")
    rows = [cube.play_pair(engine, dead, Rules(), 5, pair) for pair in range(6)]
    assert any(any(row["differed"]) for row in rows)
    s = cube.summary(rows, Rules())
    assert s["pairs"] == 6 and s["pairs_differed"] == sum(any(r["differed"]) for r in rows)
    assert s["mean"] == pytest.approx(sum(sum(r["points"]) for r in rows) / 12)


def test_an_interrupted_run_resumes_with_the_same_pairs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--contact-x", "0.0", "--seed", "3", "--results", str(tmp_path)]
    assert cube.main([*args, "--games", "4"]) == 0
    shipped = Path(__file__).parents[2] / "src/gammon/engine/weights/gammon.npz"
    weights = hashlib.sha256(shipped.read_bytes()).hexdigest()[:12]
    (store,) = tmp_path.glob(f"cube-contact0.00-len0-expert-ply0-seed3-w{weights}.txt")
    first = store.read_text().splitlines()
    assert len(first) == 2
    capsys.readouterr()
    assert cube.main([*args, "--games", "8"]) == 0
    assert "resuming: 2 pairs" in capsys.readouterr().out
    again = store.read_text().splitlines()
    assert len(again) == 4 and again[:2] == first
    rows = [cube.play_pair(cube.CachedEvaluator(Engine.load()),
                           cube.variant_of(flags("contact_x", 0.0)), Rules(), 3, pair)
            for pair in (2, 3)]
    assert [cube.to_line(row) for row in rows] == again[2:]
