"""``gammon train --stage judge`` (gammon.training.judge): the weights of ``--from`` with a
judge that is the mean of their contact network and each ``--teachers`` file's."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

import gammon.cli.main as cli
from gammon.engine.network import NetworkPair
from gammon.training.supervised import weights_digest

CHECKPOINTS = Path(__file__).parents[2] / "training/checkpoints"
START = CHECKPOINTS / "td-expert-h256-seed3-gen12-prune.npz"
TEACHERS = [CHECKPOINTS / f"teacher-contact-gen10-seed{seed}.npz" for seed in (11, 12)]


def test_the_judge_stage_joins_the_contact_networks_and_records_where_they_came_from(
        tmp_path: Path) -> None:
    out = tmp_path / "judged.npz"
    printed = io.StringIO()
    assert cli.main(["train", "--stage", "judge", "--from", str(START), "--teachers",
                     *map(str, TEACHERS), "--out", str(out)], out=printed) == 0
    assert "the mean of 3 contact networks, 768 hidden units" in printed.getvalue()
    judged, start = NetworkPair.load(out), NetworkPair.load(START)
    assert judged.judge is not None
    # the judge's units: the start's contact network's, then each teacher's in turn
    units = [start.contact] + [NetworkPair.load(t).contact for t in TEACHERS]
    np.testing.assert_array_equal(judged.judge.hidden_weights,
                                  np.concatenate([u.hidden_weights for u in units], axis=1))
    np.testing.assert_allclose(judged.judge.output_weights * 3,
                               np.concatenate([u.output_weights for u in units]), rtol=1e-6)
    for kind, net in start.networks().items():  # the networks themselves unchanged
        np.testing.assert_array_equal(net.hidden_weights,
                                      judged.networks()[kind].hidden_weights)
    with np.load(out) as data:
        assert str(data["meta_judge_members"]) == ",".join(t.name for t in TEACHERS)
        assert str(data["meta_judge_members_sha256"]) == ",".join(
            weights_digest(t) for t in TEACHERS)
        assert str(data["meta_judge_start_sha256"]) == weights_digest(START)


def test_the_judge_stage_without_teachers_or_start_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "judged.npz"
    assert cli.main(["train", "--stage", "judge", "--from", str(START), "--out", str(out)]) == 2
    assert cli.main(["train", "--stage", "judge", "--teachers", str(TEACHERS[0]),
                     "--out", str(out)]) == 2
    assert not out.exists()
