"""The fit's minibatch Adam (gammon.training.adam): the inputs it encodes are the engine's,
its gradient is the loss's (checked by finite differences), its batches hold whole
decisions, and its step follows Adam's rule."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.core.position import Position
from gammon.engine.evaluate import kernel_arrays, network_for
from gammon.engine.expert import CONTACT_INPUTS, RACE_INPUTS
from gammon.engine.features import is_race
from gammon.engine.network import EXPERT, MAX_INPUTS, Network, NetworkPair
from gammon.training.adam import ClassFit, cosine_rate, encode_rows

EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def test_encoded_rows_are_the_inputs_the_engine_evaluates() -> None:
    arrays = kernel_arrays(NetworkPair.random(feature_set=EXPERT, crashed_hidden=8))
    boards = np.array([Position.from_id(pid).board for pid in (
        "4HPwATDgc/ABMA", "4HPwIDDgc/ABMA", "ELvdBQDWNZcAQA", "mwOBBDu8dwMAAA",
        "d3cHAABsBwAAAA", "2+4OAADd5gEAAA")], dtype=np.int8)
    races = np.array([is_race(board) for board in boards])
    assert races.any() and not races.all()
    for is_race_, width in ((False, CONTACT_INPUTS), (True, RACE_INPUTS)):
        chosen = boards[races == is_race_]
        rows = encode_rows(chosen, is_race_)
        assert rows.shape == (len(chosen), width)
        for board, row in zip(chosen, rows, strict=True):
            inputs = np.zeros(MAX_INPUTS, dtype=np.float32)
            network_for(board, arrays, inputs)
            np.testing.assert_array_equal(row, inputs[:width])


def small_fit(sizes: list[int], seed: int = 3) -> ClassFit:
    """A float64 network of 6 inputs and 4 hidden units with decisions of the sizes given,
    random inputs (some zero) and labels strictly between 0 and 1."""
    rng = np.random.default_rng(seed)
    net = Network(rng.normal(0, 0.7, (6, 4)), rng.normal(0, 0.3, 4),
                  rng.normal(0, 0.7, (4, 5)), rng.normal(0, 0.3, 5))
    rows = sum(sizes)
    inputs = rng.random((rows, 6)) * (rng.random((rows, 6)) < 0.6)
    labels = rng.uniform(0.05, 0.95, (rows, 5))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    return ClassFit(net, inputs, labels, starts)


def plain_loss(fit: ClassFit, rank_weight: float) -> float:
    """Per row the cross-entropy plus rank_weight times the squared equity error relative
    to its decision's mean error, averaged over the rows, computed plainly."""
    total, count = 0.0, 0
    w1, b1, w2, b2 = fit.net.arrays()
    for g in range(len(fit.starts) - 1):
        misses, entropies = [], []
        for r in range(fit.starts[g], fit.starts[g + 1]):
            hidden = 1 / (1 + np.exp(-(fit.inputs[r] @ w1 + b1)))
            out = 1 / (1 + np.exp(-(hidden @ w2 + b2)))
            label = fit.labels[r]
            entropies.append(-float(np.sum(label * np.log(out) + (1 - label) * np.log(1 - out))))
            misses.append(float(EQUITY @ (out - label)))
        relative = np.array(misses) - np.mean(misses)
        total += sum(entropies) + rank_weight * float(np.sum(relative ** 2))
        count += len(misses)
    return total / count


@pytest.mark.parametrize("rank_weight", [0.0, 3.0])
def test_the_gradient_is_the_loss_s_gradient(rank_weight: float) -> None:
    fit = small_fit([3, 2, 1, 4])
    _, gradients = fit.gradients(np.arange(4), rank_weight)
    eps = 1e-6
    for array, gradient in zip(fit.net.arrays(), gradients, strict=True):
        for index in np.ndindex(array.shape):
            saved = array[index]
            array[index] = saved + eps
            above = plain_loss(fit, rank_weight)
            array[index] = saved - eps
            below = plain_loss(fit, rank_weight)
            array[index] = saved
            assert gradient[index] == pytest.approx((above - below) / (2 * eps),
                                                    rel=1e-5, abs=1e-8)


def test_the_rank_term_changes_the_gradient_only_within_decisions_of_two_or_more() -> None:
    singles = small_fit([1, 1, 1, 1])
    pairs = small_fit([2, 2])
    for fit, moved in ((singles, False), (pairs, True)):
        plain = fit.gradients(np.arange(len(fit.starts) - 1), 0.0)[1]
        ranked = fit.gradients(np.arange(len(fit.starts) - 1), 5.0)[1]
        assert moved != all(np.allclose(a, b) for a, b in zip(plain, ranked, strict=True))


def test_batches_hold_whole_decisions_each_once() -> None:
    fit = small_fit([3, 1, 5, 2, 2, 7, 1, 1, 4])
    batches = fit.batches(np.random.default_rng(1), rows=6)
    decisions = np.concatenate(batches)
    assert sorted(decisions.tolist()) == list(range(9))
    running = np.cumsum(np.diff(fit.starts)[decisions])
    ends = np.cumsum([len(batch) for batch in batches]) - 1
    for k, end in enumerate(ends[:-1], start=1):  # the k-th ends where the total reaches 6k
        assert running[end] >= 6 * k and (end == 0 or running[end - 1] < 6 * k)
    rows, counts = fit.rows_of(np.array([2, 0]))
    assert rows.tolist() == [4, 5, 6, 7, 8, 0, 1, 2] and counts.tolist() == [5, 3]


def test_adam_s_first_step_moves_each_weight_by_the_rate_against_its_gradient_s_sign() -> None:
    """Adam's first step, its moments bias-corrected, is the learning rate times minus
    the sign of each gradient (where the gradient is well above epsilon)."""
    fit = small_fit([2, 3])
    before = [a.copy() for a in fit.net.arrays()]
    _, gradients = fit.gradients(np.arange(2), 1.0)
    fit.step(np.arange(2), 0.01, 1.0)
    for start, after, gradient in zip(before, fit.net.arrays(), gradients, strict=True):
        large = np.abs(gradient) > 1e-4
        assert large.any()
        np.testing.assert_allclose((after - start)[large], -0.01 * np.sign(gradient[large]),
                                   rtol=1e-3)


def test_the_step_warms_up_then_decays_to_zero_along_a_cosine() -> None:
    rate = cosine_rate(0.01, total_steps=1000, warmup=100)
    assert rate(0) == pytest.approx(0.0001) and rate(99) == pytest.approx(0.01)
    assert rate(550) == pytest.approx(0.005)
    assert rate(1000) == pytest.approx(0.0) and rate(2000) == pytest.approx(0.0)
    assert all(rate(s) >= rate(s + 1) for s in range(100, 1000))
