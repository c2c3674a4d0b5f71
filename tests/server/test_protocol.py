"""A protocol fuzz test (hypothesis) over every client message type and every field:
arbitrary JSON values in each field, missing and extra fields, wrong types, huge values,
lone surrogates. An oracle written from PROTOCOL.md (not from the parser's models) says
whether a message is valid; the parser must accept exactly the valid ones, with their
values, and refuse every other with one clear error (echoing a valid ``id``). Over a real
socket of an in-process server, every invalid message gets exactly one error and leaves
the match unchanged."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gammon.core import actions as A
from gammon.core.cube import Level
from gammon.core.dice import OpeningRoll, Roll
from gammon.server import protocol
from gammon.server.app import create_app
from gammon.server.protocol import TYPES, ProtocolError, parse_client_message
from tests.server.conftest import Browser, make_settings

MAX_BYTES = 4096
CODES = {"malformed", "unknown_type", "too_large", "not_found", "not_a_player",
         "not_your_turn", "illegal", "not_started", "stale", "time_out", "rate_limited"}


# -- the oracle: what PROTOCOL.md allows, field by field ------------------------------------


def _text(value: Any, low: int, high: int) -> bool:
    if not isinstance(value, str) or not low <= len(value) <= high:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate is not text
        return False
    return "\x00" not in value  # nor is NUL (and PostgreSQL cannot store it)


def _int(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: type(v) is int and low <= v <= high


def _match(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,24}", value) is not None


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _id(value: Any) -> bool:
    return _int(0, 2**53)(value) or _text(value, 0, 40)


Field = tuple[bool, Callable[[Any], bool], st.SearchStrategy[Any]]
"""(required, valid?, a strategy of valid values)."""

MATCH_FIELDS: dict[str, Field] = {
    "match": (True, _match, st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)),
    "v": (False, _optional(_int(0, 10**9)), st.integers(0, 10**9)),
}
TEXT = st.text(st.characters(codec="utf-8"), max_size=20)
SEEK_FIELDS: dict[str, Field] = {
    "kind": (True, lambda v: v in ("single", "money", "match"),
             st.sampled_from(["single", "money", "match"])),
    "length": (False, _int(1, 25), st.integers(1, 25)),
    "clock": (False, lambda v: v in ("none", "italian", "italian_per_point", "polish"),
              st.sampled_from(["none", "italian", "italian_per_point", "polish"])),
    "rated": (False, lambda v: type(v) is bool, st.booleans()),
    "bot": (False, _optional(_int(1, 5)), st.integers(1, 5)),
    "bot_after": (False, _optional(_int(1, 600)), st.integers(1, 600)),
}
"""A ``seek``'s fields; ``bot`` and ``bot_after`` come both or neither."""


def _fields(kind: str) -> dict[str, Field]:
    """Every field a message of ``kind`` may have (``type`` aside)."""
    fields: dict[str, Field] = {"id": (False, _optional(_id),
                                       st.integers(0, 2**53) | TEXT)}
    if kind in ("ping", "pong", "subscribe_lobby", "unsubscribe_lobby", "seek",
                "unseek"):  # no match
        if kind == "pong":
            fields["n"] = (True, _int(0, 2**53), st.integers(0, 2**53))
        if kind == "seek":
            fields.update(SEEK_FIELDS)
        return fields
    fields.update(MATCH_FIELDS)
    extra: dict[str, dict[str, Field]] = {
        "subscribe": {"since": (False, _optional(_int(0, 10**9)), st.integers(0, 10**9)),
                      "key": (False, _optional(lambda v: _text(v, 0, 64)), TEXT)},
        "play": {"play": (True, lambda v: _text(v, 0, 80), TEXT)},
        "step": {"from": (True, _int(1, 25), st.integers(1, 25)),
                 "die": (True, _int(1, 6), st.integers(1, 6))},
        "resign": {"level": (True, _int(1, 3), st.integers(1, 3))},
        "chat": {"text": (True, lambda v: _text(v, 1, 300), TEXT.filter(bool))},
        "mute": {"muted": (True, lambda v: type(v) is bool, st.booleans())},
    }
    fields.update(extra.get(kind, {}))
    return fields


