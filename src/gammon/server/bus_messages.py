"""The messages server processes send each other over the bus (:mod:`gammon.server.pubsub`),
as types: one :func:`dump` to the JSON-ready dict a bus carries, one :func:`parse` back,
as :mod:`gammon.server.protocol` does for the clients' messages.

Each message names the process that sent it (``origin``: a process ignores its own). On
the bus it is a dict with a ``kind``::

    {"kind": "action", "match": ID, "seq": N, "first": F, "rows": [...], "ended": false,
     "origin": ...}

A stored action (:class:`ActionStored`) says which match moved, and may carry the committed
rows so that a process holding the match at the action before them applies them without
reading the log; chat lines, rematch offers and analysis progress are not in the log and
travel in the message (``payload``, the client message as sent on the socket).

pydantic validates the dicts that come in (the same library checks the clients' messages):
a dict that is not one of these messages is refused with :class:`BadBusMessage`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, TypeAlias

from pydantic import Field, TypeAdapter, ValidationError

from gammon.server.protocol import AnalysisMessage, ChatLine, RematchMessage
from gammon.server.records import Row


@dataclass(frozen=True, kw_only=True, slots=True)
class _Message:
    origin: str = ""
    """The process that sent it (a process ignores its own messages)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Resync(_Message):
    """A process (re)started: every other catches up with the log of the rooms it holds
    (the sender may have died between a commit and its message). The Redis bus also hands
    it to its own process when it listens again after Redis went away
    (:data:`gammon.server.pubsub.RESYNC`): the messages of that time are lost."""

    kind: Literal["resync"] = "resync"


@dataclass(frozen=True, kw_only=True, slots=True)
class LobbyChanged(_Message):
    """The open games changed: the lobby's watchers are told again."""

    kind: Literal["lobby"] = "lobby"


@dataclass(frozen=True, kw_only=True, slots=True)
class ChallengesChanged(_Message):
    """A game reserved by or for these players was made, taken or cancelled: their
    sockets that follow the lobby are told their challenges again."""

    users: tuple[int, ...]
    kind: Literal["challenges"] = "challenges"


@dataclass(frozen=True, kw_only=True, slots=True)
class SeeksChanged(_Message):
    """Play now's pools changed: these players joined or left one, or (``match``) were
    paired into that match. Their sockets are told (``seeking``, ``paired``), and the
    lobby's watchers the pools' counts."""

    users: tuple[int, ...]
    match: str | None = None
    kind: Literal["seeks"] = "seeks"


@dataclass(frozen=True, kw_only=True, slots=True)
class OptionsChanged(_Message):
    """A player's options changed: the rooms where they play take them."""

    user: int
    kind: Literal["options"] = "options"


@dataclass(frozen=True, kw_only=True, slots=True)
class _InMatch(_Message):
    match: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ActionStored(_InMatch):
    """Actions of ``match`` were stored, up to ``seq``: with ``rows``, the actions
    ``first``, ``first + 1``, ... themselves; ``ended``: they ended the match."""

    seq: int
    first: int | None = None
    rows: tuple[Row, ...] | None = None
    ended: bool = False
    kind: Literal["action"] = "action"


@dataclass(frozen=True, kw_only=True, slots=True)
class Seated(_InMatch):
    """The second seat of ``match`` was taken, its opening stored in the same
    transaction: the processes holding the open match read both from the log and send
    its watchers the state with both seats, then the opening."""

    kind: Literal["seated"] = "seated"


@dataclass(frozen=True, kw_only=True, slots=True)
class Forward(_InMatch):
    """A socket message for the watchers of ``match``, as it is: a chat line, a rematch
    offer, where its analysis stands (``kind`` is its ``type``: :func:`forward`)."""

    kind: Literal["chat", "rematch", "analysis"]
    payload: Annotated[ChatLine | RematchMessage | AnalysisMessage,
                       Field(discriminator="type")]

    def __post_init__(self) -> None:
        if self.payload["type"] != self.kind:
            raise ValueError(f"a {self.kind!r} message carries a {self.payload['type']!r}")


def forward(match: str, payload: ChatLine | RematchMessage | AnalysisMessage) -> Forward:
    """The message that forwards ``payload`` to the watchers of ``match``."""
    return Forward(match=match, kind=payload["type"], payload=payload)


BusMessage: TypeAlias = (Resync | LobbyChanged | ChallengesChanged | SeeksChanged
                         | OptionsChanged | ActionStored | Seated | Forward)
"""Every message of the bus."""

_ADAPTER: TypeAdapter[BusMessage] = TypeAdapter(
    Annotated[BusMessage, Field(discriminator="kind")])


class BadBusMessage(ValueError):
    """What came over the bus is not a bus message."""


def parse(data: object) -> BusMessage:
    """The message of a dict from the bus; :class:`BadBusMessage` when it is not one."""
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        raise BadBusMessage(f"not a bus message: {error}") from None


def dump(message: BusMessage) -> dict[str, object]:
    """The JSON-ready dict of ``message``, its own fields that are None left out (not those
    inside a payload: a field of a payload that may be None must still arrive)."""
    data: dict[str, object] = _ADAPTER.dump_python(message)
    return {key: value for key, value in data.items() if value is not None}
