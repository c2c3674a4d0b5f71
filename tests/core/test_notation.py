"""Move notation: canonical formatting and tolerant parsing (GNU Backgammon style)."""

from __future__ import annotations

import pytest

from gammon.core.dice import Roll
from gammon.core.moves import IllegalPlayError, Move
from gammon.core.notation import NotationError, format_play, parse_play
from gammon.core.position import Position

START = Position.initial()


@pytest.mark.parametrize(
    ("moves", "text"),
    [
        ([Move(24, 18), Move(13, 11, True)], "24/18 13/11*"),
        ([Move(25, 22)], "bar/22"),
        ([Move(6, 0)], "6/off"),
        ([Move(13, 11), Move(13, 11)], "13/11(2)"),
        ([Move(24, 21, True), Move(21, 16)], "24/21*/16"),
        ([Move(24, 21), Move(21, 16)], "24/16"),
        ([Move(6, 5), Move(13, 11)], "13/11 6/5"),
        # the order the steps were played in changes nothing
        ([Move(5, 2), Move(5, 2), Move(8, 5), Move(23, 20)], "23/20 8/2 5/2"),
        ([Move(23, 20), Move(8, 5), Move(5, 2), Move(5, 2)], "23/20 8/2 5/2"),
        ([Move(6, 1, True), Move(8, 6)], "8/1*"),
        ([Move(10, 7, True), Move(13, 10)], "13/7*"),
        # two checkers landing on a blot: the one played first hit it, and the text is the
        # same whichever that was (the hit on the higher source, as GNU Backgammon writes)
        ([Move(8, 7, True), Move(13, 7)], "13/7* 8/7"),
        ([Move(13, 7, True), Move(8, 7)], "13/7* 8/7"),
        ([Move(3, 1, True), Move(6, 1)], "6/1* 3/1"),
        ([Move(24, 22, True), Move(25, 22)], "bar/22* 24/22"),
        ([], ""),
    ],
)
def test_format_is_canonical(moves: list[Move], text: str) -> None:
    assert format_play(moves) == text


@pytest.mark.parametrize(
    ("roll", "text", "canonical"),
    [
        (Roll(3, 1), "8/5 6/5", "8/5 6/5"),
        (Roll(3, 1), "6/5 8/5", "8/5 6/5"),  # any order
        (Roll(3, 1), "  8-5   6-5 ", "8/5 6/5"),  # spaces and dashes
        (Roll(6, 4), "24/14", "24/14"),
        (Roll(6, 4), "24/18/14", "24/14"),
        (Roll(6, 4), "24/18 18/14", "24/14"),
        (Roll(1, 1), "6/5(2) 8/7(2)", "8/7(2) 6/5(2)"),
        (Roll(6, 5), "24/13", "24/13"),
    ],
)
def test_parse_is_tolerant(roll: Roll, text: str, canonical: str) -> None:
    assert parse_play(START, roll, text).notation() == canonical


def test_bar_and_off_can_be_written_as_numbers() -> None:
    on_bar = Position.from_points({25: 1, 6: 14}, {6: 15})
    assert parse_play(on_bar, Roll(3, 1), "25/22 6/5").notation() == "bar/22 6/5"
    home = Position.from_points({6: 2, 3: 1}, {6: 15})
    assert parse_play(home, Roll(6, 3), "6/0 3/0").notation() == "6/off 3/off"


def test_intermediate_hit_chooses_the_path() -> None:
    # Their blot on my 21; my 19 is open too: 24/16 with 5-3 can pass either way.
    position = Position.from_points({24: 1, 6: 14}, {4: 1, 12: 14})
    quiet = parse_play(position, Roll(5, 3), "24/16")
    hitting = parse_play(position, Roll(5, 3), "24/21*/16")
    assert quiet.position.on_bar() == (0, 0)
    assert hitting.position.on_bar() == (0, 1)


@pytest.mark.parametrize("text", ["24/18 13/12", "24/19", "8/5 6/5 1/0", "7/4 6/5"])
def test_illegal_plays_are_refused(text: str) -> None:
    with pytest.raises(IllegalPlayError):
        parse_play(START, Roll(3, 1), text)


