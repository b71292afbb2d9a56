"""The slow-call log's writer: operations slower than `SEDIMENT_RECALL_SLOW_MS` (store
calls, retain handling, API calls) are appended to `sediment:slow`, metadata only.

The entry is written by one background thread, so timing a call never adds a Redis
round trip to it, and a failure there is logged by class and never reaches the caller.
The backlog is bounded: past it, entries are dropped with a warning.
"""

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from typing import Final, Protocol

import structlog

from readmodel.recall_logs import SlowCall

log = structlog.get_logger("sediment.slow")

MAX_PENDING: Final = 1_000


class SlowLog(Protocol):
    def add_slow(self, call: SlowCall) -> None: ...


class SlowObserver(Protocol):
    """Told how long an operation took; decides whether that was slow."""

    def observe(
        self,
        operation: str,
        duration_ms: float,
        bank_id: str | None = None,
        sizes: Mapping[str, int] | None = None,
    ) -> None: ...


class SlowCalls:
    def __init__(
        self,
        log_: SlowLog,
        threshold_ms: float,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.threshold_ms = threshold_ms
        self._log = log_
        self._clock = clock or partial(datetime.now, UTC)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slow-calls")
        self._room = threading.BoundedSemaphore(MAX_PENDING)

    def observe(
        self,
        operation: str,
        duration_ms: float,
        bank_id: str | None = None,
        sizes: Mapping[str, int] | None = None,
    ) -> None:
        """Queue an entry when `duration_ms` is over the threshold; else nothing."""
        if duration_ms <= self.threshold_ms:
            return
        call = SlowCall(self._clock(), operation, duration_ms, bank_id, {}, dict(sizes or {}))
        if not self._room.acquire(blocking=False):
            log.warning("slow_call_dropped", operation=operation, reason="backlog")
            return
        try:
            self._executor.submit(self._write, call)
        except RuntimeError:
            self._room.release()
            log.warning("slow_call_dropped", operation=operation, reason="closed")

    @contextmanager
    def timed(
        self, operation: str, bank_id: str | None = None, sizes: Mapping[str, int] | None = None
    ) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.observe(operation, (time.perf_counter() - start) * 1000, bank_id, sizes)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait for every entry queued so far; False on timeout."""
        try:
            marker: Future[None] = self._executor.submit(lambda: None)
        except RuntimeError:
            return True
        try:
            marker.result(timeout)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self._executor.shutdown(wait=True)

    def _write(self, call: SlowCall) -> None:
        try:
            self._log.add_slow(call)
        except Exception as exc:
            log.warning(
                "slow_call_failed", operation=call.operation, error_class=type(exc).__name__
            )
        finally:
            self._room.release()
