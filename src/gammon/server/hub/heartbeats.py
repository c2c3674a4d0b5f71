"""Heartbeats: each process writes its time to the database every ``interval`` seconds and
at a clean shutdown, so that a restart knows when the server was last up (the downtime it
credits to running clocks: :meth:`gammon.server.hub.Hub.start`)."""

from __future__ import annotations

import asyncio
import logging
import time

from gammon.server.db import Repository

log = logging.getLogger(__name__)


class Heartbeats:
    """The heartbeats of process ``origin``."""

    def __init__(self, repo: Repository, origin: str, interval: float) -> None:
        self.repo = repo
        self.origin = origin
        self.interval = interval

    async def beat(self) -> None:
        """Write that this process is up now (a failure is logged: the next beat tries
        again)."""
        try:
            await self.repo.heartbeat(self.origin, time.time())
        except Exception:
            log.exception("heartbeat failed")

    async def run(self) -> None:
        """Beat every ``interval`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            await self.beat()
