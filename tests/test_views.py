"""Every view the system sends is of its type, exactly (gammon.views, validated strictly by
the wire's checker: no field missing, none unknown, none of a wrong type): the game and
event views over every state a game passes through (random walks of the core's match state
machine, every event type met), and the clock views of every kind of clock; the match
configuration (:class:`gammon.views.MatchConfig`): what it accepts, what it refuses and why,
and its stored form; the game view's ``match_id``."""

from __future__ import annotations

import json
import random
from typing import Any, get_args

import pytest

from gammon import views
from gammon.core import actions as A
from gammon.core.clock import Clock
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.events import Event
from gammon.core.game import Rules
from gammon.core.match import Match, Phase
from gammon.core.moves import legal_plays
from gammon.formats.match_id import MatchKey
from gammon.server import protocol
from gammon.server.fairness import FairDice, new_seed
from gammon.server.rooms import clock_settings
from gammon.views import CLOCK_KINDS, MATCH_KINDS, ConfigError, MatchConfig, config_view


def update_errors(events: list[Any], game: Any = None, clock: Any = None) -> list[str]:
    return protocol.server_message_errors({"type": "update", "match": "m", "v": 0,
                                           "events": events, "game": game, "clock": clock})


def walk(rules: Rules, seed: int, steps: int = 1500) -> tuple[set[str], list[str]]:
    """A random walk of a match from its start (every legal action may be chosen): the
    event types met, and every problem of a game view or an event view on the way."""
    rng = random.Random(seed)
    dice = FairDice(new_seed(), ["", ""])
    match = Match.new(rules)
    rolls = 0
    seen: set[str] = set()
    problems: list[str] = []
    for _ in range(steps):
        if match.is_over:
            break
        game = match.game
        action: A.Action
        if match.phase in (Phase.OPENING, Phase.GAME_OVER):
            action, rolls = match.opening_action(dice.source(rolls)), rolls + 1
        else:
            options = list(game.legal_actions())
            if match.phase is Phase.BEFORE_ROLL and (not options or rng.random() < 0.8):
                action, rolls = game.roll_action(dice.source(rolls)), rolls + 1
            elif match.phase is Phase.MOVING and not game.steps and rng.random() < 0.5:
                plays = legal_plays(game.position, game.roll)  # type: ignore[arg-type]
                action = A.PlayMove(game.turn, rng.choice(plays))
            else:
                # resignations end games fast: seldom offered, mostly refused
                offers: list[A.Action] = [o for o in options
                                          if not isinstance(o, A.OfferResign)]
                if offers and rng.random() < 0.97:
                    options = offers
                action = rng.choice(options)
        match, events = match.apply(action)
        views_ = [views.event_view(e, v=1) for e in events]
        seen |= {e["type"] for e in views_}
        problems += update_errors(list(views_), views.game_view(match))
    if not match.is_over:
        match, events = match.apply(A.Abandon(match.game.turn))
        seen |= {views.event_view(e, v=1)["type"] for e in events}
        problems += update_errors([views.event_view(e, v=1) for e in events],
                                  views.game_view(match))
    return seen, problems


def test_every_game_and_event_view_of_random_matches_is_of_its_type() -> None:
    seen: set[str] = set()
    for seed in range(4):
        for rules in (Rules(length=3), Rules(length=0, beavers=True, jacoby=True),
                      Rules(length=1, cube=False, winner_rolls_anew=True)):
            found, problems = walk(rules, seed)
            assert problems == []
            seen |= found
    core_types = {views.event_type(cls) for cls in get_args(Event)}
    assert seen == core_types  # every event met at least once


def test_a_view_with_a_field_too_many_or_missing_is_refused() -> None:
    match = Match.new(Rules(length=3))
    match, _ = match.apply(match.opening_action(FairDice(new_seed(), ["", ""]).source(0)))
    game = views.game_view(match)
    assert game["phase"] == "moving" and update_errors([], game) == []
    assert update_errors([], {**game, "extra": 1}) != []
    assert update_errors([], {k: v for k, v in game.items() if k != "board"}) != []
    assert update_errors([], {**game, "turn": "0"}) != []
    assert update_errors([], {**game, "can_undo": 1}) != []


@pytest.mark.parametrize("kind", [k for k in CLOCK_KINDS if k != "none"])
def test_clock_views_are_of_their_type(kind: Any) -> None:
    clock = Clock.start(clock_settings(kind), match_length=5).start_action(0, 1000.0)
    for now in (1000.0, 1010.0, 1100.0, 5000.0):
        assert update_errors([], None, views.clock_view(clock, kind, now)) == []
    assert update_errors([views.clock_paused_view(0, 12.3456, v=3)]) == []

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


def test_the_stored_form_round_trips_a_missing_field_takes_its_default_an_unknown_one_is_ignored(
        ) -> None:
    config = MatchConfig(kind="match", length=5, clock="italian", private=True,
                         clock_scale=0.5)
    assert json.loads(config.to_json()) == config_view(config)
    assert MatchConfig.from_json(config.to_json()) == config
    assert MatchConfig.from_json("{}") == MatchConfig()
    # a field a newer version writes, read during a rolling upgrade
    assert MatchConfig.from_json('{"length": 5, "kind": "match", "colour": "red"}'
                                 ) == MatchConfig(kind="match", length=5)


@pytest.mark.parametrize(("text", "reason"), [
    ("[1, 2]", "not a match configuration"),
    ("{not json", "not a match configuration"),
    ('{"kind": "match", "length": "five"}', "length"),
    ('{"kind": "poker"}', "kind: one of"),
])
def test_a_stored_form_that_is_not_a_configuration_is_refused(text: str, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason):
        MatchConfig.from_json(text)


def test_the_game_view_carries_the_match_id_of_the_decision_it_waits_for() -> None:
    match = Match.new(Rules(length=7), score=(6, 3))  # the Crawford game
    assert views.game_view(match)["match_id"] is None  # the opening: no one decides
    match, _ = match.apply(A.RollOpening(OpeningRoll(1, Roll(5, 2), ((2, 5),))))
    view = views.game_view(match)
    assert view["match_id"] is not None
    key = MatchKey.from_id(view["match_id"])
    assert (key.match_length, key.score, key.crawford) == (7, (6, 3), True)
    assert (key.dice, key.dice_owner, key.turn) == ((5, 2), 1, 1) == (
        tuple(view["dice"] or ()), view["turn"], view["turn"])
    # GNU Backgammon printed this ID in the same state (tests/data/match_id_reference.tsv)
    assert view["match_id"] == "8InqAGAAGAAE"


def test_a_turn_ended_event_carries_its_play_in_the_core_s_notation() -> None:
    from gammon.core.dice import Roll
    from gammon.core.events import TurnEnded
    from gammon.core.moves import legal_plays
    from gammon.core.position import Position

    (play,) = [p for p in legal_plays(Position.initial(), Roll(3, 1))
               if p.notation() == "8/5 6/5"]
    shuffled = tuple(reversed(play.moves))  # the order the steps were played in
    played, passed = views.event_view(TurnEnded(0, shuffled), 9), views.event_view(
        TurnEnded(1, ()), 10)
    assert played["type"] == passed["type"] == "turn_ended"
    assert (played["play"], passed["play"]) == ("8/5 6/5", "")
