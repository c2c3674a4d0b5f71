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


def test_a_new_redis_connection_meets_no_refusal() -> None:
    """Every Redis client of the server (bus, rate limiter, readiness) opens its connections
    without asking for what an older Redis refuses (CLIENT SETINFO, maintenance
    notifications): the server's count of error replies does not move. The default client
    of redis-py 8 met three refusals per connection on Redis 7.0."""
    import redis

    from gammon.server.pubsub import redis_client

    url = redis_reachable()
    admin = redis.Redis.from_url(url)  # its own refusals come before the first count

    def error_replies() -> int:
        return int(admin.info("stats")["total_error_replies"])

    async def connect_and_ping() -> None:
        client = redis_client(url)
        try:
            assert await client.ping()
        finally:
            await client.aclose()

    try:
        before = error_replies()
        run_async(connect_and_ping)
        assert error_replies() == before
    finally:
        admin.close()
