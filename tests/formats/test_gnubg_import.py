"""GNU Backgammon itself imports gammon's files of a "winner rolls anew" match: the first
move is the winner's new roll, a double here, and GNU Backgammon must report every roll,
play and result as gammon has them; and the files of a money session under the Jacoby rule,
whose points both formats write alike. Runs where GNU Backgammon is installed (``apt-get
install gnubg``), through scripts/check_match_files_with_gnubg.py, which compares what GNU
Backgammon reports with what gammon expects."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

from gammon.core.actions import AcceptResign, OfferResign, PlayMove, RollDice
from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.formats import mat, sgf
from tests.formats.test_both_formats import _jacoby_gammon
from tests.formats.test_both_formats import _record as _money_record
from tests.formats.test_mat import _opening
from tests.formats.test_winner_rolls_anew import _record

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_match_files_with_gnubg.py"


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_match_files_with_gnubg", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gnubg_imports_a_winner_rolls_anew_match(tmp_path: Path) -> None:
    checker = _checker()
    if not os.access(checker.GNUBG, os.X_OK):
        pytest.skip(f"GNU Backgammon is not installed ({checker.GNUBG})")
    record = _record()
    files = []
    for codec, suffix in ((mat, ".mat"), (sgf, ".sgf")):
        path = tmp_path / f"anew{suffix}"
        codec.dump(record, path)
        files.append({"path": str(path), "cube": True})
    reported = checker._run_gnubg({"job": "import", "files": files})
    for item in files:
        path = item["path"]
        got = reported[path]
        problems = checker._compare(
            checker._expected_view(record, mat_file=path.endswith(".mat")), got)
        problems += checker._warnings(got.get("output", ""))
        assert problems == [], path
        assert got["games"][0]["actions"][0] == [1, "move", [6, 6],
                                                 [[13, 7], [13, 7], [24, 18], [24, 18]]]


def test_gnubg_imports_both_files_of_a_jacoby_session_with_the_points_they_claim(
        tmp_path: Path) -> None:
    """A Jacoby gammon with the cube never turned (written 1 in both files) and a gammon
    resigned with the cube centred (written 2, the level times the cube): GNU Backgammon,
    set to the Jacoby rule, reports each game's points as gammon writes them, warning of
    nothing, from the .mat and from the SGF file."""
    checker = _checker()
    if not os.access(checker.GNUBG, os.X_OK):
        pytest.skip(f"GNU Backgammon is not installed ({checker.GNUBG})")
    played = _jacoby_gammon()
    second = [_opening(1, 5, 2), PlayMove(1, "13/8 13/11"), RollDice(0, Roll(6, 6)),
              OfferResign(0, Level.GAMMON), AcceptResign(1)]
    record = _money_record([*played.actions(), *second], played.rules)
    files = []
    for codec, suffix in ((mat, ".mat"), (sgf, ".sgf")):
        path = tmp_path / f"jacoby{suffix}"
        codec.dump(record, path)
        files.append({"path": str(path), "cube": True, "jacoby": True})
    reported = checker._run_gnubg({"job": "import", "files": files})
    for item in files:
        got = reported[item["path"]]
        problems = checker._compare(
            checker._expected_view(record, mat_file=item["path"].endswith(".mat")), got)
        problems += checker._warnings(got.get("output", ""))
        assert problems == [], item["path"]
        assert [(g["points"], g["resigned"]) for g in got["games"]] == [(1, False), (2, True)]
