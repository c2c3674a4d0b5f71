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
class Resync:
    """A process (re)started: every other catches up with the log of the rooms it holds
    (the sender may have died between a commit and its message)."""

    origin: str = ""
    kind: Literal["resync"] = "resync"


@dataclass(frozen=True, kw_only=True, slots=True)
class LobbyChanged:
    """The open games changed: the lobby's watchers are told again."""

    origin: str = ""
    kind: Literal["lobby"] = "lobby"


@dataclass(frozen=True, kw_only=True, slots=True)
class ChallengesChanged:
    """A game reserved by or for these players was made, taken or cancelled: their
    sockets that follow the lobby are told their challenges again."""

    users: tuple[int, ...]
    origin: str = ""
    kind: Literal["challenges"] = "challenges"


@dataclass(frozen=True, kw_only=True, slots=True)
class OptionsChanged:
    """A player's options changed: the rooms where they play take them."""

    user: int
    origin: str = ""
    kind: Literal["options"] = "options"


@dataclass(frozen=True, kw_only=True, slots=True)
class ActionStored:
    """Actions of ``match`` were stored, up to ``seq``: with ``rows``, the actions
    ``first``, ``first + 1``, ... themselves; ``ended``: they ended the match."""

    match: str
    seq: int
    first: int | None = None
    rows: tuple[Row, ...] | None = None
    ended: bool = False
    origin: str = ""
    kind: Literal["action"] = "action"


@dataclass(frozen=True, kw_only=True, slots=True)
class Seated:
    """The second seat of ``match`` was taken (its opening stored with it)."""

    match: str
    origin: str = ""
    kind: Literal["seated"] = "seated"


@dataclass(frozen=True, kw_only=True, slots=True)
class Chat:
    """A chat line said in ``match``."""

    match: str
    payload: ChatLine
    origin: str = ""
    kind: Literal["chat"] = "chat"


@dataclass(frozen=True, kw_only=True, slots=True)
class RematchOffered:
    """A player of the finished ``match`` offers a rematch."""

    match: str
    payload: RematchMessage
    origin: str = ""
    kind: Literal["rematch"] = "rematch"


@dataclass(frozen=True, kw_only=True, slots=True)
class AnalysisProgress:
    """Where the post-match analysis of ``match`` stands."""

    match: str
    payload: AnalysisMessage
    origin: str = ""
    kind: Literal["analysis"] = "analysis"


BusMessage: TypeAlias = (Resync | LobbyChanged | ChallengesChanged | OptionsChanged | ActionStored
                         | Seated | Chat | RematchOffered | AnalysisProgress)
"""Every message of the bus."""

RoomMessage: TypeAlias = Chat | RematchOffered | AnalysisProgress
"""The messages whose ``payload`` goes to a room's sockets as it is."""

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
    """The JSON-ready dict of ``message`` (fields that are None left out)."""
    data: dict[str, object] = _ADAPTER.dump_python(message, exclude_none=True)
    return data
