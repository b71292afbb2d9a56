"""The Prometheus text of a snapshot parses, and says what the snapshot says."""

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fakeredis
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from telemetry.metrics import (
    CONSOLIDATION_LAG_MS,
    EVENTS,
    FEEDBACK_DROPPED,
    RECALL_STAGE_MS,
    CounterTotal,
    GaugeValue,
    MetricsSnapshot,
    count_events,
    record_recall,
)
from telemetry.prometheus import render_prometheus
from telemetry.redis_series import RedisMetrics

AT = datetime(2024, 6, 1, 12, 0, 30, tzinfo=UTC)
DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "sediment.json"


def samples(text: bytes) -> dict[str, list[Sample]]:
    out: dict[str, list[Sample]] = {}
    for family in text_string_to_metric_families(text.decode("utf-8")):
        assert family.type == "gauge", family.name
        out.setdefault(family.name, []).extend(family.samples)
    return out


def value(found: Iterable[Sample], **labels: str) -> float:
    [match] = [s.value for s in found if s.labels == labels]
    return match


@pytest.fixture
def snapshot() -> MetricsSnapshot:
    metrics = RedisMetrics(fakeredis.FakeRedis(), 600)
    with metrics.batch():
        count_events(metrics, "stored", ["a", "a", "b"])
        count_events(metrics, "received", ["a", "a", "b", None])
        for ms in (1.0, 2.0, 3.0, 40.0):
            record_recall(metrics, "a", {"fetch": ms, "fuse": ms / 10}, ms * 2, error=ms > 30)
        metrics.observe(CONSOLIDATION_LAG_MS, 120.0, {"since": "published"})
        metrics.gauge("queue_ready", 7, {"queue": "sediment"})
        metrics.gauge("dead_letters", 2)
    return metrics.snapshot(5)


def test_text_parses_and_matches_the_snapshot(snapshot: MetricsSnapshot) -> None:
    found = samples(render_prometheus(snapshot))
    events = found["sediment_events_per_minute"]
    assert value(events, outcome="stored") == pytest.approx(snapshot.rate(EVENTS, outcome="stored"))
    assert value(events, outcome="received") == pytest.approx(4 * snapshot.rate(EVENTS) / 7)
    fetch = snapshot.latency(RECALL_STAGE_MS, stage="fetch")
    assert fetch is not None
    stage = found["sediment_recall_stage_ms"]
    assert value(stage, stage="fetch", quantile="0.95") == pytest.approx(fetch.p95_ms)
    assert {s.labels["quantile"] for s in stage} == {"0.5", "0.95", "0.99"}
    per_min = found["sediment_recall_stage_ms_count_per_minute"]
    assert value(per_min, stage="fuse") == pytest.approx(fetch.per_minute)
    assert value(found["sediment_recall_errors_per_minute"]) > 0
    assert value(found["sediment_consolidation_lag_ms"], since="published", quantile="0.5") > 100
    assert value(found["sediment_queue_ready"], queue="sediment") == 7
    assert value(found["sediment_dead_letters"]) == 2
    assert value(found["sediment_metrics_window_minutes"]) == 5
    assert value(found["sediment_slow_calls"]) == 0
    ages = found["sediment_gauge_age_seconds"]
    assert {s.labels["gauge"] for s in ages} == {"queue_ready", "dead_letters"}


def test_a_bank_snapshot_labels_every_sample() -> None:
    snap = MetricsSnapshot(
        at=AT,
        minutes=15,
        bank="user-42",
        counters=(CounterTotal("recalls", (), 30, 2.0, (2,) * 15),),
        gauges=(GaugeValue("memories", (), 120.0, AT - timedelta(seconds=9)),),
    )
    found = samples(render_prometheus(snap))
    assert value(found["sediment_recalls_per_minute"], bank="user-42") == 2.0
    assert value(found["sediment_memories"], bank="user-42") == 120.0
    assert value(found["sediment_gauge_age_seconds"], bank="user-42", gauge="memories") == 9.0


def test_every_render_starts_from_a_fresh_registry() -> None:
    empty = MetricsSnapshot(at=AT, minutes=1, bank=None)
    first = render_prometheus(empty)
    assert render_prometheus(empty) == first
    assert set(samples(first)) == {"sediment_slow_calls", "sediment_metrics_window_minutes"}


def test_the_grafana_dashboard_queries_only_rendered_metrics() -> None:
    metrics = RedisMetrics(fakeredis.FakeRedis(), 600)
    with metrics.batch():
        for outcome in ("received", "stored"):
            count_events(metrics, outcome, ["a"])
        record_recall(metrics, "a", {"fetch": 1.0}, 2.0, error=True)
        metrics.observe("consolidation_ms", 3.0, {"bank": "a"})
        metrics.observe(CONSOLIDATION_LAG_MS, 9.0, {"since": "occurred"})
        metrics.observe("store_call_ms", 0.2, {"method": "fetch"})
        metrics.incr("store_errors", 1, {"method": "fetch"})
        for name in ("queue_ready", "queue_unacked", "dead_letters", "memories", "observations"):
            metrics.gauge(name, 1)
    rendered = set(samples(render_prometheus(metrics.snapshot(5))))
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    queried = {name for e in exprs for name in re.findall(r"sediment_[a-z_]+", e)}
    assert queried and queried <= rendered, queried - rendered
    assert all(e.startswith("max") for e in exprs), "replicas serve equal values: use max"


def test_window_totals_and_cumulative_buckets(snapshot: MetricsSnapshot) -> None:
    """Exact figures over the window, the same as the snapshot's: counts, sums and
    cumulative buckets that `histogram_quantile` reads."""
    found = samples(render_prometheus(snapshot))
    assert value(found["sediment_events_in_window"], outcome="received") == 4
    assert value(found["sediment_recalls_in_window"]) == snapshot.total("recalls") == 4
    recall = snapshot.latency("recall_ms")
    assert recall is not None
    assert value(found["sediment_recall_ms_count_in_window"]) == recall.count == 4
    assert value(found["sediment_recall_ms_sum_ms_in_window"]) == pytest.approx(recall.sum_ms)
    buckets = found["sediment_recall_ms_window_bucket"]
    seen = 0
    for bound, n in recall.buckets:
        seen += n
        assert value(buckets, le=f"{bound:g}") == seen
    assert value(buckets, le="+Inf") == recall.count
    assert len(buckets) == len(recall.buckets) + 1


def test_dropped_votes_are_exposed_by_reason() -> None:
    metrics = RedisMetrics(fakeredis.FakeRedis(), 600)
    metrics.incr(FEEDBACK_DROPPED, 2, {"bank": "a", "reason": "forgotten"})
    text = render_prometheus(metrics.snapshot(5, None))
    found = samples(text)["sediment_feedback_dropped_in_window"]
    assert value(found, reason="forgotten") == 2
    assert b"Votes dropped" in text
