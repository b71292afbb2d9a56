"""Metrics on real Redis (DB 10): worker task counters, broker queue depth, and the
publish header carried through a real `celery worker` process."""

import os
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from contracts.events import RetainEvent
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from readmodel.stores.metered import MeteredStore
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from sediment.stats import sample_gauges
from telemetry.metrics import CONSOLIDATION_LAG_MS, CONSOLIDATION_MS, EVENTS, STORE_CALL_MS
from telemetry.redis_series import PREFIX, RedisMetrics
from tests.fakes import MetricsKilledAfterStore, NoLocks
from tests.helpers import redis_url
from tests.integration.conftest import WorkerEnv, wait_until
from worker.batching import Delivery
from worker.celery_app import CeleryConfig, make_app
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.deadletters import RedisDeadLetters
from worker.publish import publish
from worker.tasks import WorkerDeps, handle

pytestmark = pytest.mark.integration

REDIS_DB = 10
URL = redis_url(REDIS_DB)


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    c = redis.Redis.from_url(URL)
    try:
        c.ping()
    except redis.ConnectionError:
        pytest.fail("integration tests need Redis on 127.0.0.1:6379 (.ci/run starts it)")
    c.flushdb()
    yield c
    c.flushdb()


def event(i: int, bank: str = "ops") -> dict[str, object]:
    return {
        "event_id": str(uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}-{i}")),
        "bank_id": bank,
        "text": f"Member {i} joined the {['chess', 'sailing', 'choir'][i % 3]} club.",
        "occurred_at": (datetime.now(UTC) - timedelta(minutes=i)).isoformat(),
    }


def test_worker_task_updates_counters_in_redis(client: redis.Redis, tmp_path: Path) -> None:
    metrics = RedisMetrics(client, 900)
    store = EdgeStore(tmp_path / "store")
    store.ensure_schema(64)
    consolidator = Consolidator(
        MeteredStore(store, metrics), HashEmbedder(64), NoLocks(), metrics=metrics
    )
    deps = WorkerDeps(consolidator, RedisDeadLetters(client, 100), 16384, 3, 60, metrics=metrics)
    try:
        payloads: list[Any] = [event(i) for i in range(5)] + [{"bank_id": "ops"}]
        handle([Delivery(payloads)], "sediment.retain_batch.v1", deps)
    finally:
        store.close()
    snap = metrics.snapshot(2, bank="ops")
    assert snap.total(EVENTS, outcome="received") == 6
    assert snap.total(EVENTS, outcome="stored") == 5
    assert snap.total(EVENTS, outcome="dead_lettered") == 1
    latency = snap.latency(CONSOLIDATION_MS)
    assert latency is not None and latency.count == 5 and latency.p50_ms is not None
    assert metrics.snapshot(2).latency(STORE_CALL_MS, method="upsert") is not None
    keys = client.keys(f"{PREFIX}*")
    assert keys and all(0 < client.ttl(k) <= 900 for k in keys)


def test_queue_depth_gauge_reads_the_broker_lists(client: redis.Redis, tmp_path: Path) -> None:
    queue = f"metrics-{uuid.uuid4().hex[:8]}"
    settings = Settings(mode="standalone", redis_url=URL, data_dir=tmp_path, queue=queue)
    rt = bootstrap(settings)
    try:
        client.rpush(queue, *[f"m{i}" for i in range(5)])
        client.rpush(f"{queue}\x06\x163", "high")
        client.hset("unacked", mapping={"t1": "x", "t2": "y"})
        client.xadd("sediment:dlq", {"letter": "{}"})
        sample_gauges(rt.gauges(store=False), store=False)
        snap = rt.metrics.snapshot(1)
        assert snap.gauge("queue_ready", queue=queue) == 6
        assert snap.gauge("queue_unacked") == 2
        assert snap.gauge("dead_letters") == 1
        assert "store" not in rt.__dict__
    finally:
        rt.close()


def test_publish_header_reaches_a_real_worker(client: redis.Redis, tmp_path: Path) -> None:
    """Lag since publish needs the header to survive the broker and Celery's request."""
    queue = f"metrics-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",  # the test Redis is volatile
        "SEDIMENT_REDIS_URL": URL,
        "SEDIMENT_DATA_DIR": str(tmp_path / "data"),
        "SEDIMENT_QUEUE": queue,
        "SEDIMENT_EMBEDDER": "hash",
        "SEDIMENT_LOG_FORMAT": "json",
    }
    workers = WorkerEnv(env, client, queue, tmp_path / "data", tmp_path)
    app = make_app(CeleryConfig(URL, queue, 5, 8, 10))
    n = 12
    publish(app, [RetainEvent.model_validate(event(i)) for i in range(n)], queue, batch_size=4)
    proc = workers.start("worker")
    metrics = RedisMetrics(client, 900)
    try:
        wait_until(
            lambda: metrics.snapshot(5).total(EVENTS, outcome="stored") == n, 90, "consolidation"
        )
    finally:
        workers.stop(proc)
    snap = metrics.snapshot(5)
    assert snap.total(EVENTS, outcome="received") == n
    published = snap.latency(CONSOLIDATION_LAG_MS, since="published")
    assert published is not None and published.count == n
    assert published.p99_ms is not None and published.p99_ms < 90_000
    occurred = snap.latency(CONSOLIDATION_LAG_MS, since="occurred")
    assert occurred is not None and occurred.count == n


def test_a_real_worker_counts_each_event_stored_once_and_redeliveries_apart(
    client: redis.Redis, tmp_path: Path
) -> None:
    """D3 (1,884 stored + 116 duplicate for 2,000 events after kills): `stored` counts
    distinct events. Event A was consolidated by a delivery killed after its done-marker
    and before its metrics (the store and the owed mark say so, no counter does); A is
    delivered again, and B is sent twice (a producer's resend). A real worker counts A
    and B stored once each, and B's second delivery as a redelivery."""
    queue = f"metrics-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",  # the test Redis is volatile
        "SEDIMENT_REDIS_URL": URL,
        "SEDIMENT_DATA_DIR": str(tmp_path / "data"),
        "SEDIMENT_QUEUE": queue,
        "SEDIMENT_EMBEDDER": "hash",
        "SEDIMENT_LOG_FORMAT": "json",
    }
    workers = WorkerEnv(env, client, queue, tmp_path / "data", tmp_path)
    a, b = (RetainEvent.model_validate(event(i, bank="once")) for i in (1, 2))
    rt = workers.runtime()
    try:
        killed = replace(rt.consolidator, metrics=MetricsKilledAfterStore(rt.metrics))
        consolidate([a], killed)
        assert rt.store.count(Filter("once", kinds=("world",))) == 1
    finally:
        rt.close()
    metrics = RedisMetrics(client, 900)
    assert metrics.snapshot(5).total(EVENTS) == 0
    app = make_app(CeleryConfig(URL, queue, 5, 8, 10))
    for sent in ([a], [b], [b]):
        publish(app, sent, queue)
    proc = workers.start("worker")
    try:
        wait_until(
            lambda: (
                workers.pending() == 0
                and metrics.snapshot(5).total(EVENTS, outcome="received") == 3
            ),
            90,
            "three deliveries",
        )
    finally:
        workers.stop(proc)
    snap = metrics.snapshot(5, bank="once")
    assert snap.total(EVENTS, outcome="stored") == 2
    assert snap.total(EVENTS, outcome="redelivered") == 1
    rt = workers.runtime()
    try:
        assert rt.store.count(Filter("once", kinds=("world",))) == 2
    finally:
        rt.close()
