"""Prometheus text format from a `MetricsSnapshot` (for GET /metrics).

The numbers come from Redis, aggregated over the snapshot's window, so every API
replica serves the same values: they are gauges, not process-local counters, and a
dashboard combines replicas with `max`, never `sum`. Names, from the Redis names:

    sediment_{counter}_per_minute{labels}            e.g. sediment_events_per_minute{outcome}
    sediment_{counter}_in_window{labels}             the count over the window
    sediment_{histogram}{labels, quantile}           p50, p95, p99 in ms
    sediment_{histogram}_count_per_minute{labels}    observations per minute
    sediment_{histogram}_count_in_window{labels}     observations over the window
    sediment_{histogram}_sum_ms_in_window{labels}    their sum in ms
    sediment_{histogram}_window_bucket{labels, le}   cumulative count at or below `le`
                                                     (ms; `+Inf` = count): only the
                                                     touched bounds, so histogram_quantile
                                                     works on it and the series stay few
    sediment_{gauge}{labels}                         last sampled value
    sediment_gauge_age_seconds{gauge}                age of that sample
    sediment_slow_calls                              `sediment:slow` entries in the window
    sediment_metrics_window_minutes                  the window

A snapshot of one bank adds the label `bank` to every sample.
"""

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from telemetry.metrics import (
    CONSOLIDATION_LAG_MS,
    CONSOLIDATION_MS,
    DEAD_LETTERS,
    EVENTS,
    FEEDBACK_DROPPED,
    MEMORIES,
    OBSERVATIONS,
    QUEUE_READY,
    QUEUE_UNACKED,
    RECALL_ERRORS,
    RECALL_MS,
    RECALL_STAGE_MS,
    RECALLS,
    STORE_CALL_MS,
    STORE_ERRORS,
    LabelPairs,
    MetricsSnapshot,
)

NAMESPACE: Final = "sediment"
QUANTILE_LABELS: Final = (("0.5", "p50_ms"), ("0.95", "p95_ms"), ("0.99", "p99_ms"))

HELP: Final = {
    EVENTS: "Retain events per minute by outcome (received, stored, redelivered, merged, "
    "superseded, retried, dead_lettered)",
    FEEDBACK_DROPPED: "Votes dropped per minute by reason (forgotten: the memory was forgotten)",
    RECALLS: "Recalls per minute",
    RECALL_ERRORS: "Failed recalls per minute",
    STORE_ERRORS: "Store calls that raised, per minute, by method",
    CONSOLIDATION_MS: "Consolidation of one event (lock, upsert, decide, apply), ms",
    CONSOLIDATION_LAG_MS: "Time from event occurred_at or publish to visible in the read model, ms",
    RECALL_MS: "Recall latency, ms",
    RECALL_STAGE_MS: "Recall latency by pipeline stage, ms",
    STORE_CALL_MS: "Store call latency by method, ms",
    QUEUE_READY: "Messages waiting in the broker queue",
    QUEUE_UNACKED: "Messages delivered to workers and not yet acknowledged (whole broker DB)",
    DEAD_LETTERS: "Entries in the dead-letter stream sediment:dlq",
    MEMORIES: "Raw memories in the read model",
    OBSERVATIONS: "Observations in the read model",
}


def _family(
    name: str, doc: str, series: Sequence[tuple[LabelPairs, float]], extra: LabelPairs
) -> GaugeMetricFamily:
    names = sorted({k for labels, _ in series for k, _ in (*labels, *extra)})
    family = GaugeMetricFamily(f"{NAMESPACE}_{name}", doc, labels=names)
    for labels, value in series:
        have = dict((*labels, *extra))
        family.add_metric([have.get(n, "") for n in names], value)
    return family


def _grouped(
    items: Iterable[tuple[str, LabelPairs, float]],
) -> dict[str, list[tuple[LabelPairs, float]]]:
    out: dict[str, list[tuple[LabelPairs, float]]] = {}
    for name, labels, value in items:
        out.setdefault(name, []).append((labels, value))
    return out


