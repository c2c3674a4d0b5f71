"""The engine's Python API (gammon.engine.player): evaluator invariants, ranked plays, levels,
noise and rollouts, over positions met in random games (hypothesis) and hand-built ones."""

from __future__ import annotations

import itertools
import pickle
import random
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.player import LEVELS, Engine, Probabilities, RankedPlay
from tests.core.helpers import positions, random_game_position, rolls

# The bear-off tables are float32 (exact to about 1e-7), and deeper plies average 21
# rolls, so a certain 1 can come out as 1 + 2e-16.
EPS = 1e-6
ALL_ROLLS = [Roll(a, b) for a in range(1, 7) for b in range(1, a + 1)]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def assert_consistent(p: Probabilities) -> None:
    """Win ≥ win gammon ≥ win backgammon ≥ 0, lose gammon ≥ lose backgammon ≥ 0, a gammon
    lost no likelier than the game lost, every figure a probability."""
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = p.as_tuple()
    assert all(-EPS <= x <= 1 + EPS for x in p.as_tuple()), p
    assert win + EPS >= win_gammon, p
    assert win_gammon + EPS >= win_backgammon >= -EPS, p
    assert lose_gammon + EPS >= lose_backgammon >= -EPS, p
    assert lose_gammon <= 1 - win + EPS, p


def assert_certain(p: Probabilities, expected: tuple[float, ...], tolerance: float = 1e-6) -> None:
    assert p.as_tuple() == pytest.approx(expected, abs=tolerance), p


# -- evaluation -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(positions)
def test_zero_ply_probabilities_are_consistent(engine: Engine, position: Position) -> None:
    assert_consistent(engine.evaluate(position))


@settings(max_examples=8, deadline=None)
@given(positions, st.sampled_from([1, 2]))
def test_deeper_probabilities_are_consistent(engine: Engine, position: Position,
                                             plies: int) -> None:
    assert_consistent(engine.evaluate(position, plies=plies))


@settings(max_examples=30, deadline=None)
@given(positions, rolls)
def test_every_ranked_play_has_consistent_probabilities(engine: Engine, position: Position,
                                                        roll: Roll) -> None:
    for ranked in engine.rank_plays(position, roll):
        assert_consistent(ranked.probabilities)
        assert ranked.equity == pytest.approx(ranked.probabilities.equity)


@pytest.mark.parametrize("plies", [0, 1, 2])
@pytest.mark.parametrize(("mine", "theirs"), [
    ({1: 1}, {6: 5, 5: 5, 4: 3}),  # they have borne off two: no gammon
    ({3: 1}, {6: 15}),  # all theirs at home, none off: a gammon
    ({2: 1}, {1: 1}),
])
def test_a_last_checker_that_comes_off_with_any_roll_is_a_certain_win(
        engine: Engine, mine: dict[int, int], theirs: dict[int, int], plies: int) -> None:
    """All but one checker off, the last within 3 pips of off: every roll (2-1 the
    smallest) bears it off, so the side on roll wins, whatever the opponent's board."""
    position = Position.from_points(mine, theirs)
    p = engine.evaluate(position, plies=plies)
    assert p.win == pytest.approx(1.0, abs=1e-6)
    assert p.lose_gammon == pytest.approx(0.0, abs=1e-6)
    assert p.lose_backgammon == pytest.approx(0.0, abs=1e-6)
    assert p.equity >= 1 - 1e-6


def test_at_one_ply_a_win_on_every_roll_is_exact_gammons_included(engine: Engine) -> None:
    """Their 15 checkers are still on our 6-point (in our home board, none off): every roll
    of ours ends the game, so at 1-ply each roll is scored as a finished game: a certain
    backgammon."""
    position = Position.from_points({3: 1}, {19: 15})
    assert_certain(engine.evaluate(position, plies=1), (1, 1, 1, 0, 0), tolerance=1e-12)
    assert_certain(engine.evaluate(position, plies=2), (1, 1, 1, 0, 0), tolerance=1e-12)


@pytest.mark.parametrize("roll", ALL_ROLLS, ids=str)
def test_bearing_off_the_last_checker_is_scored_as_a_finished_game(engine: Engine,
                                                                   roll: Roll) -> None:
    """RULES.md §4: the game ends when a side has borne off all 15; the loser with none off
    is gammoned, and backgammoned with a checker in the winner's home board."""
    cases = [
        (Position.from_points({3: 1}, {6: 14}), (1, 0, 0, 0, 0)),  # they have one off
        (Position.from_points({3: 1}, {12: 15}), (1, 1, 0, 0, 0)),  # none off: a gammon
        (Position.from_points({3: 1}, {19: 15}), (1, 1, 1, 0, 0)),  # in our home: backgammon
    ]
    for position, expected in cases:
        for plies in (0, 1, 2):
            (best, *_) = engine.rank_plays(position, roll, plies=plies)
            assert best.play.position.winner() == 0
            assert best.probabilities.as_tuple() == expected


