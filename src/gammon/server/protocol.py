"""The wire: the one parser of client messages, and the JSON form of actions and events.

Every message a client sends goes through :func:`parse_client_message` — the only place
that reads client input — and comes out as one of the typed :data:`ClientMessage` values,
or raises :class:`ProtocolError` with a code the server sends back (PROTOCOL.md lists them).
Nothing else in the server looks at raw client text.

>>> parse_client_message('{"type": "step", "match": "abc", "from": 24, "die": 6}')
StepMessage(id=None, match='abc', v=None, type='step', from_=24, die=6)
>>> try:
...     parse_client_message('{"type": "fly"}')
... except ProtocolError as error:
...     print(error.code)
unknown_type

Actions are stored in the match log as small JSON objects (:func:`action_json`,
:func:`action_from_json`); events go to clients as ``{"type": "checker_moved", ...}``
(:func:`event_json`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from enum import Enum
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from gammon.core import actions as A
from gammon.core.cube import Level
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.events import Event
from gammon.core.moves import Move, Play


class ProtocolError(ValueError):
    """A client message the server refuses; ``code`` is sent back in the error message, with
    the message's ``id`` when it had a valid one."""

    def __init__(self, code: str, message: str, id: int | str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.id = id


def _unicode(text: str) -> str:
    """JSON may escape a lone UTF-16 surrogate (``"\\ud800"``) or a NUL (``"\\u0000"``):
    neither is text (and PostgreSQL cannot store a NUL), refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode text (a lone surrogate)") from None
    if "\x00" in text:
        raise ValueError("not valid text (a NUL character)")
    return text


Text = Annotated[str, AfterValidator(_unicode)]
"""A string that is Unicode text: every string a client sends (messages and HTTP bodies)."""
MATCH_ID = r"^[A-Za-z0-9_-]{1,24}$"
"""What a match id may be (the server makes 16 of these characters)."""
MatchRef = Annotated[str, Field(pattern=MATCH_ID)]
Version = Annotated[int, Field(ge=0, le=10**9)]
MessageId = Annotated[int, Field(ge=0, le=2**53)] | Annotated[Text, Field(max_length=40)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)

    id: MessageId | None = None
    """An optional id of the client's choosing, echoed in an error about this message."""


class _MatchMessage(_Message):
    match: MatchRef
    v: Version | None = None
    """For actions: the version the client has seen; a different one is refused as stale."""


class SubscribeMessage(_MatchMessage):
    type: Literal["subscribe"]
    since: Version | None = None
    key: Annotated[Text, Field(max_length=64)] | None = None
    """The invite key of a private match (for a spectator holding the invite link)."""


class UnsubscribeMessage(_MatchMessage):
    type: Literal["unsubscribe"]


class RollMessage(_MatchMessage):
    type: Literal["roll"]


class PlayMessage(_MatchMessage):
    type: Literal["play"]
    play: Annotated[Text, Field(max_length=80)]


class StepMessage(_MatchMessage):
    type: Literal["step"]
    from_: Annotated[int, Field(alias="from", ge=1, le=25)]
    die: Annotated[int, Field(ge=1, le=6)]


class SimpleActionMessage(_MatchMessage):
    type: Literal["undo", "confirm", "double", "take", "drop", "beaver", "accept_resign",
                  "reject_resign", "abandon"]


class ResignMessage(_MatchMessage):
    type: Literal["resign"]
    level: Annotated[int, Field(ge=1, le=3)]
    """An int: ``true`` and ``1.0`` are refused (``Literal[1]`` would take them)."""


class ChatMessage(_MatchMessage):
    type: Literal["chat"]
    text: Annotated[Text, Field(min_length=1, max_length=300)]


class MuteMessage(_MatchMessage):
    type: Literal["mute"]
    muted: bool


class PingMessage(_Message):
    type: Literal["ping"]


class PongMessage(_Message):
    type: Literal["pong"]
    n: Annotated[int, Field(ge=0, le=2**53)]


ClientMessage: TypeAlias = Annotated[
    SubscribeMessage | UnsubscribeMessage | RollMessage | PlayMessage | StepMessage
    | SimpleActionMessage | ResignMessage | ChatMessage | MuteMessage | PingMessage
    | PongMessage,
    Field(discriminator="type"),
]
"""Every message a client may send."""

ActionMessage: TypeAlias = (
    RollMessage | PlayMessage | StepMessage | SimpleActionMessage | ResignMessage
)

_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)
_ID_ADAPTER: TypeAdapter[Any] = TypeAdapter(MessageId, config=ConfigDict(strict=True))
TYPES = frozenset({
    "subscribe", "unsubscribe", "roll", "play", "step", "undo", "confirm", "double", "take",
    "drop", "beaver", "accept_resign", "reject_resign", "abandon", "resign", "chat", "mute",
    "ping", "pong",
})
MAX_MESSAGE_BYTES = 4096