def families(snapshot: MetricsSnapshot) -> Iterator[Metric]:
    """Every family of the snapshot, in a stable order."""
    extra: LabelPairs = (("bank", snapshot.bank),) if snapshot.bank is not None else ()
    counters = _grouped((c.name, c.labels, c.per_minute) for c in snapshot.counters)
    totals = _grouped((c.name, c.labels, float(c.total)) for c in snapshot.counters)
    for name, series in counters.items():
        yield _family(f"{name}_per_minute", HELP.get(name, name), series, extra)
        doc = f"{HELP.get(name, name)}: the count over the window"
        yield _family(f"{name}_in_window", doc.replace(" per minute", ""), totals[name], extra)
    quantiles = _grouped(
        (h.name, (*h.labels, ("quantile", q)), value)
        for h in snapshot.latencies
        for q, attr in QUANTILE_LABELS
        if (value := getattr(h, attr)) is not None
    )
    rates = _grouped((h.name, h.labels, h.per_minute) for h in snapshot.latencies)
    for name, series in quantiles.items():
        yield _family(name, HELP.get(name, name), series, extra)
        doc = f"Observations of {name} per minute"
        yield _family(f"{name}_count_per_minute", doc, rates[name], extra)
    yield from _window_histograms(snapshot, extra)
    gauges = _grouped((g.name, g.labels, g.value) for g in snapshot.gauges)
    for name, series in gauges.items():
        yield _family(name, HELP.get(name, name), series, extra)
    ages = [
        ((("gauge", g.name), *g.labels), (snapshot.at - g.updated_at).total_seconds())
        for g in snapshot.gauges
    ]
    if ages:
        yield _family("gauge_age_seconds", "Age of the last gauge sample", ages, extra)
    slow = [((), float(snapshot.slow_calls))]
    yield _family("slow_calls", "Slow calls logged in the window", slow, extra)
    window = [((), float(snapshot.minutes))]
    yield _family("metrics_window_minutes", "Minutes the other values cover", window, extra)


def _le(bound: float) -> str:
    return "+Inf" if math.isinf(bound) else f"{bound:g}"


def _window_histograms(snapshot: MetricsSnapshot, extra: LabelPairs) -> Iterator[Metric]:
    """Count, sum and cumulative buckets over the window, per histogram series: the
    exact figures the snapshot holds, for checks and for `histogram_quantile`."""
    names = sorted({h.name for h in snapshot.latencies})
    for name in names:
        series = [h for h in snapshot.latencies if h.name == name]
        counts = [(h.labels, float(h.count)) for h in series]
        sums = [(h.labels, h.sum_ms) for h in series]
        buckets: list[tuple[LabelPairs, float]] = []
        for h in series:
            seen = 0
            for bound, n in h.buckets:
                seen += n
                buckets.append(((*h.labels, ("le", _le(bound))), float(seen)))
            if not h.buckets or not math.isinf(h.buckets[-1][0]):
                buckets.append(((*h.labels, ("le", "+Inf")), float(h.count)))
        yield _family(
            f"{name}_count_in_window", f"Observations of {name} in the window", counts, extra
        )
        yield _family(f"{name}_sum_ms_in_window", f"Sum of {name} in the window, ms", sums, extra)
        yield _family(
            f"{name}_window_bucket",
            f"Cumulative {name} buckets in the window (le, ms)",
            buckets,
            extra,
        )


class SnapshotCollector(Collector):
    def __init__(self, snapshot: MetricsSnapshot) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterable[Metric]:
        return families(self._snapshot)


def render_prometheus(snapshot: MetricsSnapshot) -> bytes:
    """The text exposition format (version 0.0.4) of one snapshot; a fresh registry per
    call, so nothing is kept in the process between scrapes."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SnapshotCollector(snapshot))
    return generate_latest(registry)
