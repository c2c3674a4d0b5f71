"""The evaluator's neural networks: one hidden layer, five sigmoid outputs, numba inference.

A network maps the inputs of :mod:`gammon.engine.features` to the five cubeless
probabilities of the side on roll: win, win a gammon, win a backgammon, lose a gammon, lose
a backgammon (each unconditional, as GNU Backgammon reports them). Two networks are used:
one for contact positions and one for races (:func:`gammon.engine.features.is_race`).

The first layer is stored input-major (``hidden_weights[input, unit]``) so the forward pass
can skip the many zero inputs: a shape chosen for speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from gammon.engine.features import INPUTS

OUTPUTS = 5
Arrays = tuple[np.ndarray, ...]
"""Weight arrays or scratch buffers handed to the compiled kernels as one tuple."""
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(OUTPUTS)

_jit = nb.njit(cache=True, nogil=True)


@dataclass
class Network:
    """Weights of one network (float32 arrays)."""

    hidden_weights: np.ndarray  # [INPUTS, hidden]
    hidden_bias: np.ndarray  # [hidden]
    output_weights: np.ndarray  # [hidden, OUTPUTS]
    output_bias: np.ndarray  # [OUTPUTS]

    @classmethod
    def random(cls, hidden: int, seed: int) -> Network:
        """Small random weights (uniform, scaled by fan-in), reproducible from ``seed``."""
        rng = np.random.default_rng(seed)
        scale_in = 1.0 / np.sqrt(INPUTS / 8)
        scale_out = 1.0 / np.sqrt(hidden)
        return cls(
            rng.uniform(-scale_in, scale_in, (INPUTS, hidden)).astype(np.float32),
            np.zeros(hidden, dtype=np.float32),
            rng.uniform(-scale_out, scale_out, (hidden, OUTPUTS)).astype(np.float32),
            np.zeros(OUTPUTS, dtype=np.float32),
        )

    @property
    def hidden(self) -> int:
        return int(self.hidden_bias.shape[0])

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.hidden_weights, self.hidden_bias, self.output_weights, self.output_bias

    def copy(self) -> Network:
        return Network(*(a.copy() for a in self.arrays()))


@dataclass
class NetworkPair:
    """The contact and race networks, saved together in one ``.npz`` file."""

    contact: Network
    race: Network

    @classmethod
    def random(
        cls, *, contact_hidden: int = 128, race_hidden: int = 64, seed: int = 0
    ) -> NetworkPair:
        return cls(Network.random(contact_hidden, seed), Network.random(race_hidden, seed + 1))

    @classmethod
    def load(cls, path: str | Path) -> NetworkPair:
        with np.load(path) as data:
            inputs = int(data["inputs"])
            if inputs != INPUTS:
                raise ValueError(f"{path}: weights for {inputs} inputs, the encoder has {INPUTS}")
            nets = [
                Network(*(data[f"{kind}_{name}"].astype(np.float32)
                          for name in ("hidden_weights", "hidden_bias", "output_weights",
                                       "output_bias")))
                for kind in ("contact", "race")
            ]
        return cls(*nets)

    def save(self, path: str | Path, **metadata: object) -> None:
        """Write atomically (a temporary file, then rename), with ``metadata`` alongside."""
        path = Path(path)
        arrays: dict[str, object] = {"inputs": np.int64(INPUTS)}
        for kind, net in (("contact", self.contact), ("race", self.race)):
            for name, array in zip(("hidden_weights", "hidden_bias", "output_weights",
                                    "output_bias"), net.arrays(), strict=True):
                arrays[f"{kind}_{name}"] = array
        for key, value in metadata.items():
            arrays[f"meta_{key}"] = np.asarray(value)
        temporary = path.with_suffix(".tmp.npz")
        np.savez_compressed(temporary, **arrays)  # type: ignore[arg-type]
        temporary.replace(path)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.contact.arrays() + self.race.arrays()


@_jit
def _sigmoid(x: float) -> float:
    if x < -30.0:
        return 0.0
    if x > 30.0:
        return 1.0
    return float(1.0 / (1.0 + np.exp(-x)))


@_jit
def forward(inputs: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
            b2: np.ndarray, hidden: np.ndarray, out: np.ndarray) -> None:
    """One position: fills ``hidden`` (activations) and ``out`` (the five outputs)."""
    units = b1.shape[0]
    for j in range(units):
        hidden[j] = b1[j]
    for i in range(inputs.shape[0]):
        x = inputs[i]
        if x != 0.0:  # most inputs are zero: skip their rows
            for j in range(units):
                hidden[j] += x * w1[i, j]
    for j in range(units):
        hidden[j] = _sigmoid(hidden[j])
    for k in range(OUTPUTS):
        total = b2[k]
        for j in range(units):
            total += hidden[j] * w2[j, k]
        out[k] = _sigmoid(total)


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
