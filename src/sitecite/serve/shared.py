"""State that replicas must share: the per-address rate limit, the answer cache, and the claim
on a question being answered (so two replicas do not both answer it).

`LocalState` keeps them in this process (the default). `RedisState` (`serve.redis_url`, the
`redis` extra) keeps them in Redis: the token bucket is one Lua script, so a limit holds
however many replicas a visitor's requests reach; cached answers are plain keys with a TTL; a
question being answered is a key set with NX, and the others wait for its answer. When Redis
fails, every call falls back to this process's own state, `/api/health` says so, and Redis is
tried again after `RETRY_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from sitecite.config import ServeSettings
from sitecite.errors import ConfigError
from sitecite.serve.cache import AnswerCache
from sitecite.serve.limits import RateLimiter, Verdict, verdict

log = logging.getLogger("sitecite.serve")

RETRY_SECONDS = 5.0
TIMEOUT_SECONDS = 0.5  # a Redis that stops answering must not hold a request up for long
CLAIM_SECONDS = 60.0  # how long a replica may take to answer a question others wait for

# KEYS[1] the bucket; ARGV capacity, tokens per second. Redis's clock, so replicas agree.
TOKEN_BUCKET = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 - 1e-9 then
  tokens = math.max(0, tokens - 1)
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate) + 1)
return {allowed, tostring(tokens)}
"""


class LocalState:
    """Rate limit and cache in this process; claims are always granted (the service already
    joins identical questions within one process)."""

    backend = "in-process"

    def __init__(self, settings: ServeSettings) -> None:
        self.limiter = RateLimiter(settings.rate_limit_per_minute)
        self.cache = AnswerCache(settings.cache_size, settings.cache_ttl_seconds)

    async def take(self, client: str) -> Verdict:
        return self.limiter.take(client)

    async def get(self, key: str) -> bytes | None:
        return self.cache.get(key)

    async def put(self, key: str, body: bytes) -> None:
        self.cache.put(key, body)

    async def claim(self, key: str) -> bool:
        return True

    async def wait_for(self, key: str) -> bytes | None:
        return None

    async def release(self, key: str) -> None:
        return None

    def clear(self) -> None:
        self.cache.clear()

    def warnings(self) -> list[str]:
        return []

    async def close(self) -> None:
        return None


class RedisState(LocalState):
    """The same calls against Redis, falling back to the inherited in-process state."""

    backend = "redis"

    def __init__(self, settings: ServeSettings) -> None:
        super().__init__(settings)
        try:
            import redis.asyncio
        except ImportError as exc:
            raise ConfigError(
                "serve.redis_url needs the redis package: pip install 'sitecite[redis]'"
            ) from exc
        self.errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        try:
            self.redis: Any = redis.asyncio.Redis.from_url(
                settings.redis_url,
                socket_timeout=TIMEOUT_SECONDS,
                socket_connect_timeout=TIMEOUT_SECONDS,
            )
        except ValueError as exc:
            raise ConfigError(f"bad setting 'serve.redis_url': {exc}") from exc
        self.where = _public_address(settings.redis_url)
        self.prefix = settings.redis_prefix
        self.capacity = float(settings.rate_limit_per_minute)
        self.ttl_ms = int(settings.cache_ttl_seconds * 1000)
        self.caching = settings.cache_size > 0 and self.ttl_ms > 0
        self.bucket = self.redis.register_script(TOKEN_BUCKET)
        self.down_until = 0.0
        self.failure = ""

    async def _call(self, operation: str, work: Any, fallback: Any) -> Any:
        """`await work()` against Redis, or `fallback()` while Redis is failing."""
        if time.monotonic() < self.down_until:
            return await fallback()
        try:
            result = await work()
        except self.errors as error:
            if not self.failure:
                log.warning(
                    "redis at %s failed (%s: %s); serving from this process's own "
                    "state, retrying in %.0f s",
                    self.where,
                    operation,
                    error,
                    RETRY_SECONDS,
                )
            self.failure = f"{type(error).__name__} during {operation}"
            self.down_until = time.monotonic() + RETRY_SECONDS
            return await fallback()
        if self.failure:
            log.warning("redis at %s is back", self.where)
            self.failure = ""
        return result

    def _key(self, kind: str, name: str) -> str:
        return f"{self.prefix}:{kind}:{name}"

    async def take(self, client: str) -> Verdict:
        if self.capacity <= 0:
            return Verdict(True, 0)

        async def shared() -> Verdict:
            keys = [self._key("bucket", client)]
            allowed, tokens = await self.bucket(keys=keys, args=[self.capacity, self.capacity / 60])
            return verdict(bool(allowed), float(tokens), self.capacity / 60)

        return await self._call("rate limit", shared, lambda: super(RedisState, self).take(client))

    async def get(self, key: str) -> bytes | None:
        if not self.caching:
            return None

        async def shared() -> bytes | None:
            body = await self.redis.get(self._key("answer", key))
            return bytes(body) if body is not None else None

        return await self._call("cache read", shared, lambda: super(RedisState, self).get(key))

    async def put(self, key: str, body: bytes) -> None:
        if not self.caching:
            return

        async def shared() -> None:
            await self.redis.set(self._key("answer", key), body, px=self.ttl_ms)

        await self._call("cache write", shared, lambda: super(RedisState, self).put(key, body))

    async def claim(self, key: str) -> bool:
        """True if this replica should answer `key` (no other replica is answering it)."""
        if not self.caching:  # the answer reaches other replicas only through the cache
            return True

        async def shared() -> bool:
            ms = int(CLAIM_SECONDS * 1000)
            return bool(await self.redis.set(self._key("claim", key), 1, nx=True, px=ms))

        return bool(await self._call("claim", shared, lambda: super(RedisState, self).claim(key)))

    async def wait_for(self, key: str) -> bytes | None:
        """The answer another replica is computing, or None if its claim lapsed without one."""
        delay = 0.005
        deadline = time.monotonic() + CLAIM_SECONDS
        while time.monotonic() < deadline:
            body = await self.get(key)
            if body is not None:
                return body
            claimed = await self._call(
                "claim check",
                lambda: self.redis.exists(self._key("claim", key)),
                lambda: asyncio.sleep(0, result=0),
            )
            if not claimed:
                return await self.get(key)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.1)
        return None

    async def release(self, key: str) -> None:
        await self._call(
            "release",
            lambda: self.redis.delete(self._key("claim", key)),
            lambda: asyncio.sleep(0),
        )

    def warnings(self) -> list[str]:
        if not self.failure:
            return []
        return [
            f"redis at {self.where} is unavailable ({self.failure}): the rate limit, answer "
            "cache and de-duplication are this process's own until it is back"
        ]

    async def close(self) -> None:
        with contextlib.suppress(*self.errors):
            await self.redis.aclose()


def _public_address(url: str) -> str:
    """host:port of a Redis URL, never its password."""
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}"


def shared_state(settings: ServeSettings) -> LocalState:
    """Redis when `serve.redis_url` is set, else this process's own state."""
    return RedisState(settings) if settings.redis_url else LocalState(settings)