def test_passing_is_refused_when_a_play_exists() -> None:
    with pytest.raises(IllegalPlayError):
        parse_play(START, Roll(3, 1), "")


@pytest.mark.parametrize(
    "text", ["8/", "/5", "8/5/", "x/5", "5/8", "8/5(9)", "8/5((2)", "off/5", "8/bar", "30/20"]
)
def test_malformed_notation_is_refused(text: str) -> None:
    with pytest.raises(NotationError):
        parse_play(START, Roll(3, 1), text)


# Plays as GNU Backgammon 1.07 writes them in its hint list, with the Position ID of the
# result (seen from the side that moved), read off gnubg.
GNUBG_PLAYS = [
    ("4HPwATDgc/ABMA", "31", "8/5 6/5", "4HPwATCwZ/ABMA"),
    ("4HPwATDgc/ABMA", "31", "24/20", "4HPwATDgc/ABIQ"),
    ("4HPwATDgc/ABMA", "53", "24/16", "4HPwATDgc/ARIA"),
    ("4HPkASjgc/ABMA", "61", "8/2* 6/5", "4HPkAVCiZ/ABMA"),
    ("yHPwATDgc/ABMA", "53", "24/21*/16", "4Dn4AFjgc/ARIA"),
    ("4HPkASjgc/ABMA", "61", "8/2*/1*", "4HPkAWDBZ/ABMA"),
    ("4HPwATDgc/ABMA", "44", "24/20(2) 13/9(2)", "4HPwATDgc8MBAw"),
    ("4HPwATDgc/ABMA", "44", "24/20 13/9(3)", "4HPwATDgc4cBIQ"),
    ("4HPwATDgc/ABMA", "44", "13/9(4)", "4HPwATDgcw8BMA"),
    ("ELvdBQDWNZcAQA", "32", "bar/23 8/5", "ELvdBQDWbZYAEA"),
    ("ELvdBQDWNZcAQA", "32", "bar/20*", "gN3uAkDWNZcAAg"),
    ("xHPwATDgc/ABUA", "31", "bar/22*/21", "4Dn4AFjgc/ABIg"),
    ("xHPwATDgc/ABUA", "31", "bar/22* 24/23", "4Dn4AFjgc/ABFA"),
    ("xHPwATDgc/ABUA", "31", "bar/21", "xHPwATDgc/ABIg"),
    ("BNfdBgCX3EoAYA", "61", "bar/24 bar/19", "BNfdBgCX3EqAIA"),
    ("d3cHAABsBwAAAA", "66", "5/off(3) 4/off", "d3cHAAAsAAAAAA"),
    ("d3cHAABsBwAAAA", "65", "5/off(2)", "d3cHAABsAQAAAA"),
    ("d3cHAABsBwAAAA", "11", "4/off", "d3cHAACsAwAAAA"),
    ("d3cHAABsBwAAAA", "11", "3/off 3/2", "d3cHAACyAwAAAA"),
    ("d3cHAABsBwAAAA", "64", "5/1 5/off", "d3cHAADZAgAAAA"),
    ("mwOBBDu8dwMAAA", "33", "6/off(2)", "mwOBBDu8dwAAAA"),
]


def test_a_blot_hit_by_either_of_two_checkers_reads_as_gnu_backgammon_writes_it() -> None:
    # GNU Backgammon 1.07's hint for 61 in 4HPwIDDgc/ABMA (a blot on our 7 point) lists
    # its best play as "13/7* 8/7", whichever of the two checkers is moved first
    position = Position.from_id("4HPwIDDgc/ABMA")
    for typed in ("13/7 8/7", "8/7* 13/7", "13/7* 8/7"):
        assert parse_play(position, Roll(6, 1), typed).notation() == "13/7* 8/7"


@pytest.mark.parametrize(("position_id", "dice", "text", "after"), GNUBG_PLAYS)
def test_gnu_backgammon_notation_reads_as_gnu_backgammon_plays_it(
    position_id: str, dice: str, text: str, after: str
) -> None:
    play = parse_play(Position.from_id(position_id), Roll.parse(dice), text)
    assert play.position.id() == after
    # and our canonical form names the same play
    assert parse_play(Position.from_id(position_id), Roll.parse(dice), play.notation()) == play
