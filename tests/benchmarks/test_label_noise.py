"""The label-noise benchmark's arithmetic: one label's noise, absolute and relative to its
decision, and the networks' distance from the labels without their noise."""

from __future__ import annotations

import numpy as np
import pytest

from tests.benchmarks.load import benchmark

label_noise = benchmark("label_noise")


def test_the_figures_recover_the_noise_and_the_networks_error_they_were_made_with() -> None:
    # 20,000 decisions of four candidates: each label the truth plus noise of 0.03, the
    # networks the truth plus an error of 0.02, all independent. Relative to a decision's
    # mean of four, a spread keeps sqrt(3/4) of itself.
    rng = np.random.default_rng(5)
    decisions, size = 20_000, 4
    truth = rng.normal(0, 0.5, decisions * size)
    rows = np.column_stack([truth + rng.normal(0, 0.03, truth.size),
                            truth + rng.normal(0, 0.03, truth.size),
                            truth + rng.normal(0, 0.02, truth.size),
                            np.zeros(truth.size)])
    starts = np.arange(0, truth.size + 1, size)
    shown = label_noise.figures(rows, starts)
    kept = np.sqrt((size - 1) / size)
    assert shown["noise"] == pytest.approx(0.03, rel=0.02)
    assert shown["relative noise"] == pytest.approx(0.03 * kept, rel=0.02)
    assert shown["networks vs fresh"] == pytest.approx(np.hypot(0.03, 0.02) * kept, rel=0.02)
    assert shown["networks vs expectation"] == pytest.approx(0.02 * kept, rel=0.05)


def test_labels_that_agree_have_no_noise_and_the_networks_error_is_all_theirs() -> None:
    rows = np.array([[0.1, 0.1, 0.3, 0], [0.5, 0.5, 0.5, 0], [0.2, 0.2, 0.2, 0]])
    shown = label_noise.figures(rows, np.array([0, 2, 3]))
    assert shown["noise"] == 0 and shown["relative noise"] == 0
    # the first decision's misses 0.2 and 0 are ±0.1 from their mean; the third's 0 from its own
    assert shown["networks vs expectation"] == pytest.approx(np.sqrt(0.02 / 3))
