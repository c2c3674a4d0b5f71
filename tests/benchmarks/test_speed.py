"""The speed benchmark (benchmarks/speed.py): which decisions it times."""

from __future__ import annotations

from pathlib import Path

import pytest

from gammon.engine.player import Engine
from tests.benchmarks.load import benchmark

speed = benchmark("speed")
ROOT = Path(__file__).parents[2]
FIRST_GENERATION = ROOT / "training/checkpoints/td-h128-seed1.npz"


def test_two_networks_are_timed_on_the_same_decisions_with_positions_from(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Networks that play differently meet different positions in their own self-play;
    --positions-from draws the decisions from one file's networks, whatever is timed."""
    timed: list[list[tuple[object, object]]] = []
    original = speed.time_decisions

    def recording(engine: Engine, decisions: list[tuple[object, object]], plies: int,
                  context: object = None) -> tuple[list[float], list[float]]:
        timed.append(decisions)
        return original(engine, decisions, plies, context)  # type: ignore[no-any-return]

    monkeypatch.setattr(speed, "time_decisions", recording)
    small = ["--positions", "12", "--positions-1ply", "1", "--positions-2ply", "1",
             "--training-games", "0"]
    assert speed.main([*small, "--weights", str(FIRST_GENERATION)]) == 0
    own = timed[0]
    timed.clear()
    assert speed.main([*small, "--positions-from", str(FIRST_GENERATION)]) == 0
    assert "of " + str(FIRST_GENERATION) in capsys.readouterr().out
    assert [(p.id(), r) for p, r in timed[0]] == [(p.id(), r) for p, r in own]
    shipped = speed.self_play_decisions(Engine.load(), 12, 1)
    assert [(p.id(), r) for p, r in shipped] != [(p.id(), r) for p, r in own]
