"""`sediment-bench memory`: the resident memory of `sediment serve` under sustained
recall. An embedded serve over a loaded bank answers `clients` HTTP clients in a
closed loop; its RSS is read after the first checkpoint's recalls and after each
later one. Flat memory: the last reading within 10% of the first."""

import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from rich.console import Console

from bench.latency import Figures
from bench.procs import rss_mb, serve, stop
from bench.record import ScaleReport
from bench.scale import BANK, load, serve_env
from bench.suite import case, finish, new_report
from bench.workload import events as workload_events
from bench.workload import queries as workload_queries
from sediment.bootstrap import bootstrap
from sediment.settings import Settings

SESSIONS = 50


def _client_loop(base: str, queries: Sequence[str], budget: "Budget", k: int) -> None:
    with httpx.Client(base_url=base, timeout=120) as client:
        while (i := budget.take()) is not None:
            body = {"query": queries[i % len(queries)], "session_key": f"s{(i + k) % SESSIONS}"}
            client.post(f"/v1/banks/{BANK}/recall", json=body).raise_for_status()


class Budget:
    """Hands out recall numbers up to a limit, to every client thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 0
        self.limit = 0

    def take(self) -> int | None:
        with self._lock:
            if self._next >= self.limit:
                return None
            self._next += 1
            return self._next


def run_memory(
    checkpoints: Sequence[int], clients: int, memories: int, settings: Settings, err: Console
) -> ScaleReport:
    started = time.perf_counter()
    report = new_report(
        "memory",
        {"embedder": settings.embedder, "clients": clients, "memories": memories},
        NOTES,
    )
    queries = [q for _, q in workload_queries(1, 500)]
    figures: Figures = {}
    with tempfile.TemporaryDirectory(prefix="sediment-memory-") as tmp:
        root = Path(tmp)
        rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": root / "d"}))
        load(rt, list(workload_events(1, memories)), consolidated=False)
        rt.close()
        proc, base = serve(serve_env(settings, root / "d"), root / "serve.log")
        try:
            figures["rss_mb_at_start"] = rss_mb(proc.pid)["rss_mb"]
            budget = Budget()
            for n in checkpoints:
                budget.limit = n
                threads = [
                    threading.Thread(target=_client_loop, args=(base, queries, budget, k))
                    for k in range(clients)
                ]
                t0 = time.perf_counter()
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                rss = rss_mb(proc.pid)
                figures[f"rss_mb_after_{n}"] = rss["rss_mb"]
                figures[f"peak_rss_mb_after_{n}"] = rss["peak_rss_mb"]
                err.print(f"after {n} recalls: {rss} ({time.perf_counter() - t0:.0f} s)")
        finally:
            stop(proc.proc)
    first, last = checkpoints[0], checkpoints[-1]
    figures["growth_pct"] = round(
        100 * (figures[f"rss_mb_after_{last}"] / figures[f"rss_mb_after_{first}"] - 1), 1
    )
    report["cases"].append(case(f"{memories:,} memories, {clients} clients", {}, [figures]))
    return finish(report, started)


NOTES = (
    "rss_mb_after_N: resident memory of an embedded `sediment serve` after N recalls "
    "over HTTP in all (closed loop, 50 session keys, every recall logged and its results "
    "touched); growth_pct: last checkpoint against the first",
)
