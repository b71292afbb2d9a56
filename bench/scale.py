"""`sediment-bench scale`: recall latency as one bank grows, in-process and over HTTP,
each beside the same-run floor; the resident memory of `serve` and of a worker.

A store is loaded once per size and optimized (`sediment optimize`: the HNSW graph,
which Edge builds only when asked), then measured in runs: each run asks the same
queries (bench/workload.py) of `Recaller.recall` in this process, interleaved with
the floor (the query's embedding plus one dense top-10 search on the raw store with
the bank filter, through the same index recall uses) and the exact floor (the same
with `search_dense`, exact as the worker's neighbour queries are: a full scan), then
of a real `sediment serve` (embedded mode, the same directory) over HTTP. Each
process first serves more draws of the generator's questions (another seed; about the
same 40 people, so many are asked again), the first of them reported as the cold
figures: the engine reads the pages of the store's files as searches first touch
them, so a process just opened is slower than one that has been serving. Loading:
small sizes are consolidated as producers would send them; large ones are raw
upserts of pre-embedded events marked consolidated (hours of consolidation
otherwise), which the case's `load` says.
"""

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import redis
from celery import Celery
from rich.console import Console

from bench.ingest_rate import BATCH, QUEUE, owed, warm_event, worker_env
from bench.latency import Figures, latency_figures, ratio
from bench.procs import redis_server, rss_mb, sediment, serve, stop, wait_until
from bench.record import ScaleReport, Setting
from bench.suite import case, finish, new_report
from bench.workload import events as workload_events
from bench.workload import queries as workload_queries
from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from readmodel.store import Filter, SparseVector, StoredPoint
from readmodel.text import document_vector
from sediment.bootstrap import Runtime, bootstrap
from sediment.maintenance import optimize
from sediment.settings import Settings
from worker.consolidation.consolidator import raw_memory
from worker.ledger import Ledger
from worker.publish import publish

BANK = "bench-000"
LIMIT = 10
WARM_QUERIES = 5
WARM_FACTOR = 5
"""A run first asks this many times its number of queries, drawn with `WARM_SEED`:
recall is measured in a process that has been serving, its first recalls apart."""
WARM_SEED = 23
WORKER_EVENTS = 256
LOAD_BATCH = 512


@dataclass(frozen=True)
class Size:
    memories: int
    consolidated: bool

    @property
    def load(self) -> str:
        return "consolidated" if self.consolidated else "raw upserts marked consolidated"

    @property
    def name(self) -> str:
        return f"{self.memories:,} memories ({'consolidated' if self.consolidated else 'raw'})"


def load(rt: Runtime, events: Sequence[RetainEvent], consolidated: bool) -> float:
    """Seconds to load `events` into the runtime's store."""
    start = time.perf_counter()
    if consolidated:
        for i in range(0, len(events), BATCH):
            rt.publisher.publish_retain(events[i : i + BATCH])
        return time.perf_counter() - start
    for i in range(0, len(events), LOAD_BATCH):
        chunk = events[i : i + LOAD_BATCH]
        vectors = rt.embedder.embed([e.indexed_text() for e in chunk])
        now = datetime.now(UTC)
        rt.store.upsert(
            [
                StoredPoint(
                    raw_memory(e, now).model_copy(update={"consolidated": True}),
                    v,
                    document_vector(e.indexed_text()),
                )
                for e, v in zip(chunk, vectors, strict=True)
            ]
        )
    return time.perf_counter() - start


def first_recalls(rt: Runtime, queries: Sequence[str]) -> list[float]:
    """Seconds of each of `queries`' recalls, timed one by one."""
    out = []
    for q in queries:
        start = time.perf_counter()
        rt.recaller.recall(BANK, RecallRequest(query=q, limit=LIMIT))
        out.append(time.perf_counter() - start)
    return out


