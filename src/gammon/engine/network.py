"""The evaluator's neural networks: one hidden layer, five sigmoid outputs, numba inference.

A network maps a position's inputs to the five cubeless probabilities of the side on roll:
win, win a gammon, win a backgammon, lose a gammon, lose a backgammon (each unconditional,
as GNU Backgammon reports them). A :class:`NetworkPair` holds one network per position
class, for one *feature set* (recorded in the weights file, so older files keep loading):

* ``BASIC`` (feature set 1, the first generation): a contact and a race network, both on
  the inputs of :mod:`gammon.engine.features`;
* ``EXPERT`` (feature set 2): contact, crashed and race networks on the inputs of
  :mod:`gammon.engine.expert` (contact inputs for the first two, race inputs for races).

Either may also hold a small *pruning* network (``expert.PRUNE_INPUTS`` raw inputs) that
the search uses to pick the few plays worth a full evaluation (see
:func:`gammon.engine.evaluate.choose_play_pruned`), and a *judge*: a larger contact network
(several joined, :meth:`Network.joined`) that has the last word on the best few plays of a
0-ply ranking (see :func:`gammon.engine.evaluate.judge_plays`).

The first layer is stored input-major (``hidden_weights[input, unit]``) so the forward pass
can skip the many zero inputs: a shape chosen for speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from gammon.engine import expert, features

OUTPUTS = 5
Arrays = tuple[np.ndarray, ...]
"""Weight arrays or scratch buffers handed to the compiled kernels as one tuple."""
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(OUTPUTS)

BASIC, EXPERT = 1, 2
FEATURE_SET_NAMES = {BASIC: "basic", EXPERT: "expert"}
CLASS_INPUTS = {
    BASIC: {"contact": features.INPUTS, "race": features.INPUTS},
    EXPERT: {"contact": expert.CONTACT_INPUTS, "crashed": expert.CONTACT_INPUTS,
             "race": expert.RACE_INPUTS},
}
"""Per feature set, its position classes and the inputs of each class's network."""
MAX_INPUTS = max(n for classes in CLASS_INPUTS.values() for n in classes.values())
_ARRAY_NAMES = ("hidden_weights", "hidden_bias", "output_weights", "output_bias")

_jit = nb.njit(cache=True, nogil=True)


@dataclass
class Network:
    """Weights of one network (float32 arrays)."""

    hidden_weights: np.ndarray  # [INPUTS, hidden]
    hidden_bias: np.ndarray  # [hidden]
    output_weights: np.ndarray  # [hidden, OUTPUTS]
    output_bias: np.ndarray  # [OUTPUTS]

    @classmethod
    def random(cls, hidden: int, seed: int, inputs: int = features.INPUTS) -> Network:
        """Small random weights (uniform, scaled by fan-in), reproducible from ``seed``."""
        rng = np.random.default_rng(seed)
        scale_in = 1.0 / np.sqrt(inputs / 8)
        scale_out = 1.0 / np.sqrt(hidden)
        return cls(
            rng.uniform(-scale_in, scale_in, (inputs, hidden)).astype(np.float32),
            np.zeros(hidden, dtype=np.float32),
            rng.uniform(-scale_out, scale_out, (hidden, OUTPUTS)).astype(np.float32),
            np.zeros(OUTPUTS, dtype=np.float32),
        )

    @property
    def hidden(self) -> int:
        return int(self.hidden_bias.shape[0])

    @property
    def inputs(self) -> int:
        return int(self.hidden_weights.shape[0])

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.hidden_weights, self.hidden_bias, self.output_weights, self.output_bias

    def copy(self) -> Network:
        return Network(*(a.copy() for a in self.arrays()))

    def widened(self, hidden: int, seed: int) -> Network:
        """This network with ``hidden`` units: the new units' first-layer weights drawn as
        :meth:`random` draws them, their output weights zero, so it computes exactly what
        this one does until a fit moves them (a wider network that keeps what this one
        learned)."""
        if hidden < self.hidden:
            raise ValueError(f"a network of {self.hidden} hidden units cannot widen to {hidden}")
        extra = Network.random(hidden - self.hidden, seed, self.inputs)
        return Network(np.concatenate([self.hidden_weights, extra.hidden_weights], axis=1),
                       np.concatenate([self.hidden_bias, extra.hidden_bias]),
                       np.concatenate([self.output_weights, np.zeros_like(extra.output_weights)]),
                       self.output_bias.copy())

    def joined(self, *others: Network) -> Network:
        """This network and ``others`` side by side as one network of all their hidden
        units, each's output weights and bias divided by their number: its outputs' sums
        are the mean of the networks' sums (a mean of networks that runs, and fits, as
        one)."""
        members = (self, *others)
        for other in others:
            if other.inputs != self.inputs:
                raise ValueError(f"a network of {other.inputs} inputs cannot join one of "
                                 f"{self.inputs}")
        return Network(np.concatenate([m.hidden_weights for m in members], axis=1),
                       np.concatenate([m.hidden_bias for m in members]),
                       np.concatenate([m.output_weights for m in members]) / len(members),
                       np.sum([m.output_bias for m in members], axis=0) / len(members))


