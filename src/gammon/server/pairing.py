"""The pairing rule of *Play now* (PROTOCOL.md, *Play now*), pure: who of the players waiting
in one pool are paired now. No clock read, no storage: the time is the ``now`` argument, the
players the :class:`Seeker` values given, the thresholds a :class:`Band`.

The rule, as published:

* A player's **band** is the rating difference they accept after waiting ``w`` seconds:
  ``start + step × ⌊w / every⌋``, never more than ``most`` (by default ±50 at once, 50 more
  every 10 seconds, at most ±500 after 90 seconds).
* Two players **may be paired** when their ratings differ by at most the band of the one who
  has waited longer (the wider of the two bands): the longer someone waits, the farther a
  partner may be.
* Of the pairs allowed, the one whose rating difference lies in the **lowest step**
  (``⌊difference / step⌋``: 0-49, 50-99, ...) is paired first; inside one step, **first come,
  first served**: the pair whose first player came earliest, then whose second player came
  earliest. Then again among those left, until no allowed pair remains.

>>> rule = Band()
>>> band(0, rule), band(9.9, rule), band(10, rule), band(1000, rule)
(50.0, 50.0, 100.0, 500.0)
>>> a, b, c = Seeker(1, 1500, 0), Seeker(2, 1540, 5), Seeker(3, 1500, 8)
>>> [(x.id, y.id) for x, y in pairs([a, b, c], 8, rule)]  # one step: the first come first
[(1, 2)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Band:
    """The thresholds of the rule (the server's ``GAMMON_PAIRING_BAND_*`` settings)."""

    start: float = 50.0
    """Rating points of difference a player accepts at once."""
    step: float = 50.0
    """Points added to the band every :attr:`every` seconds waited; also the width of the
    steps in which differences count as equal (first come, first served inside one)."""
    every: float = 10.0
    """Seconds of waiting per step."""
    most: float = 500.0
    """The widest band."""

    def __post_init__(self) -> None:
        for name in ("start", "step", "every", "most"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name}: a finite number of at least 0, got {value!r}")
        if self.step <= 0 or self.every <= 0:
            raise ValueError("step and every: more than 0")
        if self.most < self.start:
            raise ValueError(f"most ({self.most}) is less than start ({self.start})")


@dataclass(frozen=True, slots=True)
class Seeker:
    """A player waiting in a pool: who, their rating, and since when (seconds)."""

    id: int
    rating: float
    since: float


def band(waited: float, rule: Band) -> float:
    """The rating difference a player accepts after waiting ``waited`` seconds.

    >>> band(25, Band(start=100, step=25, every=5, most=300))
    225.0
    >>> band(-3, Band())  # a clock behind the join (another process's): no step yet
    50.0
    """
    steps = math.floor(max(waited, 0.0) / rule.every)
    return float(min(rule.start + rule.step * steps, rule.most))


def allowed(a: Seeker, b: Seeker, now: float, rule: Band) -> bool:
    """Whether ``a`` and ``b`` may be paired at ``now``: their ratings differ by at most the
    wider of their bands (the band of the one who has waited longer).

    >>> rule = Band()
    >>> allowed(Seeker(1, 1500, 0), Seeker(2, 1580, 0), 9, rule)  # 80 > 50: not yet
    False
    >>> allowed(Seeker(1, 1500, 0), Seeker(2, 1580, 9), 10, rule)  # the first waited 10 s
    True
    """
    widest = band(now - min(a.since, b.since), rule)
    return abs(a.rating - b.rating) <= widest


def pairs(seekers: Iterable[Seeker], now: float, rule: Band
          ) -> list[tuple[Seeker, Seeker]]:
    """The pairs made now among ``seekers`` (one pool), each ``(earlier, later)`` by their
    time of arrival, in the order the rule makes them; a player is in one pair at most.

    >>> rule = Band()
    >>> far, near, close = Seeker(1, 1500, 0), Seeker(2, 1545, 1), Seeker(3, 1590, 2)
    >>> [(x.id, y.id) for x, y in pairs([far, near, close], 2, rule)]  # 45 apart: one step
    [(1, 2)]
    >>> [(x.id, y.id) for x, y in pairs([Seeker(1, 1500, 0), Seeker(2, 1700, 0)], 29, rule)]
    []
    """
    waiting = sorted(seekers, key=lambda s: (s.since, s.id))
    candidates = []
    for i, a in enumerate(waiting):
        for b in waiting[i + 1:]:
            if allowed(a, b, now, rule):
                step = math.floor(abs(a.rating - b.rating) / rule.step)
                candidates.append(((step, a.since, b.since, a.id, b.id), a, b))
    candidates.sort(key=lambda candidate: candidate[0])
    taken: set[int] = set()
    made = []
    for _, a, b in candidates:
        if a.id in taken or b.id in taken:
            continue
        taken.update((a.id, b.id))
        made.append((a, b))
    return made
