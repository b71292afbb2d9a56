"""Folding raw per-minute values into a `MetricsSnapshot`, and the label codec.

Pure: no Redis here. `RedisMetrics` reads the values and hands them to `Fold`,
which drops the `bank` label (keeping only one bank's series when asked) and sums
what remains per (name, labels).
"""

import functools
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote, unquote

from telemetry.metrics import (
    BankFilter,
    CounterTotal,
    GaugeValue,
    LabelPairs,
    Labels,
    LatencyTotal,
    MetricsSnapshot,
    quantile,
)

NO_LABELS: Final = "-"
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
SeriesKey = tuple[str, LabelPairs]


@functools.lru_cache(maxsize=1024)
def checked(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise ValueError(f"metric and label names are [a-z][a-z0-9_]*, got {name!r}")
    return name


def encode_labels(labels: Labels | None) -> str:
    return _encoded(tuple(labels.items())) if labels else NO_LABELS


@functools.lru_cache(maxsize=4096)
def _encoded(items: tuple[tuple[str, str], ...]) -> str:
    return ",".join(f"{checked(k)}={quote(v, safe='')}" for k, v in sorted(items))


def decode_labels(encoded: str) -> LabelPairs:
    if encoded == NO_LABELS:
        return ()
    return tuple((k, unquote(v)) for k, v in (p.split("=", 1) for p in encoded.split(",")))


def text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


@dataclass
class Histogram:
    buckets: Counter[float] = field(default_factory=Counter)
    total: float = 0.0

    @property
    def count(self) -> int:
        return sum(self.buckets.values())


def split_series(sid: str) -> tuple[str, str, LabelPairs]:
    kind, name, labels = sid.split(":", 2)
    return kind, name, decode_labels(labels)


def _admits(found: str | None, bank: str | None, among: BankFilter | None) -> bool:
    """A series (or slow call) of bank `found` (None: no bank label) is shown for a
    snapshot of `bank` (None: all) limited to the banks `among` admits (None: all)."""
    if bank is None and among is None:
        return True
    if found is None or (bank is not None and found != bank):
        return False
    return among is None or among(found)


def kept(sid: str, bank: str | None, among: BankFilter | None = None) -> bool:
    found = next((v for k, v in split_series(sid)[2] if k == "bank"), None)
    return _admits(found, bank, among)


def slow_count(
    entries: list[tuple[Any, Mapping[Any, Any]]],
    bank: str | None,
    among: BankFilter | None = None,
) -> int:
    if bank is None and among is None:
        return len(entries)
    return sum(
        1
        for _, f in entries
        if _admits(text(f.get(b"bank", f.get("bank", b""))) or None, bank, among)
    )


class Fold:
    """Folds the bank label away and sums series per (name, other labels)."""

    def __init__(self, first: int, minutes: int, window_s: float) -> None:
        self.first, self.minutes, self.window_s = first, minutes, window_s
        self.counters: dict[SeriesKey, list[int]] = {}
        self.hists: dict[SeriesKey, Histogram] = {}
        self.minute_hists: dict[SeriesKey, dict[int, Histogram]] = {}
        self.gauges: dict[SeriesKey, tuple[float, float]] = {}
        self.banks: set[str] = set()

    def _key(self, name: str, labels: LabelPairs) -> SeriesKey:
        self.banks.update(v for k, v in labels if k == "bank")
        return name, tuple((k, v) for k, v in labels if k != "bank")

    def add(self, sid: str, minute: int, value: Any) -> None:
        kind, name, labels = split_series(sid)
        key = self._key(name, labels)
        if kind == "c":
            series = self.counters.setdefault(key, [0] * self.minutes)
            series[minute - self.first] += int(value or 0)
            return
        hist = self.hists.setdefault(key, Histogram())
        per_minute = self.minute_hists.setdefault(key, {})
        in_minute = per_minute.setdefault(minute - self.first, Histogram())
        for f, v in (value or {}).items():
            fname = text(f)
            if fname == "sum":
                hist.total += float(v)
                in_minute.total += float(v)
            elif fname != "count":
                hist.buckets[float(fname)] += int(v)
                in_minute.buckets[float(fname)] += int(v)

    def add_gauge(self, gid: str, value: Mapping[Any, Any]) -> None:
        if not value:
            return
        fields = {text(k): text(v) for k, v in value.items()}
        _, name, labels = split_series(gid)
        key = self._key(name, labels)
        total, ts = self.gauges.get(key, (0.0, 0.0))
        self.gauges[key] = (total + float(fields["value"]), max(ts, float(fields["ts"])))

    def _latency(self, key: SeriesKey, h: Histogram, per_min: float) -> LatencyTotal:
        minutes = [self.minute_hists[key].get(i) for i in range(self.minutes)]

        def per_minute_quantile(q: float) -> tuple[float | None, ...]:
            return tuple(quantile(m.buckets, q) if m else None for m in minutes)

        return LatencyTotal(
            key[0],
            key[1],
            count=h.count,
            sum_ms=h.total,
            per_minute=h.count * per_min,
            p50_ms=quantile(h.buckets, 0.5),
            p95_ms=quantile(h.buckets, 0.95),
            p99_ms=quantile(h.buckets, 0.99),
            buckets=tuple(sorted(h.buckets.items())),
            series=tuple(m.count if m else 0 for m in minutes),
            p50_series=per_minute_quantile(0.5),
            p95_series=per_minute_quantile(0.95),
            p99_series=per_minute_quantile(0.99),
        )

    def snapshot(self, at: datetime, bank: str | None, slow: int) -> MetricsSnapshot:
        per_min = 60.0 / self.window_s
        counters = tuple(
            CounterTotal(name, labels, sum(s), sum(s) * per_min, tuple(s))
            for (name, labels), s in sorted(self.counters.items())
        )
        latencies = tuple(self._latency(key, h, per_min) for key, h in sorted(self.hists.items()))
        gauges = tuple(
            GaugeValue(name, labels, v, datetime.fromtimestamp(ts, UTC))
            for (name, labels), (v, ts) in sorted(self.gauges.items())
        )
        banks = tuple(sorted(self.banks)) if bank is None else (bank,) if self.banks else ()
        return MetricsSnapshot(at, self.minutes, bank, counters, latencies, gauges, banks, slow)
