"""Matches and money sessions: RULES.md §4 (a match is won by the first to reach its length,
a money session has no length), §5 (no cube in a 1-point match or the Crawford game, back
after it) and §6 (abandon and running out of time forfeit the whole match), plus a property
test that plays random matches through ``apply``."""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.actions import (
    Abandon,
    AcceptResign,
    Action,
    Beaver,
    ConfirmPlay,
    Drop,
    MoveChecker,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    RollDice,
    Take,
    Timeout,
    UndoStep,
)
from gammon.core.cube import Cube, Level
from gammon.core.dice import Roll
from gammon.core.errors import (
    CubeNotAvailableError,
    GameOverError,
    IllegalActionError,
    MatchOverError,
)
from gammon.core.events import (
    CheckerMoved,
    CubeOffered,
    EndKind,
    GameEnded,
    GameStarted,
    MatchEnded,
    MatchEndReason,
    StepUndone,
)
from gammon.core.game import Game, Phase, Rules
from gammon.core.match import Match
from gammon.core.position import Position
from tests.core.helpers import opening, refused, run


def win(match: Match, winner: int, level: Level = Level.SINGLE) -> tuple[Match, list[object]]:
    """Play the next game: the loser wins the opening and resigns at ``level`` at once."""
    loser = 1 - winner
    actions: list[Action] = [opening(loser), OfferResign(loser, level)]
    if level is not Level.BACKGAMMON:
        actions.append(AcceptResign(winner))
    return run(match, *actions)


def win_doubled(match: Match, winner: int) -> tuple[Match, list[object]]:
    """Play the next game: the winner moves first, the loser doubles, the winner takes, and
    the loser resigns a single game at 2."""
    loser = 1 - winner
    return run(match, opening(winner), PlayMove(winner, "8/5 6/5"), OfferDouble(loser),
               Take(winner), OfferResign(loser, Level.SINGLE), AcceptResign(winner))


# -- §4 winning a match -------------------------------------------------------------------


def test_a_match_starts_with_the_opening_roll_of_its_first_game() -> None:
    match = Match.new(Rules(length=5))
    assert match.phase is Phase.OPENING and match.score == (0, 0) and match.number == 1
    refused(match, RollDice(0, Roll(3, 1)))
    match, events = match.apply(opening(1))
    assert events[0] == GameStarted(1, crawford=False)
    assert match.phase is Phase.MOVING and match.game.turn == 1


def test_each_games_points_are_added_to_the_score() -> None:
    match, events = win(Match.new(Rules(length=7)), 1, Level.GAMMON)
    assert match.score == (0, 2) and match.phase is Phase.GAME_OVER
    assert events[-1] == GameEnded(1, 2, EndKind.RESIGN, Level.GAMMON, 1)
    match, _ = win_doubled(match, 0)
    assert match.score == (2, 2) and len(match.results) == 2


def test_the_next_game_starts_with_its_opening_roll() -> None:
    match, _ = win(Match.new(Rules(length=3)), 0)
    message = refused(match, RollDice(1, Roll(3, 1)), GameOverError)
    assert message == "the game is over: player 0 won 1 point"
    match, events = match.apply(opening(0, 6, 5))
    assert events[0] == GameStarted(2, crawford=False) and match.number == 2
    assert match.game.cube == Cube() and match.game.turn == 0


def test_a_match_is_won_by_the_first_to_reach_its_length() -> None:
    match, _ = win(Match.new(Rules(length=3)), 0)
    match, _ = win(match, 0)
    assert match.result is None
    match, events = win(match, 0, Level.GAMMON)
    assert events[-1] == MatchEnded(0, MatchEndReason.POINTS, (4, 0))
    assert match.phase is Phase.MATCH_OVER and match.is_over and match.winner == 0
    message = refused(match, opening(0), MatchOverError)
    assert message == "the match is over: player 0 won (points)"
    assert match.legal_actions() == ()


def test_a_single_game_is_a_match_to_one_point_without_cube() -> None:
    match = Match.new(Rules(length=1))
    match, _ = match.apply(opening(0))
    assert not match.game.cube_enabled
    match, events = run(match, OfferResign(0, Level.BACKGAMMON))
    assert events[-1] == MatchEnded(1, MatchEndReason.POINTS, (0, 3))