def expected(message: Any) -> tuple[str | None, Any]:
    """(the error code PROTOCOL.md calls for, or None for a valid message; the id an
    error must echo)."""
    raw = json.dumps(message)
    if len(raw.encode()) > MAX_BYTES:
        return "too_large", None
    # judged as the server reads it: JSON joins an escaped surrogate pair into one character
    message = json.loads(raw)
    if not isinstance(message, dict):
        return "malformed", None
    echo = message.get("id") if _id(message.get("id")) else None
    kind = message.get("type")
    if not isinstance(kind, str):
        return "malformed", echo
    if kind not in TYPES:
        return "unknown_type", echo
    fields = _fields(kind)
    if set(message) - set(fields) - {"type"}:
        return "malformed", echo
    for name, (required, valid, _) in fields.items():
        if name in message:
            if not valid(message[name]):
                return "malformed", echo
        elif required:
            return "malformed", echo
    if kind == "seek" and (message.get("bot") is None) != (message.get("bot_after") is None):
        return "malformed", echo
    return None, echo


# -- the strategies ---------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
    | st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)  # lone surrogates
    | st.sampled_from(["x" * 5000, 10**30, -1, 0, 1, True, "", "é" * 100]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8)


@st.composite
def messages(draw: st.DrawFn) -> Any:
    """A valid message of any type, then up to three mutations: a field set to any JSON
    value, a field dropped, an unknown field added, the type changed."""
    kind = draw(st.sampled_from(sorted(TYPES)))
    fields = _fields(kind)
    message: dict[str, Any] = {"type": kind}
    for name, (required, _, values) in fields.items():
        if required or draw(st.booleans()):
            message[name] = draw(values)
    for _ in range(draw(st.integers(0, 3))):
        mutation = draw(st.sampled_from(["set", "drop", "add", "type"]))
        names = sorted(set(fields) | set(message))
        if mutation == "set":
            message[draw(st.sampled_from(names))] = draw(JSON)
        elif mutation == "drop" and message:
            message.pop(draw(st.sampled_from(sorted(message))))
        elif mutation == "add":
            message[draw(st.text(max_size=10))] = draw(JSON)
        else:
            message["type"] = draw(st.sampled_from(sorted(TYPES)) | JSON)
    if draw(st.integers(0, 30)) == 0:
        return draw(JSON)  # sometimes not even an object
    return message


# -- the parser ---------------------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(messages())
def test_the_parser_accepts_exactly_the_valid_messages(message: Any) -> None:
    code, echo = expected(message)
    raw = json.dumps(message)
    if code is None:
        parsed = parse_client_message(raw)
        assert parsed.type == message["type"]
        for name, value in json.loads(raw).items():  # the message as JSON reads it
            assert getattr(parsed, "from_" if name == "from" else name) == value, name
        return
    try:
        parse_client_message(raw)
    except ProtocolError as error:
        assert (error.code, error.id) == (code, echo), (error, message)
        assert error.message
        json.dumps(error.message).encode()  # the message can be sent
    else:
        raise AssertionError(f"accepted {message!r}, expected {code}")


# -- a real socket: one error per invalid message, nothing changes ----------------------


def test_invalid_messages_on_a_socket_get_one_error_and_change_nothing(
        database_url: str, redis_url: str) -> None:
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        a, b = Browser(client), Browser(client)
        match_id = a.post("/api/games", json={"kind": "match", "length": 3}).json()["id"]
        b.post(f"/api/games/{match_id}/join")
        before = a.get(f"/api/games/{match_id}").json()
        turn = before["game"]["turn"]
        actor = a if a.get(f"/api/games/{match_id}").json()["you"] == turn else b
        with actor.websocket_connect("/ws") as ws:
            barrier = iter(range(10**9))

            def exchange(raw: str) -> list[dict[str, Any]]:
                """Send ``raw`` and a ping: every reply up to that ping's pong."""
                mark = f"barrier-{next(barrier)}"
                ws.send_text(raw)
                ws.send_text(json.dumps({"type": "ping", "id": mark}))
                replies = []
                while True:
                    reply = ws.receive_json()
                    if reply["type"] == "pong" and reply["id"] == mark:
                        return replies
                    if reply["type"] != "ping":
                        replies.append(reply)

            exchange(json.dumps({"type": "subscribe", "match": match_id}))

            @settings(max_examples=150, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow,
                                             HealthCheck.filter_too_much])
            @given(messages(), st.booleans())
            def fuzz(message: Any, aimed: bool) -> None:
                if aimed and isinstance(message, dict) and "match" in message:
                    message["match"] = match_id  # at the real match
                code, echo = expected(message)
                assume(code is not None)
                replies = exchange(json.dumps(message))
                assert len(replies) == 1, (message, replies)
                error = replies[0]
                assert error["type"] == "error" and error["code"] in CODES, error
                assert error["code"] == code and error.get("id") == echo, (message, error)

            fuzz()
        after = a.get(f"/api/games/{match_id}").json()
        assert after["v"] == before["v"] and after["game"] == before["game"]


