"""Play now (gammon.server.matchmaking), on every store: two players in one pool are paired
into one match, made as the lobby makes every match, and told on their sockets; a third is
not paired twice and keeps waiting; the pools' counts go to the lobby's watchers; a player
cancels, or leaves (their socket closed: not paired, removed after the grace time); a
place no process sees (its process died) is not paired and goes after the grace time; a
restart while waiting keeps the place; the bot after N seconds; rated pools for registered
players only; bad input is refused with a clear code and changes nothing.

The pairing passes are run with a chosen ``now`` (``Matchmaker.pair_now``) where time
must pass: no test sleeps."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.db import pool_seekers
from gammon.server.matchmaking import Matchmaker
from gammon.server.records import Seek
from gammon.server.settings import Settings
from tests.server.conftest import Browser

MATCH3: dict[str, Any] = {"type": "seek", "kind": "match", "length": 3, "clock": "none"}


def until(ws: Any, kind: str, where: Callable[[dict[str, Any]], bool] = lambda m: True
          ) -> dict[str, Any]:
    """The next message of type ``kind`` on the socket for which ``where`` holds (others
    skipped)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind and where(message):
            return message


def guest(client: TestClient) -> Browser:
    browser = Browser(client)
    assert browser.get("/api/me").status_code == 200
    return browser


def registered(client: TestClient, name: str) -> Browser:
    browser = Browser(client)
    assert browser.post("/api/register", json={"name": name, "password": "password-1"}
                        ).status_code == 201
    return browser


def lobby(browser: Browser) -> Any:
    """A socket of ``browser`` following the lobby, its first messages read (the
    player's place: none)."""
    ws = browser.websocket_connect("/ws")
    ws.__enter__()
    until(ws, "welcome")
    ws.send_json({"type": "subscribe_lobby"})
    assert until(ws, "seeking")["seek"] is None
    return ws


def matchmaker(client: TestClient) -> Matchmaker:
    return client.app.state.matchmaker  # type: ignore[attr-defined,no-any-return]


def pair_now(client: TestClient, now: float | None = None) -> list[str]:
    assert client.portal is not None
    return client.portal.call(matchmaker(client).pair_now, now)


def waiting(client: TestClient, browser: Browser) -> dict[str, Any] | None:
    """The player's place as the database holds it (through the repository)."""
    me = browser.get("/api/me").json()["user"]["id"]
    assert client.portal is not None
    seeks = client.portal.call(matchmaker(client).repo.seeks, [me])
    seek = seeks.get(me)
    return None if seek is None else {"pool": seek.pool, "since": seek.since}


def until_left(client: TestClient, browser: Browser) -> None:
    """Wait until the database holds that the player's last socket went (the server
    handles a close after the client's side of it returns)."""
    me = browser.get("/api/me").json()["user"]["id"]
    query = sa.select(pool_seekers.c.left_at).where(pool_seekers.c.user_id == me)

    async def left() -> None:
        for _ in range(500):
            async with matchmaker(client).repo.engine.connect() as conn:
                if await conn.scalar(query) is not None:
                    return
            await asyncio.sleep(0.01)
        raise AssertionError("the socket's close was never seen")

    assert client.portal is not None
    client.portal.call(left)


@pytest.fixture
def sockets() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for ws in opened:
        ws.__exit__(None, None, None)


