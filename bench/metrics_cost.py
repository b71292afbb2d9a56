"""What metrics cost per retain and per recall: the same run, metrics on and off.

    python bench/metrics_cost.py                       # embedded: metrics on in-process fakeredis
    python bench/metrics_cost.py --redis-url redis://127.0.0.1:6379/10   # metrics on real Redis

Each repeat opens two runtimes side by side in this process, one with metrics on
and one off (static embedder, a qdrant-edge store each in a temporary directory),
and runs every operation on both, back to back, in alternating order, so machine
noise hits both alike. Operations: N retains, one task each, through
`worker.tasks.handle` (the worker path without Celery: counters, consolidation
duration and lag, store-call timings, one pipeline per task); then N recalls the way
the API will call them, the pipeline and `record_recall` in one metrics batch, sent
inline (`recall`) or handed to a background thread (`recall_deferred`,
`batch(defer=...)`: the time until the response is ready; the flush is drained,
untimed, before the next operation). Per repeat it keeps the median over the N operations of each
side and of the paired differences; the report gives the medians over repeats, the
time metrics add and the ratio on/off. With --redis-url both runtimes run in
standalone mode (locks and dead letters on that Redis too); use a scratch DB.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from contracts.recall import RecallRequest
from sediment.bootstrap import Runtime, bootstrap
from sediment.logs import configure
from sediment.settings import Settings
from telemetry.metrics import Defer, record_recall
from worker.batching import Delivery
from worker.celery_app import RETAIN_TASK
from worker.tasks import handle

PEOPLE = [f"Person{i}" for i in range(40)]
CITIES = ["Lisbon", "Oslo", "Kyoto", "Lima", "Accra", "Perth", "Quito", "Riga", "Hanoi"]
HOBBIES = ["violin", "sourdough", "chess", "running", "pottery", "sailing", "climbing"]
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def events(n: int, bank: str) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        who = PEOPLE[i % len(PEOPLE)]
        if i % 2:
            text, key = f"{who} now lives in {CITIES[i % len(CITIES)]}.", f"{who}.city"
        else:
            text, key = f"{who} enjoys {HOBBIES[i % len(HOBBIES)]} on weekends.", None
        out.append(
            {
                "event_id": str(uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}/{i}")),
                "bank_id": bank,
                "text": text,
                "occurred_at": (T0 + timedelta(hours=i)).isoformat(),
                "entities": [who],
                **({"key": key} if key else {}),
            }
        )
    return out


def queries(n: int) -> list[str]:
    forms = ["Where does {} live?", "What does {} enjoy?", "{} weekends", "city of {}"]
    return [forms[i % len(forms)].format(PEOPLE[i % len(PEOPLE)]) for i in range(n)]


def timed(op: Callable[[], object]) -> float:
    start = time.perf_counter()
    op()
    return (time.perf_counter() - start) * 1e6


def recall_once(rt: Runtime, bank: str, query: str, defer: Defer | None = None) -> None:
    """As the API will call it: recall and `record_recall` in one metrics batch, whose
    pipeline is sent here or, with `defer`, by a background thread."""
    start = time.perf_counter()
    with rt.metrics.batch(defer):
        response = rt.recall_pipeline.recall(bank, RecallRequest(query=query, limit=10))
        total_ms = (time.perf_counter() - start) * 1000
        record_recall(rt.metrics, bank, response.timings_ms, total_ms, error=False)


def settings_for(enabled: bool, data_dir: Path, redis_url: str | None) -> Settings:
    return Settings(
        mode="standalone" if redis_url else "embedded",
        redis_url=redis_url or "redis://127.0.0.1:6379/0",
        data_dir=data_dir,
        embedder="static",
        metrics_enabled=enabled,
        queue=f"bench-{uuid.uuid4().hex[:8]}",
    )


@dataclass(frozen=True)
class Paired:
    off_us: float
    on_us: float
    added_us: float


def paired(
    ops: list[tuple[Callable[[], object], Callable[[], object]]],
    settle: Callable[[], object] = lambda: None,
) -> Paired:
    """Time (off, on) pairs back to back, alternating which runs first; `settle` runs
    untimed after each operation (draining deferred flushes)."""
    off: list[float] = []
    on: list[float] = []
    for i, (op_off, op_on) in enumerate(ops):
        for side, op in ((on, op_on), (off, op_off)) if i % 2 else ((off, op_off), (on, op_on)):
            side.append(timed(op))
            settle()
    added = [b - a for a, b in zip(off, on, strict=True)]
    return Paired(statistics.median(off), statistics.median(on), statistics.median(added))


def run_repeat(n: int, redis_url: str | None) -> dict[str, Paired]:
    """One repeat: both runtimes, every operation on each."""
    background = ThreadPoolExecutor(max_workers=1)
    with tempfile.TemporaryDirectory(prefix="sediment-metrics-cost-") as tmp:
        rts = [bootstrap(settings_for(on, Path(tmp) / str(on), redis_url)) for on in (False, True)]
        try:
            for rt in rts:
                for payload in events(20, "warmup"):
                    handle([Delivery([payload])], RETAIN_TASK, rt.worker_deps)
                for q in queries(20):
                    recall_once(rt, "warmup", q)
            bank = f"bench-{uuid.uuid4().hex[:6]}"
            off, on = rts
            retain = paired(
                [
                    (
                        partial(handle, [Delivery([p])], RETAIN_TASK, off.worker_deps),
                        partial(handle, [Delivery([p])], RETAIN_TASK, on.worker_deps),
                    )
                    for p in events(n, bank)
                ]
            )
            recall = paired(
                [
                    (partial(recall_once, off, bank, q), partial(recall_once, on, bank, q))
                    for q in queries(n)
                ]
            )
            deferred = paired(
                [
                    (
                        partial(recall_once, off, bank, q, background.submit),
                        partial(recall_once, on, bank, q, background.submit),
                    )
                    for q in queries(n)
                ],
                settle=lambda: background.submit(lambda: None).result(),
            )
            background.shutdown(wait=True)
        finally:
            for rt in rts:
                rt.close()
    return {"retain": retain, "recall": recall, "recall_deferred": deferred}


def summary(runs: list[Paired]) -> dict[str, float]:
    off = statistics.median(r.off_us for r in runs)
    on = statistics.median(r.on_us for r in runs)
    return {
        "off_us": round(off, 1),
        "on_us": round(on, 1),
        "added_us": round(statistics.median(r.added_us for r in runs), 1),
        "ratio": round(on / off, 3),
    }


OPS = ("retain", "recall", "recall_deferred")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="retains and recalls per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--redis-url", help="metrics (and locks) on this Redis: standalone mode")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    configure("console", "WARNING")
    load_before = os.getloadavg()
    runs: dict[str, list[Paired]] = {op: [] for op in OPS}
    for r in range(args.repeats):
        result_of = run_repeat(args.n, args.redis_url)
        for op in OPS:
            runs[op].append(result_of[op])
        shown = "  ".join(
            f"{op} {result_of[op].off_us:6.0f}/{result_of[op].on_us:6.0f} µs" for op in OPS
        )
        print(f"repeat {r + 1} off/on: {shown}", file=sys.stderr)
    result = {
        "backend": f"redis {args.redis_url}" if args.redis_url else "fakeredis (embedded)",
        "n": args.n,
        "repeats": args.repeats,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        **{op: summary(runs[op]) for op in OPS},
        "runs_us": {op: [[r.off_us, r.on_us, r.added_us] for r in runs[op]] for op in OPS},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"metrics cost, {result['backend']}, n={args.n}, repeats={args.repeats}, "
        f"load {load_before[0]:.2f} -> {os.getloadavg()[0]:.2f}"
    )
    print(f"{'op':16} {'off µs':>9} {'on µs':>9} {'added µs':>9} {'ratio':>7}")
    for op in OPS:
        s = summary(runs[op])
        print(
            f"{op:16} {s['off_us']:9.1f} {s['on_us']:9.1f} {s['added_us']:9.1f} {s['ratio']:7.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
