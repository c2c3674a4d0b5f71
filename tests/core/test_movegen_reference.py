"""Legal-play counts against GNU Backgammon: the backgammon equivalent of chess perft.

`tests/data/movegen_reference.tsv` was made by GNU Backgammon 1.07 itself
(`gnubg -t -q -p scripts/make_movegen_reference.py`): for each (Position ID, dice) the
number of distinct legal plays gnubg generates, 0 when the roll cannot be played.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from gammon.core import _movegen
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position

TABLE = Path(__file__).parents[1] / "data" / "movegen_reference.tsv"
with TABLE.open(newline="") as table_file:
    ROWS = list(csv.DictReader(table_file, delimiter="\t"))


def test_the_table_covers_every_rule_category() -> None:
    categories = Counter(row["category"] for row in ROWS)
    assert len(ROWS) >= 300
    for category in ("opening", "bar", "doubles", "bearoff", "bearoff_hit", "one_die",
                     "higher_die", "random"):
        assert categories[category] >= 25, category


@pytest.mark.parametrize(
    ("position_id", "dice", "plays"),
    [
        ("4HPwATDgc/ABMA", "31", 16),
        ("4HPwATDgc/ABMA", "44", 52),
        ("AACAkCRJqqoAAA", "11", 2220),
        ("4HPwATDgc/ABUA", "66", 0),
    ],
)
def test_published_sanity_rows(position_id: str, dice: str, plays: int) -> None:
    assert {(r["position_id"], r["dice"], int(r["plays"])) for r in ROWS} >= {
        (position_id, dice, plays)
    }
    found = legal_plays(Position.from_id(position_id), Roll.parse(dice))
    assert (0 if found[0].moves == () else len(found)) == plays


@pytest.mark.parametrize("category", sorted({row["category"] for row in ROWS}))
def test_counts_match_gnu_backgammon(category: str) -> None:
    rows = [row for row in ROWS if row["category"] == category]
    mismatches = []
    for row in rows:
        found = legal_plays(Position.from_id(row["position_id"]), Roll.parse(row["dice"]))
        count = 0 if found[0].moves == () else len(found)
        if count != int(row["plays"]):
            mismatches.append((row["position_id"], row["dice"], int(row["plays"]), count))
    assert mismatches == []


def test_the_batch_path_agrees_with_gnu_backgammon() -> None:
    boards = np.stack([Position.from_id(r["position_id"]).array() for r in ROWS])
    rolls = np.array([[int(r["dice"][0]), int(r["dice"][1])] for r in ROWS], dtype=np.int64)
    offsets, results = _movegen.plays_batch(boards, rolls)
    counts = np.diff(offsets)
    expected = np.array([max(int(r["plays"]), 1) for r in ROWS])  # a pass is one board
    assert counts.tolist() == expected.tolist()
    assert results.shape == (offsets[-1], 26)