def test_two_players_are_paired_into_one_match_and_a_third_keeps_waiting(
        client: TestClient, sockets: list[Any]) -> None:
    a, b, c = guest(client), guest(client), guest(client)
    wa, wb, wc = (lobby(x) for x in (a, b, c))
    sockets += [wa, wb, wc]
    wa.send_json(MATCH3)
    seek = until(wa, "seeking")["seek"]
    assert seek["kind"] == "match" and seek["length"] == 3 and not seek["rated"]
    assert seek["bot"] is None and seek["since"] > 0
    # the lobby's watchers are told how many wait, in which pool
    until(wc, "pools", lambda m: m["pools"] == [
        {"kind": "match", "length": 3, "clock": "none", "rated": False, "waiting": 1}])
    wb.send_json(MATCH3)
    match_a = until(wa, "paired")["match"]
    assert until(wb, "paired")["match"] == match_a
    state = a.get(f"/api/games/{match_a}").json()
    names = [seat["name"] for seat in state["info"]["seats"]]
    me = [x.get("/api/me").json()["user"]["name"] for x in (a, b)]
    assert names == me  # the first come has seat 0
    info = state["info"]
    assert info["status"] == "playing" and info["kind"] == "match" and info["length"] == 3
    assert not info["rated"] and not info["private"] and state["game"] is not None
    assert match_a not in [g["id"] for g in c.get("/api/games").json()]  # never open
    # the third waits alone, and is not paired again with either of them
    wc.send_json(MATCH3)
    until(wc, "seeking")
    assert pair_now(client) == []
    assert waiting(client, c) is not None
    assert waiting(client, a) is None and waiting(client, b) is None
    # the pools' counts: c alone
    until(wa, "pools", lambda m: m["pools"] == [
        {"kind": "match", "length": 3, "clock": "none", "rated": False, "waiting": 1}])


def test_bad_input_is_refused_and_changes_nothing(client: TestClient, sockets: list[Any]
                                                  ) -> None:
    a = guest(client)
    wa = lobby(a)
    sockets.append(wa)
    refused = [
        ({**MATCH3, "kind": "chouette"}, "malformed"),
        ({**MATCH3, "length": 4}, "bad_pool"),
        ({**MATCH3, "length": 1}, "bad_pool"),
        ({"type": "seek", "kind": "single", "length": 3}, "bad_pool"),
        ({"type": "seek", "kind": "money", "rated": True}, "bad_pool"),
        ({**MATCH3, "rated": True}, "not_eligible"),  # a guest
        ({**MATCH3, "bot": 2}, "malformed"),  # a bot with no time
        ({**MATCH3, "bot": 2, "bot_after": 0}, "malformed"),
        ({"type": "unseek"}, "not_seeking"),
    ]
    for n, (message, code) in enumerate(refused):
        wa.send_json({**message, "id": n})
        error = until(wa, "error")
        assert (error["code"], error["id"]) == (code, n), error
        assert error["message"]
    assert waiting(client, a) is None
    wa.send_json(MATCH3)
    until(wa, "seeking")
    place = waiting(client, a)
    wa.send_json({"type": "seek", "kind": "money", "id": "again"})  # a second pool
    error = until(wa, "error")
    assert (error["code"], error["id"]) == ("already_seeking", "again")
    assert waiting(client, a) == place  # still in the first


def test_a_player_who_cancels_or_leaves_is_not_paired(client: TestClient,
                                                      sockets: list[Any]) -> None:
    a, b, c = guest(client), guest(client), guest(client)
    wa, wb = lobby(a), lobby(b)
    sockets += [wb]
    wa.send_json(MATCH3)
    until(wa, "seeking")
    wa.send_json({"type": "unseek"})
    assert until(wa, "seeking")["seek"] is None
    assert waiting(client, a) is None
    # b waits; a comes back, then closes the page: b is not paired with a
    wa.send_json({**MATCH3, "clock": "italian"})
    until(wa, "seeking")
    wa.__exit__(None, None, None)
    until_left(client, a)  # the server has seen the socket close
    wb.send_json({**MATCH3, "clock": "italian"})
    until(wb, "seeking")
    assert pair_now(client) == []
    assert waiting(client, a) is not None  # kept for the grace time, unpaired
    # after the grace time the place is gone; b still waits, and is paired with the next
    grace = matchmaker(client).settings.pairing_grace
    assert pair_now(client, time.time() + grace + 1) == []
    assert waiting(client, a) is None and waiting(client, b) is not None
    wc = lobby(c)
    sockets.append(wc)
    wc.send_json({**MATCH3, "clock": "italian"})
    match = until(wb, "paired")["match"]
    assert until(wc, "paired")["match"] == match
    clock = c.get(f"/api/games/{match}").json()["info"]["clock"]
    assert clock == "italian"


