"""The Redis bus hands each message to the handler in a task of its own, as the in-process
bus does: a handler that waits (a catch-up reading the database) holds up no other match's
messages. Awaited one after another, they capped a process at one catch-up at a time."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from gammon.server.pubsub import RedisBus
from tests.server.conftest import redis_reachable, run_async


def test_a_slow_message_does_not_hold_up_the_next() -> None:
    url = redis_reachable()

    async def main() -> list[str]:
        channel = f"gammon-test:bus:{secrets.token_hex(6)}"
        listener, publisher = RedisBus(url, channel), RedisBus(url, channel)
        handled: list[str] = []
        release = asyncio.Event()
        second_seen = asyncio.Event()

        async def handler(message: dict[str, Any]) -> None:
            if message["match"] == "slow":
                await release.wait()  # a catch-up that takes its time
            handled.append(message["match"])
            if message["match"] == "quick":
                second_seen.set()

        await listener.start(handler)
        try:
            await publisher.publish({"kind": "action", "match": "slow", "seq": 1})
            await publisher.publish({"kind": "action", "match": "quick", "seq": 1})
            await asyncio.wait_for(second_seen.wait(), 5)  # while "slow" still waits
            release.set()
            for _ in range(100):
                if len(handled) == 2:
                    break
                await asyncio.sleep(0.01)
            return handled
        finally:
            await listener.close()
            await publisher.close()

    assert run_async(main) == ["quick", "slow"]