def in_process(rt: Runtime, queries: Sequence[str], warm: Sequence[str]) -> Figures:
    """The first recalls after the store opened (`cold_recall_*`: the engine reads
    the pages of the store's files as searches first touch them), then, once `warm`
    (other queries) have been asked, recall and its floor query by query, so both see
    the same machine."""
    cold = latency_figures(first_recalls(rt, warm[: len(queries)]), "cold_recall_")
    first_recalls(rt, warm[len(queries) :])
    raw = getattr(rt.store, "inner", rt.store)
    flt = Filter(bank_id=BANK)
    no_terms = SparseVector()
    floor_s, exact_s, recall_s = [], [], []
    for q in [*queries[:WARM_QUERIES], *queries]:
        start = time.perf_counter()
        vector = rt.embedder.embed([q])[0]
        hits, _ = raw.search_hybrid(vector, no_terms, flt, LIMIT)
        floor_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        vector = rt.embedder.embed([q])[0]
        exact = raw.search_dense(vector, flt, LIMIT)
        exact_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        response = rt.recaller.recall(BANK, RecallRequest(query=q, limit=LIMIT))
        recall_s.append(time.perf_counter() - start)
        if not hits or not exact or not response.results:
            raise RuntimeError(f"no results for {q!r}: the store is not loaded")
    floor_s, exact_s = floor_s[WARM_QUERIES:], exact_s[WARM_QUERIES:]
    recall_s = recall_s[WARM_QUERIES:]
    return {
        **latency_figures(recall_s, "recall_"),
        **latency_figures(floor_s, "floor_"),
        **latency_figures(exact_s, "exact_floor_"),
        **cold,
    }


def over_http(base: str, queries: Sequence[str], warm: Sequence[str]) -> Figures:
    """As `in_process`, through a serve started on the store just before."""
    timings, inside = [], []
    with httpx.Client(base_url=base, timeout=60) as client:
        for q in [*warm, *queries]:
            start = time.perf_counter()
            reply = client.post(f"/v1/banks/{BANK}/recall", json={"query": q, "limit": LIMIT})
            elapsed = time.perf_counter() - start
            reply.raise_for_status()
            timings.append(elapsed)
            inside.append(recall_seconds(reply.headers.get("server-timing", "")))
    cold = latency_figures(timings[: len(queries)], "cold_http_")
    served = inside[len(warm) :]
    around = [t - r for t, r in zip(timings[len(warm) :], served, strict=True)]
    return (
        latency_figures(timings[len(warm) :], "http_")
        | cold
        | latency_figures(served, "serve_recall_")
        | latency_figures(around, "http_around_recall_")
    )


def recall_seconds(server_timing: str) -> float:
    """The recall's own time that serve reports (`Server-Timing: recall;dur=<ms>`)."""
    name, _, value = server_timing.partition(";dur=")
    if name.strip() != "recall" or not value:
        raise RuntimeError(f"serve gave no recall time (Server-Timing {server_timing!r})")
    return float(value) / 1000


def serve_env(settings: Settings, data_dir: Path) -> dict[str, str]:
    return {
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_DATA_DIR": str(data_dir),
        "SEDIMENT_EMBEDDER": settings.embedder,
        "SEDIMENT_LOG_LEVEL": "WARNING",
        "SEDIMENT_LOG_FORMAT": "json",
    }


def one_run(
    settings: Settings, data_dir: Path, queries: Sequence[str], warm: Sequence[str], root: Path
) -> Figures:
    rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": data_dir}))
    try:
        figures = in_process(rt, queries, warm)
    finally:
        rt.close()
    started, base = serve(serve_env(settings, data_dir), root / "serve.log")
    try:
        figures |= over_http(base, queries, warm)
        figures |= {f"serve_{k}": v for k, v in rss_mb(started.pid).items()}
    finally:
        stop(started.proc)
    added = {"http_added_p50_ms": round(figures["http_p50_ms"] - figures["recall_p50_ms"], 3)}
    return figures | added | floor_ratios(figures, ("recall", "http"))


def floor_ratios(figures: Figures, kinds: Sequence[str]) -> Figures:
    """`{kind}_{pXX}_x_floor` for each kind and percentile both figures have."""
    out: Figures = {}
    for kind in kinds:
        for q in ("p50", "p95", "p99"):
            value, floor = figures.get(f"{kind}_{q}_ms"), figures.get(f"floor_{q}_ms")
            if value is not None and floor is not None and (r := ratio(value, floor)):
                out[f"{kind}_{q}_x_floor"] = r
    return out


