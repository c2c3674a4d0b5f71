"""The FIBS board line: FIBS's documented layout, lines GNU Backgammon 1.07 really sent (with
the scores it printed for them), every orientation of the board, and malformed lines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.formats.fibs_board import (
    Dialect,
    FibsBoard,
    InvalidFibsBoardError,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg_external_boards.txt"

# The layout of FIBS's client protocol document: 'You' (X, colour 1 here, direction -1) on
# roll with 6-2 in the opening position of a 3-point match.
FIBS_EXAMPLE = ("board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:"
                "2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")


def _gnubg_lines() -> dict[str, str]:
    lines = {}
    for row in DATA.read_text().splitlines():
        if row and not row.startswith("#"):
            name, line = row.split(" ", 1)
            lines[name] = line
    return lines


GNUBG = _gnubg_lines()


def _mirror(line: str, colour: int, direction: int) -> str:
    """The same state written with another colour and direction (our own encoder)."""
    fields = line.split(":")
    counts = [int(c) for c in fields[6:32]]
    old_colour, old_direction = int(fields[41]), int(fields[42])
    own = [0] * 26  # by the player's own point (0: the opponent's bar, 25: the player's)
    for index, count in enumerate(counts):
        point = index if old_direction == -1 else 25 - index
        own[point] = count * old_colour
    written = [0] * 26
    for point, count in enumerate(own):
        index = point if direction == -1 else 25 - point
        written[index] = count * colour
    fields[6:32] = [str(c) for c in written]
    on_roll = int(fields[32]) == old_colour
    fields[32] = str(colour if on_roll else -colour)
    fields[41], fields[42] = str(colour), str(direction)
    fields[43], fields[44] = ("0", "25") if direction == -1 else ("25", "0")
    return ":".join(fields)


def test_every_field_of_the_fibs_documentation_layout() -> None:
    board = FibsBoard.parse(FIBS_EXAMPLE)
    assert (board.player, board.opponent, board.match_length) == ("You", "someplayer", 3)
    assert (board.player_score, board.opponent_score) == (0, 0)
    assert board.turn == 1 and board.player_on_roll
    assert board.player_dice == (6, 2) and board.opponent_dice == (0, 0)
    assert board.cube == 1 and board.player_may_double and board.opponent_may_double
    assert board.was_doubled == 0
    assert (board.colour, board.direction, board.home, board.bar) == (1, -1, 0, 25)
    assert (board.player_home, board.opponent_home, board.player_bar, board.opponent_bar) == (
        0, 0, 0, 0)
    assert (board.can_move, board.forced_move, board.did_crawford, board.redoubles) == (
        2, False, False, 0)
    state = board.state(Dialect.FIBS)
    assert state.position == Position.initial()
    assert state.roll == Roll(6, 2) and state.score == (0, 0) and not state.doubled
    assert state.cube_owner is None and not state.crawford and not state.post_crawford


def test_gnubg_line_with_dice_gives_the_side_on_roll_its_roll_and_the_printed_score() -> None:
    # gnubg printed "gnubg 1, root 4"; root (player 1, X) is on roll with 5-2
    state = FibsBoard.parse(GNUBG["match7_gnubg1_root4_rolled"]).state(Dialect.GNUBG)
    assert state.player_on_roll
    assert state.position == Position.initial()
    assert state.roll == Roll(5, 2)
    assert (state.score, state.match_length) == ((4, 1), 7)
    assert not state.crawford and not state.post_crawford


def test_gnubg_line_with_a_double_pending_is_the_doublers_view() -> None:
    # gnubg (O, player 0) has doubled at gnubg 1, root 4: names and scores come root first
    board = FibsBoard.parse(GNUBG["match7_root4_gnubg1_doubled"])
    assert (board.player, board.player_score, board.was_doubled) == ("root", 4, 1)
    state = board.state(Dialect.GNUBG)
    assert state.doubled and not state.player_on_roll and state.roll is None
    assert state.score == (1, 4) and state.cube == 1 and state.cube_owner is None


def test_gnubg_crawford_and_post_crawford_games() -> None:
    crawford = FibsBoard.parse(GNUBG["match7_crawford_gnubg1_root6"]).state()
    assert crawford.score == (6, 1) and crawford.crawford and not crawford.post_crawford
    post = FibsBoard.parse(GNUBG["match7_post_crawford_gnubg2_root6"]).state()
    assert post.score == (6, 2) and post.post_crawford and not post.crawford


def test_gnubg_money_line_with_the_opponent_owning_the_cube() -> None:
    state = FibsBoard.parse(GNUBG["money_cube2"]).state()
    assert state.is_money and state.cube == 2 and state.cube_owner is False
    assert state.roll == Roll(2, 4)


def test_checkers_on_both_bars_land_on_the_bars_of_the_side_on_roll() -> None:
    state = FibsBoard.parse(GNUBG["match3_bar"]).state()
    assert (state.position.board[0], state.position.board[25]) == (-1, 1)
    assert state.position.on_bar() == (1, 1)


@pytest.mark.parametrize("name", sorted(GNUBG))
@pytest.mark.parametrize(("colour", "direction"), [(1, -1), (1, 1), (-1, -1), (-1, 1)])
def test_every_colour_and_direction_reads_the_same_state(name: str, colour: int,
                                                         direction: int) -> None:
    line = GNUBG[name]
    assert FibsBoard.parse(_mirror(line, colour, direction)).state() == (
        FibsBoard.parse(line).state())


def test_the_fibs_dialect_reads_the_first_score_as_the_players() -> None:
    line = GNUBG["match7_gnubg1_root4_rolled"]
    assert FibsBoard.parse(line).state(Dialect.FIBS).score == (1, 4)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(1, -1), (1, 1), (-1, -1), (-1, 1)]))
def test_random_positions_survive_every_orientation(seed: int, orientation: tuple[int, int]
                                                    ) -> None:
    rng = random.Random(seed)
    counts = [0] * 26
    for sign, bar in ((1, 25), (-1, 0)):
        for _ in range(rng.randint(0, 15)):
            free = [i for i in range(1, 25) if counts[i] * sign >= 0] + [bar]
            counts[rng.choice(free)] += sign
    position = Position(counts)
    template = FIBS_EXAMPLE.split(":")
    template[6:32] = [str(c) for c in counts]
    line = _mirror(":".join(template), *orientation)
    assert FibsBoard.parse(line).state(Dialect.FIBS).position == position


@pytest.mark.parametrize(("line", "message"), [
    ("bored:a:b", "starts with 'board:'"),
    (FIBS_EXAMPLE + ":0", "52 fields"),
    (FIBS_EXAMPLE.rsplit(":", 3)[0], "52 fields"),
    (FIBS_EXAMPLE.replace(":3:0:0:", ":3:x:0:", 1), "field 4 must be a whole number"),
    (FIBS_EXAMPLE.replace(":3:0:0:", ":3:99999999999:0:", 1), "whole number"),
    (FIBS_EXAMPLE.replace(":3:0:0:", ":3:4:0:", 1), "above the match length"),
    (FIBS_EXAMPLE.replace(":-5:5:", ":-5:15:", 1), "not a backgammon position"),
    (FIBS_EXAMPLE.replace(":1:-1:0:25:", ":1:-1:25:0:", 1), "home and bar"),
    (FIBS_EXAMPLE.replace(":1:-1:0:25:", ":2:-1:0:25:", 1), "colour"),
    (FIBS_EXAMPLE.replace(":1:6:2:0:0:1:", ":1:6:7:0:0:1:", 1), "dice"),
    (FIBS_EXAMPLE.replace(":0:0:1:1:1:0:1:", ":0:0:3:1:1:0:1:", 1), "power of two"),
    (FIBS_EXAMPLE.replace("board:You:", "board::", 1), "name"),
    (FIBS_EXAMPLE.replace(":2:0:1:6:2:", ":2:-1:1:6:2:", 1), "player's bar"),
    ("board:" + "x" * 3000, "at most"),
])
def test_malformed_lines_say_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(InvalidFibsBoardError, match=message):
        FibsBoard.parse(line)


def test_a_pending_double_with_dice_and_a_finished_game_are_refused() -> None:
    doubled = FIBS_EXAMPLE.replace(":0:0:1:1:1:0:1:", ":0:0:1:1:1:1:1:", 1)
    with pytest.raises(InvalidFibsBoardError, match="double is pending"):
        FibsBoard.parse(doubled).state()
    over = FIBS_EXAMPLE.replace(":2:0:1:6:2:", ":2:0:0:6:2:", 1)
    with pytest.raises(InvalidFibsBoardError, match="game is over"):
        FibsBoard.parse(over).state()


def test_mutated_lines_raise_only_the_format_error() -> None:
    rng = random.Random(2026)
    sources = [FIBS_EXAMPLE, *GNUBG.values()]
    for _ in range(2000):
        fields = rng.choice(sources).split(":")
        index = rng.randrange(len(fields))
        fields[index] = rng.choice(["", "-", "7", "-16", "1e3", "99999", "\u00e9", " 1", "2"])
        try:
            board = FibsBoard.parse(":".join(fields))
            board.state()
        except InvalidFibsBoardError as error:
            assert str(error)
