"""The slow-call log's writer: operations slower than `SEDIMENT_RECALL_SLOW_MS` (store
calls, retain handling, API calls) are appended to `sediment:slow`, metadata only.

The entry is written by one background thread (`telemetry.background`), so timing a
call never adds a Redis round trip to it and a failure there never reaches the caller.
"""

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from typing import Final, Protocol

from telemetry.background import Background
from telemetry.recall_logs import SlowCall

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
        timings_ms: Mapping[str, float] | None = None,
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
        self._background = Background("slow-calls", MAX_PENDING)

    def observe(
        self,
        operation: str,
        duration_ms: float,
        bank_id: str | None = None,
        sizes: Mapping[str, int] | None = None,
        timings_ms: Mapping[str, float] | None = None,
    ) -> None:
        """Queue an entry when `duration_ms` is over the threshold; else nothing."""
        if duration_ms <= self.threshold_ms:
            return
        call = SlowCall(
            self._clock(),
            operation,
            duration_ms,
            bank_id,
            dict(timings_ms or {}),
            dict(sizes or {}),
        )
        self._background.submit("slow", bank_id, partial(self._log.add_slow, call))

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
        return self._background.flush(timeout)

    def close(self) -> None:
        self._background.close()
