"""Rate limits: token buckets by key, in this process (:class:`RateLimiter`) or shared by
every process through Redis (:class:`RedisRateLimiter`); a socket's own limits are
:class:`TokenBucket` s of its own. The limits themselves are in docs/server.md
(``GAMMON_RATE_LIMITS``)."""

from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)


class TokenBucket:
    """``burst`` tokens, refilled at ``per_second``; :meth:`take` spends one if any."""

    __slots__ = ("at", "burst", "per_second", "tokens")

    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class RateLimiter:
    """Token buckets by key, in this process: ``await allow(key, per_minute, burst)``."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._buckets: dict[str, TokenBucket] = {}

    async def allow(self, key: str, per_minute: float, burst: int) -> bool:
        if not self.enabled:
            return True
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) > 100_000:
                self._buckets.clear()
            bucket = self._buckets[key] = TokenBucket(per_minute / 60.0, burst)
        return bucket.take()

    async def close(self) -> None:
        pass


# One token bucket in a Redis hash, updated atomically; Redis's clock is the only clock.
_REDIS_BUCKET = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1e6
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return allowed
"""


class RedisRateLimiter:
    """The same token buckets, kept in Redis: every server process sharing the Redis shares
    them (else each process would allow the whole rate). If Redis fails, requests are
    allowed (and the failure logged): the limiter must not take the server down."""

    def __init__(self, url: str, prefix: str = "gammon:rate:") -> None:
        from gammon.server.pubsub import redis_client

        self._redis = redis_client(url)
        self._script = self._redis.register_script(_REDIS_BUCKET)
        self._prefix = prefix
        self.enabled = True

    async def allow(self, key: str, per_minute: float, burst: int) -> bool:
        try:
            return bool(await self._script(keys=[self._prefix + key],
                                           args=[per_minute / 60.0, burst]))
        except Exception:
            log.exception("rate limiter: Redis failed; allowing")
            return True

    async def close(self) -> None:
        await self._redis.aclose()
