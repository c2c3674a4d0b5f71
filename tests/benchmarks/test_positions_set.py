"""The committed benchmark position sets (benchmarks/data/positions-v*.npz) are well formed:
legal plays only, equities in range, classes as stated, at least 5,000 decisions; a
relabelled set holds exactly the decisions of the set it relabels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.benchmarks.load import benchmark
from tests.benchmarks.test_positions import check_well_formed

positions = benchmark("positions")
SETS = sorted(positions.DATA.glob("positions-v*.npz"))


def test_the_default_set_is_committed() -> None:
    assert positions.DEFAULT_SET in SETS


@pytest.mark.parametrize("path", SETS, ids=[p.stem for p in SETS])
def test_a_committed_set_is_well_formed_and_large_enough(path: Path) -> None:
    meta = check_well_formed(path)
    classes = meta["classes"]
    assert isinstance(classes, dict)
    # Every class large enough for a figure of its own. v1 was drawn with 750 crashed
    # decisions under an older crashed rule; by the engine's rule (efa2221) 327 of them are
    # crashed, so the floor is 300 until a set draws more crashed decisions.
    assert sum(classes.values()) >= 5000 and min(classes.values()) >= 300
    assert str(meta["command"]).startswith("gammon bench positions --generate")


def test_a_relabelled_set_holds_the_decisions_of_its_source() -> None:
    """positions-v2 is positions-v1 labelled again by stronger networks: the same
    decisions, dice, classes and plays; only the equities differ."""
    source = positions.DATA / "positions-v1.npz"
    v1 = positions.PositionSet.load(source)
    v2 = positions.PositionSet.load(positions.DATA / "positions-v2.npz")
    assert v2.meta["label_version"] == 2
    assert v2.meta["settings"]["from_set"] == positions.file_hash(source)
    for name in ("boards", "dice", "kinds", "start", "plays"):
        np.testing.assert_array_equal(getattr(v1, name), getattr(v2, name), err_msg=name)
    assert v2.meta["labelled_by"]["sha256_12"] != v1.meta["labelled_by"]["sha256_12"]
