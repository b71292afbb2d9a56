"""How far behind a worker is, told to whoever shares its process.

Where `sediment serve` hosts the worker, recall and consolidation share one
interpreter lock. Recall slots alone gave the worker a fair share, not enough: at
half its unloaded capacity with 20 recall clients its queue grew for the whole run
(lag p95 112 s). So serve asks `behind()` before it admits a recall, and while the
worker is behind, new recalls wait (at most a bounded time) and the worker has the
interpreter to itself until it has caught up.

The worker is behind while the retain in hand was published more than `budget_s`
before it started, or the last one was and ended less than `idle_s` ago (between
two messages of a backlog the worker is briefly idle; after that gap with nothing
started, the queue is empty). A retain without a publish time says nothing.
"""

import threading
import time
from collections.abc import Callable


class Backlog:
    def __init__(
        self, budget_s: float, idle_s: float = 0.1, clock: Callable[[], float] = time.time
    ) -> None:
        if budget_s <= 0:
            raise ValueError(f"budget_s must be positive, got {budget_s}")
        self.budget_s = budget_s
        self._idle_s = idle_s
        self._clock = clock
        self._lock = threading.Lock()
        self._late = False
        self._running = 0
        self._ended_at = 0.0

    def started(self, published_at: float | None) -> None:
        """A retain begins; `published_at`: Unix seconds its oldest event was published."""
        now = self._clock()
        with self._lock:
            self._running += 1
            if published_at is not None:
                self._late = now - published_at > self.budget_s

    def finished(self) -> None:
        with self._lock:
            self._running = max(0, self._running - 1)
            self._ended_at = self._clock()

    def behind(self) -> bool:
        with self._lock:
            if not self._late:
                return False
            return self._running > 0 or self._clock() - self._ended_at < self._idle_s
