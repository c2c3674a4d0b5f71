"""The labellers benchmark's arithmetic: distances to the reference with its noise taken out."""

from __future__ import annotations

import numpy as np
import pytest

from tests.benchmarks.load import benchmark

labellers = benchmark("labellers")


def test_distance_takes_the_reference_noise_out() -> None:
    # Two positions; one search labeller 0.1 off, one rollout labeller exact but noisy
    # (standard error 0.05); the reference's standard error is 0.03 on both.
    rows = np.array([
        [0.6, 0.0, 0.5, 0.05, 0.5, 0.03],
        [-0.1, 0.0, -0.2, 0.05, -0.2, 0.03],
    ])
    squared, own = labellers.distances(rows)
    assert squared == pytest.approx([0.01 - 0.0009, -0.0009])
    assert own == pytest.approx([0.0, 0.0025])


def test_bootstrap_interval_holds_the_distance() -> None:
    rng = np.random.default_rng(3)
    truth = rng.normal(0, 1, 200)
    rows = np.column_stack([truth + rng.normal(0, 0.1, 200), np.zeros(200),
                            truth, np.zeros(200)])
    low, high = labellers.bootstrap(rows, draws=300)
    assert low[0] < 0.1 < high[0]
    assert high[0] - low[0] < 0.05


def test_names_follow_the_truncations() -> None:
    assert labellers.labeller_names(144, [7, 0]) == [
        "0-ply", "1-ply", "2-ply", "rollout 144 games, 7 plies", "rollout 144 games, to the end"]
