"""`sediment-bench ingest`: events per second from publish until visible in recall.

Modes, each on the same generated events (bench/workload.py) in a fresh store:

* `embedded`: the bootstrap's publisher in batches, as `sediment ingest` does
  (consolidated in this process; visible when the call returns).
* `standalone`: a Redis of our own, real `sediment worker` processes, events sent
  through `worker.publish.publish` (batch messages, the redelivery ledger);
  visible when the ledger owes nothing (a worker settles an event only after its
  done-marker is written).
* `floor`, in the same run: embedding plus raw upserts of the same events into a
  fresh store, no consolidation: what ingest cannot beat on this machine.

Every run is checked afterwards: each event's done-marker is counted in the store and
a recall for the last event must find it.
"""

import multiprocessing
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import redis
from celery import Celery
from rich.console import Console

from bench.latency import Figures
from bench.procs import Started, redis_server, sediment, stop, wait_until
from bench.record import ScaleReport, Setting
from bench.suite import case, finish, new_report
from bench.workload import events as workload_events
from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from readmodel.embedders import Embedder
from readmodel.store import MemoryStore, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.text import document_vector
from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from worker.consolidation.consolidator import raw_memory
from worker.consolidation.relations import memory_id
from worker.ledger import LEDGER_KEY, Ledger
from worker.publish import publish

BATCH = 64
QUEUE = "sediment"
DRAIN_TIMEOUT_S = 3600.0
WARM_BANK = "bench-warm"


@dataclass(frozen=True)
class Mode:
    """`workers` processes, each with `threads` consumer threads; 0 workers: embedded."""

    name: str
    workers: int = 0
    threads: int = 1

    @property
    def pool(self) -> str:
        return "threads" if self.threads > 1 else "solo"


EMBEDDED = Mode("embedded")
STANDALONE = {
    "1": Mode("standalone_1w", 1, 1),
    "1x2": Mode("standalone_1w2t", 1, 2),
}


def floor_seconds(events: Sequence[RetainEvent], embedder: Embedder, root: Path) -> float:
    """Embedding and raw upserts in batches into a fresh store: no consolidation."""
    store = EdgeStore(root / "floor")
    store.ensure_schema(embedder.dimension)
    start = time.perf_counter()
    for i in range(0, len(events), BATCH):
        chunk = events[i : i + BATCH]
        vectors = embedder.embed([e.indexed_text() for e in chunk])
        now = datetime.now(UTC)
        store.upsert(
            [
                StoredPoint(raw_memory(e, now), v, document_vector(e.indexed_text()))
                for e, v in zip(chunk, vectors, strict=True)
            ]
        )
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed


def done_markers(store: MemoryStore, events: Sequence[RetainEvent]) -> int:
    by_bank: dict[str, list[uuid.UUID]] = {}
    for e in events:
        by_bank.setdefault(e.bank_id, []).append(memory_id(e.bank_id, e.event_id))
    done = 0
    for bank, ids in by_bank.items():
        for i in range(0, len(ids), 1000):
            done += sum(1 for p in store.fetch(bank, ids[i : i + 1000]) if p.record.consolidated)
    return done


def found_by_recall(rt: Runtime, event: RetainEvent) -> bool:
    request = RecallRequest(query=event.text, limit=10, prefer_observations=False)
    response = rt.recaller.recall(event.bank_id, request)
    wanted = memory_id(event.bank_id, event.event_id)
    return any(r.id == wanted or r.text == event.text for r in response.results)


def checked(rt: Runtime, events: Sequence[RetainEvent]) -> Figures:
    """Done-markers counted and the last event recalled: the run really finished."""
    return {
        "done_markers": done_markers(rt.store, events),
        "last_found": float(found_by_recall(rt, events[-1])),
    }


