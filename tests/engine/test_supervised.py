"""Labelled positions for the supervised stage (gammon.engine.supervised): labels are the
project's own search values, shards are reproducible, resumable and refuse mixing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gammon.core import _movegen
from gammon.engine import search
from gammon.engine.evaluate import kernel_arrays, new_scratch
from gammon.engine.network import NetworkPair
from gammon.engine.supervised import LabelRun, label, load_shards, shard_path

SHIPPED = Path(__file__).parents[2] / "src/gammon/engine/weights/gammon.npz"
RUN = LabelRun(shards=2, games=1, seed=3, noise=0.05, plies=1)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("labels")
    assert label(SHIPPED, directory, RUN, log=lambda line: None) == 2
    return directory


def test_labels_are_the_search_value_of_each_position(shards: Path) -> None:
    """Each kept board's label is its 1-ply value for the side on roll, recomputed here."""
    boards, labels = load_shards(shards)
    assert len(boards) > 0 and labels.shape == (len(boards), 5)
    arrays = kernel_arrays(NetworkPair.load(SHIPPED))
    scratch, level = new_scratch(), _movegen.new_scratch()
    out = np.empty(5)
    for board, expected in zip(boards[:20], labels[:20], strict=True):
        assert (board[1:26].clip(0).sum() <= 15) and (-board[0:25].clip(None, 0).sum() <= 15)
        search.position_value(board, 1, arrays, scratch, level, level, out)
        np.testing.assert_allclose(out, expected, atol=1e-6)
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
    assert label(SHIPPED, copy, RUN, log=lines.append) == 1
    assert lines[0] == f"resuming {copy} after 1 shard(s)"
    with np.load(shard_path(shards, 1)) as a, np.load(shard_path(copy, 1)) as b:
        np.testing.assert_array_equal(a["boards"], b["boards"])
        np.testing.assert_array_equal(a["labels"], b["labels"])


def test_shards_of_other_settings_are_refused(shards: Path, tmp_path: Path) -> None:
    """Adding shards made with another seed (or other weights) to a directory is refused,
    as are impossible settings."""
    with pytest.raises(ValueError, match="was made with"):
        label(SHIPPED, shards, LabelRun(shards=3, games=1, seed=4, plies=1))
    other = tmp_path / "other.npz"
    NetworkPair.random(contact_hidden=4, race_hidden=4).save(other)
    with pytest.raises(ValueError, match="was made with"):
        label(other, shards, LabelRun(shards=3, games=1, seed=3, plies=1))
    with pytest.raises(ValueError, match="not 3-ply"):
        label(SHIPPED, tmp_path / "x", LabelRun(plies=3))
