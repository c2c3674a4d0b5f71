"""The client's modules that need no browser, in Node (tests/client/js/*.test.mjs, Node's
own test runner, ``node --test``), so the project's test command runs them: the pure
modules' unit tests and the match page's controller (round/ctrl.js) driven through its live
feed with no DOM. Skipped, with the reason, when Node.js is missing.

The client keeps a few facts of the game for itself (src/gammon/client/rules.js): the tests
check them against the core on the positions of tests/data/movegen_reference.tsv (each
position's pips, bar and borne-off checkers, and some of its legal plays: their moves,
their notation and the board after them), and the dice check (fairness.js) against
``gammon verify`` on the same records. This module writes what the core says of them to a
JSON file that the JavaScript tests read (``GAMMON_CORE_FACTS``)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.server.fairness import verify

HERE = Path(__file__).resolve().parent
JS_TESTS = HERE / "js"
MOVEGEN_REFERENCE = HERE.parent / "data" / "movegen_reference.tsv"
PLAYS_A_POSITION = 4
"""Legal plays kept of each reference position (spread over its list)."""


def core_facts() -> dict[str, Any]:
    """What the core says of the reference positions, and the dice check's verdicts."""
    positions = []
    with MOVEGEN_REFERENCE.open(encoding="utf-8", newline="") as table:
        for row in csv.DictReader(table, delimiter="\t"):
            position = Position.from_id(row["position_id"])
            dice = row["dice"]
            plays = legal_plays(position, Roll(int(dice[0]), int(dice[1])))
            step = max(1, len(plays) // PLAYS_A_POSITION)
            positions.append({
                "position_id": row["position_id"], "dice": [int(dice[0]), int(dice[1])],
                "board": list(position.board), "pips": list(position.pips()),
                "on_bar": list(position.on_bar()), "borne_off": list(position.borne_off()),
                "plays": [{"moves": [{"from": m.source, "to": m.destination, "hit": m.hit}
                                     for m in play.moves],
                           "notation": play.notation(), "after": list(play.position.board)}
                          for play in plays[::step][:PLAYS_A_POSITION]],
            })
    from tests.client.test_fairness import _cases

    records = [{"record": record, "fair": not verify(record)} for record in _cases()]
    return {"initial": list(Position.initial().board), "positions": positions,
            "fairness": records}


def test_the_client_modules_pass_their_node_tests(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is missing (apt-get install nodejs)")
    files = sorted(str(path) for path in JS_TESTS.glob("*.test.mjs"))
    assert files, f"no unit tests in {JS_TESTS}"
    facts = tmp_path / "core_facts.json"
    facts.write_text(json.dumps(core_facts()), encoding="utf-8")
    done = subprocess.run([node, "--test", *files], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "GAMMON_CORE_FACTS": str(facts)})
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
    assert "# skipped 0" in done.stdout, f"a test was skipped:\n{done.stdout}"
