"""Provably fair dice: commit to a secret seed, mix in the players' seeds, reveal afterwards.

Before a match the server draws a 32-byte secret ``server_seed`` from the operating system's
cryptographic RNG and publishes only ``seed_hash = SHA-256(server_seed)``. Each player may
give a seed of their own (any text up to 64 characters) when creating or joining. The dice
of the ``n``-th dice action of the match (``n`` from 0: every opening and every roll counts
one) come from the byte stream

    HMAC-SHA256(key=server_seed, msg="{client_seed0}:{client_seed1}:{n}:{block}")

for ``block = 0, 1, …`` concatenated; a die is a byte ``b < 252`` mapped to ``b % 6 + 1``
(bytes 252–255 are skipped: rejection sampling keeps the six faces exactly equally likely).
Dice are drawn in the order the core draws them: for the opening, one die for player 0 then
one for player 1, again after a tie (then, with the "winner rolls anew" option, two more);
for a roll, the two dice in order.

When the match ends the server reveals ``server_seed``; anyone can check its hash and
recompute every roll (:func:`verify`, ``gammon verify``). The server cannot choose dice
after the players' seeds are known without breaking SHA-256, and players cannot predict
them without the secret.

>>> seed = bytes(32).hex()
>>> dice = FairDice(seed, ("alice", "bob"))
>>> first = dice.source(0)
>>> first.randint(1, 6), first.randint(1, 6)
(3, 6)
>>> commitment(seed)[:16]
'66687aadf862bd77'
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Sequence
from typing import Any


def new_seed() -> str:
    """A fresh secret server seed (64 hex digits) from the OS cryptographic RNG."""
    return secrets.token_hex(32)


def commitment(server_seed: str) -> str:
    """The published hash of a server seed (hex SHA-256 of its bytes)."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


class DiceStream:
    """The dice of one dice action: a :class:`~gammon.core.dice.DiceSource`."""

    def __init__(self, key: bytes, prefix: str) -> None:
        self._key = key
        self._prefix = prefix
        self._block = 0
        self._buffer = b""
        self._used = 0

    def _byte(self) -> int:
        if self._used == len(self._buffer):
            message = f"{self._prefix}:{self._block}".encode()
            self._buffer = hmac.new(self._key, message, hashlib.sha256).digest()
            self._block += 1
            self._used = 0
        byte = self._buffer[self._used]
        self._used += 1
        return byte

    def randint(self, a: int, b: int) -> int:
        """A uniform integer in ``[a, b]`` (at most 256 values) by rejection sampling."""
        span = b - a + 1
        if not 1 <= span <= 256:
            raise ValueError(f"randint range must hold 1 to 256 values, got [{a}, {b}]")
        limit = 256 - 256 % span
        while True:
            byte = self._byte()
            if byte < limit:
                return a + byte % span


class FairDice:
    """The dice of one match, from its server seed and both players' seeds."""

    def __init__(self, server_seed: str, client_seeds: Sequence[str]) -> None:
        self._key = bytes.fromhex(server_seed)
        self._seeds = f"{client_seeds[0]}:{client_seeds[1]}"

    def source(self, n: int) -> DiceStream:
        """The dice source of the ``n``-th dice action of the match (from 0)."""
        return DiceStream(self._key, f"{self._seeds}:{n}")


def _rolls_of(actions: Iterable[dict[str, Any]]) -> list[list[int]]:
    """Every die of every dice action, in order, from stored action JSON."""
    out = []
    for action in actions:
        if action["t"] == "opening":
            dice = [d for pair in action["throws"] for d in pair]
            if action.get("anew"):
                dice += action["roll"]
            out.append(dice)
        elif action["t"] == "roll":
            out.append(list(action["roll"]))
    return out


def verify(record: dict[str, Any]) -> list[str]:
    """Check a match's fairness record (``GET /api/games/{id}/fairness``); the problems
    found, an empty list when every roll is what the seeds give.

    ``record`` holds ``server_seed``, ``seed_hash``, ``client_seeds`` and ``actions`` (the
    stored dice actions, as in the record).
    """
    problems = []
    seed = record.get("server_seed")
    if not seed:
        return ["the server seed is not revealed yet (the match is not over)"]
    if commitment(seed) != record["seed_hash"]:
        problems.append("the revealed server seed does not match the published hash")
    dice = FairDice(seed, record["client_seeds"])
    for n, rolled in enumerate(_rolls_of(record["actions"])):
        source = dice.source(n)
        expected = [source.randint(1, 6) for _ in rolled]
        if expected != rolled:
            problems.append(f"dice action {n}: rolled {rolled}, the seeds give {expected}")
    return problems


def verify_file(path: str) -> list[str]:
    """:func:`verify` on a fairness record saved as JSON."""
    with open(path, encoding="utf-8") as handle:
        return verify(json.load(handle))
