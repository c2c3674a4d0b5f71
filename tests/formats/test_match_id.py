"""The GNU Backgammon Match ID codec (gammon.formats.match_id).

Three kinds of evidence: the examples published in GNU Backgammon's documentation, decoded
field by field by hand; a table of IDs that GNU Backgammon 1.07 itself printed in real match
states (tests/data/match_id_reference.tsv, made by scripts/make_match_id_reference.py),
with the fields read from gnubg's state rather than from the ID; and property tests.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gammon.core import actions as A
from gammon.core.cube import Level
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.game import Phase, Rules
from gammon.core.match import Match
from gammon.formats import match_id as match_id_module
from gammon.formats.match_id import (
    MAX_CUBE,
    MAX_MATCH_LENGTH,
    GameState,
    InvalidMatchIdError,
    MatchKey,
    Resignation,
    match_key,
)

REFERENCE = Path(__file__).parent.parent / "data" / "match_id_reference.tsv"


def _reference_rows() -> list[dict[str, str]]:
    with REFERENCE.open(encoding="utf-8", newline="") as table:
        return list(csv.DictReader(table, delimiter="\t"))


# -- published examples -------------------------------------------------------------------


def test_manual_example_score_2_4_in_9_point_match_player_1_rolled_52() -> None:
    """The worked example of the gnubg manual, section "A technical description of the
    Match ID": 9-point match, 2-4, player 0 holds a 2-cube, player 1 has just rolled 52."""
    key = MatchKey.from_id("QYkqASAAIAAA")
    assert key == MatchKey(
        cube=2,
        cube_owner=0,
        dice_owner=1,
        crawford=False,
        game_state=GameState.PLAYING,
        turn=1,
        double_offered=False,
        resignation=Resignation.NONE,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
        jacoby=True,  # the manual's key predates gnubg's "no Jacoby" bit 66
    )
    assert key.id() == "QYkqASAAIAAA"


def test_manual_example_key_bytes() -> None:
    """The manual gives the key in little-endian bytes: 41 89 2A 01 20 00 20 00 00."""
    key = bytes([0x41, 0x89, 0x2A, 0x01, 0x20, 0x00, 0x20, 0x00, 0x00])
    assert base64.b64encode(key).decode() == "QYkqASAAIAAA"
    assert MatchKey.from_id("QYkqASAAIAAA").cube_log == 1


def test_all_about_gnubg_example_11_point_match() -> None:
    """The "All about GNU" guide shipped with gnubg: O (player 0) 3 points, X (player 1) 4 points in
    an 11-point match, cube 1 centred, X on roll having rolled 63."""
    key = MatchKey.from_id("cAlvATAAIAAA")
    assert (key.cube, key.cube_owner, key.crawford) == (1, None, False)
    assert (key.dice_owner, key.turn, key.dice) == (1, 1, (6, 3))
    assert (key.match_length, key.score) == (11, (3, 4))
    assert key.game_state is GameState.PLAYING
    assert key.roll == Roll(6, 3)


def test_manual_hypergammon_example_money_game_player_1_to_roll() -> None:
    key = MatchKey.from_id("cAkAAAAAAAAA")
    assert key.is_money() and key.dice is None and key.roll is None
    assert (key.dice_owner, key.turn, key.game_state) == (1, 1, GameState.PLAYING)


def test_no_game_started() -> None:
    key = MatchKey.from_id("cAgAAAAAAAAA")
    assert key.game_state is GameState.NONE
    assert (key.cube, key.cube_owner, key.dice, key.match_length) == (1, None, None, 0)


# -- GNU Backgammon as the reference ------------------------------------------------------


