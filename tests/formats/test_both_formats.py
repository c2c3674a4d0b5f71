"""One match, two file formats, one behaviour.

``.mat`` and SGF files are read by one match-record builder (gammon.formats.builder): each
reader only parses its syntax. Every test here writes the SAME logical match in both formats
(the writers' output, then the same edit made in each syntax) and expects the same record,
or the same error naming the line of the offending text in each file.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from gammon.core.actions import (
    AcceptResign,
    Action,
    Beaver,
    Drop,
    OfferDouble,
    OfferResign,
    PlayMove,
    RollDice,
    Take,
)
from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.events import EndKind
from gammon.core.game import Phase
from gammon.core.match import Match, Rules
from gammon.formats import mat, sgf
from gammon.formats.builder import MatchFileError
from gammon.formats.matchfile import MatchRecord
from tests.formats.test_mat import _opening

Edit = Callable[[str], str]


def _swap(old: str, new: str) -> Edit:
    def edit(text: str) -> str:
        assert old in text, (old, text)
        return text.replace(old, new, 1)

    return edit


def _record(actions: list[Action], rules: Rules) -> MatchRecord:
    return MatchRecord.from_match_actions(actions, rules=rules, players=("Alice", "Bob"))


# Alice doubled to 2 by Bob and took; Bob resigns a gammon on his turn: 4 points.
RESIGNED = _record(
    [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), OfferDouble(1), Take(0),
     RollDice(1, Roll(5, 2)), PlayMove(1, "13/8 13/11"), RollDice(0, Roll(6, 4)),
     PlayMove(0, "24/14"), OfferResign(1, Level.GAMMON), AcceptResign(0)],
    Rules(length=5))

# Alice doubles, Bob drops: 1 point.
DROPPED = _record(
    [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), RollDice(1, Roll(5, 2)),
     PlayMove(1, "13/8 13/11"), OfferDouble(0), Drop(1)],
    Rules(length=3))

# DROPPED, then a second game Bob opens.
TWO_GAMES = _record(
    [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), RollDice(1, Roll(5, 2)),
     PlayMove(1, "13/8 13/11"), OfferDouble(0), Drop(1),
     _opening(1, 4, 2), PlayMove(1, "8/4 6/4")],
    Rules(length=3))

# Three turns played, Bob on roll.
UNFINISHED = _record(
    [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), RollDice(1, Roll(5, 2)),
     PlayMove(1, "13/8 13/11"), RollDice(0, Roll(6, 4)), PlayMove(0, "24/14")],
    Rules(length=3))

# A money session: Bob doubles, Alice beavers (the cube goes to 4, Alice's).
BEAVERED = _record(
    [_opening(0, 4, 1), PlayMove(0, "13/9 6/5"), OfferDouble(1), Beaver(0)],
    Rules(beavers=True))


@dataclass(frozen=True)
class Case:
    """A record, the same edit in each syntax, and the text each error must point at."""

    name: str
    record: MatchRecord
    mat_edit: Edit
    sgf_edit: Edit
    mat_marker: str = ""
    sgf_marker: str = ""


def _line_of(text: str, marker: str) -> int:
    """The line ``marker`` (found once in ``text``, perhaps over several lines) starts on."""
    assert text.count(marker) == 1, (marker, text)
    return text[: text.index(marker)].count("\n") + 1


def _both(case: Case) -> list[tuple[str, str]]:
    """(format, edited text) for each format."""
    return [
        ("mat", case.mat_edit(mat.dumps(case.record))),
        ("sgf", case.sgf_edit(sgf.dumps(case.record))),
    ]


def _load(fmt: str, text: str) -> MatchRecord:
    return mat.loads(text) if fmt == "mat" else sgf.loads(text)


def _errors(case: Case) -> dict[str, MatchFileError]:
    errors = {}
    for fmt, text in _both(case):
        with pytest.raises(MatchFileError) as raised:
            _load(fmt, text)
        marker = case.mat_marker if fmt == "mat" else case.sgf_marker
        assert raised.value.line == _line_of(text, marker), (fmt, str(raised.value))
        errors[fmt] = raised.value
    return errors


def _message(error: MatchFileError) -> str:
    return re.sub(r"^line \d+: ", "", str(error))


SAME_ERROR = [
    # RE[W+5R] with the cube on 2 once read as a 4-point gammon in SGF
    (Case("resignation points not a multiple of the cube", RESIGNED,
          _swap("Wins 4 points", "Wins 5 points"), _swap("RE[W+4R]", "RE[W+5R]"),
          "Wins 5 points", "RE[W+5R]"),
     "player 1 wins 5 points by a resignation, but with the cube at 2 a resignation "
     "wins 2, 4 or 6"),
    (Case("resignation points below the cube", RESIGNED,
          _swap("Wins 4 points", "Wins 1 point"), _swap("RE[W+4R]", "RE[W+1R]"),
          "Wins 1 point", "RE[W+1R]"),
     "player 1 wins 1 point by a resignation, but with the cube at 2 a resignation "
     "wins 2, 4 or 6"),
    (Case("a finished game's points", DROPPED,
          _swap("Wins 1 point", "Wins 2 points"), _swap("RE[W+1]", "RE[W+2]"),
          "Wins 2 points", "RE[W+2]"),
     "the file says player 1 wins 2 points, but the game ended with player 1 winning "
     "1 point (drop)"),
    (Case("a finished game's winner", DROPPED,
          _swap("      Wins 1 point", " " * 36 + "Wins 1 point"), _swap("RE[W+1]", "RE[B+1]"),
          "Wins 1 point", "RE[B+1]"),
     "the file says player 2 wins 1 point, but the game ended with player 1 winning "
     "1 point (drop)"),
    (Case("score continuity", TWO_GAMES,
          _swap("Alice : 1", "Alice : 0"), _swap("[ws:1]", "[ws:0]"),
          "Alice : 0                      Bob : 0\n  1)                             42",
          "[game:1][ws:0]"),
     "game 2 starts at 0-0, but the games before it end at 1-0"),
    (Case("a game that is not over before the next", TWO_GAMES,
          lambda text: text.replace("  2)  Doubles => 2                Drops\n", "")
          .replace("      Wins 1 point\n", ""),
          lambda text: text.replace(";W[double]\n;B[drop]", "").replace("RE[W+1]", ""),
          "52: 13/8 13/11", "[game:0]"),
     "game 1 is not over, but another game follows"),
    (Case("a roll with legal plays left unplayed", DROPPED,
          _swap("52: 13/8 13/11", "52:"), _swap(";B[52lqln]", ";B[52]"),
          "52:", ";B[52]"),
     "player 2 rolled 52 and has legal plays, but no play is written (and no resignation "
     "follows)"),
    (Case("moves after the game is over", DROPPED,
          _swap("      Wins 1 point\n", "      Wins 1 point\n  4) 21: 13/11 24/23\n"),
          _swap(";B[drop]", ";B[drop]\n;W[21mkxw]"),
          "21: 13/11", ";W[21mkxw]"),
     "the game is over, but player 1 goes on"),
    (Case("a raccoon: the doubler redoubles a beaver at once", BEAVERED,
          _swap("  2)  Beavers => 4", "  2)  Beavers => 4                Doubles => 8"),
          _swap(";B[take]", ";B[double]"),
          "Doubles => 8", ";B[double])"),
     "raccoons (a redouble after a beaver) are not in gammon's rules"),
    (Case("a resignation when it is not the loser's turn", UNFINISHED,
          lambda text: text + " " * 36 + "Wins 1 point\n",
          _swap("RU[Crawford]", "RU[Crawford]RE[B+1R]"),
          "Wins 1 point", "RE[B+1R]"),
     "player 2 wins 1 point before the game is over, so player 1 resigns; gammon's rules "
     "allow resigning only on one's own turn, before the roll or the play"),
    (Case("a double opening roll", UNFINISHED,
          _swap("31: 8/5 6/5", "33: 8/5 6/5"), _swap(";W[31hefe]", ";W[33hefe]"),
          "33:", ";W[33hefe]"),
     "the opening roll cannot be a double: 33"),
    (Case("a cube action before the opening", UNFINISHED,
          _swap("  1) 31: 8/5 6/5      ", "  1)  Doubles => 2    "),
          _swap(";W[31hefe]", ";W[double]\n;W[31hefe]"),
          "Doubles => 2", ";W[double]"),
     "the game starts with the opening roll"),
    (Case("a beaver in a match", DROPPED,
          _swap("Drops", "Beavers => 4"), _swap(";B[drop]", ";B[double]"),
          "Beavers => 4", ";B[double]"),
     None),
]


@pytest.mark.parametrize(("case", "message"), SAME_ERROR, ids=[c.name for c, _ in SAME_ERROR])
def test_both_formats_refuse_the_same_match_with_the_same_error(
    case: Case, message: str | None
) -> None:
    errors = _errors(case)
    assert _message(errors["mat"]) == _message(errors["sgf"])
    if message is not None:
        assert _message(errors["mat"]) == message


def test_both_formats_refuse_an_illegal_play_at_its_line() -> None:
    case = Case("illegal play", DROPPED, _swap("52: 13/8 13/11", "52: 13/8 13/12"),
                _swap(";B[52lqln]", ";B[52lqlm]"), "13/12", ";B[52lqlm]")
    for error in _errors(case).values():
        assert "is not a legal play" in str(error) or "cannot be played" in str(error)


SAME_RECORD = [
    Case("a backgammon resignation at the cube's value", RESIGNED,
         _swap("Wins 4 points", "Wins 6 points"), _swap("RE[W+4R]", "RE[W+6R]")),
    Case("a money session's beaver with beavers unsaid", BEAVERED,
         _swap('; [Beaver "On"]\n', ""), _swap("RU[Beavers]", "")),
]


@pytest.mark.parametrize("case", SAME_RECORD, ids=[c.name for c in SAME_RECORD])
def test_both_formats_read_the_same_match_to_the_same_record(case: Case) -> None:
    (_, mat_text), (_, sgf_text) = _both(case)
    assert mat.loads(mat_text) == sgf.loads(sgf_text)


def test_a_resignation_reads_its_level_from_points_over_the_cube_in_both_formats() -> None:
    case = SAME_RECORD[0]
    (_, mat_text), (_, sgf_text) = _both(case)
    for record in (mat.loads(mat_text), sgf.loads(sgf_text)):
        result = record.games[0].result
        assert result is not None
        assert (result.kind, result.level, result.points) == (EndKind.RESIGN,
                                                              Level.BACKGAMMON, 6)


def _jacoby_gammon() -> MatchRecord:
    """A money game under the Jacoby rule won by a gammon with the cube never turned (it
    scores 1, the level times the cube is 2): random plays, a seed found to give one."""
    rules = Rules(jacoby=True)
    rng = random.Random(3)
    match = Match.new(rules)
    actions: list[Action] = []
    while match.phase is not Phase.GAME_OVER:
        game = match.game
        if match.phase is Phase.OPENING:
            action: Action = match.opening_action(rng)
        elif match.phase is Phase.BEFORE_ROLL:
            action = game.roll_action(rng)
        else:
            action = PlayMove(game.turn, rng.choice(game.remaining_plays()))
        match, _ = match.apply(action)
        actions.append(action)
    record = _record(actions, rules)
    result = record.games[0].result
    assert result is not None and result.kind is EndKind.GAMMON and result.points == 1
    return record


def test_both_writers_claim_the_points_a_jacoby_gammon_scored() -> None:
    """The Jacoby rule (RULES.md: gnubg's option): a gammon with the cube never turned scores
    1. Both files say so, as GNU Backgammon scores it and writes its SGF ``RE`` (its
    ``nPoints``): ``Wins 1 point`` and ``RE[W+1]``, the .mat's next game starting at 1-0."""
    record = _jacoby_gammon()
    follow = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5")]
    record = _record([*record.actions(), *follow], record.rules)
    assert record.games[1].score in ((1, 0), (0, 1))
    alice, bob = record.games[1].score
    mat_text, sgf_text = mat.dumps(record), sgf.dumps(record)
    assert re.findall(r"Wins \d+ points?", mat_text) == ["Wins 1 point"]
    assert re.search(rf" Game 2\n Alice : {alice} +Bob : {bob}\n", mat_text)
    assert re.findall(r"RE\[[WB]\+\d+R?\]", sgf_text) == [f"RE[{'WB'[bob]}+1]"]
    assert mat.loads(mat_text) == record == sgf.loads(sgf_text)


def test_both_writers_claim_a_resigned_jacoby_gammon_as_a_gammon() -> None:
    """A resignation says its level by its points (points / cube, as GNU Backgammon reads
    it): a gammon resigned with the cube centred under the Jacoby rule is written 2 in both
    files, though gammon's core scores it 1, and reads back as a gammon resignation."""
    actions: list[Action] = [_opening(1, 5, 2), PlayMove(1, "13/8 13/11"),
                             RollDice(0, Roll(6, 6)), OfferResign(0, Level.GAMMON),
                             AcceptResign(1)]
    record = _record(actions, Rules(jacoby=True))
    assert record.replay().score == (0, 1)
    mat_text, sgf_text = mat.dumps(record), sgf.dumps(record)
    assert "Wins 2 points" in mat_text and "RE[B+2R]" in sgf_text
    for back in (mat.loads(mat_text), sgf.loads(sgf_text)):
        assert back == record
        result = back.games[0].result
        assert result is not None and (result.kind, result.level) == (EndKind.RESIGN,
                                                                      Level.GAMMON)


@pytest.mark.parametrize("points", [1, 2])
def test_a_jacoby_gammon_reads_with_either_its_score_or_level_times_cube(points: int) -> None:
    """GNU Backgammon's SGF (and gammon's writers) write a game's scored points (1 under the
    Jacoby rule), GNU Backgammon's .mat export the level times the cube (2): both formats
    accept either for such a game."""
    record = _jacoby_gammon()
    mat_text = re.sub(r"Wins \d+ points?", f"Wins {points} point{'s' if points > 1 else ''}",
                      mat.dumps(record))
    sgf_text = re.sub(r"RE\[W\+\d+\]", f"RE[W+{points}]", sgf.dumps(record))
    assert mat.loads(mat_text) == record == sgf.loads(sgf_text)


def test_both_format_errors_are_one_error_type() -> None:
    assert issubclass(mat.MatFormatError, MatchFileError)
    assert issubclass(sgf.SgfFormatError, MatchFileError)