def test_a_money_session_has_no_length() -> None:
    match = Match.new(Rules())
    assert match.is_money and match.rules.length == 0
    for _ in range(3):
        match, _ = win_doubled(match, 0)
        match, _ = win(match, 1, Level.BACKGAMMON)
    assert match.score == (6, 9) and match.result is None and match.number == 6
    assert match.phase is Phase.GAME_OVER


def test_match_new_checks_the_score() -> None:
    with pytest.raises(ValueError, match="already won"):
        Match.new(Rules(length=3), score=(3, 0))
    with pytest.raises(ValueError, match="non-negative"):
        Match.new(Rules(length=3), score=(-1, 0))


# -- §5 the cube in a match: 1-point matches, the Crawford game ---------------------------


def test_no_cube_in_a_1_point_match() -> None:
    match, _ = run(Match.new(Rules(length=1)), opening(0), PlayMove(0, "8/5 6/5"))
    message = refused(match, OfferDouble(1), CubeNotAvailableError)
    assert message == "player 1 cannot double: a 1-point match has no cube"


def test_crawford_game_is_the_one_right_after_a_side_first_reaches_match_point_minus_one() -> None:
    match, _ = win(Match.new(Rules(length=5), score=(3, 3)), 0)
    assert match.score == (4, 3) and not match.is_crawford  # the game just ended was not
    match, events = match.apply(opening(1))
    assert events[0] == GameStarted(2, crawford=True)
    assert match.is_crawford and not match.is_post_crawford


def test_no_cube_in_the_crawford_game() -> None:
    match, _ = win(Match.new(Rules(length=3)), 0, Level.GAMMON)
    match, _ = run(match, opening(0), PlayMove(0, "8/5 6/5"))
    assert not match.game.can_double(1)
    message = refused(match, OfferDouble(1), CubeNotAvailableError)
    assert message == "player 1 cannot double: the Crawford game has no cube"


def test_cube_is_back_after_the_crawford_game() -> None:
    match, _ = win(Match.new(Rules(length=3)), 0, Level.GAMMON)  # 2-0: next is Crawford
    match, _ = win(match, 1)  # the Crawford game: 2-1
    match, events = run(match, opening(0), PlayMove(0, "8/5 6/5"))
    assert events[0] == GameStarted(3, crawford=False)
    assert match.is_post_crawford and match.game.can_double(1)
    match, offered = match.apply(OfferDouble(1))
    assert offered == (CubeOffered(1, 2),)


def test_there_is_only_one_crawford_game() -> None:
    match, _ = win(Match.new(Rules(length=3)), 0, Level.GAMMON)  # 2-0
    match, _ = win(match, 1)  # Crawford: 2-1
    match, _ = win(match, 1)  # post-Crawford: 2-2, the trailer reaches 2 as well
    match, events = match.apply(opening(0))
    assert events[0] == GameStarted(4, crawford=False) and match.game.cube_enabled


def test_a_crawford_game_needs_a_match_longer_than_one_point_and_the_rule_on() -> None:
    _, events = Match.new(Rules(length=2)).apply(opening(0))
    assert events[0] == GameStarted(1, crawford=False)
    no_rule, _ = win(Match.new(Rules(length=3, crawford=False)), 0, Level.GAMMON)
    no_rule, events = no_rule.apply(opening(0))
    assert events[0] == GameStarted(2, crawford=False)
    at_start = Match.new(Rules(length=3), score=(2, 0))
    assert at_start.is_crawford


# -- §6 abandoning ------------------------------------------------------------------------


def test_abandon_forfeits_the_whole_match() -> None:
    match, _ = run(Match.new(Rules(length=5)), opening(0), PlayMove(0, "8/5 6/5"))
    match, events = match.apply(Abandon(0))
    assert events == (
        GameEnded(1, 1, EndKind.ABANDON, Level.SINGLE, 1),
        MatchEnded(1, MatchEndReason.ABANDON, (0, 1)),
    )
    assert match.is_over and match.winner == 1 and match.phase is Phase.MATCH_OVER
    refused(match, RollDice(1, Roll(3, 1)), MatchOverError)


def test_running_out_of_time_forfeits_the_whole_match() -> None:
    match, _ = win(Match.new(Rules(length=3)), 1, Level.GAMMON)  # 0-2: player 1 far ahead
    match, _ = match.apply(opening(0))
    match, events = match.apply(Timeout(1))
    assert events[-1] == MatchEnded(0, MatchEndReason.TIMEOUT, (1, 2))
    assert match.winner == 0


