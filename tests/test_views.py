"""The match configuration (:class:`gammon.views.MatchConfig`): what it accepts, what it
refuses and why, and its stored form."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gammon.views import CLOCK_KINDS, MATCH_KINDS, ConfigError, MatchConfig, config_view


@pytest.mark.parametrize(("fields", "reason"), [
    ({"kind": "tournament"}, "kind: one of single, money, match, got 'tournament'"),
    ({"clock": "fischer"}, "clock: one of none, italian, italian_per_point, polish"),
    ({"length": 0}, "length: a whole number of points from 1 to 25, got 0"),
    ({"length": 26}, "length: a whole number of points from 1 to 25, got 26"),
    ({"length": 3.0}, "length: a whole number of points from 1 to 25, got 3.0"),
    ({"length": True}, "length: a whole number of points from 1 to 25, got True"),
    ({"kind": "money", "length": 5}, "length: a single game or money session has no length"),
    ({"kind": "single", "length": 3}, "length: a single game or money session has no length"),
    ({"bot": 0}, "bot: a level from 1 to 5, got 0"),
    ({"bot": 6}, "bot: a level from 1 to 5, got 6"),
    ({"bot": "1"}, "bot: a level from 1 to 5, got '1'"),
    ({"bot": 2, "clock": "polish"}, "clock: a game against the server's bot has no clock"),
    ({"cube": 1}, "cube: true or false, got 1"),
    ({"private": "yes"}, "private: true or false, got 'yes'"),
    ({"clock_scale": 0}, "clock_scale: a positive number, got 0"),
    ({"clock_scale": float("inf")}, "clock_scale: a positive number, got inf"),
    ({"clock_scale": True}, "clock_scale: a positive number, got True"),
])
def test_a_configuration_the_rules_refuse_is_never_made(fields: dict[str, Any],
                                                         reason: str) -> None:
    with pytest.raises(ConfigError) as refused:
        MatchConfig(**fields)
    assert str(refused.value).startswith(reason)


@pytest.mark.parametrize("kind", MATCH_KINDS)
@pytest.mark.parametrize("clock", CLOCK_KINDS)
def test_every_kind_and_clock_is_accepted(kind: Any, clock: Any) -> None:
    config = MatchConfig(kind=kind, clock=clock, length=7 if kind == "match" else 1)
    assert (config.kind, config.clock) == (kind, clock)


def test_a_creators_choices_count_the_length_only_in_a_match_and_no_clock_with_the_bot(
        ) -> None:
    choices: dict[str, Any] = {
        "length": 9, "cube": True, "clock": "polish", "bot": None, "jacoby": True,
        "beavers": True, "winner_rolls_anew": False, "private": False, "clock_scale": 1.0}
    assert MatchConfig.chosen(kind="match", **choices).length == 9
    money = MatchConfig.chosen(kind="money", **choices)
    assert (money.length, money.points, money.jacoby_rule, money.beavers_rule) == \
        (1, 0, True, True)
    single = MatchConfig.chosen(kind="single", **choices)
    assert (single.length, single.points, single.jacoby_rule) == (1, 1, False)
    assert MatchConfig.chosen(kind="match", **{**choices, "bot": 3}).clock == "none"
    with pytest.raises(ConfigError, match="length: a whole number"):
        MatchConfig.chosen(kind="match", **{**choices, "length": 40})


def test_the_stored_form_round_trips_and_a_missing_field_takes_its_default() -> None:
    config = MatchConfig(kind="match", length=5, clock="italian", private=True,
                         clock_scale=0.5)
    assert json.loads(config.to_json()) == config_view(config)
    assert MatchConfig.from_json(config.to_json()) == config
    assert MatchConfig.from_json("{}") == MatchConfig()


@pytest.mark.parametrize(("text", "reason"), [
    ("[1, 2]", "not a match configuration"),
    ("{not json", "not a match configuration"),
    ('{"colour": "red"}', "not a match configuration"),
    ('{"kind": "poker"}', "kind: one of"),
])
def test_a_stored_form_that_is_not_a_configuration_is_refused(text: str, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason):
        MatchConfig.from_json(text)
