"""One translation of Sediment's engine-neutral filters and points into an engine's own
types. Both adapters share it; each supplies only its engine's constructors, so the
semantics (which conditions, how a point is laid out) cannot drift apart."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from readmodel.store import (
    DENSE_VECTOR,
    KEYWORD_VECTOR,
    PASSAGE_VECTOR,
    Filter,
    SparseVector,
    StoredPoint,
)
from readmodel.stores.decoded import PayloadRecords
from readmodel.stores.payload import (
    TENANT_FIELD,
    Condition,
    HasIds,
    MatchAny,
    MatchValue,
    Range,
    conditions_of,
    excluded_of,
    stored_point,
    to_payload,
)

F = TypeVar("F")
C = TypeVar("C")
P = TypeVar("P")
S = TypeVar("S")


@dataclass(frozen=True)
class Dialect(Generic[F, C, P, S]):
    """`all_of`: conditions that must hold and conditions that must not, as one filter;
    `equals`, `any_of`, `between`, `has_ids`:
    one condition each; `point`: (id, named vectors, payload) to a point; `sparse`:
    (indices, values) to a sparse vector."""

    all_of: Callable[[list[C], list[C]], F]
    equals: Callable[[str, str], C]
    any_of: Callable[[str, list[str]], C]
    between: Callable[[str, float | None, float | None], C]
    has_ids: Callable[[list[str]], C]
    point: Callable[[str, dict[str, Any], dict[str, Any]], P]
    sparse: Callable[[list[int], list[float]], S]

    def condition(self, cond: Condition) -> C:
        match cond:
            case MatchValue(key=key, value=value):
                return self.equals(key, value)
            case MatchAny(key=key, values=values):
                return self.any_of(key, list(values))
            case Range(key=key, gte=gte, lte=lte):
                return self.between(key, gte, lte)
            case HasIds(ids=ids):
                return self.has_ids([str(i) for i in ids])

    def filter(self, flt: Filter) -> F:
        return self.all_of(
            [self.condition(c) for c in conditions_of(flt)],
            [self.condition(c) for c in excluded_of(flt)],
        )

    def bank(self, bank_id: str) -> F:
        return self.all_of([self.equals(TENANT_FIELD, bank_id)], [])

    def point_of(self, point: StoredPoint, passages: bool = True) -> P:
        """The engine's point; with `passages` false (a collection without the passage
        vector) a point's passage vectors are left out."""
        vectors: dict[str, Any] = {DENSE_VECTOR: np.asarray(point.dense, dtype=np.float32).tolist()}
        if point.sparse.indices:
            vectors[KEYWORD_VECTOR] = self.sparse_of(point.sparse)
        if passages and point.passages is not None and len(point.passages) > 1:
            vectors[PASSAGE_VECTOR] = np.asarray(point.passages, dtype=np.float32).tolist()
        return self.point(str(point.record.id), vectors, to_payload(point.record))

    def sparse_of(self, vector: SparseVector) -> S:
        return self.sparse(list(vector.indices), [float(v) for v in vector.values])


class EngineRecord(Protocol):
    @property
    def payload(self) -> dict[str, Any] | None: ...

    @property
    def vector(self) -> Any: ...


def scrolled(
    read_page: Callable[[Any], tuple[list[Any], Any]],
    decoded: PayloadRecords | None = None,
) -> Iterator[StoredPoint]:
    """Every point of a scroll: `read_page(offset)` returns a page of engine records and
    the next offset (None after the last page); records decoded before from equal
    payloads are taken from `decoded`."""
    offset: Any = None
    while True:
        records, offset = read_page(offset)
        for r in records:
            yield stored_point(r.payload or {}, r.vector, decoded)
        if offset is None:
            return
