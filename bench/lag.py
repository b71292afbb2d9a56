"""`sediment-bench lag`: publish-to-visible lag of retains sent through a standalone
`sediment serve` while clients recall from it over HTTP.

One serve (standalone: our own Redis, a local store, the worker inside serve) is
loaded with a bank of memories. At the start of each run its capacity is measured
with a burst of single-event messages and no recall load (the bank grows run by run,
and what the worker drains with it); the run then retains one event per
`POST /v1/banks/B/memories` at half that capacity for a while, as `clients` threads
recall in a closed loop. An event is visible once the redelivery ledger no longer
owes it: the worker settles an event only after its done-marker is written.
"""

import itertools
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
import redis
from celery import Celery
from rich.console import Console

from bench.ingest_rate import BATCH, QUEUE, owed, warm_event
from bench.latency import Figures, latency_figures
from bench.procs import Started, redis_server, rss_mb, serve, stop, wait_until
from bench.record import ScaleReport
from bench.suite import case, finish, new_report
from bench.workload import START, after
from bench.workload import events as workload_events
from bench.workload import queries as workload_queries
from contracts.events import RetainEvent
from sediment.settings import Settings
from worker.ledger import Kind, Ledger, member
from worker.publish import publish

BANK = "bench-000"
POLL_S = 0.02
CAPACITY_EVENTS = 200
DRAIN_WAIT_S = 300.0


@dataclass(frozen=True)
class LagPlan:
    preload: int = 1000
    clients: int = 20
    seconds: float = 60.0
    fraction: float = 0.5
    runs: int = 3


@dataclass
class Watch:
    """Publish times of events not yet visible, and the lags of those that are."""

    pending: dict[str, float] = field(default_factory=dict)
    lags_s: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def published(self, event_id: uuid.UUID, at: float) -> None:
        with self.lock:
            self.pending[member(Kind.RETAIN, event_id)] = at

    def poll(self, client: redis.Redis) -> None:
        with self.lock:
            names = list(self.pending)
        if not names:
            return
        owed_now = client.hmget("sediment:ledger", names)
        now = time.perf_counter()
        with self.lock:
            for name, still in zip(names, owed_now, strict=True):
                if still is None:
                    self.lags_s.append(now - self.pending.pop(name))


def _poll_loop(watch: Watch, client: redis.Redis, stop_at: threading.Event) -> None:
    while not stop_at.is_set():
        watch.poll(client)
        time.sleep(POLL_S)


def _recall_loop(
    base: str, queries: Sequence[str], stop_at: threading.Event, out: list[float]
) -> None:
    with httpx.Client(base_url=base, timeout=120) as client:
        for q in itertools.cycle(queries):
            if stop_at.is_set():
                return
            start = time.perf_counter()
            client.post(f"/v1/banks/{BANK}/recall", json={"query": q}).raise_for_status()
            out.append(time.perf_counter() - start)


def _retain_loop(
    base: str, events: Sequence[RetainEvent], rate: float, watch: Watch, stop_at: threading.Event
) -> int:
    """Open loop: event i is sent at i / rate seconds, whatever the replies take."""
    sent = 0
    start = time.perf_counter()
    with httpx.Client(base_url=base, timeout=120) as client:
        for i, event in enumerate(events):
            delay = start + i / rate - time.perf_counter()
            if delay > 0 and stop_at.wait(delay):
                break
            item = event.model_dump(mode="json", exclude={"bank_id"})
            at = time.perf_counter()
            client.post(f"/v1/banks/{BANK}/memories", json={"items": [item]}).raise_for_status()
            # Watched only now: until the 202, the ledger may not hold the event yet,
            # and the poller would take "not owed" for "done" (a lag of about zero).
            watch.published(event.event_id, at)
            sent += 1
    return sent


@dataclass
class Timeline:
    """Where the bank's history ends: each stream continues it, as live producers'
    events do (a stream from the generator's default start would be a backfill of the
    bank's whole span, which costs the worker more the larger the bank)."""

    end: datetime = START

    def events(self, count: int, seed: int) -> list[RetainEvent]:
        out = list(workload_events(1, count, seed=seed, start=self.end))
        self.end = after(count, self.end)
        return out


def capacity(
    app: Celery, client: redis.Redis, events: list[RetainEvent], serving: Started
) -> float:
    """Events/s the serve's worker drains, one event per message, with no recall load."""
    start = time.perf_counter()
    publish(app, events, QUEUE, 1, Ledger(client))
    wait_until(lambda: owed(client) == 0, DRAIN_WAIT_S, "the capacity burst", watch=[serving])
    return len(events) / (time.perf_counter() - start)


