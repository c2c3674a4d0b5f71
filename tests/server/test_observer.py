"""The hub and play report their work to the hub's observer (:mod:`gammon.server.observer`):
each player's action with its result, each bot turn, each failed publish."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gammon.server.bus_messages import LobbyChanged
from gammon.server.hub import ServiceError
from gammon.server.observer import Observer
from gammon.server.pubsub import LocalBus
from tests.server.conftest import run_async as run
from tests.server.test_stale_room import a_started_match, servers


class Recorder(Observer):
    def __init__(self) -> None:
        self.seen: list[tuple[str, ...]] = []

    @contextmanager
    def action(self, match: str, user: int, kind: str, received: float) -> Iterator[None]:
        try:
            yield
        except ServiceError as error:
            self.seen.append(("action", match, str(user), kind, error.code))
            raise
        self.seen.append(("action", match, str(user), kind, "ok"))

    def bus_failed(self) -> None:
        self.seen.append(("bus_failed",))


class BrokenBus(LocalBus):
    async def publish(self, message: dict[str, object]) -> None:
        raise ConnectionError("the bus is down")


def test_actions_and_failed_publishes_are_reported_to_the_observer(
        database_url: str, redis_url: str) -> None:
    async def main() -> None:
        server = servers(database_url, redis_url, LocalBus())
        recorder = server.hub.observer = Recorder()
        await server.start()
        match_id, users = await a_started_match(server, server)
        room = await server.room(match_id)
        assert room.match is not None
        mover = users[room.match.game.turn]
        idle = users[1 - room.match.game.turn]
        with pytest.raises(ServiceError):
            await server.act(idle, match_id, "resign", level=1)
        await server.act(mover, match_id, "resign", level=1)
        assert recorder.seen == [("action", match_id, str(idle.id), "resign", "not_your_turn"),
                                 ("action", match_id, str(mover.id), "resign", "ok")]
        real, server.hub.bus = server.hub.bus, BrokenBus()
        await server.hub.publish(LobbyChanged())  # logged, not raised
        server.hub.bus = real
        assert recorder.seen[-1] == ("bus_failed",)
        await server.stop()

    run(main)