def test_the_opponent_may_abandon_too_and_between_games() -> None:
    match, _ = win(Match.new(Rules(length=5)), 0)
    match, events = match.apply(Abandon(1))  # no game in progress: only the match is lost
    assert events == (MatchEnded(0, MatchEndReason.ABANDON, (1, 0)),)


def test_abandoning_a_money_session_ends_it() -> None:
    match, _ = win_doubled(Match.new(Rules()), 0)
    match, _ = run(match, opening(1), PlayMove(1, "8/5 6/5"))
    match, events = match.apply(Timeout(0))
    assert events[-1] == MatchEnded(1, MatchEndReason.TIMEOUT, (2, 1))


def test_a_resignation_ends_the_game_not_the_match() -> None:
    match, events = win(Match.new(Rules(length=5)), 0, Level.GAMMON)
    assert match.result is None and not any(isinstance(e, MatchEnded) for e in events)


# -- property test: random matches --------------------------------------------------------


def _random_action(match: Match, rng: random.Random) -> Action:
    """A random legal action, weighted so that games end in reasonable time."""
    game = match.game
    phase = match.phase
    if phase in (Phase.OPENING, Phase.GAME_OVER):
        return match.opening_action(rng)
    if rng.random() < 0.002:
        return (Abandon if rng.random() < 0.5 else Timeout)(rng.randrange(2))
    legal = match.legal_actions()
    resigns = [a for a in legal if isinstance(a, OfferResign)]
    if resigns and rng.random() < 0.003:
        return rng.choice(resigns)
    if phase is Phase.BEFORE_ROLL:
        if OfferDouble(game.turn) in legal and rng.random() < 0.05:
            return OfferDouble(game.turn)
        return game.roll_action(rng)
    if phase is Phase.MOVING:
        if not game.steps and rng.random() < 0.4:
            play = rng.choice(game.plays)
            return PlayMove(game.turn, play if rng.random() < 0.5 else play.notation())
        if ConfirmPlay(game.turn) in legal and rng.random() < 0.8:
            return ConfirmPlay(game.turn)
        if UndoStep(game.turn) in legal and rng.random() < 0.1:
            return UndoStep(game.turn)
        steps = [a for a in legal if isinstance(a, MoveChecker)]
        return rng.choice(steps or list(legal))
    if phase is Phase.CUBE_OFFERED:
        weights: dict[type, int] = {Take: 8, Drop: 2, Beaver: 1}
        return rng.choices(legal, [weights[type(a)] for a in legal])[0]
    return rng.choice(legal)  # a resign offer: accept or refuse


def _probe(match: Match, rng: random.Random) -> None:
    """Try a random, probably illegal action: refused, it must change nothing."""
    player = rng.randrange(2)
    candidates: list[Action] = [
        RollDice(player, Roll(rng.randint(1, 6), rng.randint(1, 6))),
        MoveChecker(player, rng.randint(1, 25), rng.randint(1, 6)),
        OfferDouble(player), Take(player), Drop(player), Beaver(player), UndoStep(player),
        ConfirmPlay(player), AcceptResign(player), RejectResign(player),
        OfferResign(player, rng.choice(list(Level))),
    ]
    action = rng.choice(candidates)
    before = copy.deepcopy(match)
    try:
        match.apply(action)
    except IllegalActionError:
        assert match == before


def _check_step(before: Match, after: Match, action: Action, events: tuple[object, ...]) -> None:
    """A single checker step moves the mover's pips by the die (less when bearing off)."""
    for event in events:
        if isinstance(event, CheckerMoved) and isinstance(action, MoveChecker):
            mover = event.player
            drop = before.game.board(mover).pips()[0] - after.game.board(mover).pips()[0]
            if event.move.destination:
                assert drop == event.die
            else:
                assert 1 <= drop <= event.die


