"""PROTOCOL.md agrees with the wire's types (gammon.server.protocol, gammon.views): every
message and event the tables list has exactly the fields of its type, the optional ones
marked ``?``, and every type is listed. A change to a message that the document does not
follow fails here."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any, NotRequired, get_args, get_origin

import pytest
from typing_extensions import is_typeddict

from gammon import views
from gammon.core import events as core_events
from gammon.server import protocol
from gammon.server.routes.deps import status_of

DOC = (Path(__file__).resolve().parents[2] / "PROTOCOL.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text under a heading, up to the next heading of any level."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ )", DOC + "\n# end",
                      re.MULTILINE | re.DOTALL)
    assert match, f"PROTOCOL.md has no section {title!r}"
    return match.group(1)


def table(text: str) -> list[list[str]]:
    """The rows (cells) of the first Markdown table in ``text``, header and rule left out."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def names(cell: str) -> dict[str, bool]:
    """The backticked field names of a cell, each with whether it is optional (``?``);
    what is in parentheses, or after a dash, describes a field and is left out."""
    cell = cell.split(" — ")[0]
    while True:
        stripped = re.sub(r"\([^()]*\)", "", cell)
        if stripped == cell:
            break
        cell = stripped
    return {name: optional == "?" for name, optional in re.findall(r"`([a-z_]+)`(\??)", cell)}


def keys(typed: Any) -> dict[str, bool]:
    """A TypedDict's keys, each with whether it is optional (``NotRequired``; read from the
    evaluated hints: the modules' postponed annotations hide it from ``__optional_keys__``)."""
    hints = typing.get_type_hints(typed, include_extras=True)
    return {name: get_origin(hint) is NotRequired for name, hint in hints.items()}


def by_type(union: Any) -> dict[str, Any]:
    """The members of a union of TypedDicts by their ``type`` values."""
    out = {}
    for member in get_args(union):
        for value in get_args(typing.get_type_hints(member)["type"]):
            out[value] = member
    return out


def test_every_server_message_is_listed_with_exactly_its_fields() -> None:
    messages = by_type(get_args(protocol.ServerMessage)[0])
    documented = {}
    for cells in table(section("Server → client")):
        (kind,) = re.findall(r"`([a-z_]+)`", cells[0])
        documented[kind] = {"type": False, **names(cells[1])}
    assert set(documented) == set(messages)
    for kind, fields in documented.items():
        assert fields == keys(messages[kind]), kind


def test_every_event_is_listed_with_exactly_its_fields() -> None:
    events = by_type(views.EventView)
    documented = {}
    for cells in table(section("Events")):
        for kind in re.findall(r"`([a-z_]+)`", cells[0]):
            documented[kind] = {"type": False, "v": False, **names(cells[1])}
    assert set(documented) == set(events)
    for kind, fields in documented.items():
        assert fields == keys(events[kind]), kind


VIEW_ONLY = {"turn_ended": {"play"}}
"""The fields an event's view adds to the core event's (the play in notation)."""


def test_every_core_event_has_a_view_with_its_fields() -> None:
    events = by_type(views.EventView)
    for cls in get_args(core_events.Event):
        kind = views.event_type(cls)
        view = events[kind]
        assert set(keys(view)) == {"type", "v", *cls.__dataclass_fields__,
                                   *VIEW_ONLY.get(kind, ())}, cls


def test_every_client_message_is_listed_with_exactly_its_fields() -> None:
    models: dict[str, Any] = {}
    for model in get_args(get_args(protocol.ClientMessage)[0]):
        for kind in get_args(model.model_fields["type"].annotation):
            models[kind] = model
    documented = {}
    for cells in table(section("Client → server")):
        for kind in re.findall(r"`([a-z_]+)`", cells[0]):
            documented[kind] = names(cells[1])
    assert set(documented) == set(models) == protocol.TYPES
    for kind, fields in documented.items():
        model = models[kind]
        # ``id`` (every message) and ``v`` (match actions) are described above the table
        expected = {(field.alias or name): not field.is_required()
                    for name, field in model.model_fields.items()
                    if name not in ("type", "id", "v")}
        assert fields == expected, kind


def test_the_error_codes_are_those_the_server_sends() -> None:
    text = section("Error codes").split("HTTP errors")[0]
    assert set(names(text)) == set(get_args(protocol.ErrorCode))