@pytest.mark.parametrize("row", _reference_rows(), ids=lambda row: row["state"])
def test_matches_gnubg(row: dict[str, str]) -> None:
    """Every field agrees with the state gnubg printed the ID from, and the ID comes back."""
    key = MatchKey.from_id(row["match_id"])
    assert key.cube == int(row["cube"])
    assert key.cube_owner == (None if row["cube_owner"] == "-" else int(row["cube_owner"]))
    assert key.dice_owner == int(row["dice_owner"])
    assert key.crawford is bool(int(row["crawford"]))
    assert key.game_state == int(row["game_state"])
    assert key.turn == int(row["turn"])
    assert key.double_offered is bool(int(row["double_offered"]))
    assert key.resignation == int(row["resignation"])
    # gnubg holds the dice as rolled but writes the higher die first.
    expected_dice = None if row["dice"] == "-" else tuple(sorted(map(int, row["dice"]))[::-1])
    assert key.dice == expected_dice
    assert key.match_length == int(row["match_length"])
    assert key.score == (int(row["score0"]), int(row["score1"]))
    assert key.jacoby is bool(int(row["jacoby"]))
    assert key.id() == row["match_id"]


def test_reference_table_covers_every_state() -> None:
    rows = _reference_rows()
    assert len(rows) >= 12
    assert {int(r["game_state"]) for r in rows} >= {1, 2, 3, 4}
    assert {int(r["resignation"]) for r in rows} == {0, 1, 2, 3}
    assert {r["cube_owner"] for r in rows} == {"-", "0", "1"}
    assert {r["double_offered"] for r in rows} == {"0", "1"}
    assert {r["crawford"] for r in rows} == {"0", "1"}
    assert {r["jacoby"] for r in rows} == {"0", "1"}
    assert any(r["match_length"] == "0" and r["score1"] != "0" for r in rows)  # money score


def test_jacoby_bit_is_gnubgs_extension() -> None:
    """gnubg 1.07 stores "Jacoby off" in bit 66, just past the manual's 66 bits."""
    off, on = MatchKey(jacoby=False).id(), MatchKey(jacoby=True).id()
    assert off[:-1] == on[:-1]
    assert (off[-1], on[-1]) == ("E", "A")


# -- field details ------------------------------------------------------------------------


def test_dice_keep_the_order_written() -> None:
    """gnubg writes the higher die first; an ID with the lower first is read as written."""
    key = MatchKey(dice=(2, 5), dice_owner=1, turn=1)
    assert MatchKey.from_id(key.id()).dice == (2, 5)
    assert MatchKey.from_id(key.id()).id() == key.id()


def test_cube_values_and_owners() -> None:
    for log in range(16):
        key = MatchKey(cube=1 << log, cube_owner=log % 2)
        decoded = MatchKey.from_id(key.id())
        assert (decoded.cube, decoded.cube_log, decoded.cube_owner) == (1 << log, log, log % 2)
    assert MatchKey.from_id(MatchKey(cube_owner=None).id()).cube_owner is None


def test_largest_values_fit() -> None:
    key = MatchKey(
        cube=MAX_CUBE,
        match_length=MAX_MATCH_LENGTH,
        score=(MAX_MATCH_LENGTH - 1, MAX_MATCH_LENGTH - 1),
        dice=(6, 6),
        game_state=GameState.DROPPED,
        resignation=Resignation.BACKGAMMON,
    )
    assert MatchKey.from_id(key.id()) == key


def test_enums_are_coerced_from_ints() -> None:
    key = MatchKey(game_state=2, resignation=3)  # type: ignore[arg-type]
    assert key.game_state is GameState.OVER
    assert key.resignation is Resignation.BACKGAMMON


def test_repr_is_evaluable() -> None:
    key = MatchKey.from_id("QYkqASAAIAAA")
    assert eval(repr(key), vars(match_id_module)) == key
    assert "game_state=GameState.PLAYING" in repr(key)


def test_is_immutable_and_hashable() -> None:
    key = MatchKey.from_id("QYkqASAAIAAA")
    with pytest.raises(dataclasses.FrozenInstanceError):
        key.cube = 4  # type: ignore[misc]
    assert len({key, MatchKey.from_id("QYkqASAAIAAA")}) == 1


def test_surrounding_whitespace_is_ignored() -> None:
    assert MatchKey.from_id("  QYkqASAAIAAA\n").id() == "QYkqASAAIAAA"


