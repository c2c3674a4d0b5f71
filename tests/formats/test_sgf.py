"""GNU Backgammon's SGF match files (gammon.formats.sgf).

The reference files tests/data/matches/gnubg_*.sgf were saved by GNU Backgammon 1.07 after
its bot played the matches (scripts/check_match_files_with_gnubg.py, which also checks that
GNU Backgammon loads what gammon writes); the same matches exported as .mat must read as the
same games.
"""

from __future__ import annotations

import datetime
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.actions import (
    AcceptResign,
    Action,
    Beaver,
    Drop,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    RollDice,
    Timeout,
)
from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.events import EndKind
from gammon.core.match import Rules
from gammon.formats import mat, sgf
from gammon.formats.matchfile import MatchInfo, MatchRecord
from gammon.formats.sgf import SgfFormatError
from tests.formats.test_mat import (
    DATA,
    REFERENCES,
    _gnubg_results,
    _opening,
    _view,
    random_record,
    rules_strategy,
)


@pytest.mark.parametrize("name", REFERENCES)
def test_gnubg_sgf_files_load_and_replay_to_gnubgs_own_results(name: str) -> None:
    record = sgf.load(DATA / f"{name}.sgf")
    record.replay()
    assert _view(record) == _gnubg_results()[name]
    assert record.info.date == datetime.date(2024, 5, 1)
    assert record.info.event == "gammon reference match"


@pytest.mark.parametrize("name", REFERENCES)
def test_gnubgs_sgf_and_mat_of_one_match_are_the_same_games(name: str) -> None:
    from_sgf = sgf.load(DATA / f"{name}.sgf")
    from_mat = mat.load(DATA / f"{name}.mat")
    assert from_sgf.games == from_mat.games
    assert from_sgf.players == from_mat.players
    assert from_sgf.info == from_mat.info


def test_gnubgs_rules_property_marks_the_crawford_game() -> None:
    text = (DATA / "gnubg_match5.sgf").read_text(encoding="utf-8")
    assert "RU[Crawford:CrawfordGame]" in text
    record = sgf.loads(text)
    assert record.rules == Rules(length=5)
    assert [game.crawford for game in record.games].count(True) == 1


def test_a_point_letter_is_white_s_point_and_black_s_mirror() -> None:
    """The spec's examples: W[31hefe] is White's 8/5 6/5; B[61yg] enters bar/18 for Black
    (Black's 18-point is White's 7, letter g); W[66] a roll that cannot be played."""
    actions: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"),
                             RollDice(1, Roll(6, 4)), PlayMove(1, "24/14")]
    text = sgf.dumps(MatchRecord.from_match_actions(actions, rules=Rules(length=3)))
    assert ";W[31hefe]" in text
    assert ";B[64aggk]" in text or ";B[64aeek]" in text  # 24/18 18/14 or 24/20 20/14


def test_dumps_writes_cube_actions_beavers_and_results_like_gnubg() -> None:
    actions: list[Action] = [
        _opening(0, 4, 1), PlayMove(0, "13/9 6/5"),
        OfferDouble(1), Beaver(0),
        RollDice(1, Roll(6, 3)), PlayMove(1, "24/18 13/10"),
        OfferDouble(0), Drop(1),
    ]
    record = MatchRecord.from_match_actions(actions, rules=Rules(beavers=True),
                                            players=("Alice", "Bob"))
    text = sgf.dumps(record)
    assert ";B[double]\n;W[double]\n;B[take]" in text
    assert ";W[double]\n;B[drop])" in text
    assert "RE[W+4]" in text and "RU[Beavers]" in text
    assert "MI[length:0][game:0][ws:0][bs:0]" in text
    assert sgf.loads(text) == record
    # GNU Backgammon does not write whether beavers are allowed: a beaver says so
    assert sgf.loads(text.replace("RU[Beavers]", "")) == record


def test_a_resignation_is_the_result_with_r_and_refused_offers_are_private_nodes() -> None:
    actions: list[Action] = [
        _opening(1, 5, 2), PlayMove(1, "13/8 13/11"),
        OfferResign(0, Level.SINGLE), RejectResign(1),
        RollDice(0, Roll(6, 6)), OfferResign(0, Level.GAMMON), AcceptResign(1),
    ]
    record = MatchRecord.from_match_actions(actions, rules=Rules(jacoby=True))
    text = sgf.dumps(record)
    assert ";XR[W1]" in text and ";PL[W]DI[66])" in text
    # the level times the cube, as GNU Backgammon writes it, though Jacoby scored it single
    assert "RE[B+2R]" in text and record.replay().score == (0, 1)
    assert sgf.loads(text) == record


