"""Retain handling in the slow-call log: Celery's task signals time each run of the
versioned retain and feedback tasks, so the task bodies stay thin and unaware of it.

A run slower than `SEDIMENT_RECALL_SLOW_MS` becomes a `sediment:slow` entry named
`worker.retain`, `worker.retain_batch` or `worker.feedback_handler`, with the bank (when the
payload names one valid bank), the number of events and of messages (a retain run takes
many, worker/batching.py): never the payload itself.

Signals are process-wide and a worker may run a task through another app object than
the one it was declared on, so tasks are matched by name, and one timer watches a
process: the latest `watch_slow_tasks` replaces the one before.
"""

import threading
import time
from typing import Any, Final

from celery import Task
from celery.signals import task_postrun, task_prerun
from celery_batches import SimpleRequest

from contracts.base import is_bank_id
from telemetry.slow_calls import SlowObserver
from worker.celery_app import FEEDBACK_TASK, RETAIN_BATCH_TASK, RETAIN_TASK

OPERATIONS: Final = {
    RETAIN_TASK: "worker.retain",
    RETAIN_BATCH_TASK: "worker.retain_batch",
    FEEDBACK_TASK: "worker.feedback_handler",
}


def _bank(payloads: list[Any]) -> str | None:
    banks = {p.get("bank_id") for p in payloads if isinstance(p, dict)}
    bank = banks.pop() if len(banks) == 1 else None
    return bank if isinstance(bank, str) and is_bank_id(bank) else None


def _messages(args: tuple[Any, ...] | None) -> list[tuple[Any, ...]]:
    """The arguments of each message a run handled: a retain run is a batch of
    messages (`SimpleRequest`s, worker/batching.py); any other run is one."""
    first = args[0] if args else None
    if isinstance(first, list) and first and all(isinstance(r, SimpleRequest) for r in first):
        return [tuple(r.args or ()) for r in first]
    return [args or ()]


def _payloads(task: Task, args: tuple[Any, ...]) -> list[Any]:
    first = args[0] if args else None
    if task.name == RETAIN_BATCH_TASK:
        return first if isinstance(first, list) else []
    return [first]


class TaskTimer:
    """Start times by task id (runs may overlap in a thread pool)."""

    def __init__(self, slow: SlowObserver) -> None:
        self._slow = slow
        self._starts: dict[str, float] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _ours(task: Task | None) -> bool:
        return task is not None and task.name in OPERATIONS

    def started(self, task_id: str | None = None, task: Task | None = None, **_: Any) -> None:
        if self._ours(task) and task_id is not None:
            with self._lock:
                self._starts[task_id] = time.perf_counter()

    def finished(
        self,
        task_id: str | None = None,
        task: Task | None = None,
        args: tuple[Any, ...] | None = None,
        **_: Any,
    ) -> None:
        if task is None or task_id is None or not self._ours(task):
            return
        with self._lock:
            start = self._starts.pop(task_id, None)
        if start is None:
            return
        messages = _messages(args)
        payloads = [p for m in messages for p in _payloads(task, m)]
        ms = (time.perf_counter() - start) * 1000
        sizes = {"events": len(payloads), "messages": len(messages)}
        self._slow.observe(OPERATIONS[task.name], ms, _bank(payloads), sizes)


_watching: list[TaskTimer] = []
_lock = threading.Lock()


def watch_slow_tasks(slow: SlowObserver) -> TaskTimer:
    """Time this process's retain and feedback task runs for the slow-call log."""
    timer = TaskTimer(slow)
    with _lock:
        for old in _watching:
            task_prerun.disconnect(old.started)
            task_postrun.disconnect(old.finished)
        _watching[:] = [timer]
        task_prerun.connect(timer.started, weak=False)
        task_postrun.connect(timer.finished, weak=False)
    return timer