# -- malformed IDs ------------------------------------------------------------------------


def _id_with(**fields: int) -> str:
    """An ID of the default key with raw field values forced in (bypassing validation)."""
    layout = {
        "cube_log": (0, 4),
        "owner": (4, 2),
        "state": (8, 3),
        "die1": (15, 3),
        "die2": (18, 3),
        "length": (21, 15),
        "score0": (36, 15),
        "score1": (51, 15),
        "spare": (67, 5),
        "crawford": (7, 1),
    }
    bits = int.from_bytes(base64.b64decode(MatchKey(match_length=9).id()), "little")
    for name, value in fields.items():
        first, width = layout[name]
        bits &= ~(((1 << width) - 1) << first)
        bits |= value << first
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "12 characters"),
        ("QYkqASAAIAA", "12 characters"),
        ("QYkqASAAIAAAA", "12 characters"),
        ("QYkqASAAIA A", "A-Z"),
        ("QYkqASAA-AAA", "A-Z"),
        ("QYkqASAA_AAA", "A-Z"),
        ("QYkqASAAIA==", "A-Z"),
        ("QYkqASAAIAé=", "A-Z"),
        (_id_with(owner=2), "cube owner"),
        (_id_with(state=5), "game state"),
        (_id_with(state=7), "game state"),
        (_id_with(die1=7, die2=1), "a die"),
        (_id_with(die1=3, die2=7), "a die"),
        (_id_with(die1=3, die2=0), "only one die"),
        (_id_with(die1=0, die2=4), "only one die"),
        (_id_with(score0=9), "already won"),
        (_id_with(score1=12), "already won"),
        (_id_with(length=0, crawford=1), "Crawford"),
        (_id_with(spare=1), "unused bits"),
        (_id_with(spare=16), "unused bits"),
    ],
)
def test_malformed_ids_raise_the_narrow_error(text: str, message: str) -> None:
    with pytest.raises(InvalidMatchIdError, match=message):
        MatchKey.from_id(text)


def test_non_string_raises_the_narrow_error() -> None:
    with pytest.raises(InvalidMatchIdError):
        MatchKey.from_id(b"QYkqASAAIAAA")  # type: ignore[arg-type]
    assert issubclass(InvalidMatchIdError, ValueError)


@pytest.mark.parametrize(
    "fields",
    [
        {"cube": 0},
        {"cube": 3},
        {"cube": MAX_CUBE * 2},
        {"cube": 2.0},
        {"cube_owner": 2},
        {"cube_owner": True},
        {"dice_owner": -1},
        {"turn": 2},
        {"crawford": 1},
        {"double_offered": None},
        {"game_state": 5},
        {"game_state": "playing"},
        {"resignation": 4},
        {"dice": (0, 0)},
        {"dice": (7, 1)},
        {"dice": (1, 2, 3)},
        {"dice": [3, 1]},
        {"match_length": -1},
        {"match_length": MAX_MATCH_LENGTH + 1},
        {"score": (-1, 0)},
        {"score": (0,)},
        {"match_length": 5, "score": (5, 0)},
        {"match_length": 5, "score": (0, 7)},
        {"crawford": True},  # money play has no Crawford game
        {"jacoby": "yes"},
    ],
)
def test_impossible_fields_raise_the_narrow_error(fields: dict[str, object]) -> None:
    with pytest.raises(InvalidMatchIdError):
        MatchKey(**fields)  # type: ignore[arg-type]


# -- properties ---------------------------------------------------------------------------

_players = st.sampled_from([0, 1])


@st.composite
def match_keys(draw: st.DrawFn) -> MatchKey:
    match_length = draw(st.one_of(st.just(0), st.integers(1, MAX_MATCH_LENGTH)))
    score_limit = match_length - 1 if match_length else MAX_MATCH_LENGTH
    return MatchKey(
        cube=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.one_of(st.none(), _players)),
        dice_owner=draw(_players),
        crawford=bool(match_length) and draw(st.booleans()),
        game_state=draw(st.sampled_from(GameState)),
        turn=draw(_players),
        double_offered=draw(st.booleans()),
        resignation=draw(st.sampled_from(Resignation)),
        dice=draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6)))),
        match_length=match_length,
        score=draw(st.tuples(st.integers(0, score_limit), st.integers(0, score_limit))),
        jacoby=draw(st.booleans()),
    )