def warm_event(i: int = 0) -> RetainEvent:
    return RetainEvent(
        event_id=uuid.uuid5(uuid.NAMESPACE_URL, f"sediment-bench-warm:{i}"),
        bank_id=WARM_BANK,
        text="The benchmark warms up the worker.",
        occurred_at=datetime(2023, 1, 1, tzinfo=UTC),
    )


def embedded_run(events: Sequence[RetainEvent], settings: Settings, root: Path) -> Figures:
    local = settings.model_copy(update={"mode": "embedded", "data_dir": root / "embedded"})
    rt = bootstrap(local)
    try:
        rt.publisher.publish_retain([warm_event()])
        start = time.perf_counter()
        for i in range(0, len(events), BATCH):
            rt.publisher.publish_retain(events[i : i + BATCH])
        elapsed = time.perf_counter() - start
        return {"seconds": round(elapsed, 3), **checked(rt, events)}
    finally:
        rt.close()


def embedded_run_fresh(events: Sequence[RetainEvent], settings: Settings, root: Path) -> Figures:
    """`embedded_run` in a process of its own, as each `sediment ingest` is: a run in
    this process would find the text features of the same events cached by the run
    before it (the worker caches them per text), and measure less than a write costs."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(embedded_run, list(events), settings, root).result()


def worker_env(url: str, data_dir: Path, embedder: str, threads: int) -> dict[str, str]:
    return {
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": url,
        "SEDIMENT_DATA_DIR": str(data_dir),
        "SEDIMENT_EMBEDDER": embedder,
        "SEDIMENT_WORKER_CONCURRENCY": str(threads),
        "SEDIMENT_LOG_LEVEL": "WARNING",
        "SEDIMENT_LOG_FORMAT": "json",
    }


def owed(client: redis.Redis) -> int:
    return int(client.hlen(LEDGER_KEY))


def owed_nothing(client: redis.Redis) -> bool:
    return owed(client) == 0


def start_workers(mode: Mode, env: dict[str, str], root: Path, app: Celery) -> list[Started]:
    args = ["worker", "--pool", mode.pool, "--loglevel", "WARNING"]
    workers = [sediment(args, env, root / f"worker-{i}.log") for i in range(mode.workers)]

    def answering() -> bool:
        for w in workers:
            if w.proc.poll() is not None:
                raise RuntimeError(f"sediment worker exited:\n{w.tail()}")
        return len(app.control.ping(timeout=0.5)) >= mode.workers

    wait_until(answering, 120, "sediment worker to answer a ping", every_s=0.5)
    return workers


def dead_letters(rt: Runtime, err: Console | None) -> Figures:
    """How many events the workers dead-lettered, and why (printed)."""
    letters = rt.dead_letters.list(1000)
    if letters and err is not None:
        reasons = {f"{d.error_class}: {d.message[:200]}" for d in letters}
        err.print(f"[yellow]{len(letters)} dead letters[/yellow]: {sorted(reasons)[:3]}")
    return {"dead_letters": len(letters)}


def standalone_run(
    events: Sequence[RetainEvent],
    mode: Mode,
    settings: Settings,
    root: Path,
    on_workers: Callable[[list[Started]], None] | None = None,
    err: Console | None = None,
) -> Figures:
    """`on_workers` sees the workers once the events are visible (to read their RSS)."""
    data_dir = root / mode.name
    with redis_server() as url:
        client = redis.Redis.from_url(url)
        app = Celery(broker=url, set_as_current=False)
        env = worker_env(url, data_dir, settings.embedder, mode.threads)
        workers = start_workers(mode, env, root, app)
        try:
            ledger = Ledger(client)
            publish(app, [warm_event(1)], QUEUE, BATCH, ledger)
            drained = partial(owed_nothing, client)
            wait_until(drained, 300, "the warm-up event", every_s=0.1, watch=workers)
            start = time.perf_counter()
            publish(app, events, QUEUE, BATCH, ledger)
            published = time.perf_counter() - start
            wait_until(drained, DRAIN_TIMEOUT_S, "the events", every_s=0.05, watch=workers)
            elapsed = time.perf_counter() - start
            if on_workers is not None:
                on_workers(workers)
        finally:
            for w in workers:
                stop(w.proc)
            app.close()
        rt = bootstrap(
            settings.model_copy(
                update={"mode": "standalone", "redis_url": url, "data_dir": data_dir}
            )
        )
        try:
            figures = checked(rt, events) | dead_letters(rt, err)
        finally:
            rt.close()
            client.close()
    return {"seconds": round(elapsed, 3), "publish_seconds": round(published, 3), **figures}


def one_run(
    events: Sequence[RetainEvent], modes: Sequence[Mode], settings: Settings, err: Console
) -> Figures:
    """The floor, then each mode, in one temporary directory; rates and ratios."""
    n = len(events)
    with tempfile.TemporaryDirectory(prefix="sediment-ingest-") as tmp:
        root = Path(tmp)
        rt = bootstrap(settings.model_copy(update={"data_dir": root / "unused"}))
        floor_s = floor_seconds(events, rt.embedder, root)
        out: Figures = {"floor_eps": round(n / floor_s, 1)}
        err.print(f"  floor {out['floor_eps']} events/s")
        for mode in modes:
            if mode.workers == 0:
                got = embedded_run_fresh(events, settings, root)
            else:
                got = standalone_run(events, mode, settings, root, err=err)
            if got["done_markers"] != n or not got["last_found"]:
                err.print(f"[red]{mode.name}: {got} for {n} events: not all visible[/red]")
            out[f"{mode.name}_done_markers"] = got["done_markers"]
            if "dead_letters" in got:
                out[f"{mode.name}_dead_letters"] = got["dead_letters"]
            eps = n / got["seconds"]
            out[f"{mode.name}_eps"] = round(eps, 1)
            out[f"{mode.name}_x_floor"] = round(out["floor_eps"] / eps, 2)
            err.print(f"  {mode.name} {out[f'{mode.name}_eps']} events/s")
    return out


@dataclass(frozen=True)
class Shape:
    """`per_bank` events in each of `banks` banks, measured `runs` times in `modes`."""

    banks: int
    per_bank: int
    runs: int
    modes: tuple[Mode, ...]

    @property
    def name(self) -> str:
        if self.banks == 1:
            return f"1 bank, {self.per_bank:,} events"
        return f"{self.banks} banks x {self.per_bank:,} ({self.banks * self.per_bank:,} events)"


NOTES = (
    "events/s from the first publish until every event's done-marker is written; "
    "x_floor = floor events/s / mode events/s, per run (the floor is embedding plus raw "
    "upserts of the same events into a fresh store, no consolidation)",
    "embedded: each run in a new process, as each `sediment ingest` is (a run in the "
    "benchmark's process found the text features of the same events cached by the run "
    "before it)",
    "standalone_1w: one `sediment worker --pool solo`; standalone_1w2t: one worker "
    "process with two threads. Two worker processes need a store that admits two "
    "processes (SEDIMENT_MODE=distributed with a Qdrant server): the local store "
    "directory admits one, and no Qdrant server runs on this machine",
)


def run_ingest(shapes: Sequence[Shape], settings: Settings, err: Console) -> ScaleReport:
    started = time.perf_counter()
    report = new_report("ingest", {"embedder": settings.embedder, "batch": BATCH}, NOTES)
    for shape in shapes:
        events = list(workload_events(shape.banks, shape.per_bank))
        runs = []
        for i in range(shape.runs):
            err.print(f"{shape.name}: run {i + 1}/{shape.runs}")
            runs.append(one_run(events, shape.modes, settings, err))
        params: dict[str, Setting] = {
            "banks": shape.banks,
            "per_bank": shape.per_bank,
            "events": len(events),
            "modes": ",".join(m.name for m in shape.modes),
        }
        report["cases"].append(case(shape.name, params, runs))
    return finish(report, started)