@pytest.mark.parametrize(("raw", "code"), [
    ("", "malformed"), ("{", "malformed"), ("[]", "malformed"), ("42", "malformed"),
    ('{"type": 3}', "malformed"), ('{"kind": "roll"}', "malformed"),
    ('{"type": "teleport", "match": "x"}', "unknown_type"),
    ('{"type": "roll"}', "malformed"),  # no match
    ('{"type": "roll", "match": "bad id!"}', "malformed"),
    ('{"type": "roll", "match": "m", "extra": 1}', "malformed"),
    ('{"type": "step", "match": "m", "from": "24", "die": 6}', "malformed"),
    ('{"type": "step", "match": "m", "from": 26, "die": 6}', "malformed"),
    ('{"type": "step", "match": "m", "from": 24, "die": 7}', "malformed"),
    ('{"type": "step", "match": "m", "from": true, "die": 6}', "malformed"),
    ('{"type": "resign", "match": "m", "level": 4}', "malformed"),
    ('{"type": "chat", "match": "m", "text": ""}', "malformed"),
    ('{"type": "subscribe", "match": "m", "since": -1}', "malformed"),
    ("[" * 3000 + "]" * 3000, "too_large"),
    ('{"type": "chat", "match": "m", "text": "' + "x" * 5000 + '"}', "too_large"),
    (b"\xff\xfe", "malformed"),
])
def test_the_one_parser_refuses_malformed_input(raw: str | bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as error:
        parse_client_message(raw)
    assert error.value.code == code


def test_the_one_parser_reads_every_message_type() -> None:
    examples = [
        {"type": "subscribe", "match": "m", "since": 3}, {"type": "unsubscribe", "match": "m"},
        {"type": "roll", "match": "m", "v": 2}, {"type": "play", "match": "m", "play": "8/5 6/5"},
        {"type": "step", "match": "m", "from": 25, "die": 1}, {"type": "undo", "match": "m"},
        {"type": "confirm", "match": "m"}, {"type": "double", "match": "m"},
        {"type": "take", "match": "m"}, {"type": "drop", "match": "m"},
        {"type": "beaver", "match": "m"}, {"type": "resign", "match": "m", "level": 2},
        {"type": "accept_resign", "match": "m"}, {"type": "reject_resign", "match": "m"},
        {"type": "abandon", "match": "m", "id": "a1"}, {"type": "chat", "match": "m", "text": "hi"},
        {"type": "mute", "match": "m", "muted": True}, {"type": "ping", "id": 4},
        {"type": "pong", "n": 7}, {"type": "subscribe_lobby"}, {"type": "unsubscribe_lobby"},
        {"type": "seek", "kind": "match", "length": 5, "clock": "italian", "rated": True,
         "bot": 3, "bot_after": 30}, {"type": "unseek"},
    ]
    assert {e["type"] for e in examples} == protocol.TYPES
    for example in examples:
        assert parse_client_message(json.dumps(example)).type == example["type"]


def test_stored_actions_round_trip() -> None:
    opening = A.RollOpening(OpeningRoll(1, Roll(5, 2), ((3, 3), (2, 5))))
    for action in [opening, A.RollDice(0, Roll(6, 6)), A.PlayMove(1, "24/18 13/11*"),
                   A.MoveChecker(0, 25, 3), A.OfferResign(1, Level.GAMMON), A.Take(0),
                   A.Drop(1), A.Beaver(0), A.UndoStep(1), A.ConfirmPlay(0), A.OfferDouble(1),
                   A.AcceptResign(0), A.RejectResign(1), A.Abandon(0), A.Timeout(1)]:
        stored = json.loads(json.dumps(protocol.action_json(action)))
        assert protocol.action_from_json(stored) == action
