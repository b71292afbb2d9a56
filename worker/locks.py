"""Per-bank locks so two workers never interleave consolidation on one bank."""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Protocol

import redis

from worker.errors import TransientError


class Locks(Protocol):
    def hold(self, name: str) -> AbstractContextManager[None]: ...


class RedisLocks:
    """redis-py's Lock (token-checked release, expiry so a dead worker cannot wedge a bank)."""

    def __init__(self, client: redis.Redis, timeout_s: float, wait_s: float) -> None:
        self._client = client
        self._timeout = timeout_s
        self._wait = wait_s

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        lock = self._client.lock(
            f"sediment:lock:{name}", timeout=self._timeout, blocking_timeout=self._wait
        )
        if not lock.acquire():
            raise TransientError(f"lock {name} still held after {self._wait}s")
        try:
            yield
        finally:
            with suppress(redis.exceptions.LockError):
                lock.release()