@given(match_keys())
def test_round_trip_from_key(key: MatchKey) -> None:
    text = key.id()
    assert len(text) == 12
    assert MatchKey.from_id(text) == key


@given(match_keys())
def test_round_trip_from_string(key: MatchKey) -> None:
    text = key.id()
    assert MatchKey.from_id(text).id() == text


@given(st.integers(0, (1 << 67) - 1))
def test_any_key_either_round_trips_or_raises(bits: int) -> None:
    """Every 67-bit key is a valid state written back unchanged, or a narrow error."""
    text = base64.b64encode(bits.to_bytes(9, "little")).decode()
    try:
        key = MatchKey.from_id(text)
    except InvalidMatchIdError:
        return
    assert key.id() == text


_ALPHABET = string.ascii_letters + string.digits + "+/"


@given(st.one_of(st.text(max_size=14), st.text(_ALPHABET + "=-_ ", min_size=12, max_size=12)))
def test_arbitrary_text_never_raises_anything_else(text: str) -> None:
    try:
        key = MatchKey.from_id(text)
    except InvalidMatchIdError:
        return
    assert key.id() == text.strip()


# -- the key of a match's state (match_key) ----------------------------------------------------


def _reference_id(state: str) -> str:
    (row,) = [row for row in _reference_rows() if row["state"] == state]
    return row["match_id"]


def test_the_key_of_a_money_game_is_what_gnubg_printed_at_each_decision() -> None:
    """A money game played as in the reference table: the key of each decision the match
    waits for is the ID GNU Backgammon printed in the same state."""
    match = Match.new(Rules())
    assert match_key(match) is None  # the opening: no one decides
    steps: list[tuple[A.Action, str]] = [
        (A.RollOpening(OpeningRoll(1, Roll(3, 1), ((1, 3),))),
         "money: opening roll 3-1 to play"),
        (A.PlayMove(1, "8/5 6/5"), "money: after 8/5 6/5, the other player to roll"),
        (A.OfferDouble(0), "money: double offered"),
        (A.Take(1), "money: double taken, doubler to roll"),
    ]
    for action, state in steps:
        match, _ = match.apply(action)
        key = match_key(match)
        assert key is not None and key.id() == _reference_id(state), state


def test_the_key_of_a_resignation_on_offer_names_its_level_and_the_receiver() -> None:
    match = Match.new(Rules(jacoby=True))
    match, _ = match.apply(A.RollOpening(OpeningRoll(1, Roll(3, 1), ((1, 3),))))
    match, _ = match.apply(A.PlayMove(1, "8/5 6/5"))
    match, _ = match.apply(A.OfferResign(0, Level.GAMMON))
    key = match_key(match)
    assert key is not None
    assert key.id() == _reference_id("money, Jacoby: gammon resignation offered")


def test_there_is_no_key_once_a_game_or_the_match_is_over() -> None:
    match = Match.new(Rules(length=1))
    match, _ = match.apply(A.RollOpening(OpeningRoll(0, Roll(4, 3), ((4, 3),))))
    key = match_key(match)
    assert key is not None and (key.match_length, key.dice, key.turn) == (1, (4, 3), 0)
    match, _ = match.apply(A.OfferResign(0, Level.SINGLE))
    match, _ = match.apply(A.AcceptResign(1))
    assert match.is_over and match_key(match) is None
    money = Match.new(Rules())
    money, _ = money.apply(A.RollOpening(OpeningRoll(0, Roll(4, 3), ((4, 3),))))
    money, _ = money.apply(A.OfferResign(0, Level.SINGLE))
    money, _ = money.apply(A.AcceptResign(1))
    assert money.phase is Phase.GAME_OVER and match_key(money) is None
