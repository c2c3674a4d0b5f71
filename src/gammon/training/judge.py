"""The judge (``gammon train --stage judge``): the contact networks of several weights files
joined as one network (:meth:`~gammon.engine.network.Network.joined`: the mean of their
output sums), saved beside the networks of the first file. The engine gives it the last
word on the best few plays of a 0-ply ranking (:func:`gammon.engine.evaluate.judge_plays`):
a mean of networks fitted apart chooses better than any of them (docs/training.md, the
thirteenth generation), and costs little when it judges two plays a decision."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from gammon.engine.network import NetworkPair
from gammon.training.supervised import weights_digest


def make_judge(start: Path, members: Sequence[Path], path: Path,
               log: Callable[[str], None] = print) -> NetworkPair:
    """``start``'s networks with a judge: the mean of ``start``'s contact network and each
    of ``members``' (their files and digests recorded in ``path``'s metadata)."""
    if not members:
        raise ValueError("a judge needs --teachers: the weights whose contact networks join")
    nets = NetworkPair.load(start)
    others = [NetworkPair.load(member).contact for member in members]
    nets.judge = nets.contact.joined(*others)
    nets.save(path, judge_start=start.name, judge_start_sha256=weights_digest(start),
              judge_members=",".join(member.name for member in members),
              judge_members_sha256=",".join(weights_digest(member) for member in members))
    log(f"{path}: the judge is the mean of {1 + len(members)} contact networks, "
        f"{nets.judge.hidden} hidden units")
    return nets
