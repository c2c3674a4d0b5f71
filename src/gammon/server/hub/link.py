"""The bus link: this process's messages out to the others (as the dicts a bus carries,
named as from this process) and theirs in, as types (:mod:`gammon.server.bus_messages`).
A malformed message is logged and dropped; this process's own are ignored."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable

from gammon.server import jsontext
from gammon.server.bus_messages import ActionStored, BadBusMessage, BusMessage, dump, parse
from gammon.server.hub.live import LiveRoom
from gammon.server.pubsub import Bus, Message
from gammon.views import EventView

log = logging.getLogger(__name__)


class BusLink:
    """This process's end of ``bus``; ``origin`` names the process."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.origin = uuid.uuid4().hex

    async def start(self, receive: Callable[[BusMessage], Awaitable[None]]) -> None:
        """Hand every other process's message to ``receive``."""
        async def handle(data: Message) -> None:
            if isinstance(data, dict) and data.get("origin") == self.origin:  # our own, echoed
                return
            try:
                message = parse(data)
            except BadBusMessage as error:  # dropped: a bus message never stops the hub
                log.warning("bus message dropped: %s", error)
                return
            await receive(message)

        await self.bus.start(handle)

    async def publish(self, message: BusMessage) -> None:
        """Send ``message`` as from this process (raises what the bus raises)."""
        data = dump(message)
        data["origin"] = self.origin
        await self.bus.publish(data)

    async def close(self) -> None:
        await self.bus.close()


def carried_events(room: LiveRoom, message: ActionStored) -> list[EventView] | None:
    """The events of the committed actions a bus message carries (caller holds the room
    lock), or None when they cannot stand in for the log: none carried, the match ended
    (its result and ratings are in the database), or a gap before them (a message not yet
    handled, or lost); the caller then catches up from the log. No events when the room
    already holds them all (a read of the log for an earlier message got ahead of this one,
    queued behind it on the lock): there is nothing to apply, and no reason to read again."""
    rows, first = message.rows, message.first
    if (rows is None or first is None or message.ended
            or room.match is None or room.status != "playing"):
        return None
    if room.seq >= first + len(rows):
        return []
    if first > room.seq + 1:
        return None
    events: list[EventView] = []
    for n, (_kind, action, at) in enumerate(rows):
        if first + n == room.seq + 1:
            events += room.replay(jsontext.loads(action), float(at))
    return events
