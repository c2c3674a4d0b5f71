"""The bus between server processes: tells the others that a match changed.

A process that appends an action to a match publishes it (the messages are the types of
:mod:`gammon.server.bus_messages`, carried as the dicts of its ``dump``); every other
process holding that match applies the rows it carries or catches up from the database (the
log is the truth) and forwards the new events to its own sockets. Chat and rematch offers,
which are not in the log, travel in the message itself.

:class:`LocalBus` is the in-process default (one process; several apps in one process may
share one instance, as the tests do). :class:`RedisBus` uses Redis pub/sub, for several
``gammon serve`` processes behind one address.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from gammon.server import jsontext

Message = dict[str, object]
"""A bus message as the bus carries it (:func:`gammon.server.bus_messages.dump`)."""
Handler = Callable[[Message], Awaitable[None]]
log = logging.getLogger(__name__)
CHANNEL = "gammon:bus"


def channel_for(database_url: str) -> str:
    """The bus channel of the deployment on ``database_url``: the processes that share a
    database (one deployment) share it; another database on the same Redis gets another
    channel. The URL is hashed, so no password travels to Redis.

    >>> channel_for("postgresql+asyncpg://db/a") == channel_for("postgresql+asyncpg://db/a")
    True
    >>> channel_for("postgresql+asyncpg://db/a") == channel_for("postgresql+asyncpg://db/b")
    False
    """
    return f"{CHANNEL}:{hashlib.sha256(database_url.encode()).hexdigest()[:16]}"


class Bus(Protocol):
    """Carries each published message to the handlers of every process (this one's
    included: a hub ignores its own)."""

    async def start(self, handler: Handler) -> None: ...
    async def publish(self, message: Message) -> None: ...
    async def close(self) -> None: ...


class LocalBus:
    """Delivers every message to every handler started on this instance (this process)."""

    def __init__(self) -> None:
        self._handlers: list[Handler] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, handler: Handler) -> None:
        self._handlers.append(handler)

    async def publish(self, message: Message) -> None:
        if len(self._handlers) < 2:
            return  # the publisher itself is the only listener
        for handler in list(self._handlers):
            task = asyncio.ensure_future(handler(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        self._handlers.clear()


def redis_client(url: str, **options: Any) -> Any:
    """An asyncio Redis client for ``url`` that does not ask the server for what only
    Redis 7.2 and later know (``CLIENT SETINFO``, maintenance notifications): each new
    connection to an older Redis would otherwise meet three refusals (a ``ResponseError``
    each, with its traceback left to the garbage collector)."""
    import redis.asyncio as redis

    try:
        from redis.maint_notifications import MaintNotificationsConfig
    except ImportError:  # redis-py before 7: it never asks
        pass
    else:
        options.setdefault("maint_notifications_config",
                           MaintNotificationsConfig(enabled=False))
    if importlib.util.find_spec("redis.driver_info") is None:  # before redis-py 7.1
        options.update(lib_name=None, lib_version=None)
    else:
        options.setdefault("driver_info", None)  # None: no CLIENT SETINFO
    return redis.from_url(url, **options)


class RedisBus:
    """Redis pub/sub on one channel."""

    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        self._redis = redis_client(url)
        self.channel = channel
        self._task: asyncio.Task[None] | None = None
        self._handling: set[asyncio.Task[None]] = set()
        self._pubsub: Any = None

    async def start(self, handler: Handler) -> None:
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel)

        async def handle(data: Any) -> None:
            try:
                await handler(jsontext.loads(data))
            except Exception:  # one bad message must not stop the bus
                log.exception("bus message failed")

        async def listen() -> None:
            # each message in a task of its own, as LocalBus does: a handler that reads the
            # database (a catch-up) must not hold up every other match's messages behind it
            async for message in self._pubsub.listen():
                task = asyncio.create_task(handle(message["data"]))
                self._handling.add(task)
                task.add_done_callback(self._handling.discard)

        self._task = asyncio.create_task(listen())

    async def publish(self, message: Message) -> None:
        await self._redis.publish(self.channel, jsontext.dumps(message))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for task in list(self._handling):
            task.cancel()
        if self._pubsub is not None:
            await self._pubsub.aclose()
        await self._redis.aclose()
