"""The slow-call log beyond recall: store calls (through `MeteredStore`) and worker task
runs (through Celery's task signals) slower than the threshold become `sediment:slow`
entries holding metadata only."""

import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from celery.signals import task_postrun, task_prerun
from celery_batches import SimpleRequest

from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, StoredPoint
from readmodel.stores import metered
from readmodel.stores.edge import EdgeStore
from readmodel.stores.metered import MeteredStore
from sediment.slow_tasks import watch_slow_tasks
from telemetry.metrics import NoopMetrics
from telemetry.recall_logs import SLOW_STREAM, RedisRecallLog, SlowCall
from telemetry.slow_calls import SlowCalls
from tests.helpers import event, memory
from worker.celery_app import FEEDBACK_TASK, RETAIN_BATCH_TASK, RETAIN_TASK

EMB = HashEmbedder(8)
TEXT = "Alice keeps bees on the roof."


class StoreClock:
    """The clock `MeteredStore` times its calls by: only a fetch moves it (30 ms), so
    which calls are slow does not depend on the machine's load."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class SlowEdgeStore(EdgeStore):
    """Every fetch takes 30 ms on `clock`."""

    def __init__(self, path: Path, clock: StoreClock) -> None:
        super().__init__(path)
        self._clock = clock

    def fetch(self, bank_id: str, ids: Sequence[Any], with_vectors: bool = False) -> list[Any]:
        self._clock.now += 0.03
        return super().fetch(bank_id, ids, with_vectors)


class ListLog:
    def __init__(self) -> None:
        self.calls: list[SlowCall] = []

    def add_slow(self, call: SlowCall) -> None:
        self.calls.append(call)


@pytest.fixture
def log() -> ListLog:
    return ListLog()


@pytest.fixture
def store(
    tmp_path: Path, log: ListLog, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[MeteredStore, SlowCalls]]:
    clock = StoreClock()
    monkeypatch.setattr(metered, "time", clock)
    inner = SlowEdgeStore(tmp_path, clock)
    inner.ensure_schema(EMB.dimension)
    slow = SlowCalls(log, threshold_ms=20)
    yield MeteredStore(inner, NoopMetrics(), slow=slow), slow
    slow.close()
    inner.close()


def test_only_slow_store_calls_are_logged_with_bank_and_sizes(
    store: tuple[MeteredStore, SlowCalls], log: ListLog
) -> None:
    s, slow = store
    m = memory(TEXT, 0)
    s.upsert([StoredPoint(m, tuple(EMB.embed([TEXT])[0]))])
    assert s.count(Filter("b1")) == 1
    assert [p.record.id for p in s.fetch("b1", [m.id])] == [m.id]
    assert slow.flush(10)
    [call] = log.calls
    assert (call.operation, call.bank_id, dict(call.sizes)) == ("store.fetch", "b1", {"ids": 1})
    assert call.duration_ms >= 20


@pytest.mark.parametrize(
    ("threshold_ms", "duration_ms", "logged"),
    [(250, 100, False), (250, 250, False), (250, 251, True), (0.001, 0.01, True)],
)
def test_threshold(threshold_ms: float, duration_ms: float, logged: bool, log: ListLog) -> None:
    slow = SlowCalls(log, threshold_ms)
    slow.observe("store.fetch", duration_ms, "b1", {"ids": 3})
    assert slow.flush(10)
    assert bool(log.calls) is logged
    slow.close()


class FailingLog:
    def add_slow(self, call: SlowCall) -> None:
        raise ConnectionError("redis down")


def test_a_failing_log_never_reaches_the_caller() -> None:
    slow = SlowCalls(FailingLog(), 0.0)
    with slow.timed("store.fetch", "b1"):
        pass
    assert slow.flush(10)
    slow.close()
    slow.observe("store.fetch", 5.0)


class FakeTask:
    """What the signal handlers read of a Celery task: its name."""

    def __init__(self, name: str) -> None:
        self.name = name


def run(name: str, task_id: str, args: tuple[Any, ...]) -> None:
    task = FakeTask(name)
    task_prerun.send(sender=task, task_id=task_id, task=task, args=args, kwargs={})
    time.sleep(0.002)
    task_postrun.send(sender=task, task_id=task_id, task=task, args=args, kwargs={})


def taken(*args: tuple[Any, ...]) -> tuple[list[SimpleRequest], ...]:
    """The arguments of a batched retain run: the messages it took."""
    return (
        [
            SimpleRequest(f"m{i}", "t", a, {}, {}, "h", True, None, None, {})
            for i, a in enumerate(args)
        ],
    )


@pytest.mark.parametrize(
    ("name", "args", "operation", "bank", "events"),
    [
        (RETAIN_TASK, ({"bank_id": "b1", "text": TEXT},), "worker.retain", "b1", (1, 1)),
        (
            RETAIN_TASK,
            taken(({"bank_id": "b1", "text": TEXT},), ({"bank_id": "b1", "text": TEXT},)),
            "worker.retain",
            "b1",
            (2, 2),
        ),
        (
            RETAIN_BATCH_TASK,
            taken(([{"bank_id": "b1", "text": TEXT}, {"bank_id": "b2", "text": TEXT}],)),
            "worker.retain_batch",
            None,
            (2, 1),
        ),
        (RETAIN_BATCH_TASK, taken(("not a list",)), "worker.retain_batch", None, (0, 1)),
        (FEEDBACK_TASK, ({"bank_id": "bad bank!"},), "worker.feedback_handler", None, (1, 1)),
    ],
)
def test_worker_task_runs_are_timed_through_signals(
    log: ListLog,
    name: str,
    args: tuple[Any, ...],
    operation: str,
    bank: str | None,
    events: tuple[int, int],
) -> None:
    earlier_log = ListLog()
    replaced = SlowCalls(earlier_log, threshold_ms=0.001)
    watch_slow_tasks(replaced)
    slow = SlowCalls(log, threshold_ms=0.001)
    timer = watch_slow_tasks(slow)
    try:
        run(name, "t-1", args)
        run("someone.else.v1", "t-2", args)
        assert slow.flush(10) and replaced.flush(10)
        [call] = log.calls
        assert (call.operation, call.bank_id, dict(call.sizes)) == (
            operation,
            bank,
            {"events": events[0], "messages": events[1]},
        )
        assert earlier_log.calls == []
    finally:
        task_prerun.disconnect(timer.started)
        task_postrun.disconnect(timer.finished)
        slow.close()
        replaced.close()


def test_slow_entries_hold_no_content(tmp_path: Path) -> None:
    client = fakeredis.FakeRedis()
    slow = SlowCalls(RedisRecallLog(client, 10, 10, 60), threshold_ms=0.0)
    inner = EdgeStore(tmp_path)
    inner.ensure_schema(EMB.dimension)
    s = MeteredStore(inner, NoopMetrics(), slow=slow)
    m = memory(TEXT, 0)
    s.upsert([StoredPoint(m, tuple(EMB.embed([TEXT])[0]))])
    s.search_dense(EMB.embed([TEXT])[0], Filter("b1"), 5)
    list(s.scroll(Filter("b1")))
    assert slow.flush(10)
    entries = client.xrange(SLOW_STREAM)
    assert {f[b"operation"] for _, f in entries} >= {
        b"store.upsert",
        b"store.search_dense",
        b"store.scroll",
    }
    raw = b" ".join(v for _, f in entries for v in f.values())
    for secret in (b"Alice", b"bees", b"roof", str(event(TEXT).event_id).encode()):
        assert secret not in raw
    slow.close()
    inner.close()


def test_entries_are_stamped_by_the_clock(log: ListLog) -> None:
    at = datetime(2024, 5, 1)
    slow = SlowCalls(log, 0.0, clock=lambda: at)
    slow.observe("worker.retain", 1.0)
    assert slow.flush(10) and log.calls[0].at == at
    slow.close()
