"""The `Metrics` port: counters, latency histograms and gauges, and their read side.

Writers call `incr`, `observe` and `gauge`; `batch()` groups the writes of one
operation (a task, a recall) so an adapter can send them together. Readers ask for
`snapshot(minutes, bank)`: totals, rates and percentiles over the last minutes, the
same typed value for `sediment stats`, the JSON endpoint and the Prometheus text.

`RedisMetrics` (telemetry/redis_series.py) keeps them in Redis so every process and
replica reads the same numbers; `NoopMetrics` is for SEDIMENT_METRICS_ENABLED=false.
"""

import bisect
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Final, Protocol

Labels = Mapping[str, str]
LabelPairs = tuple[tuple[str, str], ...]
Defer = Callable[[Callable[[], None]], object]
BankFilter = Callable[[str], bool]
"""Runs a batch's flush later, e.g. `executor.submit`: keeps Redis off a response path."""


def merged(flushes: Sequence[Callable[[], None]]) -> list[Callable[[], None]]:
    """Deferred flushes with each run of those that can absorb the next (an `absorb`
    method returning True) merged into one send: the same counts, fewer round trips.
    Order is kept: a flush never moves ahead of one handed over before it."""
    out: list[Callable[[], None]] = []
    for flush in flushes:
        absorb = getattr(out[-1], "absorb", None) if out else None
        if absorb is not None and absorb(flush):
            continue
        out.append(flush)
    return out


EVENTS: Final = "events"
"""Counter, labels `outcome` and `bank` when known. `stored` counts distinct events:
each event once, when its done-marker is first written, however often it is delivered
(`Metrics.expect` and `incr_once`); `redelivered` counts the deliveries of events
already stored, apart. `received` counts the events of messages taken on a first
attempt (a producer's resend counts again); then merged, superseded, retried,
dead_lettered, forgotten."""
FEEDBACK_DROPPED: Final = "feedback_dropped"
"""Counter, labels `bank` and `reason`: votes dropped instead of counted or
dead-lettered; `forgotten`: the memory voted on was removed by a forget."""
STORED: Final = "stored"
REDELIVERED: Final = "redelivered"
RECALLS: Final = "recalls"
RECALL_ERRORS: Final = "recall_errors"
CONSOLIDATION_MS: Final = "consolidation_ms"
CONSOLIDATION_LAG_MS: Final = "consolidation_lag_ms"
"""Histogram, label `since`: `occurred` (event time) or `published` (publish header)."""
RECALL_MS: Final = "recall_ms"
RECALL_STAGE_MS: Final = "recall_stage_ms"
STORE_CALL_MS: Final = "store_call_ms"
STORE_ERRORS: Final = "store_errors"
QUEUE_READY: Final = "queue_ready"
QUEUE_UNACKED: Final = "queue_unacked"
DEAD_LETTERS: Final = "dead_letters"
MEMORIES: Final = "memories"
OBSERVATIONS: Final = "observations"

BUCKETS_PER_DECADE: Final = 8
BOUNDS_MS: Final[tuple[float, ...]] = tuple(
    float(f"{0.1 * 10 ** (k / BUCKETS_PER_DECADE):.3g}") for k in range(9 * BUCKETS_PER_DECADE + 1)
)
"""Upper bucket bounds, 0.1 ms to 1e8 ms (about 28 h) at 8 per decade: a value is
counted in the first bucket whose bound is at least the value, or in `inf`."""
QUANTILES: Final = (0.5, 0.95, 0.99)


def bucket_bound(value_ms: float) -> float:
    """The upper bound of the bucket holding `value_ms` (`inf` past the last bound)."""
    i = bisect.bisect_left(BOUNDS_MS, value_ms)
    return BOUNDS_MS[i] if i < len(BOUNDS_MS) else math.inf


def quantile(buckets: Mapping[float, int], q: float) -> float | None:
    """Estimate the q-quantile from per-bucket counts (upper bound -> count).

    Linear within the bucket that holds the rank, as Prometheus' histogram_quantile
    does; a rank in the `inf` bucket gives the last finite bound (a lower bound).
    """
    total = sum(buckets.values())
    if total <= 0:
        return None
    rank = q * total
    bounds = sorted(set(BOUNDS_MS) | set(buckets))
    seen, lower = 0, 0.0
    for bound in bounds:
        n = buckets.get(bound, 0)
        if n > 0 and seen + n >= rank:
            if math.isinf(bound):
                return lower
            return lower + (bound - lower) * max(0.0, rank - seen) / n
        seen += n
        if not math.isinf(bound):
            lower = bound
    return lower


