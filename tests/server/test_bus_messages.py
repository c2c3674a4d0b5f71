"""The bus messages between server processes (:mod:`gammon.server.bus_messages`): each one
reads back as it was written, as a dict and through JSON; anything else is refused; and a
hub drops a malformed message with a warning and goes on serving its rooms."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from gammon.server import bus_messages as B
from gammon.server.pubsub import LocalBus
from tests.server.conftest import run_async as run
from tests.server.test_hub import Socket
from tests.server.test_stale_room import a_started_match, servers, until

CHAT: Any = {"type": "chat", "match": "m1", "seat": 0, "from": "ann", "text": "hi",
             "at": 1000.5}
EVERY_MESSAGE: list[B.BusMessage] = [
    B.Resync(origin="p1"),
    B.LobbyChanged(origin="p1"),
    B.ChallengesChanged(users=(3, 7), origin="p1"),
    B.SeeksChanged(users=(3,), origin="p1"),
    B.SeeksChanged(users=(3, 7), match="m2", origin="p1"),
    B.OptionsChanged(user=7, origin="p1"),
    B.ActionStored(match="m1", seq=4, origin="p1"),
    B.ActionStored(match="m1", seq=5, first=4, ended=True, origin="p1",
                   rows=(("move", '{"t": "move"}', 1000.25), ("roll", "{}", 1001.0))),
    B.Seated(match="m1", origin="p1"),
    B.forward("m1", CHAT),
    B.forward("m1", {"type": "rematch", "match": "m1", "new": "m2", "by": "ann"}),
    B.Forward(match="m1", kind="analysis", origin="p1", payload={
        "type": "analysis", "match": "m1", "plies": 0, "status": "running", "done": 1,
        "total": 3}),
]


@pytest.mark.parametrize("message", EVERY_MESSAGE, ids=lambda m: m.kind)
def test_every_message_reads_back_as_written(message: B.BusMessage) -> None:
    assert B.parse(B.dump(message)) == message
    assert B.parse(json.loads(json.dumps(B.dump(message)))) == message  # over Redis


def test_a_stored_action_without_rows_is_written_as_before() -> None:
    """The other processes of a rolling restart read what the earlier version wrote."""
    assert B.dump(B.ActionStored(match="m1", seq=3, origin="p1")) == \
        {"kind": "action", "match": "m1", "seq": 3, "ended": False, "origin": "p1"}
    assert B.parse({"kind": "action", "match": "m1", "seq": 3}) == \
        B.ActionStored(match="m1", seq=3)


@pytest.mark.parametrize("data", [
    None, "resync", ["resync"], {}, {"kind": "restart"}, {"match": "m1", "seq": 1},
    {"kind": "options"}, {"kind": "options", "user": "ann"},
    {"kind": "challenges", "users": 3}, {"kind": "challenges", "users": ["ann"]},
    {"kind": "action", "match": 5, "seq": 1}, {"kind": "action", "match": "m1"},
    {"kind": "action", "match": "m1", "seq": 2, "first": 1, "rows": [["move", "{}"]]},
    {"kind": "chat", "match": "m1"}, {"kind": "chat", "match": "m1", "payload": {"t": 1}},
    {"kind": "analysis", "match": "m1", "payload": {**CHAT, "type": "analysis"}},
    {"kind": "rematch", "match": "m1", "payload": CHAT},  # a chat line sent as a rematch
], ids=repr)
def test_what_is_not_a_bus_message_is_refused(data: Any) -> None:
    with pytest.raises(B.BadBusMessage, match="not a bus message"):
        B.parse(data)


def test_a_malformed_bus_message_is_dropped_and_the_hub_goes_on(
        database_url: str, redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        bus = LocalBus()
        acting = await servers(database_url, redis_url, bus).start()
        watching = await servers(database_url, redis_url, bus).start()
        match_id, users = await a_started_match(acting, watching)
        socket = Socket(users[1])
        await watching.hub.subscribe(socket, match_id, since=None)
        for bad in ({"kind": "action", "match": match_id}, {"kind": "chat", "match": match_id,
                    "payload": "hello"}, ["resync"], {"kind": "unheard of"}):
            await acting.hub.bus.publish(bad)  # type: ignore[arg-type]
        await acting.play.chat(Socket(users[0]), match_id, "still there?")
        await until(lambda: socket.sent[-1].get("type") == "chat")
        assert socket.sent[-1]["text"] == "still there?"
        # each process drops each one (the sender hears its own messages too)
        await until(lambda: sum("bus message dropped" in r.getMessage()
                                for r in caplog.records) == 8)
        await watching.stop()
        await acting.stop()

    with caplog.at_level(logging.WARNING):
        run(main)