def one_run(
    base: str, client: redis.Redis, rate: float, plan: LagPlan, events: list[RetainEvent], seed: int
) -> Figures:
    queries = [q for _, q in workload_queries(1, 100, seed=seed)]
    watch, stop_at, done = Watch(), threading.Event(), threading.Event()
    recalls: list[list[float]] = [[] for _ in range(plan.clients)]
    threads = [
        threading.Thread(target=_recall_loop, args=(base, queries, stop_at, r), daemon=True)
        for r in recalls
    ]
    poller = threading.Thread(target=_poll_loop, args=(watch, client, done), daemon=True)
    for t in [*threads, poller]:
        t.start()
    time.sleep(2.0)
    sent = _retain_loop(base, events, rate, watch, stop_at)
    late = 0
    try:
        wait_until(lambda: not watch.pending, DRAIN_WAIT_S, "the run's events", every_s=0.1)
    except TimeoutError:
        late = len(watch.pending)
    stop_at.set()
    for t in threads:
        t.join(120)
    done.set()
    poller.join()
    timings = [s for r in recalls for s in r]
    figures: Figures = {
        "rate_eps": round(rate, 2),
        "sent": sent,
        "not_visible": late,
        "recalls_per_s": round(len(timings) / plan.seconds, 1),
        **latency_figures(watch.lags_s, "lag_"),
        "lag_max_ms": round(max(watch.lags_s) * 1000, 1),
        **latency_figures(timings, "recall_"),
    }
    return figures


def serve_env(url: str, data_dir: Path, settings: Settings, slots: int) -> dict[str, str]:
    return {
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": url,
        "SEDIMENT_DATA_DIR": str(data_dir),
        "SEDIMENT_EMBEDDER": settings.embedder,
        "SEDIMENT_SERVE_RECALL_SLOTS": str(slots),
        "SEDIMENT_LOG_LEVEL": "WARNING",
        "SEDIMENT_LOG_FORMAT": "json",
    }


def slots_name(slots: int) -> str:
    return "recall slots: no limit" if slots == 0 else f"recall slots: {slots}"


def run_lag(
    plan: LagPlan, slot_choices: Sequence[int], settings: Settings, err: Console
) -> ScaleReport:
    """One store and one Redis; for each run, a serve per slots setting in turn (the
    settings alternate, so each sees the machine as the others did). The bank grows by
    every run's events, and a consolidation's cost with it, so capacity is measured
    again at the start of each run, on its first serve, and every setting of that run
    gets the same rate: each run is at `fraction` of what the worker drains at the
    bank's size then, as the lag target defines it."""
    started = time.perf_counter()
    report = new_report(
        "lag",
        {
            "embedder": settings.embedder,
            "clients": plan.clients,
            "seconds": plan.seconds,
            "fraction": plan.fraction,
            "preload": plan.preload,
        },
        NOTES,
    )
    runs: dict[int, list[Figures]] = {s: [] for s in slot_choices}
    with tempfile.TemporaryDirectory(prefix="sediment-lag-") as tmp, redis_server() as url:
        root = Path(tmp)
        client = redis.Redis.from_url(url)
        app = Celery(broker=url, set_as_current=False)
        try:
            timeline = Timeline()
            for i in range(plan.runs):
                cap = 0.0
                for slots in slot_choices:
                    env = serve_env(url, root / "data", settings, slots)
                    proc, base = serve(env, root / f"serve-{i}-{slots}.log")
                    try:
                        if i == 0 and not cap:
                            _preload(app, client, timeline.events(plan.preload, 7), proc)
                        if not cap:
                            burst = timeline.events(CAPACITY_EVENTS, 500 + i)
                            cap = capacity(app, client, burst, serving=proc)
                            err.print(
                                f"run {i + 1}: capacity {cap:.1f} events/s "
                                "(single-event messages, no recall load)"
                            )
                        rate = cap * plan.fraction
                        events = timeline.events(int(rate * plan.seconds) + 1, 600 + i)
                        got = one_run(base, client, rate, plan, events, 600 + i)
                        got |= {"capacity_eps": round(cap, 2), **_rss(proc.pid)}
                    finally:
                        stop(proc.proc)
                    runs[slots].append(got)
                    err.print(f"  run {i + 1}/{plan.runs}, {slots_name(slots)}: {got}")
        finally:
            app.close()
            client.close()
    for slots, measured in runs.items():
        params = {"slots": slots, "clients": plan.clients}
        report["cases"].append(case(slots_name(slots), params, measured))
    return finish(report, started)


def _preload(app: Celery, client: redis.Redis, events: list[RetainEvent], serving: Started) -> None:
    publish(app, [warm_event(3), *events], QUEUE, BATCH, Ledger(client))
    wait_until(lambda: owed(client) == 0, 3600, "the preload", every_s=0.5, watch=[serving])


def _rss(pid: int) -> Figures:
    return {f"serve_{k}": v for k, v in rss_mb(pid).items()}


NOTES = (
    "lag_*: from the retain POST until the ledger no longer owes the event (its "
    "done-marker is written), polled every 20 ms; retains are sent open loop, one event "
    "per POST, at `fraction` of the capacity (a burst of single-event messages drained "
    "with no recall load, measured at the start of each run: the bank grows by every "
    "run's events); every stream continues the bank's timeline, as live events do; "
    "recall_*: the clients' HTTP round trips during the run. "
    "The clients run in the benchmark's own process on the same 2 cores.",
)
