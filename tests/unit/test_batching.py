"""When a batch of retain messages runs: once they stop coming, when it is full, or
when its first message has waited long enough."""

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from celery import Celery, Task
from celery.concurrency.solo import TaskPool
from celery_batches import SimpleRequest
from kombu.asynchronous.timer import Timer

from worker.batching import Batching, RetainBatches, register_batched
from worker.celery_app import RETAIN_TASK


class Recorded(RetainBatches):
    flush_every = 4
    quiet_s = 0.02
    max_wait_s = 0.25

    def __init__(self) -> None:
        super().__init__()
        self.ran = 0

    def flush_now(self) -> None:
        self._first_at = None
        self.ran += 1
        while not self._buffer.empty():
            self._buffer.get_nowait()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr("worker.batching.time.monotonic", lambda: now[0])
    return now


def take(b: Recorded, n: int = 1) -> None:
    for _ in range(n):
        b._buffer.put(object())
        b.received()


def test_a_batch_runs_once_messages_stop_coming(clock: list[float]) -> None:
    b = Recorded()
    take(b)
    clock[0] += 0.01
    b._do_flush()
    take(b)
    clock[0] += 0.015
    b._do_flush()
    assert b.ran == 0, "a message came within the quiet period"
    clock[0] += 0.01
    b._do_flush()
    assert b.ran == 1


def test_a_full_batch_runs_at_once(clock: list[float]) -> None:
    b = Recorded()
    take(b, 4)
    b._do_flush()
    assert b.ran == 1


def test_a_steady_stream_runs_by_the_first_message_s_wait(clock: list[float]) -> None:
    b = Recorded()
    for _ in range(24):
        clock[0] += 0.011
        take(b)
        b._do_flush()
        if b.ran:
            break
        b._buffer.get_nowait()  # the buffer never fills in this stream
    assert b.ran == 1 and clock[0] - 100.0 >= 0.25


@dataclass
class Consumer:
    """What celery-batches reads of Celery's consumer when it builds a message handler."""

    timer: Timer = field(default_factory=Timer)
    pool: TaskPool = field(default_factory=TaskPool)
    hostname: str = "celery@test"
    connection_errors: tuple[type[Exception], ...] = ()
    event_dispatcher: None = None


def nothing(task: Task, requests: Sequence[SimpleRequest]) -> None:
    """A batch's work (these tests never run one)."""


def consuming() -> tuple[Celery, RetainBatches, Consumer]:
    app = Celery(set_as_current=False)
    register_batched(app, RETAIN_TASK, {"bind": True, "shared": False}, Batching(), nothing)
    task = app.tasks[RETAIN_TASK]
    assert isinstance(task, RetainBatches)
    consumer = Consumer()
    task.start_strategy(app, consumer)
    return app, task, consumer


def flush_timers(task: RetainBatches, timer: Timer) -> list[object]:
    return [e.entry for e in timer.queue if e.entry.fun.__wrapped__ == task._do_flush]


def lose_the_connection(task: RetainBatches, timer: Timer) -> None:
    """A batch holds a message, its flush timer armed, when Celery clears the timers."""
    task._buffer.put(object())
    task._tref = timer.call_repeatedly(task.flush_interval, task._do_flush)
    timer.clear()


def test_a_reconnect_arms_the_flush_timer_again_for_what_the_batch_holds() -> None:
    app, task, consumer = consuming()
    lose_the_connection(task, consumer.timer)
    task.start_strategy(app, consumer)
    assert flush_timers(task, consumer.timer) == [task._tref]


def test_a_reconnect_with_an_empty_batch_leaves_the_next_message_to_arm_it() -> None:
    app, task, consumer = consuming()
    lose_the_connection(task, consumer.timer)
    task._buffer.get_nowait()
    task.start_strategy(app, consumer)
    assert task._tref is None and not flush_timers(task, consumer.timer)
