"""The tournament rules (server/tournaments/pairing.py), checked against independent
computations: the bracket's published properties (neighbours' seeds add to the size plus
one; the top 2, 4, 8 seeds in different halves, quarters, eighths; byes to the top seeds),
Swiss rounds played out with random results (each player once a round, no rematch while a
rematch-free pairing exists — found here by a search of our own —, one bye each at most,
score groups kept), the tie-breaks from a results table, and the arena's points and pairs."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.server.tournaments.pairing import (
    BYE,
    Entrant,
    Played,
    arena_pairs,
    arena_points,
    bracket_order,
    knockout_first_round,
    knockout_next_round,
    swiss_round,
    swiss_standings,
)


def field(n: int, seed: int = 1) -> list[Entrant]:
    rng = random.Random(seed)
    return [Entrant(i, round(rng.uniform(1200, 1900), 1)) for i in range(1, n + 1)]


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_the_bracket_order_keeps_the_top_seeds_apart(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    assert all(a + b == size + 1 for a, b in zip(order[::2], order[1::2], strict=True))
    k = 2
    while k <= size:  # the top k seeds in k different blocks of size / k
        blocks = {order.index(seed) // (size // k) for seed in range(1, k + 1)}
        assert len(blocks) == k
        k *= 2
    with pytest.raises(ValueError):
        bracket_order(6)


@given(st.integers(min_value=2, max_value=40))
def test_a_knockout_seeds_every_player_once_and_gives_the_byes_to_the_top(n: int) -> None:
    entrants = field(n, seed=n)
    pairs = knockout_first_round(entrants)
    size = len(pairs) * 2
    assert size >= n > size // 2 or n == size
    seen = [p for pair in pairs for p in pair if p is not BYE]
    assert sorted(seen) == sorted(e.id for e in entrants)
    by_rating = [e.id for e in sorted(entrants, key=lambda e: -e.rating)]
    byes = {first for first, second in pairs if second is BYE}
    assert byes == set(by_rating[:size - n])
    # the winners of the first round, then of each next round, down to one
    winners = [first for first, _ in pairs]
    while len(winners) > 1:
        winners = [a for a, _ in knockout_next_round(winners)]
    assert winners == [by_rating[0]]


def rematch_free_exists(players: list[int], met: set[frozenset[int]]) -> bool:
    """An independent search: whether ``players`` (even) can be paired without a rematch."""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(frozenset((first, other)) not in met
               and rematch_free_exists([p for p in rest if p != other], met)
               for other in rest)


def play_swiss(n: int, rounds: int, seed: int) -> tuple[list[Entrant], list[Played]]:
    entrants = field(n, seed)
    rng = random.Random(seed)
    history: list[Played] = []
    for _ in range(rounds):
        met = {frozenset((p.first, p.second)) for p in history if p.second is not None}
        pairs = swiss_round(entrants, history)
        ids = [p for pair in pairs for p in pair if p is not BYE]
        assert sorted(ids) == sorted(e.id for e in entrants)  # each player once
        byes = [first for first, second in pairs if second is BYE]
        assert len(byes) == n % 2
        real = [(a, b) for a, b in pairs if b is not BYE]
        players = [p for pair in real for p in pair]
        if rematch_free_exists(sorted(players), met):
            assert all(frozenset(pair) not in met for pair in real), pairs
        for a, b in pairs:
            winner = a if b is BYE or rng.random() < 0.5 else b
            history.append(Played(a, b, winner))
    return entrants, history


@pytest.mark.parametrize(("n", "rounds", "seed"), [(16, 5, 1), (16, 5, 2), (15, 5, 3),
                                                    (9, 4, 4), (32, 6, 5), (7, 6, 6)])
def test_swiss_rounds_pair_everyone_once_without_rematches_or_second_byes(
        n: int, rounds: int, seed: int) -> None:
    _, history = play_swiss(n, rounds, seed)
    byes = [p.first for p in history if p.second is None]
    assert len(byes) == len(set(byes))  # one bye a player at most


def test_swiss_pairs_within_score_groups_top_half_against_bottom_half() -> None:
    entrants = field(8)
    ranked = [e.id for e in sorted(entrants, key=lambda e: -e.rating)]
    first = swiss_round(entrants, [])
    assert first == [(ranked[i], ranked[i + 4]) for i in range(4)]  # 1-5, 2-6, 3-7, 4-8
    history = [Played(a, b, a) for a, b in first]  # the higher-rated win
    second = swiss_round(entrants, history)
    winners = [a for a, _ in first]
    losers = [b for _, b in first]
    assert {frozenset(p) for p in second} == {
        frozenset((winners[0], winners[2])), frozenset((winners[1], winners[3])),
        frozenset((losers[0], losers[2])), frozenset((losers[1], losers[3]))}


def test_the_swiss_tie_breaks_are_buchholz_then_sonneborn_berger() -> None:
    entrants, history = play_swiss(16, 5, 7)
    points = {e.id: 0 for e in entrants}
    for p in history:
        points[p.winner] += 1
    opponents: dict[int, list[int]] = {e.id: [] for e in entrants}
    beaten: dict[int, list[int]] = {e.id: [] for e in entrants}
    for p in history:
        if p.second is not None:
            opponents[p.first].append(p.second)
            opponents[p.second].append(p.first)
            loser = p.second if p.winner == p.first else p.first
            beaten[p.winner].append(loser)
    table = swiss_standings(entrants, history)
    for s in table:
        assert s.points == points[s.id]
        assert s.buchholz == sum(points[o] for o in opponents[s.id])
        assert s.sonneborn_berger == sum(points[o] for o in beaten[s.id])
    keys = [(s.points, s.buchholz, s.sonneborn_berger, s.rating) for s in table]
    assert keys == sorted(keys, reverse=True)


def test_arena_points_double_after_two_wins_in_a_row() -> None:
    won, lost = True, False
    assert arena_points([]) == 0
    assert arena_points([won, won, won, won]) == 2 + 2 + 4 + 4
    assert arena_points([won, won, won, lost, won]) == 2 + 2 + 4 + 0 + 2
    assert arena_points([lost, won, lost, won, won, won]) == 2 + 2 + 2 + 4


def test_arena_pairs_neighbours_by_rating_and_avoids_the_last_opponent() -> None:
    waiting = [Entrant(1, 1800), Entrant(2, 1790), Entrant(3, 1500), Entrant(4, 1490),
               Entrant(5, 1000)]
    assert arena_pairs(waiting, {}) == [(1, 2), (3, 4)]  # 5 waits on
    assert arena_pairs(waiting, {1: 2, 2: 1}) == [(1, 3), (2, 4)]
    assert arena_pairs(waiting[:2], {1: 2}) == [(1, 2)]  # nobody else: a rematch it is
    for a, b in combinations(range(1, 6), 2):
        pairs = arena_pairs(waiting, {a: b, b: a})
        assert len(pairs) == 2 and len({p for pair in pairs for p in pair}) == 4


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=20), st.integers(min_value=1, max_value=99))
def test_swiss_from_any_field_size(n: int, seed: int) -> None:
    play_swiss(n, min(4, n - 1), seed)