def parse_client_message(raw: str | bytes, *, max_bytes: int = MAX_MESSAGE_BYTES) -> Any:
    """The one parser: raw WebSocket text into a :data:`ClientMessage`, or
    :class:`ProtocolError` (``too_large``, ``malformed`` or ``unknown_type``)."""
    size = len(raw)  # characters: at most a quarter of the UTF-8 bytes
    if isinstance(raw, str) and max_bytes // 4 < size <= max_bytes:
        size = len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError("too_large", f"messages are at most {max_bytes} bytes (UTF-8)")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "not JSON text") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "a message is a JSON object")
    message_id = _valid_id(data.get("id"))
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("malformed", "a message has a string 'type'", message_id)
    if kind not in TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {printable(kind[:40])!r}",
                            message_id)
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        raise ProtocolError("malformed", first_error(error.errors(include_input=False), skip=1),
                            message_id) from None


def _valid_id(value: Any) -> int | str | None:
    """The message's ``id`` if it is a valid one (else None: nothing to echo)."""
    try:
        return _ID_ADAPTER.validate_python(value)  # type: ignore[no-any-return]
    except ValidationError:
        return None


def printable(text: str) -> str:
    """``text`` with what cannot be encoded (lone surrogates) written as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def first_error(errors: Sequence[Any], *, skip: int = 0) -> str:
    """The first of a validation's errors as ``field: what is wrong``, made printable; the
    input is not repeated. ``skip`` drops the first parts of the field's path."""
    if not errors:
        return "bad input"
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"][skip:]) or "message"
    return printable(f"{where}: {first['msg']}")


# -- actions in the match log ----------------------------------------------------------------

_SIMPLE: dict[str, type[Any]] = {
    "undo": A.UndoStep, "confirm": A.ConfirmPlay, "double": A.OfferDouble, "take": A.Take,
    "drop": A.Drop, "beaver": A.Beaver, "accept_resign": A.AcceptResign,
    "reject_resign": A.RejectResign, "abandon": A.Abandon, "timeout": A.Timeout,
}
_SIMPLE_NAMES = {cls: name for name, cls in _SIMPLE.items()}


def action_json(action: A.Action) -> dict[str, Any]:
    """The stored form of a core action (dice included, so a replay needs no dice)."""
    match action:
        case A.RollOpening(opening=o):
            return {"t": "opening", "first": o.first, "throws": [list(t) for t in o.throws],
                    "roll": [o.roll.die1, o.roll.die2]}
        case A.RollDice(player=p, roll=r):
            return {"t": "roll", "p": p, "roll": [r.die1, r.die2]}
        case A.PlayMove(player=p, play=play):
            text = play.notation() if isinstance(play, Play) else play
            return {"t": "play", "p": p, "play": text}
        case A.MoveChecker(player=p, source=s, die=d):
            return {"t": "step", "p": p, "from": s, "die": d}
        case A.OfferResign(player=p, level=level):
            return {"t": "resign", "p": p, "level": int(level)}
        case _:
            return {"t": _SIMPLE_NAMES[type(action)], "p": action.player}


def action_from_json(data: dict[str, Any], *, winner_rolls_anew: bool = False) -> A.Action:
    """The core action of a stored action (inverse of :func:`action_json`)."""
    kind = data["t"]
    if kind == "opening":
        throws = tuple((int(a), int(b)) for a, b in data["throws"])
        opening = OpeningRoll(int(data["first"]), Roll(*data["roll"]), throws)
        return A.RollOpening(opening)
    if kind == "roll":
        return A.RollDice(data["p"], Roll(*data["roll"]))
    if kind == "play":
        return A.PlayMove(data["p"], data["play"])
    if kind == "step":
        return A.MoveChecker(data["p"], data["from"], data["die"])
    if kind == "resign":
        return A.OfferResign(data["p"], Level(data["level"]))
    return _SIMPLE[kind](data["p"])  # type: ignore[no-any-return]


def message_action(message: ActionMessage, player: int) -> A.Action:
    """The core action a client message proposes for ``player`` (not the dice actions)."""
    match message:
        case PlayMessage():
            return A.PlayMove(player, message.play)
        case StepMessage():
            return A.MoveChecker(player, message.from_, message.die)
        case ResignMessage():
            return A.OfferResign(player, Level(message.level))
        case SimpleActionMessage():
            return _SIMPLE[message.type](player)  # type: ignore[no-any-return]
    raise TypeError(f"not an action message: {message!r}")


# -- events to clients ---------------------------------------------------------------------

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _value(value: Any) -> Any:
    if isinstance(value, Roll):
        return [value.die1, value.die2]
    if isinstance(value, Move):
        return {"from": value.source, "to": value.destination, "hit": value.hit,
                "text": str(value)}
    if isinstance(value, Enum):
        return int(value) if isinstance(value, Level) else value.value
    if isinstance(value, tuple | list):
        return [_value(v) for v in value]
    return value


def event_json(event: Event) -> dict[str, Any]:
    """``{"type": "dice_rolled", "player": 0, "roll": [3, 1]}`` and so on (PROTOCOL.md)."""
    out: dict[str, Any] = {"type": _CAMEL.sub("_", type(event).__name__).lower()}
    for field in dataclasses.fields(event):
        out[field.name] = _value(getattr(event, field.name))
    return out