@dataclass(frozen=True)
class CounterTotal:
    """One counter series over the window; `series` is per minute bucket, oldest first."""

    name: str
    labels: LabelPairs
    total: int
    per_minute: float
    series: tuple[int, ...]


@dataclass(frozen=True)
class LatencyTotal:
    """One histogram series over the window; `buckets` are (upper bound ms, count).

    `series` and `p50_series`... hold one value per minute bucket, oldest first, so a
    chart can draw percentiles over time from one snapshot (None: nothing that minute).
    """

    name: str
    labels: LabelPairs
    count: int
    sum_ms: float
    per_minute: float
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    buckets: tuple[tuple[float, int], ...]
    series: tuple[int, ...] = ()
    p50_series: tuple[float | None, ...] = ()
    p95_series: tuple[float | None, ...] = ()
    p99_series: tuple[float | None, ...] = ()

    @property
    def mean_ms(self) -> float | None:
        return self.sum_ms / self.count if self.count else None


@dataclass(frozen=True)
class GaugeValue:
    name: str
    labels: LabelPairs
    value: float
    updated_at: datetime


def _matches(labels: LabelPairs, wanted: Labels) -> bool:
    have = dict(labels)
    return all(have.get(k) == v for k, v in wanted.items())


@dataclass(frozen=True)
class MetricsSnapshot:
    """The last `minutes` minute buckets (the current one included), of one bank or all.

    The `bank` label is folded away: with `bank=None` series are summed over banks,
    otherwise only that bank's series are kept (with `among`, only the series of the
    banks it admits). Series that carry no bank label (stage and store-call latency,
    queue gauges, dead letters) appear only when `bank` and `among` are None.
    `slow_calls` counts `sediment:slow` entries in the window.
    """

    at: datetime
    minutes: int
    bank: str | None
    counters: tuple[CounterTotal, ...] = ()
    latencies: tuple[LatencyTotal, ...] = ()
    gauges: tuple[GaugeValue, ...] = ()
    banks: tuple[str, ...] = ()
    slow_calls: int = 0

    def total(self, name: str, **labels: str) -> int:
        """Sum of the counter series of `name` whose labels include `labels`."""
        return sum(c.total for c in self.counters if c.name == name and _matches(c.labels, labels))

    def rate(self, name: str, **labels: str) -> float:
        return sum(
            c.per_minute for c in self.counters if c.name == name and _matches(c.labels, labels)
        )

    def latency(self, name: str, **labels: str) -> LatencyTotal | None:
        """The series of `name` with exactly these labels."""
        wanted = tuple(sorted(labels.items()))
        return next((h for h in self.latencies if h.name == name and h.labels == wanted), None)

    def gauge(self, name: str, **labels: str) -> float | None:
        found = [g.value for g in self.gauges if g.name == name and _matches(g.labels, labels)]
        return sum(found) if found else None

    def to_json(self) -> str:
        def default(value: object) -> str:
            return value.isoformat() if isinstance(value, datetime) else str(value)

        body = asdict(self)
        for series in (*body["counters"], *body["latencies"], *body["gauges"]):
            series["labels"] = dict(series["labels"])
        for h in body["latencies"]:
            h["buckets"] = [[_json_bound(b), n] for b, n in h["buckets"]]
        return json.dumps(body, default=default, sort_keys=True)


def _json_bound(bound: float) -> float | str:
    return "inf" if math.isinf(bound) else bound


def snapshot_from_json(body: Mapping[str, Any]) -> MetricsSnapshot:
    """A snapshot back from `MetricsSnapshot.to_json` (what `/v1/stats` answers), for a
    client that shows it as `sediment stats` does; fields it does not know are left."""

    def pairs(labels: Mapping[str, str]) -> LabelPairs:
        return tuple(sorted((str(k), str(v)) for k, v in labels.items()))

    def when(text: str) -> datetime:
        return datetime.fromisoformat(text)

    counters = tuple(
        CounterTotal(
            c["name"],
            pairs(c["labels"]),
            int(c["total"]),
            float(c["per_minute"]),
            tuple(c.get("series", ())),
        )
        for c in body.get("counters", ())
    )
    latencies = tuple(
        LatencyTotal(
            h["name"],
            pairs(h["labels"]),
            int(h["count"]),
            float(h["sum_ms"]),
            float(h["per_minute"]),
            h.get("p50_ms"),
            h.get("p95_ms"),
            h.get("p99_ms"),
            tuple((math.inf if b == "inf" else float(b), int(n)) for b, n in h["buckets"]),
            tuple(h.get("series", ())),
            tuple(h.get("p50_series", ())),
            tuple(h.get("p95_series", ())),
            tuple(h.get("p99_series", ())),
        )
        for h in body.get("latencies", ())
    )
    gauges = tuple(
        GaugeValue(g["name"], pairs(g["labels"]), float(g["value"]), when(g["updated_at"]))
        for g in body.get("gauges", ())
    )
    return MetricsSnapshot(
        at=when(body["at"]),
        minutes=int(body["minutes"]),
        bank=body.get("bank"),
        counters=counters,
        latencies=latencies,
        gauges=gauges,
        banks=tuple(body.get("banks", ())),
        slow_calls=int(body.get("slow_calls", 0)),
    )


