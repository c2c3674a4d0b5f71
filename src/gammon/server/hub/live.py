"""What the hub's parts share: a room held by this process, a client socket as the service
sees it, a proposed action and a refusal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from gammon.core import actions as A
from gammon.server import protocol
from gammon.server.db import User
from gammon.server.rooms import Room
from gammon.views import EventView


class ServiceError(Exception):
    """A request the service refuses; ``code`` (a stable reason code, PROTOCOL.md) and
    ``message`` go back to the client: as an ``error`` message on the socket, as
    ``{"detail": {"code", "message"}}`` over HTTP with the code's status."""

    def __init__(self, code: protocol.RefusalCode, message: str,
                 reason: protocol.IllegalReason | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        """With ``illegal``: which rule refused (:func:`protocol.illegal_reason`)."""


class Connection(Protocol):
    """A client socket as the service sees it."""

    user: User
    lag: float
    muted: set[str]

    def send_text(self, text: str) -> None: ...


@dataclass
class LiveRoom(Room):
    """A room held by this process: the pure :class:`~gammon.server.rooms.Room` and what
    serving it takes — the lock its transitions hold, its flag timer, the sockets
    subscribed to it, and the events stored but not yet sent (a transition's commit and
    its flush are apart while it tells the other processes)."""

    subscribers: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    outbox: list[EventView] = field(default_factory=list)
    greeted: dict[Connection, int] = field(default_factory=dict)
    """Sockets greeted while ``outbox`` held events, with the version their greeting
    showed: the events up to it are not sent them again (:func:`fanout.flush`)."""


Proposal = Callable[[LiveRoom], "A.Action | None"]
"""What a transition proposes, made from the room's state (again after catching up)."""