def _check_result(before: Match, event: GameEnded) -> None:
    """A finished game's points are the kind × cube (the pre-double value on a drop)."""
    game = before.game
    assert event.cube == game.cube.value
    if event.kind in (EndKind.DROP, EndKind.ABANDON, EndKind.TIMEOUT):
        assert event.level is Level.SINGLE and event.points == game.cube.value
        return
    jacoby = before.rules.jacoby and game.cube.is_centred
    assert event.points == (1 if jacoby else int(event.level)) * event.cube
    if event.kind is not EndKind.RESIGN:
        assert event.kind.value == str(event.level)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    length=st.sampled_from([0, 1, 2, 3, 5]),
    confirm=st.tuples(st.booleans(), st.booleans()),
    anew=st.booleans(),
    money_options=st.booleans(),
)
def test_random_matches_keep_the_invariants(
    seed: int, length: int, confirm: tuple[bool, bool], anew: bool, money_options: bool
) -> None:
    rng = random.Random(seed)
    extras = length == 0 and money_options
    rules = Rules(length=length, confirm_turn=confirm, winner_rolls_anew=anew,
                  jacoby=extras, beavers=extras)
    match = Match.new(rules)
    off = [0, 0]  # checkers borne off in this game, counted from the events
    for _ in range(1500):
        if match.is_over or (length == 0 and match.number > 4):
            break
        if rng.random() < 0.03:
            _probe(match, rng)
        action = _random_action(match, rng)
        after, events = match.apply(action)
        if any(isinstance(e, GameStarted) for e in events):
            off = [0, 0]
        for event in events:
            if isinstance(event, CheckerMoved | StepUndone) and event.move.destination == 0:
                off[event.player] += 1 if isinstance(event, CheckerMoved) else -1
            if isinstance(event, GameEnded):
                _check_result(match, event)
        _check_step(match, after, action, events)
        # 15 checkers a side: on the board plus borne off, and the borne-off ones as played
        for player in (0, 1):
            board = after.game.board(player)
            assert sum(c for c in board.board if c > 0) + board.borne_off()[0] == 15
            assert board.borne_off()[0] == off[player]
        # scores only increase; a match ends exactly when a player reaches the length
        assert all(new >= old for new, old in zip(after.score, match.score, strict=True))
        if after.result is None:
            assert length == 0 or max(after.score) < length
        elif after.result.reason is MatchEndReason.POINTS:
            assert length and after.score[after.result.winner] >= length > max(match.score)
        else:
            assert isinstance(action, Abandon | Timeout)
            assert after.result.winner == 1 - action.player
        match = after


def _late_position(rng: random.Random) -> Position:
    """A random position late in a game: most checkers home, a few back or on the bar;
    often one side is nearly done, to reach gammons and backgammons."""
    leader = rng.randrange(3)  # 2: neither side leads
    while True:
        board = [0] * 26
        clash = False
        for side, sign in ((0, 1), (1, -1)):
            count = rng.randint(1, 4) if side == leader else 15 - rng.choice([0, 0, 1, 3])
            for _ in range(count):
                draw = 1.0 if side == leader else rng.random()
                point = (
                    25 if draw < 0.03  # the bar
                    else rng.randint(19, 24) if draw < 0.1  # back in the opponent's home
                    else rng.randint(7, 12) if draw < 0.2
                    else rng.randint(1, 6)
                )
                index = point if side == 0 else 25 - point
                clash = clash or board[index] * sign < 0
                board[index] += sign
        if not clash:
            return Position.from_board(board)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), jacoby=st.booleans())
def test_random_endgames_are_scored_single_gammon_or_backgammon_times_the_cube(
    seed: int, jacoby: bool
) -> None:
    rng = random.Random(seed)
    rules = Rules(jacoby=jacoby)
    game = Game.from_position(_late_position(rng), rng.randrange(2), rules=rules,
                              cube=rng.choice([Cube(), Cube(2, 0), Cube(4, 1)]))
    match = dataclasses.replace(Match.new(rules), game=game)
    for _ in range(2000):
        if match.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            break
        before = match
        match, events = match.apply(_random_action(match, rng))
        for event in events:
            if isinstance(event, GameEnded):
                _check_result(before, event)
                if event.kind in (EndKind.SINGLE, EndKind.GAMMON, EndKind.BACKGAMMON):
                    board = match.game.board(event.winner)  # seen from the winner
                    assert board.borne_off()[0] == 15
                    loser_off = board.borne_off()[1]
                    in_home_or_bar = any(board.board[i] < 0 for i in range(7))
                    expected = (
                        Level.SINGLE if loser_off
                        else Level.BACKGAMMON if in_home_or_bar
                        else Level.GAMMON
                    )
                    assert event.level is expected
                assert match.score[event.winner] == event.points
    assert match.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
