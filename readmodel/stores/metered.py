"""`MeteredStore`: a `MemoryStore` that times every call of the store it wraps.

Each call is observed as `store_call_ms{method}` and a call that raises also counts
`store_errors{method}`; results and exceptions pass through unchanged. A call slower
than the slow-call threshold is also told to the slow-call log as `store.{method}`,
with its bank and sizes (ids, limit, points), never a payload. Inside a
metrics batch (a worker task, a recall) the timings travel with the batch's single
pipeline. `scroll` is timed over the whole iteration, counting only the time spent
inside the wrapped store, not the caller's work between items.

With tracing on, each call but `scroll` made within a traced operation is also a
database client span,
`{method} {target}` (`db.system.name` qdrant, `db.operation.name` the method,
`db.collection.name` the collection, or `edge` for the embedded store), carrying the
bank and the same sizes.
"""

import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime
from typing import TypeVar

from readmodel.store import (
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    MemoryStore,
    Rebuilding,
    SparseVector,
    StoredPoint,
    StoreInfo,
    Vector,
)
from telemetry.metrics import STORE_CALL_MS, STORE_ERRORS, Metrics
from telemetry.slow_calls import SlowObserver
from telemetry.tracing import NOOP_TRACER, AttributeValue, SpanKind, Tracer

T = TypeVar("T")


