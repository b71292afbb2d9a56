"""`sediment stats`: gauge sampling and the last minutes of metrics as a terminal view.

Counters and histograms are written on the hot path; gauges (queue depth, dead
letters, memories per bank) are sampled here, by whoever runs `sample_gauges`: this
command on every refresh, and the `GaugeSampler` thread (sediment/sampler.py) of
`sediment serve` and `sediment worker`.
"""

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import redis
from kombu.transport.redis import PRIORITY_STEPS, Channel
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from readmodel.store import Filter, MemoryStore
from readmodel.stores.metered import MeteredStore
from telemetry.metrics import (
    BOUNDS_MS,
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
    LatencyTotal,
    Metrics,
    MetricsSnapshot,
    snapshot_from_json,
)
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.deadletters import DeadLetters

MAX_BANKS = 1000
REFRESH_S = 2.0
OUTCOMES = (
    "received",
    "stored",
    "redelivered",
    "merged",
    "superseded",
    "retried",
    "dead_lettered",
)
SPARK = "▁▂▃▄▅▆▇█"


def broker_depth(client: redis.Redis, queue: str) -> tuple[int, int]:
    """Messages waiting in `queue` (kombu keeps one list per priority step) and the
    size of kombu's `unacked` hash (delivered, not acknowledged; every queue of the DB)."""
    pipe = client.pipeline(transaction=False)
    for step in PRIORITY_STEPS:
        pipe.llen(f"{queue}{Channel.sep}{step}" if step else queue)
    pipe.hlen(Channel.unacked_key)
    *ready, unacked = pipe.execute()
    return sum(int(n) for n in ready), int(unacked)


@dataclass(frozen=True)
class Gauges:
    """What gauge sampling reads: `broker` is the Redis holding the queue (none for
    Celery's in-memory transport); `store` is counted only by a process that owns it."""

    metrics: Metrics
    dead_letters: DeadLetters
    broker: redis.Redis | None
    queue: str
    store: MemoryStore | None = None


def sample_gauges(g: Gauges, store: bool = True) -> None:
    """Queue depth (Redis broker only), the dead-letter stream length and, with `store`,
    memories and observations per bank, as one batch."""
    with g.metrics.batch():
        sample_backlog(g)
        if store:
            sample_sizes(g)


def sample_backlog(g: Gauges) -> None:
    """Queue depth (Redis broker only) and the dead-letter stream length: Redis reads."""
    if g.broker is not None:
        ready, unacked = broker_depth(g.broker, g.queue)
        g.metrics.gauge(QUEUE_READY, ready, {"queue": g.queue})
        g.metrics.gauge(QUEUE_UNACKED, unacked)
    g.metrics.gauge(DEAD_LETTERS, g.dead_letters.length())


def sample_sizes(g: Gauges) -> None:
    """Memories and observations per bank (at most MAX_BANKS banks). The counting calls
    go to the unmetered store: sampling is not store traffic."""
    if g.store is None:
        return
    counted: MemoryStore = g.store
    if isinstance(counted, MeteredStore):
        counted = counted.inner
    for bank in counted.banks()[:MAX_BANKS]:
        raw = counted.count(Filter(bank, kinds=RAW_KINDS))
        observations = counted.count(Filter(bank, kinds=("observation",)))
        g.metrics.gauge(MEMORIES, raw, {"bank": bank})
        g.metrics.gauge(OBSERVATIONS, observations, {"bank": bank})


def fmt_ms(value: float | None) -> str:
    """Milliseconds in a readable unit; the last bucket bound means "at least"."""
    if value is None:
        return "-"
    if value >= BOUNDS_MS[-1]:
        return f">= {BOUNDS_MS[-1] / 3_600_000:.1f} h"
    if value < 10:
        return f"{value:.2f} ms"
    if value < 1000:
        return f"{value:.0f} ms"
    if value < 60_000:
        return f"{value / 1000:.1f} s"
    if value < 3_600_000:
        return f"{value / 60_000:.1f} min"
    if value < 172_800_000:
        return f"{value / 3_600_000:.1f} h"
    return f"{value / 86_400_000:.0f} d"


def sparkline(series: Iterable[int]) -> str:
    values = list(series)
    top = max(values, default=0)
    if top <= 0:
        return " " * len(values)
    return "".join(SPARK[min(7, round(7 * v / top))] if v else " " for v in values)


