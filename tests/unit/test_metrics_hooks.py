"""Where metrics are taken: worker tasks, consolidation, the metered store, gauge sampling."""

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from rich.console import Console

from contracts.events import RetainEvent
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from readmodel.stores.metered import MeteredStore
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from sediment.stats import fmt_ms, sample_gauges, sparkline, stats_view
from telemetry.metrics import (
    CONSOLIDATION_LAG_MS,
    CONSOLIDATION_MS,
    EVENTS,
    STORE_CALL_MS,
    STORE_ERRORS,
)
from telemetry.redis_series import RedisMetrics
from tests.fakes import MetricsKilledAfterStore, NoLocks
from worker.batching import Delivery
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.deadletters import FileDeadLetters
from worker.tasks import WorkerDeps, handle, published_time

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


def payload(text: str, day: int = 0, bank: str = "b", **kw: object) -> dict[str, object]:
    return {
        "event_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{bank}/{text}/{day}")),
        "bank_id": bank,
        "text": text,
        "occurred_at": (NOW - timedelta(days=day)).isoformat(),
        **kw,
    }


def message(payloads: list[Any], retries: int = 0, published: object = None) -> Delivery:
    """A retain message as a worker takes it; a retry of it is sent nowhere."""
    return Delivery(payloads, retries, published, "task-1", lambda *_: None)


class DownEmbedder(HashEmbedder):
    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        raise ConnectionError("embedding service unreachable")


@pytest.fixture
def metrics() -> RedisMetrics:
    return RedisMetrics(fakeredis.FakeRedis(), 600)


@pytest.fixture
def store(tmp_path: Path, metrics: RedisMetrics) -> Iterator[MeteredStore]:
    inner = EdgeStore(tmp_path / "store")
    inner.ensure_schema(64)
    s = MeteredStore(inner, metrics)
    yield s
    s.close()


def deps(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics, embedder: HashEmbedder | None = None
) -> WorkerDeps:
    consolidator = Consolidator(
        store, embedder or HashEmbedder(64), NoLocks(), clock=lambda: NOW, metrics=metrics
    )
    letters = FileDeadLetters(tmp_path / "dlq.jsonl", 100)
    return WorkerDeps(consolidator, letters, 16384, 2, 60, metrics=metrics)


def test_task_counts_received_stored_merged_redelivered_and_dead_lettered(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics
) -> None:
    d = deps(tmp_path, store, metrics)
    first = payload("Alice moved to Seattle.", day=2)
    again = {**payload("Alice moved to Seattle.", day=1)}
    poison = {**payload("no zone"), "occurred_at": "2024-01-01T00:00:00"}
    sent = (NOW - timedelta(seconds=3)).timestamp()
    handle([message([first, again, poison, "junk"], 0, sent)], "sediment.retain_batch.v1", d)
    handle([message([first])], "sediment.retain.v1", d)
    snap = metrics.snapshot(2)  # this minute and the last: a test may straddle a minute
    got = {dict(c.labels)["outcome"]: c.total for c in snap.counters if c.name == EVENTS}
    assert got == {"received": 5, "stored": 2, "merged": 1, "redelivered": 1, "dead_lettered": 2}
    assert metrics.snapshot(2, bank="b").total(EVENTS, outcome="received") == 4
    consolidation = snap.latency(CONSOLIDATION_MS)
    assert consolidation is not None and consolidation.count == 2
    occurred = snap.latency(CONSOLIDATION_LAG_MS, since="occurred")
    assert occurred is not None and occurred.count == 2
    assert occurred.sum_ms == pytest.approx((2 + 1) * 86_400_000)
    published = snap.latency(CONSOLIDATION_LAG_MS, since="published")
    assert published is not None and published.count == 2
    assert published.sum_ms == pytest.approx(2 * 3000, rel=1e-3)


def outcomes(metrics: RedisMetrics) -> dict[str, int]:
    snap = metrics.snapshot(2)  # this minute and the last: a test may straddle a minute
    return {dict(c.labels)["outcome"]: c.total for c in snap.counters if c.name == EVENTS}


def test_an_event_delivered_twice_is_stored_once_and_redelivered_once(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics
) -> None:
    d = deps(tmp_path, store, metrics)
    event = payload("Bo keeps bees on the roof.")
    handle([message([event])], "sediment.retain.v1", d)
    handle([message([event])], "sediment.retain.v1", d)
    got = outcomes(metrics)
    assert (got["stored"], got["redelivered"]) == (1, 1)
    assert store.count(Filter("b", kinds=("world",))) == 1


def test_a_delivery_killed_before_its_metrics_leaves_the_count_to_the_next(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics
) -> None:
    """D3: 1,884 stored + 116 duplicate for 2,000 events. The killed delivery wrote the
    done-marker but not its counts; the next delivery finds the event done and counts
    it stored (the count was still owed); only the one after is a redelivery."""
    event = payload("Cleo bought a red kayak.")
    killed = deps(tmp_path, store, metrics)
    killed = replace(
        killed, consolidator=replace(killed.consolidator, metrics=MetricsKilledAfterStore(metrics))
    )
    killed = replace(killed, metrics=MetricsKilledAfterStore(metrics))
    handle([message([event])], "sediment.retain.v1", killed)
    assert store.count(Filter("b", kinds=("world",))) == 1 and outcomes(metrics) == {}
    d = deps(tmp_path, store, metrics)
    handle([message([event])], "sediment.retain.v1", d)
    assert outcomes(metrics) == {"received": 1, "stored": 1}
    handle([message([event])], "sediment.retain.v1", d)
    assert outcomes(metrics) == {"received": 2, "stored": 1, "redelivered": 1}


