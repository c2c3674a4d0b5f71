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
one for player 1, again after a tie (then, with the "winner rolls anew" option, two more:
the roll the winner plays); for a roll, the two dice in order. The published record says
whether the match had that option (``winner_rolls_anew``).

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
import re
import secrets
from collections.abc import Sequence
from typing import Any

from gammon.core.dice import roll_opening


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


class RecordError(ValueError):
    """A fairness record that is not shaped as the server publishes it."""


def _dice(value: Any, count: int, what: str) -> list[int]:
    if (not isinstance(value, list) or len(value) != count
            or not all(type(d) is int and 1 <= d <= 6 for d in value)):
        raise RecordError(f"{what} is {count} dice 1-6, got {value!r}")
    return value


def _option_flag(record: dict[str, Any]) -> bool | None:
    """The record's "winner rolls anew" flag (``None`` in records saved before it was
    published)."""
    flag = record.get("winner_rolls_anew")
    if flag is not None and not isinstance(flag, bool):
        raise RecordError(f"winner_rolls_anew is true or false, got {flag!r}")
    return flag


def _check_opening(stored: dict[str, Any], source: DiceStream, anew: bool | None) -> str | None:
    """What is wrong with a stored opening, recomputed in full from its dice action: every
    throw, the player named first, and the roll the winner plays. Without the option flag
    (``anew`` is ``None``) the option is guessed from the opening (its roll is not the
    deciding throw) for the message; :func:`_problems` accepts either option then."""
    throws = stored.get("throws")
    if not isinstance(throws, list) or not throws:
        raise RecordError(f"an opening has a list of throws, got {throws!r}")
    rolled = [_dice(pair, 2, "an opening throw") for pair in throws]
    roll = _dice(stored.get("roll"), 2, "an opening's roll")
    if anew is None:
        anew = sorted(roll) != sorted(rolled[-1])
    expected = roll_opening(source, winner_rolls_anew=anew)
    want = {"first": expected.first, "throws": [list(t) for t in expected.throws],
            "roll": [expected.roll.die1, expected.roll.die2]}
    got = {"first": stored.get("first"), "throws": rolled, "roll": roll}
    if got == want:
        return None
    return (f"opening throws {rolled}, first {got['first']}, roll {roll}; the seeds give "
            f"throws {want['throws']}, first {want['first']}, roll {want['roll']}"
            + (" (the winner rolls anew)" if anew else ""))


def verify(record: dict[str, Any]) -> list[str]:
    """Check a match's fairness record (``GET /api/games/{id}/fairness``); the problems
    found, an empty list when every die is what the seeds give.

    ``record`` holds ``server_seed``, ``seed_hash``, ``client_seeds``, ``actions`` (the
    stored dice actions) and ``winner_rolls_anew`` (the match's opening option). Every die
    is recomputed: an opening's throws, the player it names first and the roll the winner
    plays (the deciding throw's dice, or with the option two more dice of the same dice
    action), and each roll. A record of another shape gives one problem saying so.
    """
    if not isinstance(record, dict):
        return [f"a fairness record is a JSON object, got {type(record).__name__}"]
    seed = record.get("server_seed")
    if not seed:
        return ["the server seed is not revealed yet (the match is not over)"]
    try:
        return _problems(record, seed)
    except (RecordError, KeyError, TypeError, ValueError) as error:
        detail = f"missing {error}" if isinstance(error, KeyError) else str(error)
        return [f"the record is malformed: {detail}"]


def _problems(record: dict[str, Any], seed: Any) -> list[str]:
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", seed):
        raise RecordError(f"server_seed is 64 hex digits, got {seed!r}")
    seeds = record["client_seeds"]
    if not isinstance(seeds, list) or len(seeds) != 2 or not all(isinstance(s, str)
                                                                  for s in seeds):
        raise RecordError(f"client_seeds is a list of two strings, got {seeds!r}")
    actions = record["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise RecordError("actions is a list of stored dice actions")
    problems = []
    if commitment(seed) != record["seed_hash"]:
        problems.append("the revealed server seed does not match the published hash")
    anew = _option_flag(record)
    dice = FairDice(seed, seeds)
    dice_actions = [a for a in actions if a.get("t") in ("opening", "roll")]
    for n, action in enumerate(dice_actions):
        source = dice.source(n)
        if action["t"] == "opening":
            problem = _check_opening(action, source, anew)
            if problem and anew is None and not _check_opening(action, dice.source(n), True):
                problem = None  # without the flag: the winner's new roll may repeat the throw
            if problem:
                problems.append(f"dice action {n}: {problem}")
        else:
            rolled = _dice(action.get("roll"), 2, "a roll")
            expected = [source.randint(1, 6), source.randint(1, 6)]
            if expected != rolled:
                problems.append(f"dice action {n}: rolled {rolled}, the seeds give {expected}")
    return problems


def dice_action_count(record: dict[str, Any]) -> int:
    """How many dice actions (openings and rolls) a record holds."""
    return sum(1 for a in record["actions"] if a.get("t") in ("opening", "roll"))


def verify_file(path: str) -> list[str]:
    """:func:`verify` on a fairness record saved as JSON."""
    with open(path, encoding="utf-8") as handle:
        return verify(json.load(handle))