@dataclass
class NetworkPair:
    """The networks of one feature set, saved together in one ``.npz`` file: contact and
    race, and for ``EXPERT`` also crashed. (The name stays from the first generation.)"""

    contact: Network
    race: Network
    crashed: Network | None = None
    feature_set: int = BASIC
    prune: Network | None = None
    judge: Network | None = None

    def __post_init__(self) -> None:
        if self.prune is not None and self.prune.inputs != expert.PRUNE_INPUTS:
            raise ValueError(f"the pruning network has {self.prune.inputs} inputs, not "
                             f"{expert.PRUNE_INPUTS}")
        if self.judge is not None and self.judge.inputs != self.contact.inputs:
            raise ValueError(f"the judge has {self.judge.inputs} inputs, the contact network "
                             f"{self.contact.inputs}")
        if self.feature_set not in CLASS_INPUTS:
            raise ValueError(f"unknown feature set {self.feature_set!r}")
        if (self.crashed is None) != (self.feature_set == BASIC):
            raise ValueError("the expert feature set has a crashed network, the basic none")
        for kind, net in self.networks().items():
            expected = CLASS_INPUTS[self.feature_set][kind]
            if net.inputs != expected:
                raise ValueError(f"{kind} network has {net.inputs} inputs, the "
                                 f"{FEATURE_SET_NAMES[self.feature_set]} feature set "
                                 f"{expected}")

    @classmethod
    def random(cls, *, contact_hidden: int = 128, race_hidden: int = 64,
               crashed_hidden: int | None = None, feature_set: int = BASIC,
               seed: int = 0) -> NetworkPair:
        inputs = CLASS_INPUTS[feature_set]
        crashed = None
        if feature_set != BASIC:
            crashed = Network.random(crashed_hidden or contact_hidden, seed + 2,
                                     inputs["crashed"])
        return cls(Network.random(contact_hidden, seed, inputs["contact"]),
                   Network.random(race_hidden, seed + 1, inputs["race"]), crashed, feature_set)

    def networks(self) -> dict[str, Network]:
        """The networks by class name."""
        nets = {"contact": self.contact, "race": self.race}
        if self.crashed is not None:
            nets["crashed"] = self.crashed
        return nets

    @classmethod
    def load(cls, path: str | Path) -> NetworkPair:
        """Read a file written by :meth:`save`, of either feature set (files written before
        feature sets existed are ``BASIC``)."""
        with np.load(path) as data:
            feature_set = int(data["feature_set"]) if "feature_set" in data else BASIC
            if feature_set not in CLASS_INPUTS:
                raise ValueError(f"{path}: unknown feature set {feature_set}")
            for kind in CLASS_INPUTS[feature_set]:
                for name in _ARRAY_NAMES:
                    if f"{kind}_{name}" not in data:
                        raise ValueError(f"{path}: no '{kind}_{name}' array")
            nets = {kind: Network(*(data[f"{kind}_{name}"].astype(np.float32)
                                    for name in _ARRAY_NAMES))
                    for kind in CLASS_INPUTS[feature_set]}
            prune, judge = (Network(*(data[f"{kind}_{name}"].astype(np.float32)
                                      for name in _ARRAY_NAMES))
                            if f"{kind}_hidden_weights" in data else None
                            for kind in ("prune", "judge"))
        try:
            return cls(nets["contact"], nets["race"], nets.get("crashed"), feature_set, prune,
                       judge)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    def save(self, path: str | Path, **metadata: object) -> None:
        """Write atomically (a temporary file, then rename), with ``metadata`` alongside."""
        path = Path(path)
        arrays: dict[str, object] = {"inputs": np.int64(self.contact.inputs),
                                     "feature_set": np.int64(self.feature_set),
                                     "classes": np.array(list(self.networks()))}
        stored = self.networks()
        if self.prune is not None:
            stored["prune"] = self.prune
        if self.judge is not None:
            stored["judge"] = self.judge
        for kind, net in stored.items():
            for name, array in zip(_ARRAY_NAMES, net.arrays(), strict=True):
                arrays[f"{kind}_{name}"] = array
        for key, value in metadata.items():
            arrays[f"meta_{key}"] = np.asarray(value)
        temporary = path.with_suffix(".tmp.npz")
        np.savez_compressed(temporary, **arrays)  # type: ignore[arg-type]
        temporary.replace(path)

    def copy(self) -> NetworkPair:
        return NetworkPair(self.contact.copy(), self.race.copy(),
                           None if self.crashed is None else self.crashed.copy(),
                           self.feature_set, None if self.prune is None else self.prune.copy(),
                           None if self.judge is None else self.judge.copy())

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Contact then race weights, as the kernels take them (see
        :func:`gammon.engine.evaluate.kernel_arrays`)."""
        return self.contact.arrays() + self.race.arrays()


@_jit
def _sigmoid(x: float) -> float:
    if x < -30.0:
        return 0.0
    if x > 30.0:
        return 1.0
    return float(1.0 / (1.0 + np.exp(-x)))


# The hidden units' sigmoid from a table, linearly interpolated (as GNU Backgammon does):
# an exp per unit was most of a forward pass. Step 0.01 over [-16, 16]: within 1.3e-6 of
# the exact function everywhere (tests/engine/test_networks.py checks it).
_SIGMOID_STEP = 0.01
_SIGMOID_LIMIT = 16.0
# one point past +16: a sum just under 16 may round to the last interval's end
_SIGMOID_POINTS = np.arange(-1600, 1602, dtype=np.float64) * _SIGMOID_STEP
_SIGMOID_TABLE = 1.0 / (1.0 + np.exp(-_SIGMOID_POINTS))
_SIGMOID_SLOPE = np.append(np.diff(_SIGMOID_TABLE), 0.0)


@_jit
def hidden_sigmoid(x: float) -> float:
    """The sigmoid of a hidden unit, from the table."""
    if x <= -_SIGMOID_LIMIT:
        return float(_SIGMOID_TABLE[0])
    if x >= _SIGMOID_LIMIT:
        return float(_SIGMOID_TABLE[-2])
    u = (x + _SIGMOID_LIMIT) * (1.0 / _SIGMOID_STEP)
    i = int(u)
    return float(_SIGMOID_TABLE[i] + (u - i) * _SIGMOID_SLOPE[i])


@_jit
def forward(inputs: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
            b2: np.ndarray, hidden: np.ndarray, out: np.ndarray) -> None:
    """One position: fills ``hidden`` (activations) and ``out`` (the five outputs)."""
    units = b1.shape[0]
    for j in range(units):
        hidden[j] = b1[j]
    for i in range(w1.shape[0]):  # ``inputs`` may be a longer buffer
        x = inputs[i]
        if x != 0.0:  # most inputs are zero: skip their rows
            for j in range(units):
                hidden[j] += x * w1[i, j]
    forward_from_sums(hidden, units, w2, b2, out)


@_jit
def forward_from_sums(hidden: np.ndarray, units: int, w2: np.ndarray, b2: np.ndarray,
                      out: np.ndarray) -> None:
    """The rest of :func:`forward` once ``hidden[:units]`` holds the hidden units' input
    sums: their sigmoids (written back) and the five outputs."""
    for j in range(units):
        hidden[j] = hidden_sigmoid(hidden[j])
    s0, s1, s2, s3, s4 = _output_sums(hidden, units, w2)
    out[0], out[1], out[2] = _sigmoid(b2[0] + s0), _sigmoid(b2[1] + s1), _sigmoid(b2[2] + s2)
    out[3], out[4] = _sigmoid(b2[3] + s3), _sigmoid(b2[4] + s4)


@nb.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _output_sums(hidden: np.ndarray, units: int,
                 w2: np.ndarray) -> tuple[float, float, float, float, float]:
    """The output layer's five sums (OUTPUTS is 5), in a loop of its own that the compiler
    may reorder into vector instructions (a sum in another order differs by rounding
    only): a fifth of a forward pass saved against summing in the sigmoid's loop."""
    s0 = s1 = s2 = s3 = s4 = 0.0
    for j in range(units):
        h = float(hidden[j])
        s0 += h * w2[j, 0]
        s1 += h * w2[j, 1]
        s2 += h * w2[j, 2]
        s3 += h * w2[j, 3]
        s4 += h * w2[j, 4]
    return s0, s1, s2, s3, s4


