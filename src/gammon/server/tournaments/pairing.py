"""Tournament pairing and standings, pure (no storage, no clock): the rules a tournament's
scheduler applies each round, published on the tournament page as written here.

* **Knockout** (single elimination, :func:`knockout_first_round`, :func:`knockout_next_round`):
  the field seeded by rating (ties by entry), padded to the next power of two with byes that
  go to the top seeds; the standard bracket order, in which seeds 1 and 2 can meet only in
  the final, 1 to 4 only in the semi-finals, and so on.
* **Swiss** (:func:`swiss_round`, :func:`swiss_standings`): a match won is 1 point, a bye 1
  point. Each round pairs players within score groups (from the top, rating deciding the
  order inside a group), the upper half of a group against its lower half, dropping a player
  to the next group when the group is odd or a pairing inside it would be a rematch; no
  rematch while a pairing without one exists; with an odd field, the bye to the lowest-ranked
  player who has not had one (one bye per player at most). Standings: points, then Buchholz
  (the sum of the opponents' points), then Sonneborn-Berger (the sum of the points of the
  opponents beaten), then rating.
* **Arena** (:func:`arena_points`, :func:`arena_pairs`): a fixed time, the finished players
  paired again at once. A win is 2 points and a loss 0; after two wins in a row each further
  win is 4 ("on fire", as lichess's arena) until a loss. Waiting players are paired by the
  closest ratings, a player's last opponent avoided when another is waiting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BYE = None
"""A bye: the other side of a pair, for a player without an opponent this round."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A registered player: their id and their rating when the tournament started."""

    id: int
    rating: float


@dataclass(frozen=True, slots=True)
class Played:
    """A finished pairing: ``first`` against ``second`` (None: a bye), won by ``winner``
    (the bye's player for a bye)."""

    first: int
    second: int | None
    winner: int


Pair = tuple[int, int | None]


def seeded(entrants: Iterable[Entrant]) -> list[Entrant]:
    """The entrants by rating, highest first; equal ratings in the order they entered."""
    return sorted(entrants, key=lambda e: -e.rating)


# -- knockout -------------------------------------------------------------------------------


