"""Fan-out: a room's messages to the sockets subscribed to it, each JSON text written once
per kind of viewer."""

from __future__ import annotations

import time

from gammon.server import jsontext, protocol
from gammon.server.hub.live import Connection, LiveRoom
from gammon.views import EventView


def send_all(room: LiveRoom, message: protocol.ServerMessage, *, chat: bool = False) -> None:
    """``message`` to every subscriber; a chat line not to those who muted the match (but
    for their own lines)."""
    text = jsontext.dumps(message)
    for conn in list(room.subscribers):
        if chat and room.id in conn.muted and message.get("seat") != room.seat_of(
                conn.user.id):
            continue
        conn.send_text(text)


def broadcast_update(room: LiveRoom, events: list[EventView],
                     greeted: dict[Connection, int] | None = None) -> None:
    """One ``update`` to every subscriber, written once per kind of viewer: the player
    on turn (with ``legal`` and ``reach`` while moving) and everyone else; not to a socket
    ``greeted`` with a state that already holds these events."""
    now = time.time()
    texts: dict[bool, str] = {}
    last = events[-1]["v"] if events else 0
    for conn in list(room.subscribers):
        if greeted and greeted.get(conn, -1) >= last:
            continue
        on_turn = room.on_turn(conn.user.id)
        text = texts.get(on_turn)
        if text is None:
            text = texts[on_turn] = jsontext.dumps(
                room.update_message(events, now, on_turn=on_turn))
        conn.send_text(text)


def broadcast_state(room: LiveRoom) -> None:
    """Every subscriber's own ``state`` of the room."""
    now = time.time()
    for conn in list(room.subscribers):
        conn.send_text(jsontext.dumps(room.state_message(conn.user.id, now)))


def flush(room: LiveRoom) -> None:
    """Send the events of the actions just stored, as one update (caller holds the lock;
    an action and the server's own actions that follow it go out together)."""
    if room.outbox:
        events, room.outbox = room.outbox, []
        greeted, room.greeted = room.greeted, {}
        broadcast_update(room, events, greeted)


def greet(room: LiveRoom, conn: Connection, since: int | None) -> None:
    """What a new subscriber gets first: the ``update`` since version ``since`` when it
    has one the room reached, else its ``state``."""
    now = time.time()
    if room.outbox:  # stored, not yet sent: the greeting shows them
        room.greeted[conn] = room.version
    if since is not None and since <= room.version:
        conn.send_text(jsontext.dumps(room.update_message(
            room.events[since:], now, on_turn=room.on_turn(conn.user.id))))
    else:
        conn.send_text(jsontext.dumps(room.state_message(conn.user.id, now)))