@pytest.mark.parametrize(("mine", "theirs", "expected", "plies"), [
    # they have finished; we have 12 off: a single game lost
    *[({6: 3}, {}, (0, 0, 0, 0, 0), plies) for plies in (0, 1, 2)],
    # none of ours off: a gammon lost
    *[({1: 15}, {}, (0, 0, 0, 1, 0), plies) for plies in (0, 1, 2)],
    # none off and a checker still in their home board: a backgammon lost
    *[({1: 14, 20: 1}, {}, (0, 0, 0, 1, 1), plies) for plies in (0, 1, 2)],
    # we have finished
    *[({}, {6: 3}, (1, 0, 0, 0, 0), plies) for plies in (0, 1, 2)],
])
def test_a_finished_game_evaluates_as_its_certain_result(
        engine: Engine, mine: dict[int, int], theirs: dict[int, int],
        expected: tuple[float, ...], plies: int) -> None:
    position = Position.from_points(mine, theirs)
    assert position.winner() is not None
    assert_certain(engine.evaluate(position, plies=plies), expected)


# -- ranked plays and choices ---------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(positions, rolls, st.sampled_from([0, 0, 1, 2]))
def test_rank_plays_lists_exactly_the_legal_plays_best_first(
        engine: Engine, position: Position, roll: Roll, plies: int) -> None:
    ranked = engine.rank_plays(position, roll, plies=plies)
    legal = legal_plays(position, roll)
    assert sorted(r.play.position.board for r in ranked) == sorted(
        p.position.board for p in legal)
    assert len({r.play.position for r in ranked}) == len(ranked)
    # the deepest evaluations first, each depth best first
    keys = [(r.ply, r.equity) for r in ranked]
    assert keys == sorted(keys, key=lambda k: (-k[0], -k[1]))
    assert all(0 <= r.ply <= plies for r in ranked)
    if len(ranked) > 1 and plies:
        assert ranked[0].ply >= 1


@settings(max_examples=25, deadline=None)
@given(positions, rolls, st.sampled_from([0, 1]))
def test_equal_keys_keep_the_generators_order(engine: Engine, position: Position, roll: Roll,
                                              plies: int) -> None:
    # rank_plays is a stable sort of legal_plays' order on (-ply, -equity).
    ranked = engine.rank_plays(position, roll, plies=plies)
    generated = [p.position for p in legal_plays(position, roll)]
    expected = sorted(ranked, key=lambda r: generated.index(r.play.position))
    expected.sort(key=lambda r: (-r.ply, -r.equity))
    assert [r.play.position for r in ranked] == [r.play.position for r in expected]


def test_a_ranked_play_equals_hashes_and_pickles_as_one_built_from_its_values(
        engine: Engine) -> None:
    ranked = engine.rank_plays(random_game_position(5, 30), Roll(5, 2), plies=0)
    assert hash(ranked[-1]) == hash(RankedPlay(ranked[-1].play, ranked[-1].probabilities, 0))
    for entry in ranked:
        built = RankedPlay(entry.play, entry.probabilities, entry.ply)
        assert entry == built and repr(entry) == repr(built)
        assert pickle.loads(pickle.dumps(entry)) == entry
        assert entry.equity == built.equity == entry.probabilities.equity
    with pytest.raises(FrozenInstanceError):
        ranked[0].ply = 3  # type: ignore[misc]


def test_rank_plays_of_a_roll_that_cannot_be_played_is_the_one_pass(engine: Engine) -> None:
    position = Position.from_id("4HPwATDgc/ABUA")  # the published 6-6 example: no play
    (only,) = engine.rank_plays(position, Roll(6, 6), plies=2)
    assert only.play.moves == () and only.play.position == position


@settings(max_examples=12, deadline=None)
@given(positions, rolls, st.integers(0, 2**32))
def test_the_bot_only_ever_plays_legal_plays_at_every_level(
        engine: Engine, position: Position, roll: Roll, seed: int) -> None:
    legal = {p.position for p in legal_plays(position, roll)}
    for name in LEVELS:
        play = engine.choose(position, roll, name, random.Random(seed))
        assert play.position in legal, (name, play)