def bracket_order(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for a power-of-two ``size``: pairs of neighbours
    meet in the first round, and the two halves hold seeds 1 and 2.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket holds a power of two players, not {size}")
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [seed for s in order for seed in (s, n + 1 - s)]
    return order


def knockout_first_round(entrants: Sequence[Entrant]) -> list[Pair]:
    """The first round's pairs in bracket order; a seed with no opponent has a bye."""
    if len(entrants) < 2:
        raise ValueError("a knockout needs two players at least")
    ranked = seeded(entrants)
    size = 1
    while size < len(ranked):
        size *= 2
    order = bracket_order(size)
    pairs: list[Pair] = []
    for a, b in zip(order[::2], order[1::2], strict=True):
        first, second = sorted((a, b))
        pairs.append((ranked[first - 1].id,
                      ranked[second - 1].id if second <= len(ranked) else BYE))
    return pairs


def knockout_next_round(winners: Sequence[int]) -> list[Pair]:
    """The next round's pairs from the last round's winners in bracket order (the winner of
    the first pair meets the winner of the second, and so on)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError(f"a round after the first has an even number of winners, not "
                         f"{len(winners)}")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


# -- Swiss ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    id: int
    points: int
    buchholz: int
    sonneborn_berger: int
    rating: float


def _points(history: Sequence[Played]) -> dict[int, int]:
    points: dict[int, int] = {}
    for p in history:
        points[p.winner] = points.get(p.winner, 0) + 1
    return points


def swiss_standings(entrants: Sequence[Entrant], history: Sequence[Played]) -> list[Standing]:
    """The standings after the rounds of ``history``, best first (the module's order)."""
    points = _points(history)
    buchholz = dict.fromkeys((e.id for e in entrants), 0)
    berger = dict.fromkeys((e.id for e in entrants), 0)
    for p in history:
        if p.second is None:
            continue  # a bye: no opponent to count
        for me, them in ((p.first, p.second), (p.second, p.first)):
            buchholz[me] += points.get(them, 0)
            if p.winner == me:
                berger[me] += points.get(them, 0)
    table = [Standing(e.id, points.get(e.id, 0), buchholz[e.id], berger[e.id], e.rating)
             for e in entrants]
    return sorted(table, key=lambda s: (-s.points, -s.buchholz, -s.sonneborn_berger,
                                        -s.rating))


def _met(history: Sequence[Played]) -> set[frozenset[int]]:
    return {frozenset((p.first, p.second)) for p in history if p.second is not None}


def swiss_round(entrants: Sequence[Entrant], history: Sequence[Played]) -> list[Pair]:
    """The next round's pairs (the higher-ranked player first; a bye last)."""
    points = _points(history)
    had_bye = {p.first for p in history if p.second is None}
    met = _met(history)
    order = sorted(seeded(entrants), key=lambda e: -points.get(e.id, 0))  # stable: rating
    players = [e.id for e in order]
    bye: int | None = None
    if len(players) % 2:
        candidates = [p for p in reversed(players) if p not in had_bye]
        if not candidates:
            raise ValueError("every player has had a bye: no pairing gives one more")
        # the lowest-ranked without a bye, unless the rest then cannot avoid a rematch
        for choice in candidates:
            rest = [p for p in players if p != choice]
            if _pair_groups(rest, points, met) is not None:
                bye = choice
                break
        else:
            bye = candidates[0]
        players = [p for p in players if p != bye]
    pairs = _pair_groups(players, points, met)
    if pairs is None:  # every pairing repeats a match: the fewest rematches, in order
        pairs = _pair_groups(players, points, set())
        assert pairs is not None
    return [*pairs, *([(bye, BYE)] if bye is not None else [])]


def _pair_groups(players: list[int], points: dict[int, int], met: set[frozenset[int]],
                 size: int | None = None) -> list[Pair] | None:
    """Pairs for ``players`` (in ranking order, an even number) with no rematch, score group
    by score group: the top group (its first ``size`` players; by default those of the top
    score) paired upper half against lower half, its lowest players floating down to the
    next group when it is odd or cannot be paired in itself, merged with the next group when
    none of it can; None when no pairing without a rematch exists."""
    if not players:
        return []
    if size is None:
        size = sum(1 for p in players if points.get(p, 0) == points.get(players[0], 0))
    group, rest = players[:size], players[size:]
    for floaters in range(len(group) % 2, len(group) - 1, 2):  # a pair at least stays
        stay, down = group[:len(group) - floaters], group[len(group) - floaters:]
        for inside in _halves(stay, met):
            after = _pair_groups(down + rest, points, met)
            if after is not None:
                return inside + after
    if rest:  # not pairable in itself: one group with the next score group
        nxt = sum(1 for p in rest if points.get(p, 0) == points.get(rest[0], 0))
        return _pair_groups(players, points, met, size + nxt)
    return None


def _halves(group: list[int], met: set[frozenset[int]]) -> Iterable[list[Pair]]:
    """The pairings of ``group`` (even, in ranking order) without a rematch, the Dutch
    system's first: the i-th of the upper half against the i-th of the lower half, then the
    others by the fewest exchanges (a search over the lower half's orders)."""
    if not group:
        yield []
        return
    half = len(group) // 2
    upper, lower = group[:half], group[half:]

    def match(i: int, free: list[int]) -> Iterable[list[Pair]]:
        if i == len(upper):
            yield []
            return
        for j, other in enumerate(free):
            if frozenset((upper[i], other)) not in met:
                for tail in match(i + 1, free[:j] + free[j + 1:]):
                    yield [(upper[i], other), *tail]

    found = False
    for pairs in match(0, lower):
        found = True
        yield pairs
    if not found:  # no upper-lower pairing: any pairing of the group without a rematch
        yield from _any(group, met)


def _any(group: list[int], met: set[frozenset[int]]) -> Iterable[list[Pair]]:
    if not group:
        yield []
        return
    first, others = group[0], group[1:]
    for j, other in enumerate(others):
        if frozenset((first, other)) not in met:
            for tail in _any(others[:j] + others[j + 1:], met):
                yield [(first, other), *tail]


# -- arena ----------------------------------------------------------------------------------

WIN, WIN_ON_FIRE = 2, 4


def arena_points(results: Sequence[bool]) -> int:
    """A player's arena score from their results in order (True: won)."""
    score, streak = 0, 0
    for won in results:
        if won:
            score += WIN_ON_FIRE if streak >= 2 else WIN
            streak += 1
        else:
            streak = 0
    return score


def arena_pairs(waiting: Sequence[Entrant], last_opponent: dict[int, int]) -> list[Pair]:
    """Pairs of the waiting players by the closest ratings (neighbours in rating order), a
    player's last opponent avoided when another is waiting; an odd one out waits on."""
    ranked = seeded(waiting)
    pairs: list[Pair] = []
    while len(ranked) >= 2:
        first = ranked.pop(0)
        choice = next((i for i, e in enumerate(ranked)
                       if last_opponent.get(first.id) != e.id), 0)
        pairs.append((first.id, ranked.pop(choice).id))
    return pairs
