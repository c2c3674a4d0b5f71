"""A connection that dies without a close: the page's socket stays open and nothing more
arrives (a phone changed network, a NAT forgot the flow). The client's own ping
(PROTOCOL.md, *Liveness*) notices it, drops that connection and reconnects, and the match
goes on from the version it held.

The dead line is made by Playwright's WebSocket routing: the page's socket goes through a
relay in the test, which at a moment stops passing messages either way while keeping both
ends open."""

from __future__ import annotations

import time
from typing import Any

from tests.client.conftest import Pages
from tests.client.support import MY_MOVE, MY_ROLL, feed, point, wait_match
from tests.client.test_play import first_step, roll_until_movable, start_bot_match

SOCKET = "window.gammon.socket"


class Relay:
    """Every WebSocket of the page through the test; ``silence()`` stops the latest one
    passing anything, both ways, without closing it."""

    def __init__(self, page: Any) -> None:
        self.lines: list[dict[str, Any]] = []
        page.route_web_socket("**/ws", self.route)

    def route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        line: dict[str, Any] = {"silent": False, "closed_by_page": False, "up": 0, "down": 0}
        self.lines.append(line)

        def up(message: str | bytes) -> None:
            if not line["silent"]:
                line["up"] += 1
                server.send(message)

        def down(message: str | bytes) -> None:
            if not line["silent"]:
                line["down"] += 1
                ws.send(message)

        def closed(code: int | None, reason: str | None) -> None:
            line["closed_by_page"] = True
            line["close_code"] = code

        ws.on_message(up)
        server.on_message(down)
        ws.on_close(closed)

    def wait_lines(self, page: Any, count: int, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while len(self.lines) < count:
            assert time.monotonic() < deadline, f"{len(self.lines)} connections, not {count}"
            page.wait_for_timeout(50)


def test_a_silently_dead_connection_is_noticed_by_the_ping_and_the_client_reconnects(
        pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page)
    relay = Relay(page)
    page.evaluate(f"{SOCKET}.cut()")  # reconnect, now through the relay
    relay.wait_lines(page, 1)
    page.wait_for_function(f"{SOCKET}.status === 'open'")
    wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
    held = feed(page)["v"]

    # a ping every 0.4 s, given up after 1 s of silence (10 s and 6 s by default)
    page.evaluate(f"{SOCKET}.pingEvery = 400; {SOCKET}.pingTimeout = 1000; {SOCKET}.probe()")
    page.wait_for_function(f"{SOCKET}.awaiting === null")  # answered: the line is alive
    answered = relay.lines[0]["down"]
    page.wait_for_timeout(1500)  # pings keep coming and being answered, nothing is dropped
    assert relay.lines[0]["down"] > answered
    assert page.evaluate(f"{SOCKET}.deadConnections || 0") == 0
    assert len(relay.lines) == 1

    relay.lines[0]["silent"] = True  # the line dies: no close, nothing more either way
    silent_at = time.monotonic()
    page.wait_for_function(f"({SOCKET}.deadConnections || 0) === 1", timeout=5000)
    noticed_after = time.monotonic() - silent_at
    assert noticed_after < 3.5, noticed_after  # within a ping interval and its timeout
    relay.wait_lines(page, 2)  # a new connection
    page.wait_for_function(f"{SOCKET}.status === 'open'")
    assert relay.lines[0]["closed_by_page"]  # the client closed the dead one itself
    assert len(relay.lines) == 2

    # the match goes on over the new connection, from the version the page held
    state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
    assert state["v"] >= held
    state = roll_until_movable(page)
    before = relay.lines[1]["up"]
    source, _, _ = first_step(state["game"])
    mover = point(page, source)
    page.mouse.click(mover["x"], mover["y"])  # its longest move: one or more steps
    wait_match(page, f"p.feed.v > {state['v']}")
    assert relay.lines[1]["up"] > before  # sent over the new connection