class Metrics(Protocol):
    """Port for metrics. Writes never raise: a metrics outage must not fail the work."""

    def incr(self, name: str, n: int = 1, labels: Labels | None = None) -> None: ...

    def observe(self, name: str, value_ms: float, labels: Labels | None = None) -> None: ...

    def gauge(self, name: str, value: float, labels: Labels | None = None) -> None: ...

    def batch(self, defer: Defer | None = None) -> AbstractContextManager[None]:
        """Hold this thread's writes until the outermost batch ends, then send them at once
        (or hand that send to `defer`; only the outermost batch's `defer` counts)."""

    def expect(self, tokens: Sequence[str]) -> bool:
        """Each token (an event id) is owed one count by `incr_once`. Sent at once, not
        batched: call it before the durable write that makes the events done, so a
        delivery killed after that write leaves the count owed to the next delivery.
        False when it could not be recorded (the caller then forces its own counts)."""

    def incr_once(
        self, name: str, token: str, first: Labels, again: Labels, force: bool = False
    ) -> None:
        """One count of `name`: with `first` labels if `token` is owed one (or `force`),
        settling it atomically; with `again` labels otherwise. Batched like `incr`."""

    def snapshot(
        self, minutes: int, bank: str | None = None, among: BankFilter | None = None
    ) -> MetricsSnapshot:
        """`bank`: that bank's series only. `among`: only the series of banks it admits,
        summed (a caller limited to some banks); series without a bank label are then
        left out, as they are for one bank, since they sum over every bank."""


class NoopMetrics:
    """Metrics disabled: writes are dropped and snapshots are empty."""

    def incr(self, name: str, n: int = 1, labels: Labels | None = None) -> None:
        return None

    def observe(self, name: str, value_ms: float, labels: Labels | None = None) -> None:
        return None

    def gauge(self, name: str, value: float, labels: Labels | None = None) -> None:
        return None

    @contextmanager
    def batch(self, defer: Defer | None = None) -> Iterator[None]:
        yield

    def expect(self, tokens: Sequence[str]) -> bool:
        return True

    def incr_once(
        self, name: str, token: str, first: Labels, again: Labels, force: bool = False
    ) -> None:
        return None

    def snapshot(
        self, minutes: int, bank: str | None = None, among: BankFilter | None = None
    ) -> MetricsSnapshot:
        return MetricsSnapshot(at=datetime.now(UTC), minutes=minutes, bank=bank)


def count_events(metrics: Metrics, outcome: str, banks: Iterable[str | None]) -> None:
    """Count one `events{outcome}` per item, labelled with its bank when it has one."""
    for bank, n in Counter(banks).items():
        labels = {"outcome": outcome} if bank is None else {"outcome": outcome, "bank": bank}
        metrics.incr(EVENTS, n, labels)


def count_stored_once(
    metrics: Metrics, event_id: str, bank: str | None, force: bool = False
) -> None:
    """One delivery of an event whose done-marker is written: `events{stored}` if this
    is the first to settle it (see `Metrics.expect`), else `events{redelivered}`."""
    base = {} if bank is None else {"bank": bank}
    first, again = {**base, "outcome": STORED}, {**base, "outcome": REDELIVERED}
    metrics.incr_once(EVENTS, event_id, first, again, force)


def record_recall(
    metrics: Metrics,
    bank: str,
    response_timings: Mapping[str, float],
    total_ms: float,
    error: bool,
) -> None:
    """One recall: its count, error, total latency (per bank) and stage latencies.

    Stage latencies carry no bank label so their number of series stays bounded by
    the number of stages; `response_timings` is `RecallResponse.timings_ms`.
    """
    with metrics.batch():
        metrics.incr(RECALLS, 1, {"bank": bank})
        if error:
            metrics.incr(RECALL_ERRORS, 1, {"bank": bank})
        metrics.observe(RECALL_MS, total_ms, {"bank": bank})
        for stage, ms in response_timings.items():
            metrics.observe(RECALL_STAGE_MS, ms, {"stage": stage})
