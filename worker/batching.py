"""Many retain messages per delivery: the retain tasks are celery-batches `Batches`.

A producer that retains one event at a time (`sediment.retain.v1`, or a small
`sediment.retain_batch.v1` from each HTTP request) would otherwise pay the worker's
fixed cost per message: a bank lock, the done-marker check, the neighbour prefetch,
four store writes, the ledger and the metrics, about ten Redis round trips. The
worker takes what has arrived instead: up to `messages` messages, or what came within
`wait_s` of the one before (at most `max_wait_s` after the first), and consolidates
them as one batch (the read model is the same
for any split, tests/property/test_convergence.py). The less the worker keeps up, the
more each batch holds, so the cost per event falls exactly when it matters.

What stays exact: each message is acknowledged only after its batch ran (late acks; a
worker lost mid-batch leaves all of them to be delivered again); a retry is per message
(a new message with its own retry count and countdown, as Celery's retry sends); the
ledger is settled per event. The worker's prefetch is `messages` per consumer, so a
batch can fill. A forget or a vote taken by the same worker first runs what is buffered
(`run_buffered`), so it sees the retains that were queued before it.
"""

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from celery import Celery, Task, signals
from celery.worker import state
from celery.worker.consumer import Consumer
from celery_batches import Batches, SimpleRequest
from kombu.asynchronous.timer import Entry

from worker.celery_app import RETAIN_BATCH_TASK, RETAIN_TASK

BATCHED_TASKS = (RETAIN_TASK, RETAIN_BATCH_TASK)


@dataclass(frozen=True)
class Batching:
    """`messages`: retain messages consolidated together at most (also the prefetch). A
    batch runs once no message has come for `wait_s`, or it is full, or its first
    message has waited `max_wait_s`."""

    messages: int = 64
    wait_s: float = 0.02
    max_wait_s: float = 0.25


class RetainBatches(Batches):  # type: ignore[misc]
    """celery-batches' buffer, run when the messages stop coming rather than on a fixed
    beat. On a beat, a worker that pulls messages slower than they come (one Redis round
    trip each, under a busy interpreter lock) ran batches of two or three and fell
    behind on its fixed cost per batch; waiting for a pause lets a backlog fill a batch."""

    quiet_s: float = 0.02
    max_wait_s: float = 0.25
    _tref: Entry | None

    def __init__(self) -> None:
        super().__init__()
        self._first_at: float | None = None
        self._last_at = 0.0

    def Strategy(self, task: Task, app: Celery, consumer: Consumer) -> Callable[..., None]:
        """The message handler, built by Celery each time its consumer connects to the
        broker. A lost connection clears the event loop's timers, this batch's flush
        timer among them, but celery-batches keeps its reference and arms a timer only
        while it holds none: a batch then ran only when a 64th message filled it, and a
        worker sat on what it held for minutes after a Redis restart. So the stale
        reference is dropped here, and the timer armed again at once if the batch still
        holds messages."""
        if self._tref is not None:
            consumer.timer.cancel(self._tref)
            self._tref = None
        handler: Callable[..., None] = super().Strategy(task, app, consumer)
        if not (self._buffer.empty() and self._pending.empty()):
            self._tref = consumer.timer.call_repeatedly(self.flush_interval, self._do_flush)
        return handler

    def received(self) -> None:
        now = time.monotonic()
        if self._first_at is None:
            self._first_at = now
        self._last_at = now

    def _do_flush(self) -> None:
        first = self._first_at
        if first is not None and self._buffer.qsize() < self.flush_every:
            now = time.monotonic()
            if now - self._last_at < self.quiet_s and now - first < self.max_wait_s:
                return
        self.flush_now()

    def flush_now(self) -> None:
        """Run what is buffered now, whatever is still coming."""
        self._first_at = None
        super()._do_flush()


class Requeue(Protocol):
    def __call__(self, countdown: int, retries: int, headers: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Delivery:
    """One retain message as the worker took it: its payloads, how often it has been
    retried, its publish-time header, and how to queue it again. A retry is a new
    message with `retries` + 1 and a countdown, as Celery's own retry sends; the
    message taken is acknowledged once its batch has run."""

    payloads: list[Any]
    retries: int = 0
    published: object = None
    task_id: str = ""
    requeue: Requeue | None = None
    carrier: Mapping[str, str] = field(default_factory=dict)
    queue: str = ""

    @property
    def attempt(self) -> int:
        return self.retries + 1


def requeue_of(task: Task, req: SimpleRequest) -> Requeue:
    """Send `req`'s message again, back to the queue it came from (as Celery's retry)."""
    args, kwargs = tuple(req.args or ()), dict(req.kwargs or {})
    routing_key = (req.delivery_info or {}).get("routing_key")
    route = {"queue": routing_key} if routing_key else {}

    def requeue(countdown: int, retries: int, headers: dict[str, Any]) -> None:
        task.apply_async(
            args=args, kwargs=kwargs, countdown=countdown, retries=retries, headers=headers, **route
        )

    return requeue


Run = Callable[[Task, Sequence[SimpleRequest]], None]


def register_batched(
    app: Celery, name: str, options: dict[str, Any], batching: Batching, run: Run
) -> None:
    """Declare `name` as a `Batches` task whose requests `run` handles together."""
    batches = {
        "base": RetainBatches,
        "flush_every": batching.messages,
        "flush_interval": max(0.005, batching.wait_s / 2),
        "quiet_s": batching.wait_s,
        "max_wait_s": max(batching.wait_s, batching.max_wait_s),
    }

    @app.task(name=name, **options, **batches)  # type: ignore[untyped-decorator]
    def batched(self: Task, requests: Sequence[SimpleRequest]) -> None:
        try:
            run(self, requests)
        finally:
            released(requests)


def _reserved(sender: object = None, request: Any = None, **_: Any) -> None:
    """A retain message taken into a batch's buffer is held by this worker as any
    reserved task is (Celery's worker state): the heartbeat claims it (worker/holders.py),
    so the sweeper never gives a live worker's waiting messages to another."""
    task = getattr(request, "task", None)
    if isinstance(task, RetainBatches):
        task.received()
        state.task_reserved(request)


def released(requests: Sequence[SimpleRequest]) -> None:
    """The batch has run; its messages are acknowledged next, by celery-batches."""
    for r in requests:
        held = state.requests.get(r.id)
        if held is not None:
            state.task_ready(held)


signals.task_received.connect(_reserved, weak=False, dispatch_uid="sediment.batching.reserved")


def run_buffered(app: Celery) -> None:
    """Run the retain messages this worker has taken but not yet consolidated, now (in
    this thread with the solo pool); a no-op outside a worker."""
    for name in BATCHED_TASKS:
        task = app.tasks.get(name)
        if isinstance(task, RetainBatches) and task._pool is not None:
            task.flush_now()