def _throughput(s: MetricsSnapshot) -> Table:
    table = Table(title="throughput", title_justify="left", expand=False)
    table.add_column("")
    table.add_column("total", justify="right")
    table.add_column("per min", justify="right")
    table.add_column("trend")
    rows = [(f"events {o}", EVENTS, {"outcome": o}) for o in OUTCOMES]
    rows += [("recalls", RECALLS, {}), ("recall errors", RECALL_ERRORS, {})]
    rows += [("store errors", STORE_ERRORS, {}), ("votes dropped", FEEDBACK_DROPPED, {})]
    for label, name, labels in rows:
        found = [
            c for c in s.counters if c.name == name and dict(c.labels).items() >= labels.items()
        ]
        trend = [sum(col) for col in zip(*(c.series for c in found), strict=True)] if found else []
        total = s.total(name, **labels)
        style = "red" if total and name in (RECALL_ERRORS, STORE_ERRORS) else ""
        rate = f"{s.rate(name, **labels):.1f}"
        table.add_row(label, Text(str(total), style=style), rate, sparkline(trend))
    return table


def _latency_rows(s: MetricsSnapshot) -> list[tuple[str, LatencyTotal | None]]:
    rows = [
        ("consolidation", s.latency(CONSOLIDATION_MS)),
        ("lag since occurred_at", s.latency(CONSOLIDATION_LAG_MS, since="occurred")),
        ("lag since publish", s.latency(CONSOLIDATION_LAG_MS, since="published")),
        ("recall", s.latency(RECALL_MS)),
    ]
    for name, prefix in ((RECALL_STAGE_MS, "  stage"), (STORE_CALL_MS, "store")):
        rows += [
            (f"{prefix} {dict(h.labels).get('stage') or dict(h.labels).get('method')}", h)
            for h in s.latencies
            if h.name == name
        ]
    return rows


def _latency(s: MetricsSnapshot) -> Table:
    table = Table(title="latency", title_justify="left")
    table.add_column("")
    for col in ("count", "p50", "p95", "p99", "mean"):
        table.add_column(col, justify="right")
    for label, h in _latency_rows(s):
        if h is None:
            table.add_row(label, "0", "-", "-", "-", "-", style="dim")
            continue
        cells = (h.p50_ms, h.p95_ms, h.p99_ms, h.mean_ms)
        table.add_row(label, str(h.count), *(fmt_ms(v) for v in cells))
    return table


def _backlog(s: MetricsSnapshot) -> Table:
    table = Table(title="backlog and size", title_justify="left")
    for col in ("", "value", "sampled"):
        table.add_column(col, justify="left" if not col else "right")
    ages = {g.name: (s.at - g.updated_at).total_seconds() for g in s.gauges}
    for label, name in (
        ("queue ready", QUEUE_READY),
        ("queue unacked", QUEUE_UNACKED),
        ("dead letters", DEAD_LETTERS),
        ("memories", MEMORIES),
        ("observations", OBSERVATIONS),
    ):
        value = s.gauge(name)
        age = f"{ages[name]:.0f} s ago" if name in ages else "never"
        table.add_row(label, "-" if value is None else f"{value:.0f}", age)
    table.add_row("slow calls (window)", str(s.slow_calls), "")
    return table


def stats_view(s: MetricsSnapshot) -> RenderableType:
    scope = f"bank {s.bank}" if s.bank else f"all banks ({len(s.banks)} active)"
    head = Text(f"sediment stats: last {s.minutes} min, {scope}, at {s.at:%H:%M:%S} UTC")
    return Group(head, _throughput(s), _latency(s), _backlog(s))


def run(
    g: Gauges,
    bank: str | None,
    minutes: int,
    watch: bool,
    as_json: bool,
    store_counts: bool,
    console: Console,
) -> None:
    """Print one snapshot, or refresh every REFRESH_S until interrupted."""

    def current() -> MetricsSnapshot:
        sample_gauges(g, store=store_counts)
        return g.metrics.snapshot(minutes, bank)

    show_snapshots(current, watch, as_json, console)


def show_snapshots(
    current: Callable[[], MetricsSnapshot], watch: bool, as_json: bool, console: Console
) -> None:
    """Print one snapshot (as JSON, or as tables), or with `watch` a new one every
    REFRESH_S until interrupted."""
    show: Callable[[MetricsSnapshot], None] = (
        (lambda s: print(s.to_json(), file=sys.stdout, flush=True))
        if as_json
        else (lambda s: console.print(stats_view(s)))
    )
    if not watch:
        show(current())
        return
    try:
        if as_json:
            while True:
                show(current())
                time.sleep(REFRESH_S)
        with Live(stats_view(current()), console=console, auto_refresh=False) as live:
            while True:
                time.sleep(REFRESH_S)
                live.update(stats_view(current()), refresh=True)
    except KeyboardInterrupt:
        return


def run_remote(
    fetch: Callable[[], dict[str, Any]], watch: bool, as_json: bool, console: Console
) -> None:
    """`run` over a server's `/v1/stats`: its snapshot, shown the same way."""

    def current() -> MetricsSnapshot:
        return snapshot_from_json(fetch())

    show_snapshots(current, watch, as_json, console)
