"""`MeteredStore`: a `MemoryStore` that times every call of the store it wraps.

Each call is observed as `store_call_ms{method}` and a call that raises also counts
`store_errors{method}`; results and exceptions pass through unchanged. Inside a
metrics batch (a worker task, a recall) the timings travel with the batch's single
pipeline. `scroll` is timed over the whole iteration, counting only the time spent
inside the wrapped store, not the caller's work between items.
"""

import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TypeVar

from readmodel.metrics import STORE_CALL_MS, STORE_ERRORS, Metrics
from readmodel.store import (
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    MemoryStore,
    SparseVector,
    StoredPoint,
    StoreInfo,
)

T = TypeVar("T")


class MeteredStore:
    def __init__(self, inner: MemoryStore, metrics: Metrics) -> None:
        self._inner = inner
        self._metrics = metrics

    @property
    def inner(self) -> MemoryStore:
        return self._inner

    @contextmanager
    def _timed(self, method: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        except Exception:
            self._metrics.incr(STORE_ERRORS, 1, {"method": method})
            raise
        finally:
            elapsed_ms = (time.perf_counter() - start) * 1000
            self._metrics.observe(STORE_CALL_MS, elapsed_ms, {"method": method})

    def _call(self, method: str, call: Callable[[], T]) -> T:
        with self._timed(method):
            return call()

    def ensure_schema(self, dense_size: int) -> None:
        self._call("ensure_schema", lambda: self._inner.ensure_schema(dense_size))

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        self._call("upsert", lambda: self._inner.upsert(points))

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        return self._call("fetch", lambda: self._inner.fetch(bank_id, ids, with_vectors))

    def search_dense(
        self,
        vector: Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        return self._call(
            "search_dense",
            lambda: self._inner.search_dense(vector, flt, limit, score_threshold, with_vectors),
        )

    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        return self._call("search_keyword", lambda: self._inner.search_keyword(vector, flt, limit))

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        self._call("set_derived", lambda: self._inner.set_derived(bank_id, patches))

    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        self._call("set_feedback", lambda: self._inner.set_feedback(bank_id, record_id, feedback))

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        self._call("touch", lambda: self._inner.touch(bank_id, ids, at))

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        self._call("delete", lambda: self._inner.delete(bank_id, ids))

    def scroll(self, flt: Filter, with_vectors: bool = False) -> Iterator[StoredPoint]:
        spent = 0.0
        start = time.perf_counter()
        try:
            items = iter(self._inner.scroll(flt, with_vectors))
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
                yield item
                start = time.perf_counter()
        finally:
            self._metrics.observe(STORE_CALL_MS, spent * 1000, {"method": "scroll"})

    def count(self, flt: Filter) -> int:
        return self._call("count", lambda: self._inner.count(flt))

    def banks(self) -> list[str]:
        return self._call("banks", self._inner.banks)

    def info(self) -> StoreInfo:
        return self._call("info", self._inner.info)

    def close(self) -> None:
        self._inner.close()
