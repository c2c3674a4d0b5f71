"""Invariants of positions, legal plays and the game's rules facts over positions and games
met in random play (hypothesis)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.actions import PlayMove, RollDice
from gammon.core.cube import Cube, game_points, win_level
from gammon.core.dice import Roll
from gammon.core.game import Phase, Rules, player_to_act
from gammon.core.match import Match
from gammon.core.moves import legal_plays, play_steps
from gammon.core.notation import parse_play
from gammon.core.position import BAR, CHECKERS, Position
from tests.core.helpers import positions, rolls


def on_board(position: Position) -> tuple[int, int]:
    mine = sum(c for c in position.board if c > 0)
    theirs = -sum(c for c in position.board if c < 0)
    return mine, theirs


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_fifteen_checkers_a_side_always(position: Position, roll: Roll) -> None:
    for play in legal_plays(position, roll):
        (mine, theirs), (off_mine, off_theirs) = on_board(play.position), play.position.borne_off()
        assert mine + off_mine == CHECKERS
        assert theirs + off_theirs == CHECKERS


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_the_pips_moved_equal_the_dice_played(position: Position, roll: Roll) -> None:
    """Each move travels its die exactly, except bearing off a checker from below the die;
    the mover's pip count falls by exactly the distance travelled."""
    dice = list(roll.moves())
    for play in legal_plays(position, roll):
        left = list(dice)
        travelled = 0
        for move in play.moves:
            distance = move.source - move.destination
            assert distance in left or (move.destination == 0 and distance < max(left))
            left.remove(distance if distance in left else max(left))
            travelled += distance
        assert position.pips()[0] - play.position.pips()[0] == travelled
        # a hit sends the blot to the bar: the opponent's pips grow by what it had travelled
        hits = [m for m in play.moves if m.hit]
        assert play.position.on_bar()[1] == position.on_bar()[1] + len(hits)


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_every_play_uses_the_same_number_of_dice(position: Position, roll: Roll) -> None:
    found = legal_plays(position, roll)
    assert len({len(p.moves) for p in found}) == 1
    assert len({p.position for p in found}) == len(found)


@settings(max_examples=300, deadline=None)
@given(positions)
def test_position_id_round_trips(position: Position) -> None:
    assert Position.from_id(position.id()) == position
    assert Position.from_id(position.swap().id()) == position.swap()
    assert position.swap().swap() == position
    assert eval(repr(position)) == position


@settings(max_examples=150, deadline=None)
@given(positions, rolls)
def test_notation_round_trips(position: Position, roll: Roll) -> None:
    for play in legal_plays(position, roll):
        assert parse_play(position, roll, play.notation()).position == play.position


@settings(max_examples=100, deadline=None)
@given(positions)
def test_swap_mirrors_the_board(position: Position) -> None:
    swapped = position.swap()
    assert swapped.pips() == position.pips()[::-1]
    assert swapped.borne_off() == position.borne_off()[::-1]
    assert swapped.on_bar() == position.on_bar()[::-1]
    for point in range(1, BAR):
        assert swapped.checkers(point) == position.opponent_checkers(BAR - point)


@settings(max_examples=200, deadline=None)
@given(positions, rolls)
def test_each_step_of_a_play_has_its_die(position: Position, roll: Roll) -> None:
    """Played one checker at a time, every legal play reaches its position using each die
    of the roll at most once; a step travels its die, or bears off with a higher one."""
    for play in legal_plays(position, roll):
        walked = play_steps(position, [(m.source, m.destination) for m in play.moves],
                            roll.moves())
        assert walked is not None
        assert tuple(move for move, _, _ in walked) == play.moves
        assert (walked[-1][2] if walked else position) == play.position
        left = list(roll.moves())
        for move, die, _ in walked:
            left.remove(die)
            assert die == move.source - move.destination or (
                move.destination == 0 and die > move.source)


def random_match(seed: int, actions: int) -> list[Match]:
    """The states of a money session with the cube and Jacoby rule, played by random legal
    actions (whole plays, rolls, doubles, answers, resignations) from a seeded source."""
    rng = random.Random(seed)
    match = Match.new(Rules(jacoby=bool(seed % 2), beavers=True))
    seen = [match]
    for _ in range(actions):
        if match.is_over:
            break
        game = match.game
        if match.phase in (Phase.OPENING, Phase.GAME_OVER):
            action = match.opening_action(rng)
        elif game.phase is Phase.MOVING:
            action = PlayMove(game.turn, rng.choice(game.plays))
        else:
            choices = [a for a in match.legal_actions() if not isinstance(a, PlayMove)]
            if game.phase is Phase.BEFORE_ROLL:
                choices.append(RollDice(game.turn, Roll.roll(rng)))
            action = rng.choice(choices)
        match, _ = match.apply(action)
        seen.append(match)
    return seen


matches = st.builds(random_match, st.integers(0, 2**32), st.integers(1, 150))


@settings(max_examples=100, deadline=None)
@given(matches)
def test_only_the_side_to_act_has_actions(states: list[Match]) -> None:
    """Who must act now is the one place that says whose action it is: every legal action
    is that side's, and there is none at the opening or once a game is over."""
    for match in states:
        game = match.game
        assert match.to_act == game.to_act == player_to_act(game.phase, game.turn)
        players = {action.player for action in match.legal_actions()}
        if match.to_act is None:
            assert not players
        else:
            assert players <= {match.to_act}
            assert bool(players) or game.phase is Phase.BEFORE_ROLL


@settings(max_examples=100, deadline=None)
@given(matches)
def test_every_result_scores_the_cores_points(states: list[Match]) -> None:
    """A game that ends on the board is won at the core's win level of the final board, and
    every result scores the counted level times the cube."""
    for before, after in itertools.pairwise(states):
        result = after.game.result
        if result is None or before.game.result is not None:
            continue
        if result.kind in ("single", "gammon", "backgammon"):
            assert result.level is win_level(after.game.board(result.winner))
        centred = before.game.cube.is_centred
        counted = 1 if after.rules.jacoby and centred else int(result.level)
        assert result.points == counted * result.cube
        cube = Cube(result.cube, None if centred else before.game.cube.owner)
        assert result.points == game_points(result.level, cube, jacoby=after.rules.jacoby)
