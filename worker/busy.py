"""Whether this process is consolidating right now.

Where `sediment serve` hosts the worker (a local store admits one process), recall and
consolidation share one interpreter lock, and a thread's share of it is about one
over the number of busy threads: with two recalls in flight the worker got a fifth of
it and fell behind for good under recall load. The worker marks each batch it runs
here; serve admits no new recall, over HTTP or MCP, while one runs
(`sediment/recall_gate.py`), for at most a bounded wait, so a batch has the interpreter
nearly to itself and recall takes what consolidation leaves.
"""

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Listener = Callable[[bool], None]


class Busy:
    """Counts the batches running (a threads pool runs several); listeners hear each
    change between idle and busy, on the worker's thread, and must return at once."""

    def __init__(self) -> None:
        self._running = 0
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []

    @property
    def busy(self) -> bool:
        return self._running > 0

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(busy)` on every change from now on; returns the way to stop."""
        with self._lock:
            self._listeners.append(listener)

        def stop() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return stop

    @contextmanager
    def running(self) -> Iterator[None]:
        self._change(+1)
        try:
            yield
        finally:
            self._change(-1)

    def _change(self, step: int) -> None:
        with self._lock:
            before = self._running > 0
            self._running += step
            now = self._running > 0
            listeners = list(self._listeners) if before != now else []
        for listener in listeners:
            listener(now)