def test_forfeits_and_unanswered_offers_are_private_properties() -> None:
    actions: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"),
                             OfferResign(1, Level.GAMMON), Timeout(0)]
    record = MatchRecord.from_match_actions(actions, rules=Rules(length=5, crawford=False),
                                            info=MatchInfo(round="3", site="Turin",
                                                           annotator="Ann [the] \\ scribe",
                                                           comment="line one\nline two"))
    text = sgf.dumps(record)
    assert "XF[W:timeout]" in text and ";XO[B2]" in text and "RE[" not in text
    assert "RU[" not in text  # a match without the Crawford rule
    assert r"AN[Ann [the\] \\ scribe]" in text
    assert sgf.loads(text) == record


def test_a_record_without_games_keeps_players_rules_and_forfeit() -> None:
    record = MatchRecord.from_match_actions([], rules=Rules(length=7),
                                            players=("Alice", "Bob"))
    assert sgf.loads(sgf.dumps(record)) == record
    abandoned = MatchRecord.from_match_actions([Timeout(1)], rules=Rules(length=7))
    assert sgf.loads(sgf.dumps(abandoned)) == abandoned


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=rules_strategy, forfeit=st.booleans())
def test_round_trip_record_to_sgf_to_record(seed: int, rules: Rules, forfeit: bool) -> None:
    """Export → import → the identical match."""
    record = random_record(seed, rules, forfeit=forfeit)
    assert sgf.loads(sgf.dumps(record)) == record


def test_file_helpers_round_trip(tmp_path: Path) -> None:
    record = sgf.load(DATA / "gnubg_match3.sgf")
    path = tmp_path / "copy.sgf"
    sgf.dump(record, path)
    assert sgf.load(path) == record
    with path.open(encoding="utf-8") as handle:
        assert sgf.load(handle) == record


def test_loads_follows_the_main_line_and_skips_other_games_and_analysis() -> None:
    go = "(;FF[4]GM[1]SZ[19];B[pd])\n"
    game = (
        "(;FF[4]GM[6]MI[length:1][game:0][ws:0][bs:0]PW[A]PB[B]\n"
        ";W[31hefe]A[0][hefe E ver 3 0.5]LU[0.1]C[nice \\] move]"
        "(;B[64aggk]GB[1])(;B[21xwwu]))"
    )
    record = sgf.loads(go + game)
    assert len(record.games[0].actions) == 4
    assert record.players == ("A", "B")


# -- malformed files ----------------------------------------------------------------------

_GOOD = (
    "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]RU[Crawford]RE[W+1]\n"
    ";W[31hefe]\n"
    ";B[52lqln]\n"
    ";W[double]\n"
    ";B[drop])\n"
)