@_jit
def make_consistent(p: np.ndarray) -> None:
    """Clamp the outputs into a consistent set: all in [0, 1], win >= win gammon >= win
    backgammon, and the same for losses (lose gammon <= 1 - win)."""
    for k in range(OUTPUTS):
        if p[k] < 0.0:
            p[k] = 0.0
        elif p[k] > 1.0:
            p[k] = 1.0
    if p[WIN_GAMMON] > p[WIN]:
        p[WIN_GAMMON] = p[WIN]
    if p[WIN_BACKGAMMON] > p[WIN_GAMMON]:
        p[WIN_BACKGAMMON] = p[WIN_GAMMON]
    lose = 1.0 - p[WIN]
    if p[LOSE_GAMMON] > lose:
        p[LOSE_GAMMON] = lose
    if p[LOSE_BACKGAMMON] > p[LOSE_GAMMON]:
        p[LOSE_BACKGAMMON] = p[LOSE_GAMMON]


# d equity / d output: the weights of the five probabilities in the cubeless money equity
EQUITY_WEIGHTS = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


@_jit
def equity(p: np.ndarray) -> float:
    """Cubeless money equity of the five probabilities."""
    return float(2.0 * p[WIN] - 1.0 + p[WIN_GAMMON] - p[LOSE_GAMMON]
                 + p[WIN_BACKGAMMON] - p[LOSE_BACKGAMMON])


@_jit
def invert(p: np.ndarray, out: np.ndarray) -> None:
    """The probabilities from the other side's point of view."""
    w, wg, wb, lg, lb = p[0], p[1], p[2], p[3], p[4]
    out[WIN] = 1.0 - w
    out[WIN_GAMMON] = lg
    out[WIN_BACKGAMMON] = lb
    out[LOSE_GAMMON] = wg
    out[LOSE_BACKGAMMON] = wb