def test_choices_with_noise_are_reproducible_for_a_seeded_rng(engine: Engine) -> None:
    decisions = [(random_game_position(seed, 10 + seed % 40), Roll(1 + seed % 6, 1 + seed // 6 % 6))
                 for seed in range(40)]

    def plays(level: str, seed: int) -> list[str]:
        rng = random.Random(seed)
        return [str(engine.choose(p, r, level, rng)) for p, r in decisions]

    assert plays("beginner", 7) == plays("beginner", 7)
    assert plays("casual", 8) == plays("casual", 8)
    # the noise does change some choices: the weakest level is not the expert
    assert plays("beginner", 7) != plays("expert", 7)


def test_expert_plays_the_best_ranked_play(engine: Engine) -> None:
    for seed in range(10):
        position, roll = random_game_position(seed, 30), Roll(5, 2)
        best = engine.rank_plays(position, roll)[0].play
        assert engine.choose(position, roll, "expert") == best


def test_an_unknown_level_is_refused(engine: Engine) -> None:
    with pytest.raises(ValueError, match="unknown level"):
        engine.choose(Position.initial(), Roll(3, 1), "grandmaster")


def test_levels_are_five_and_ordered_weakest_first() -> None:
    levels = list(LEVELS.values())
    assert [level.name for level in levels] == [
        "beginner", "casual", "intermediate", "expert", "world-class"]
    assert all(a.noise >= b.noise and a.plies <= b.plies
               for a, b in itertools.pairwise(levels))
    assert levels[-1].noise == 0 and levels[-1].plies > levels[0].plies


@pytest.mark.parametrize("plies", [-1, 3])
def test_search_depth_is_zero_to_two(engine: Engine, plies: int) -> None:
    with pytest.raises(ValueError, match="plies"):
        engine.evaluate(Position.initial(), plies=plies)


# -- rollouts -------------------------------------------------------------------------------


def test_rollout_of_a_won_position_is_a_certain_win_with_no_error(engine: Engine) -> None:
    position = Position.from_points({3: 1}, {19: 15})
    result = engine.rollout(position, games=20, seed=3)
    assert result.count == 20 and result.games.shape == (20, 5)
    assert result.mean.as_tuple() == (1, 1, 1, 0, 0)
    assert result.standard_error.as_tuple() == (0, 0, 0, 0, 0)
    assert result.equity == 3 and result.equity_standard_error == 0


def test_rollout_is_reproducible_for_a_seed(engine: Engine) -> None:
    first = engine.rollout(Position.initial(), games=30, truncate=6, seed=5)
    again = engine.rollout(Position.initial(), games=30, truncate=6, seed=5)
    other = engine.rollout(Position.initial(), games=30, truncate=6, seed=6)
    assert np.array_equal(first.games, again.games)
    assert not np.array_equal(first.games, other.games)
    assert_consistent(first.mean)


def test_a_longer_rollout_extends_a_shorter_one_with_the_same_seed(engine: Engine) -> None:
    short = engine.rollout(Position.initial(), games=220, truncate=2, seed=4)
    long = engine.rollout(Position.initial(), games=440, truncate=2, seed=4)
    assert np.array_equal(long.games[:216], short.games[:216])


def test_rollout_standard_errors_are_the_games_spread_over_root_n(engine: Engine) -> None:
    result = engine.rollout(Position.initial(), games=50, truncate=4, seed=2)
    equities = result.games @ np.array([2.0, 1, 1, -1, -1]) - 1
    assert result.equity == pytest.approx(equities.mean())
    assert result.equity_standard_error == pytest.approx(equities.std(ddof=1) / np.sqrt(50))
    assert result.standard_error.win == pytest.approx(
        result.games[:, 0].std(ddof=1) / np.sqrt(50))


@pytest.mark.parametrize(("games", "truncate", "seed", "reason"), [
    (1, 0, 1, "at least 2 games"), (10, -1, 1, "truncate"), (10, 0, -1, "seed")])
def test_rollout_refuses_bad_settings(engine: Engine, games: int, truncate: int, seed: int,
                                      reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        engine.rollout(Position.initial(), games=games, truncate=truncate, seed=seed)


def test_rollout_refuses_a_finished_game(engine: Engine) -> None:
    with pytest.raises(ValueError, match="game is over"):
        engine.rollout(Position.from_points({}, {19: 15}), games=10)
