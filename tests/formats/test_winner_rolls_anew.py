"""Match files of a "winner rolls anew" match: the
winner's new roll is written as the first move's dice (a double included), the deciding
opening throw in an extension GNU Backgammon ignores, and the file reads back to the same
record in gammon."""

from __future__ import annotations

import pytest

from gammon.core.actions import PlayMove, RollDice, RollOpening
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.match import Rules
from gammon.formats import mat, sgf
from gammon.formats.mat import MatFormatError
from gammon.formats.matchfile import MatchRecord
from gammon.formats.sgf import SgfFormatError

ANEW = Rules(length=3, winner_rolls_anew=True)


def _record() -> MatchRecord:
    """Player 1 wins the opening 2-5 after a 4-4 tie, then rolls 6-6 anew and plays it."""
    opening = RollOpening(OpeningRoll(first=1, roll=Roll(6, 6), throws=((4, 4), (2, 5))))
    return MatchRecord.from_match_actions(
        [opening, PlayMove(1, "24/18(2) 13/7(2)"), RollDice(0, Roll(3, 1)),
         PlayMove(0, "8/5 6/5")], rules=ANEW, players=("Alice", "Bob"))


def test_the_record_keeps_the_option_and_the_deciding_throw() -> None:
    record = _record()
    assert record.rules.winner_rolls_anew
    opening = record.games[0].actions[0]
    assert isinstance(opening, RollOpening)
    assert opening.opening.throws == ((2, 5),) and opening.opening.roll == Roll(6, 6)


def test_mat_writes_the_new_roll_as_the_first_move_and_reads_it_back() -> None:
    text = mat.dumps(_record())
    assert '; [WinnerRollsAnew "On"]' in text and '; [OpeningThrows "25"]' in text
    assert "  1)                             66: 24/18 24/18 13/7 13/7" in text
    assert "  2) 31: 8/5 6/5" in text
    assert mat.loads(text) == _record()


def test_sgf_writes_the_new_roll_as_the_first_move_and_reads_it_back() -> None:
    text = sgf.dumps(_record())
    assert "RU[Crawford:WinnerRollsAnew]XT[25]" in text
    assert ";B[66" in text
    assert sgf.loads(text) == _record()


def test_a_mat_file_without_the_opening_throw_is_refused_clearly() -> None:
    text = mat.dumps(_record()).replace('; [OpeningThrows "25"]\n', "")
    with pytest.raises(MatFormatError, match="OpeningThrows"):
        mat.loads(text)
    bad = mat.dumps(_record()).replace('"25"', '"33"')
    with pytest.raises(MatFormatError, match="two different dice"):
        mat.loads(bad)
    wrong = mat.dumps(_record()).replace('"25"', '"52"')  # says player 0 won the opening
    with pytest.raises(MatFormatError, match="higher die moves first"):
        mat.loads(wrong)


def test_an_sgf_file_without_the_opening_throw_is_refused_clearly() -> None:
    with pytest.raises(SgfFormatError, match="XT"):
        sgf.loads(sgf.dumps(_record()).replace("XT[25]", ""))


def test_without_the_option_a_double_opening_is_still_refused() -> None:
    text = mat.dumps(_record()).replace('; [WinnerRollsAnew "On"]\n', "")
    with pytest.raises(MatFormatError, match="cannot be a double"):
        mat.loads(text)
