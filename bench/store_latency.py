"""Filtered top-k dense query latency of each `MemoryStore` adapter.

Not a test: run `python bench/store_latency.py [--points 10000 --dim 256 --queries 50]`.
It loads the same synthetic bank into each adapter and reports the median wall time
of a filtered top-20 `search_dense`, which is what recall pays per query.
"""

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from contracts.memory import Memory, State
from readmodel.store import Filter, MemoryStore, SparseVector, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.stores.qdrant import QdrantStore

BANK = "bench"
OTHER = "bench-other"
BASE = datetime(2024, 1, 1, tzinfo=UTC)
TAGS = ("work", "home", "travel", "health", "family")


def synthetic_points(n: int, dim: int, seed: int = 0) -> list[StoredPoint]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    points = []
    for i in range(n):
        record = Memory(
            id=uuid.UUID(int=int(rng.integers(0, 2**63)) << 64 | i),
            bank_id=BANK if i % 10 else OTHER,
            kind="world" if i % 2 else "experience",
            text=f"synthetic memory {i}",
            occurred_at=BASE + timedelta(minutes=i),
            created_at=BASE,
            tags=[TAGS[i % len(TAGS)], TAGS[(i * 7) % len(TAGS)]],
            state=State.SUPERSEDED if i % 7 == 0 else State.CURRENT,
        )
        sparse = SparseVector((i % 1000, 1000 + i % 37), (1.0, 0.5))
        points.append(StoredPoint(record, np.asarray(vectors[i], dtype=np.float32), sparse))
    return points


FILTER_TEXT = "filter: bank + state=current + tags_any(work, travel)"


def bench_filter() -> Filter:
    return Filter(bank_id=BANK, state=State.CURRENT, tags_any=("work", "travel"))


def load(store: MemoryStore, points: list[StoredPoint], dim: int, batch: int = 500) -> float:
    store.ensure_schema(dim)
    start = time.perf_counter()
    for i in range(0, len(points), batch):
        store.upsert(points[i : i + batch])
    return time.perf_counter() - start


def median_query_ms(store: MemoryStore, dim: int, queries: int) -> float:
    rng = np.random.default_rng(42)
    flt = bench_filter()
    for _ in range(3):
        store.search_dense(tuple(rng.standard_normal(dim).tolist()), flt, limit=20)
    timings = []
    for _ in range(queries):
        query = tuple(rng.standard_normal(dim).tolist())
        start = time.perf_counter()
        hits = store.search_dense(query, flt, limit=20)
        timings.append(time.perf_counter() - start)
        assert len(hits) == 20
    return statistics.median(timings) * 1000


def run(
    name: str, make: Callable[[], MemoryStore], points: list[StoredPoint], args: argparse.Namespace
) -> None:
    store = make()
    try:
        load_s = load(store, points, args.dim)
        ms = median_query_ms(store, args.dim, args.queries)
        print(f"{name:<28} load {load_s:7.2f} s   median filtered top-20 {ms:8.2f} ms")
        if isinstance(store, EdgeStore):
            start = time.perf_counter()
            store.optimize()
            opt_s = time.perf_counter() - start
            ms = median_query_ms(store, args.dim, args.queries)
            label = f"{name} (after optimize)"
            print(f"{label:<28} opt  {opt_s:7.2f} s   median filtered top-20 {ms:8.2f} ms")
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    points = synthetic_points(args.points, args.dim)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"{args.points} points (90% in the queried bank), dim {args.dim}, {FILTER_TEXT}")
        run("edge", lambda: EdgeStore(root / "edge"), points, args)
        run("qdrant local (:memory:)", lambda: QdrantStore(location=":memory:"), points, args)
        run("qdrant local (path)", lambda: QdrantStore(path=root / "qdrant"), points, args)


if __name__ == "__main__":
    main()