def test_a_restart_while_waiting_keeps_the_place(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        a = guest(first)
        wa = lobby(a)
        wa.send_json(MATCH3)
        since = until(wa, "seeking")["seek"]["since"]
        wa.__exit__(None, None, None)
    with TestClient(create_app(settings)) as second:
        a.client = second
        wa = lobby_back(a)
        try:
            seek = until(wa, "seeking")["seek"]
            assert seek is not None and seek["since"] == since  # still waiting, from then
            b = guest(second)
            wb = lobby(b)
            try:
                wb.send_json(MATCH3)
                match = until(wa, "paired")["match"]
                assert until(wb, "paired")["match"] == match
            finally:
                wb.__exit__(None, None, None)
        finally:
            wa.__exit__(None, None, None)


def lobby_back(browser: Browser) -> Any:
    """A socket of a player coming back to the lobby (their place not read yet)."""
    ws = browser.websocket_connect("/ws")
    ws.__enter__()
    until(ws, "welcome")
    ws.send_json({"type": "subscribe_lobby"})
    return ws


def test_the_bot_takes_a_player_after_the_seconds_they_chose(
        client: TestClient, sockets: list[Any]) -> None:
    a = guest(client)
    wa = lobby(a)
    sockets.append(wa)
    wa.send_json({**MATCH3, "clock": "polish", "bot": 2, "bot_after": 20})
    since = until(wa, "seeking")["seek"]["since"]
    assert pair_now(client, since + 19) == []
    assert client.portal is not None  # the bot's user is made when a fallback needs it
    assert client.portal.call(matchmaker(client).repo.user_by_name, "bot-2") is None
    (made,) = pair_now(client, since + 20)
    assert until(wa, "paired")["match"] == made
    info = a.get(f"/api/games/{made}").json()["info"]
    assert info["seats"][1]["name"] == "bot-2" and info["bot"] == 2
    assert info["clock"] == "none" and not info["rated"]  # the bot's games: untimed
    assert waiting(client, a) is None
    assert time.time() < since + 20  # no time waited for it


def test_rated_pools_pair_registered_players_into_a_rated_match(
        client: TestClient, sockets: list[Any]) -> None:
    a, b = registered(client, "rhea"), registered(client, "remo")
    wa, wb = lobby(a), lobby(b)
    sockets += [wa, wb]
    wa.send_json({**MATCH3, "rated": True})
    until(wa, "seeking")
    wb.send_json({**MATCH3, "rated": False})  # another pool: not paired with a
    until(wb, "seeking")
    assert pair_now(client) == []
    wb.send_json({"type": "unseek"})
    until(wb, "seeking")
    wb.send_json({**MATCH3, "rated": True})
    match = until(wa, "paired")["match"]
    assert until(wb, "paired")["match"] == match
    assert a.get(f"/api/games/{match}").json()["info"]["rated"] is True


def test_a_place_no_process_sees_is_not_paired_and_goes_after_the_grace_time(
        client: TestClient, sockets: list[Any]) -> None:
    """A place whose server process died (no socket anywhere, nobody to mark it left) is
    not paired once it is no longer seen, and is removed after the grace time."""
    a, b = guest(client), guest(client)
    me = a.get("/api/me").json()["user"]["id"]
    mm = matchmaker(client)
    long_ago = time.time() - 10  # seen last 10 s ago (5 passes: not present), then gone
    place = Seek(kind="match", length=3, clock="none", rated=False, since=long_ago)
    assert client.portal is not None
    assert client.portal.call(mm.repo.add_seek, me, place)
    wb = lobby(b)
    sockets.append(wb)
    wb.send_json(MATCH3)
    until(wb, "seeking")
    assert pair_now(client) == []  # b is not paired with a place nobody holds
    assert waiting(client, a) is not None  # within the grace time
    assert pair_now(client, long_ago + mm.settings.pairing_grace + 1) == []
    assert waiting(client, a) is None and waiting(client, b) is not None
