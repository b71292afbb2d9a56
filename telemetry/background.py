"""Side effects off the caller's time: one background thread, a bounded backlog.

Recall's bookkeeping and the slow-call log both need the same promise: the caller never
waits for Redis, a failure is logged by class (messages may quote content) and never
reaches the caller, and past the backlog an effect is dropped with a warning.
"""

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import structlog

log = structlog.get_logger("sediment.background")


def guarded(effect: str, bank_id: str | None, job: Callable[[], object]) -> None:
    """Run one side effect; log its failure by class only."""
    try:
        job()
    except Exception as exc:
        log.warning(
            "background_effect_failed",
            effect=effect,
            bank_id=bank_id,
            error_class=type(exc).__name__,
        )


class Background:
    def __init__(self, name: str, max_pending: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._room = threading.BoundedSemaphore(max_pending)

    def submit(self, effect: str, bank_id: str | None, job: Callable[[], None]) -> None:
        """Schedule `job` with the caller's log context (its request id, say); when the
        backlog is full or the executor closed, drop it and say so."""
        if not self._room.acquire(blocking=False):
            log.warning(
                "background_effect_dropped", effect=effect, bank_id=bank_id, reason="backlog"
            )
            return
        try:
            context = contextvars.copy_context()
            self._executor.submit(context.run, self._run, effect, bank_id, job)
        except RuntimeError:
            self._room.release()
            log.warning(
                "background_effect_dropped", effect=effect, bank_id=bank_id, reason="closed"
            )

    def flush(self, timeout: float | None = None) -> bool:
        """Wait for every effect scheduled so far; False on timeout."""
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

    def _run(self, effect: str, bank_id: str | None, job: Callable[[], None]) -> None:
        try:
            guarded(effect, bank_id, job)
        finally:
            self._room.release()