class LocksThatLetAnotherFinishFirst:
    """A second delivery of the same event that passed the done check while the first
    was still working: the first finishes (done-marker and counts) while the second
    waits for the bank's lock."""

    def __init__(self, first: Callable[[], object]) -> None:
        self.first = first

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        self.first()
        yield


def test_concurrent_deliveries_of_one_event_count_it_stored_once(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics
) -> None:
    event = RetainEvent.model_validate(payload("Dev sings in a choir on Tuesdays."))
    first = Consolidator(store, HashEmbedder(64), NoLocks(), clock=lambda: NOW, metrics=metrics)
    locks = LocksThatLetAnotherFinishFirst(lambda: consolidate([event], first))
    second = replace(first, locks=locks)
    [outcome] = consolidate([event], second)
    assert outcome.status is Status.REDELIVERED
    assert outcomes(metrics) == {"stored": 1, "redelivered": 1}


def test_counts_are_forced_when_redis_refused_the_owed_marks(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics
) -> None:
    """`expect` failed (a Redis blip): the delivery that stores the event counts it
    anyway, as it would have without the mark."""

    class Refusing(RedisMetrics):
        def expect(self, tokens: Sequence[str]) -> bool:
            return False

    refusing = Refusing(metrics._client, 600)
    c = Consolidator(store, HashEmbedder(64), NoLocks(), clock=lambda: NOW, metrics=refusing)
    event = RetainEvent.model_validate(payload("Eun repairs old radios."))
    consolidate([event], c)
    consolidate([event], c)
    assert outcomes(metrics) == {"stored": 1, "redelivered": 1}


def test_retries_and_exhaustion_are_counted_per_event(
    tmp_path: Path, store: MeteredStore, metrics: RedisMetrics
) -> None:
    d = deps(tmp_path, store, metrics, DownEmbedder(64))
    events = [payload("one"), payload("two", bank="c")]
    for retries in range(3):
        handle([message(events, retries)], "sediment.retain_batch.v1", d)
    snap = metrics.snapshot(2)  # two minutes: the deliveries may straddle a minute's end
    assert snap.total(EVENTS, outcome="received") == 2
    assert snap.total(EVENTS, outcome="retried") == 4
    assert snap.total(EVENTS, outcome="dead_lettered") == 2
    assert metrics.snapshot(2, bank="c").total(EVENTS, outcome="retried") == 2


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (1717243200.5, NOW + timedelta(seconds=0.5)),
        ("1717243200", NOW),
        ("yesterday", None),
        (None, None),
    ],
)
def test_published_time_reads_the_header(header: object, expected: datetime | None) -> None:
    assert published_time(header) == expected


def test_metered_store_times_every_call_and_counts_errors(
    store: MeteredStore, metrics: RedisMetrics
) -> None:
    assert store.count(Filter("b")) == 0
    assert list(store.scroll(Filter("b"))) == []
    with pytest.raises(ValueError):
        store.fetch("b", ["not-a-uuid"])  # type: ignore[list-item]
    snap = metrics.snapshot(2)  # this minute and the last: a test may straddle a minute
    methods = {dict(h.labels)["method"]: h.count for h in snap.latencies if h.name == STORE_CALL_MS}
    assert methods == {"count": 1, "scroll": 1, "fetch": 1}
    assert snap.total(STORE_ERRORS, method="fetch") == 1


def test_sample_gauges_and_the_stats_view(tmp_path: Path) -> None:
    rt = bootstrap(Settings(mode="embedded", data_dir=tmp_path, embedder="hash"))
    try:
        handle([message([payload("Bo likes tea.")])], "sediment.retain.v1", rt.worker_deps)
        sample_gauges(rt.gauges(store=True))
        snap = rt.metrics.snapshot(15)
        assert snap.gauge("memories") == 1 and snap.gauge("dead_letters") == 0
        assert snap.gauge("queue_ready") is None
        assert snap.latency(STORE_CALL_MS, method="count") is None
        console = Console(record=True, width=120)
        console.print(stats_view(snap))
        text = console.export_text()
        assert "events stored" in text and "store upsert" in text and "memories" in text
    finally:
        rt.close()


def test_formatting_helpers() -> None:
    assert [fmt_ms(v) for v in (None, 0.42, 250.0, 1500.0, 90_000.0, 7_200_000.0)] == [
        "-",
        "0.42 ms",
        "250 ms",
        "1.5 s",
        "1.5 min",
        "2.0 h",
    ]
    assert fmt_ms(1e9) == ">= 27.8 h"
    assert sparkline([0, 1, 2, 4]) == " ▃▅█" and sparkline([0, 0]) == "  "