class MeteredStore:
    def __init__(
        self,
        inner: MemoryStore,
        metrics: Metrics,
        slow: SlowObserver | None = None,
        tracer: Tracer = NOOP_TRACER,
        target: str = "store",
    ) -> None:
        self._inner = inner
        self._metrics = metrics
        self._slow = slow
        self._tracer = tracer
        self._target = target

    @property
    def inner(self) -> MemoryStore:
        return self._inner

    def _observed(
        self, method: str, elapsed_ms: float, bank: str | None, sizes: Mapping[str, int]
    ) -> None:
        self._metrics.observe(STORE_CALL_MS, elapsed_ms, {"method": method})
        if self._slow is not None:
            self._slow.observe(f"store.{method}", elapsed_ms, bank, sizes)

    def _span(
        self, method: str, bank: str | None, sizes: Mapping[str, int] | None
    ) -> AbstractContextManager[object]:
        if not (self._tracer.enabled and self._tracer.current() is not None):
            return nullcontext()
        attributes: dict[str, AttributeValue] = {
            "db.system.name": "qdrant",
            "db.operation.name": method,
            "db.collection.name": self._target,
            **{f"sediment.{k}": v for k, v in (sizes or {}).items()},
        }
        if bank is not None:
            attributes["sediment.bank_id"] = bank
        name = f"{method} {self._target}"
        return self._tracer.span(name, attributes, kind=SpanKind.CLIENT)

    @contextmanager
    def _timed(
        self, method: str, bank: str | None = None, sizes: Mapping[str, int] | None = None
    ) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        except Exception:
            self._metrics.incr(STORE_ERRORS, 1, {"method": method})
            raise
        finally:
            elapsed_ms = (time.perf_counter() - start) * 1000
            self._observed(method, elapsed_ms, bank, sizes or {})

    def _call(
        self,
        method: str,
        call: Callable[[], T],
        bank: str | None = None,
        sizes: Mapping[str, int] | None = None,
    ) -> T:
        with self._span(method, bank, sizes), self._timed(method, bank, sizes):
            return call()

    def ensure_schema(self, dense_size: int) -> None:
        self._call("ensure_schema", lambda: self._inner.ensure_schema(dense_size))

    def layout(self) -> int | None:
        return self._call("layout", self._inner.layout)

    def mark_layout(self, version: int) -> None:
        self._call("mark_layout", lambda: self._inner.mark_layout(version))

    def rebuilding(self) -> Rebuilding | None:
        return self._call("rebuilding", self._inner.rebuilding)

    def mark_rebuilding(self, rebuilding: Rebuilding | None) -> None:
        self._call("mark_rebuilding", lambda: self._inner.mark_rebuilding(rebuilding))

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        banks = {p.record.bank_id for p in points}
        bank = banks.pop() if len(banks) == 1 else None
        self._call("upsert", lambda: self._inner.upsert(points), bank, {"points": len(points)})

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        return self._call(
            "fetch",
            lambda: self._inner.fetch(bank_id, ids, with_vectors),
            bank_id,
            {"ids": len(ids)},
        )

    def passage_vectors(self, bank_id: str, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Vector]:
        return self._call(
            "passage_vectors",
            lambda: self._inner.passage_vectors(bank_id, ids),
            bank_id,
            {"ids": len(ids)},
        )

    def search_dense(
        self,
        vector: Vector | Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        return self._call(
            "search_dense",
            lambda: self._inner.search_dense(vector, flt, limit, score_threshold, with_vectors),
            flt.bank_id,
            {"limit": limit},
        )

    def search_dense_batch(
        self,
        queries: Sequence[tuple[Vector, Filter]],
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[list[Hit]]:
        banks = {flt.bank_id for _, flt in queries}
        return self._call(
            "search_dense_batch",
            lambda: self._inner.search_dense_batch(queries, limit, score_threshold, with_vectors),
            banks.pop() if len(banks) == 1 else None,
            {"limit": limit, "queries": len(queries)},
        )

    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        return self._call(
            "search_keyword",
            lambda: self._inner.search_keyword(vector, flt, limit),
            flt.bank_id,
            {"limit": limit, "terms": len(vector.indices)},
        )

    def search_hybrid(
        self, dense: Vector | Sequence[float], sparse: SparseVector, flt: Filter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        return self._call(
            "search_hybrid",
            lambda: self._inner.search_hybrid(dense, sparse, flt, limit),
            flt.bank_id,
            {"limit": limit, "terms": len(sparse.indices)},
        )

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        self._call(
            "set_derived",
            lambda: self._inner.set_derived(bank_id, patches),
            bank_id,
            {"patches": len(patches)},
        )

    def mark_consolidated(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        self._call(
            "mark_consolidated",
            lambda: self._inner.mark_consolidated(bank_id, ids),
            bank_id,
            {"ids": len(ids)},
        )

    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        self._call(
            "set_feedback", lambda: self._inner.set_feedback(bank_id, record_id, feedback), bank_id
        )

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        self._call("touch", lambda: self._inner.touch(bank_id, ids, at), bank_id, {"ids": len(ids)})

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        self._call("delete", lambda: self._inner.delete(bank_id, ids), bank_id, {"ids": len(ids)})

    def scroll(
        self, flt: Filter, with_vectors: bool = False, dense_only: bool = False
    ) -> Iterator[StoredPoint]:
        spent, items_seen = 0.0, 0
        start = time.perf_counter()
        try:
            items = iter(self._inner.scroll(flt, with_vectors, dense_only))
            while True:
                try:
                    item = next(items)
                except StopIteration:
                    return
                except Exception:
                    self._metrics.incr(STORE_ERRORS, 1, {"method": "scroll"})
                    raise
                finally:
                    spent += time.perf_counter() - start
                items_seen += 1
                yield item
                start = time.perf_counter()
        finally:
            self._observed("scroll", spent * 1000, flt.bank_id, {"points": items_seen})

    def count(self, flt: Filter) -> int:
        return self._call("count", lambda: self._inner.count(flt), flt.bank_id)

    def banks(self) -> list[str]:
        return self._call("banks", self._inner.banks)

    def info(self) -> StoreInfo:
        return self._call("info", self._inner.info)

    def purge(self, bank_id: str) -> None:
        self._inner.purge(bank_id)

    def purge_now(self) -> bool:
        return self._call("purge_now", self._inner.purge_now)

    def close(self) -> None:
        self._inner.close()