def worker_rss(settings: Settings, data_dir: Path, root: Path) -> Figures:
    """A standalone worker on the loaded store, after consolidating a few batches there."""
    extra = [
        e.model_copy(update={"bank_id": BANK}) for e in workload_events(1, WORKER_EVENTS, seed=99)
    ]
    with redis_server() as url:
        client = redis.Redis.from_url(url)
        app = Celery(broker=url, set_as_current=False)
        env = worker_env(url, data_dir, settings.embedder, 1)
        proc = sediment(["worker", "--pool", "solo", "--loglevel", "WARNING"], env, root / "w.log")
        try:
            ledger = Ledger(client)
            publish(app, [warm_event(2), *extra], QUEUE, BATCH, ledger)
            wait_until(
                lambda: owed(client) == 0, 1800, "the worker's events", every_s=0.2, watch=[proc]
            )
            return {f"worker_{k}": v for k, v in rss_mb(proc.pid).items()}
        finally:
            stop(proc.proc)
            app.close()
            client.close()


NOTES = (
    "recall_*: Recaller.recall in this process; http_*: POST /v1/banks/B/recall to a "
    "real `sediment serve` (embedded mode) on the same store; floor_*: the query's "
    "embedding plus one filtered dense search (bank filter, top 10) on the raw store "
    "through the index recall uses (HNSW after `sediment optimize`, run once after "
    "loading: optimize_s), interleaved with the in-process recalls; exact_floor_*: the "
    "same with exact search_dense (a full scan, as the worker's neighbour queries); "
    "*_x_floor = figure / floor, per run. http_added_p50_ms = http p50 - recall p50 "
    "(two processes, one after the other); serve_recall_*: the recall's own time inside "
    "serve, as its Server-Timing header reports it; http_around_recall_*: per request, "
    "the round trip minus that (HTTP, the app's middleware and thread hop, JSON): what "
    "HTTP adds, on the same request. Each process (this one, then serve) first "
    f"asks {WARM_FACTOR} times as many queries drawn with another seed (the same "
    "generator: many are asked again): cold_recall_* / cold_http_* are "
    "the first of them, right after the store opened (the engine maps its files and "
    "reads their pages as searches first touch them); recall_* and http_* come after",
    "serve_rss_mb / serve_peak_rss_mb: the serve process after the HTTP queries; "
    "worker_*: one `sediment worker` (standalone) on the loaded store after "
    f"consolidating {WORKER_EVENTS} more events there",
)


def run_scale(
    sizes: Sequence[Size], runs: int, n_queries: int, settings: Settings, err: Console
) -> ScaleReport:
    started = time.perf_counter()
    report = new_report(
        "scale",
        {"embedder": settings.embedder, "limit": LIMIT, "queries": n_queries},
        NOTES,
    )
    queries = [q for _, q in workload_queries(1, n_queries)]
    warm = [q for _, q in workload_queries(1, WARM_FACTOR * n_queries, seed=WARM_SEED)]
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="sediment-scale-") as tmp:
            root = Path(tmp)
            data_dir = root / "data"
            rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": data_dir}))
            events = list(workload_events(1, size.memories))
            load_s = load(rt, events, size.consolidated)
            points = rt.store.info().points
            optimized = optimize(rt.store)
            rt.close()
            optimize_s = optimized.seconds if optimized else 0.0
            err.print(
                f"{size.name}: loaded in {load_s:.1f} s ({points} points), "
                f"optimized in {optimize_s:.1f} s"
            )
            measured = []
            for i in range(runs):
                measured.append(one_run(settings, data_dir, queries, warm, root))
                err.print(f"  run {i + 1}/{runs}: {_brief(measured[-1])}")
            rss = worker_rss(settings, data_dir, root)
            measured = [run | rss for run in measured]
        params: dict[str, Setting] = {
            "memories": size.memories,
            "points": points,
            "load": size.load,
            "load_s": round(load_s, 1),
            "optimize_s": round(optimize_s, 1),
        }
        report["cases"].append(case(size.name, params, measured))
    return finish(report, started)


def _brief(f: Figures) -> str:
    return ", ".join(
        f"{k} {f[k]}"
        for k in (
            "recall_p50_ms",
            "http_p50_ms",
            "floor_p50_ms",
            "exact_floor_p50_ms",
            "serve_rss_mb",
        )
    )