def test_the_small_good_file_reads() -> None:
    assert sgf.loads(_GOOD).replay().score == (1, 0)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", None, "no game tree"),
        ("hello", 1, "expected '('"),
        ("(;GM[6]", 1, "the file ends inside a game tree"),
        ("(;GM[6]PW[Al", 1, "the file ends inside a property value"),
        ("(;GM[6]PW)", 1, "property PW has no value"),
        ("(GM[6])", 1, "a game tree starts with a node"),
        ("(;gm[6])", 1, "a property name needs capital letters"),
        ("(;FF[4]GM[1])", None, "no backgammon game"),
        (_GOOD.replace("W[31hefe]", "W[31hefd]"), 2, "cannot be played step by step"),
        (_GOOD.replace("W[31hefe]", "W[31he]"), 2, "not a legal play of 31"),
        (_GOOD.replace("W[31hefe]", "W[31heXe]"), 2, "is not a move"),
        (_GOOD.replace("W[31hefe]", "W[33hefe]"), 2, "opening roll cannot be a double"),
        (_GOOD.replace(";B[52lqln]", ";W[52mhmk]"), 3, "it is player 1's turn"),
        (_GOOD.replace("RE[W+1]", "RE[B+1]"), 1, "the file says player 2 wins 1 point, but"),
        (_GOOD.replace("RE[W+1]", "RE[W+one]"), 1, "RE is the winner and the points"),
        (_GOOD.replace("RE[W+1]", "RE[W+1T]"), 1, "followed by R"),
        (_GOOD.replace(";W[double]\n;B[drop]", ""), 1, "without a resignation"),
        (_GOOD.replace(";W[double]\n;B[drop]", "").replace("RE[W+1]", "RE[W+1R]"), 1,
         "so player 2 resigns; gammon's rules allow resigning only on one's own turn"),
        (_GOOD.replace(";W[double]\n;B[drop]", ";PL[W]DI[66]\n;W[55mhmh]"), 5,
         "player 1 has rolled 66 and plays 55"),
        (_GOOD.replace("RU[Crawford]", "RU[Crawford:CrawfordGame]"), 1,
         "marked the Crawford game"),
        (_GOOD.replace("RU[Crawford]", "RU[Jacoby]"), 1, "money-play options"),
        (_GOOD.replace("MI[length:3]", "MI[length:x]"), 1, "length is a number"),
        (_GOOD.replace("PW[Alice]", "PW[Alice]DT[May 1]"), 1, "DT is a date"),
        (_GOOD.replace("PW[Alice]", "PW[Alice]CV[2]"), 1, "automatic doubles"),
        (_GOOD.replace(";B[drop]", ";B[drop]AB[a]"), 5, "board setups"),
        (_GOOD.replace(";B[drop]", ";XR[Q9]"), 5, "XR is a colour and a level"),
        (_GOOD.replace("RE[W+1]", "RE[W+1]XF[W:quit]"), 1, "XF is W or B"),
        (_GOOD + _GOOD.replace("[ws:0]", "[ws:0]"), 6,
         "game 2 starts at 0-0, but the games before it end at 1-0"),
        (_GOOD + _GOOD.replace("PW[Alice]", "PW[Eve]").replace("[ws:0]", "[ws:1]"), 6,
         "the players change"),
        (_GOOD + _GOOD.replace("length:3", "length:5"), 6, "5 point match"),
        (_GOOD.replace("RE[W+1]", "").replace(";W[double]\n;B[drop]", "") + _GOOD, 1,
         "game 1 is not over"),
        (_GOOD.replace("RE[W+1]", "RE[W+1]XF[B:abandon]") + _GOOD.replace("[ws:0]", "[ws:1]"),
         1, "only the last game"),
    ],
)
def test_malformed_files_give_a_narrow_error_naming_the_line(
    text: str, line: int | None, message: str
) -> None:
    with pytest.raises(SgfFormatError) as raised:
        sgf.loads(text)
    assert isinstance(raised.value, ValueError)
    assert message in str(raised.value)
    if line is not None:
        assert raised.value.line == line, str(raised.value)
        assert str(raised.value).startswith(f"line {line}: ")


def test_loads_wants_text() -> None:
    with pytest.raises(TypeError):
        sgf.loads(b"(;GM[6])")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sgf.dumps("record")  # type: ignore[arg-type]


def test_money_tallies_are_not_checked_under_the_jacoby_rule() -> None:
    """GNU Backgammon scores a resignation at its full level under the Jacoby rule, the
    core scores it single while the cube is centred: a money file with Jacoby may carry
    tallies the core does not reach, and still loads."""
    first = (
        "(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[A]PB[B]RU[Jacoby]RE[W+2R]\n"
        ";W[31hefe])\n"
    )
    second = (
        "(;FF[4]GM[6]MI[length:0][game:1][ws:2][bs:0]PW[A]PB[B]RU[Jacoby]\n"
        ";B[31qtst])\n"
    )
    record = sgf.loads(first + second)
    assert record.games[0].result is not None
    assert record.games[0].result.kind is EndKind.RESIGN
    assert record.games[0].result.level is Level.GAMMON
    assert record.replay().score == (1, 0)


def test_writing_what_was_read_gives_the_same_text() -> None:
    rng = random.Random(5)
    record = random_record(rng.randrange(2**32), Rules(length=3))
    assert sgf.dumps(sgf.loads(sgf.dumps(record))) == sgf.dumps(record)


def test_a_match_starting_at_a_crawford_score_reads_the_crawford_mark() -> None:
    """A record that starts at 4-2 of a 5-point match: its first game is the Crawford game
    if its root says CrawfordGame, else post-Crawford (the Crawford game was played before
    the record starts), as GNU Backgammon reads it; both go through SGF unchanged."""
    actions: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), OfferDouble(1), Drop(0)]
    post = MatchRecord.from_match_actions(actions, rules=Rules(length=5), score=(4, 2),
                                          crawford_reached=True)
    text = sgf.dumps(post)
    assert "CrawfordGame" not in text and "[ws:4][bs:2]" in text
    assert sgf.loads(text) == post
    assert sgf.loads(text).replay().score == (4, 3)
    crawford = MatchRecord.from_match_actions(actions[:2], rules=Rules(length=5), score=(4, 2))
    assert "CrawfordGame" in sgf.dumps(crawford)
    assert sgf.loads(sgf.dumps(crawford)) == crawford
    with pytest.raises(SgfFormatError, match="the Crawford game has no cube"):
        sgf.loads(text.replace("RU[Crawford]", "RU[Crawford:CrawfordGame]"))
