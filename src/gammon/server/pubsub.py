"""The bus between server processes: tells the others that a match changed.

A process that appends an action to a match publishes it (the messages are the types of
:mod:`gammon.server.bus_messages`, carried as the dicts of its ``dump``); every other
process holding that match applies the rows it carries or catches up from the database (the
log is the truth) and forwards the new events to its own sockets. Chat and rematch offers,
which are not in the log, travel in the message itself.

:class:`LocalBus` is the in-process default (one process; several apps in one process may
share one instance, as the tests do). :class:`RedisBus` uses Redis pub/sub, for several
``gammon serve`` processes behind one address.

Redis may go away (restarted, the connection cut): pub/sub keeps nothing for a subscriber
that is not connected, so the messages of that time are lost. :class:`RedisBus` then
subscribes again by itself (every :data:`RECONNECT_FIRST` to :data:`RECONNECT_MAX` seconds
until Redis answers) and, once it listens again, hands its handler :data:`RESYNC`: the hub
catches up with the log of every room it holds, as when another process restarts. (A
publish needs nothing of the kind: redis-py replaces a pooled connection Redis closed when
it hands it out.)
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
RESYNC: Message = {"kind": "resync"}
"""What a bus hands its handler when it may have lost messages (it listens again after its
connection to Redis broke): :class:`gammon.server.bus_messages.Resync`, from no process."""
RECONNECT_FIRST = 0.1
RECONNECT_MAX = 5.0
"""Seconds between two tries to subscribe again: the first, doubling up to the most."""


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
    """Redis pub/sub on one channel; subscribed again after Redis went away (the module's
    docstring)."""

    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        self._redis = redis_client(url)
        self.channel = channel
        self._task: asyncio.Task[None] | None = None
        self._handling: set[asyncio.Task[None]] = set()
        self._pubsub: Any = None
        self.reconnects = 0
        """How many times the subscription was made again after Redis went away."""

    async def _subscribe(self) -> None:
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel)

    async def start(self, handler: Handler) -> None:
        await self._subscribe()

        async def handle(data: Message | bytes | str) -> None:
            try:
                await handler(data if isinstance(data, dict) else jsontext.loads(data))
            except Exception:  # one bad message must not stop the bus
                log.exception("bus message failed")

        def dispatch(data: Message | bytes | str) -> None:
            # each message in a task of its own, as LocalBus does: a handler that reads the
            # database (a catch-up) must not hold up every other match's messages behind it
            task = asyncio.create_task(handle(data))
            self._handling.add(task)
            task.add_done_callback(self._handling.discard)

        async def listen() -> None:
            while True:
                try:
                    async for message in self._pubsub.listen():
                        dispatch(message["data"])
                except Exception as error:  # Redis went away (restarted, cut off)
                    log.warning("bus: the connection to Redis broke (%s: %s); subscribing "
                                "again", type(error).__name__, error)
                await self._resubscribe()
                self.reconnects += 1
                log.warning("bus: subscribed again; the rooms catch up with the log")
                dispatch(RESYNC)  # what was published meanwhile is lost

        self._task = asyncio.create_task(listen())

    async def _resubscribe(self) -> None:
        """Subscribe on a new connection, trying until Redis answers."""
        delay = RECONNECT_FIRST
        while True:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            await asyncio.sleep(delay)
            delay = min(2 * delay, RECONNECT_MAX)
            try:
                await self._subscribe()
            except Exception as error:
                log.debug("bus: Redis does not answer yet (%s)", error)
                continue
            return

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
