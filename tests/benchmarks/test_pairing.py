"""The pairing benchmark (benchmarks/pairing.py): every arrival is paired once or leaves
unpaired, no pair is farther apart than the widest band, and nobody waits past their
patience; the same seed gives the same figures."""

from __future__ import annotations

import pytest

from gammon.server.pairing import Band
from tests.benchmarks.load import benchmark

pairing = benchmark("pairing")


def test_every_arrival_is_paired_once_or_leaves_within_the_rule() -> None:
    rule = Band(start=50, step=50, every=10, most=300)
    run = {"per_hour": 600, "pools": 4, "hours": 0.5, "spread": 200, "interval": 1.0,
           "patience": 120, "rule": rule, "seed": 3}
    result = pairing.simulate(**run)
    assert result["arrivals"] > 200
    assert result["paired"] % 2 == 0
    assert result["paired"] + result["left_unpaired"] == result["arrivals"]
    assert result["gap_max"] <= rule.most
    assert result["wait_max"] <= run["patience"] + run["interval"]
    assert pairing.simulate(**run) == result


def test_it_prints_the_percentiles(capsys: pytest.CaptureFixture[str]) -> None:
    assert pairing.main(["--per-hour", "300", "--pools", "2", "--hours", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "wait (s): p50" in out and "rating gap: p50" in out