def test_the_http_error_codes_are_listed_with_their_status() -> None:
    """Every reason code of an HTTP refusal is in PROTOCOL.md's table, with the status the
    server answers it with."""
    documented = {}
    for cells in table(section("HTTP error codes")):
        (code,) = re.findall(r"`([a-z_]+)`", cells[0])
        documented[code] = int(cells[1])
    assert set(documented) == set(get_args(protocol.HTTPErrorCode))
    assert documented == {code: status_of(code) for code in documented}


def test_the_game_example_has_every_field_of_the_game_view() -> None:
    text = DOC.split("`game` (null before the match starts):")[1]
    example = json.loads(text.split("```json")[1].split("```")[0])
    assert set(example) == set(keys(views.GameView))
    for name, value in example["cube"].items():
        assert name in keys(views.CubeStateView) and (value is None or value is not ...)


def test_the_info_list_has_every_field_of_the_info_view() -> None:
    text = DOC.split("`info` (also `GET /api/games/{id}`):")[1].split("\n\n")[0]
    assert names(text) == {k: False for k in keys(views.InfoView)}


def test_the_clock_example_has_every_field_of_the_clock_view() -> None:
    text = DOC.split("`clock` (null when untimed):")[1].split("\n\n")[0]
    found = set(re.findall(r'"([a-z_]+)":', text))
    assert found == set(keys(views.ClockView)) | set(keys(views.ClockSideView))


@pytest.mark.parametrize("name", ["hint", "eval"])
def test_the_engine_examples_have_the_fields_of_their_views(name: str) -> None:
    text = section("The engine")
    if name == "hint":
        example = text.split("```json")[1].split("```")[0].replace(", ...", "")
        answer = json.loads(example)
        assert set(answer) == set(keys(views.HintView))
        assert set(answer["plays"][0]) == set(keys(views.RankedPlayView))
        assert set(answer["plays"][0]["probabilities"]) == set(views.PROBABILITIES)
    else:
        listed = text.split("`POST /api/eval`")[1].split("→")[1].split(": the side")[0]
        found = set(re.findall(r'"([a-z_]+)"', listed)) - {"gammon"}  # a value
        assert found | {"cube"} == set(keys(views.EvalView))


def test_every_view_and_message_type_validates_strictly() -> None:
    """Each TypedDict of the wire refuses unknown fields (the pydantic config is set)."""
    for module in (views, protocol):
        for value in vars(module).values():
            if is_typeddict(value) and value.__module__ == module.__name__:
                assert value.__pydantic_config__ == {"extra": "forbid", "strict": True}, value


def test_the_puzzle_examples_are_answers_of_their_types() -> None:
    """The next puzzle, the steps and the verdict in *Puzzles* validate strictly as the
    answers of ``GET /api/puzzles/next``, ``POST /api/puzzles/{id}/steps`` and
    ``POST /api/puzzles/{id}/answer``."""
    text = section("Puzzles")
    first, steps, verdict = (json.loads(block.split("```")[0])
                             for block in text.split("```json")[1:4])
    protocol.response_adapter("next_puzzle").validate_python(first)
    protocol.response_adapter("puzzle_steps").validate_python(steps)
    protocol.response_adapter("puzzle_verdict").validate_python(verdict)


def test_the_profile_example_is_an_answer_of_its_type() -> None:
    example = section("Profiles").split("```json")[1].split("```")[0]
    protocol.response_adapter("profile").validate_python(json.loads(example))


def test_the_explorer_examples_are_answers_of_their_types() -> None:
    """The position, the site's choices and the rollout in *The position explorer* validate
    strictly as the answers of ``POST /api/explorer/position``, ``GET
    /api/explorer/choices`` and ``GET /api/explorer/rollouts/{id}``."""
    text = section("The position explorer")
    position, choices, rollout = (json.loads(block.split("```")[0])
                                  for block in text.split("```json")[1:4])
    protocol.response_adapter("explorer_position").validate_python(position)
    protocol.response_adapter("choices").validate_python(choices)
    protocol.response_adapter("rollout").validate_python(rollout)


def test_the_deck_examples_are_answers_of_their_types() -> None:
    """The deck and a review in *My mistakes: the deck* validate strictly as the answers of
    ``GET /api/deck`` and ``POST /api/deck/{id}/review``."""
    text = section("My mistakes: the deck")
    summary, review = (json.loads(block.split("```")[0]) for block in text.split("```json")[1:3])
    protocol.response_adapter("deck").validate_python(summary)
    protocol.response_adapter("deck_review").validate_python(review)


def test_the_tournament_example_is_an_answer_of_its_type() -> None:
    example = section("Tournaments").split("```json")[1].split("```")[0]
    protocol.response_adapter("tournament").validate_python(json.loads(example))
