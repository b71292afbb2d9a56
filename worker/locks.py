"""Per-bank locks so two workers never interleave consolidation on one bank."""

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Protocol

import redis
import structlog
from redis.lock import Lock

from worker.errors import TransientError

log = structlog.get_logger("sediment.worker")


class Locks(Protocol):
    def hold(self, name: str) -> AbstractContextManager[None]: ...


class RedisLocks:
    """redis-py's Lock: token-checked release, and an expiry so a dead worker cannot wedge
    a bank. While held, the expiry is renewed every third of it: work slower than the
    expiry (no time limit is enforced in the solo and threads pools) keeps the bank
    exclusive, and a killed process stops renewing, so its lock still lapses.

    One renewer thread serves every lock this object holds, started with the first.
    A thread per hold cost a start and a join per event, each a wait for the
    interpreter lock that, beside busy recall threads in serve, took longer than the
    two Redis round trips of the lock itself."""

    def __init__(self, client: redis.Redis, timeout_s: float, wait_s: float) -> None:
        self._client = client
        self._timeout = timeout_s
        self._wait = wait_s
        self._held: dict[int, tuple[Lock, str]] = {}
        self._guard = threading.Lock()
        self._renewer: threading.Thread | None = None

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        lock = self._client.lock(
            f"sediment:lock:{name}",
            timeout=self._timeout,
            blocking_timeout=self._wait,
            thread_local=False,
        )
        if not lock.acquire():
            raise TransientError(f"lock {name} still held after {self._wait}s")
        with self._guard:
            self._held[id(lock)] = (lock, name)
            if self._renewer is None or not self._renewer.is_alive():
                self._renewer = threading.Thread(
                    target=self._renew, name="sediment-lock-renewer", daemon=True
                )
                self._renewer.start()
        try:
            yield
        finally:
            with self._guard:
                # Once out of `_held`, the renewer (which works under the guard) no
                # longer touches this lock, so the release's round trip need not wait
                # for it or hold up other banks' holders.
                self._held.pop(id(lock), None)
            with suppress(redis.exceptions.LockError):
                lock.release()

    def _renew(self) -> None:
        """Every third of the expiry, extend each held lock; stop once none is held (the
        next hold starts another)."""
        while True:
            time.sleep(self._timeout / 3)
            with self._guard:
                if not self._held:
                    self._renewer = None
                    return
                for key, (lock, name) in list(self._held.items()):
                    try:
                        lock.reacquire()
                    except redis.exceptions.LockError:
                        log.error("lock_lost", lock=name)
                        del self._held[key]
                    except redis.exceptions.RedisError as exc:
                        log.warning("lock_renew_failed", lock=name, error=type(exc).__name__)


class ProcessLocks:
    """Named locks within one process: where a single process consumes (embedded mode),
    nothing else can hold a bank, so a `threading.Lock` per name is exclusive enough
    and costs microseconds where a Redis lock costs a round trip and a renewer thread
    (docs/decisions/0009-metrics-in-redis.md)."""

    def __init__(self, wait_s: float) -> None:
        self._wait = wait_s
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        if not lock.acquire(timeout=self._wait):
            raise TransientError(f"lock {name} still held after {self._wait}s")
        try:
            yield
        finally:
            lock.release()
