"""The server's settings: the analysis depths are checked when the server starts."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gammon.server.settings import Settings


def settings(**values: Any) -> Settings:
    return Settings(database_url="sqlite+aiosqlite:///unused.db", _env_file=None,  # type: ignore[call-arg]
                    **values)


def test_the_deep_analysis_is_the_deeper_depth_a_request_may_ask_for() -> None:
    assert settings().deep_plies == 2  # quick 1-ply, deep 2-ply, at most 2
    assert settings(analysis_deep_plies=0).deep_plies is None  # off
    assert settings(analysis_plies=2).deep_plies is None  # not deeper than the quick one
    assert settings(analysis_max_plies=1).deep_plies is None  # deeper than allowed
    assert settings(analysis_plies=0, analysis_deep_plies=1).deep_plies == 1


@pytest.mark.parametrize("values", [
    {"analysis_max_plies": 3}, {"analysis_max_plies": -1},
    {"analysis_plies": 2, "analysis_max_plies": 1}, {"analysis_plies": -1},
    {"analysis_deep_plies": 3}, {"analysis_recheck_games": 1},
    {"analysis_recheck_games": -5}, {"analysis_recheck_truncate": 0},
])
def test_impossible_analysis_settings_stop_the_server_with_their_reason(
        values: dict[str, int]) -> None:
    with pytest.raises(ValidationError) as error:
        settings(**values)
    assert next(iter(values)) in str(error.value)


@pytest.mark.parametrize("scale", [0, -1, float("inf"), float("nan")])
def test_a_clock_scale_that_is_not_a_positive_number_stops_the_server(scale: float) -> None:
    """Found at start-up, not as every new match's 400 (a player's fault it is not)."""
    with pytest.raises(ValidationError, match="clock_scale"):
        settings(clock_scale=scale)
