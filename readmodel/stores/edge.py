"""`EdgeStore`: the `MemoryStore` port over an embedded Qdrant Edge shard on local disk.

The shard lives in `<path>/shard`; `<path>/store.json` records the dense size the
shard was created with, written before the shard so a half-created store never
claims a size it does not have.

Durability: Edge writes every update to its write-ahead log before applying it, so an
update that returned survives the process being killed (the WAL is replayed on load).
`close()` additionally flushes the segments, which keeps the replay short.
"""

import contextlib
import json
import os
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import qdrant_edge as qe

from readmodel.store import (
    DENSE_VECTOR,
    KEYWORD_VECTOR,
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    SparseVector,
    StoredPoint,
    StoreInfo,
)
from readmodel.stores.payload import (
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
    TENANT_FIELD,
    Condition,
    DenseSizeMismatchError,
    HasIds,
    MatchAny,
    MatchValue,
    Range,
    conditions_of,
    derived_payload,
    feedback_payload,
    hit,
    point_id,
    stored_point,
    to_payload,
    touch_payload,
    vector_names,
)

ENGINE: Final = "qdrant-edge"
SHARD_DIR: Final = "shard"
META_FILE: Final = "store.json"
ENGINE_CONFIG_FILE: Final = "edge_config.json"
DEFAULT_PAGE_SIZE: Final = 256


class EdgeStore:
    """Embedded store: one Edge shard per directory, no server process.

    Only one `EdgeStore` may have a directory open at a time (the shard owns its files).
    """

    def __init__(self, path: str | os.PathLike[str], page_size: int = DEFAULT_PAGE_SIZE) -> None:
        self._root = Path(path)
        self._shard_dir = self._root / SHARD_DIR
        self._meta_path = self._root / META_FILE
        self._page_size = page_size
        self._dense_size = self._read_dense_size()
        self._shard: qe.EdgeShard | None = None
        if (self._shard_dir / ENGINE_CONFIG_FILE).exists():
            self._shard = qe.EdgeShard.load(str(self._shard_dir))

    @property
    def path(self) -> Path:
        return self._root

    def ensure_schema(self, dense_size: int) -> None:
        created = self._shard is None
        if self._shard is None:
            self._write_dense_size(dense_size)
            self._shard = qe.EdgeShard.create(str(self._shard_dir), _config(dense_size))
        elif self._dense_size is None:
            self._adopt_unrecorded_shard(dense_size)
        elif self._dense_size != dense_size:
            raise DenseSizeMismatchError(str(self._root), self._dense_size, dense_size)
        shard = self._require()
        present = set(shard.info().payload_schema)
        missing = {f: s for f, s in _index_schemas().items() if f not in present}
        for field, schema in missing.items():
            shard.update(qe.UpdateOperation.create_field_index(field, schema))
        if created or missing:
            shard.flush()

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if points:
            op = qe.UpdateOperation.upsert_points([_point(p) for p in points])
            self._require().update(op)

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        records = self._require().retrieve(
            [str(i) for i in wanted],
            with_payload=True,
            with_vector=vector_names(with_vectors, sparse=True),
        )
        found = {
            point_id(r.id): stored_point(r.payload or {}, r.vector)
            for r in records
            if (r.payload or {}).get(TENANT_FIELD) == bank_id
        }
        return [found[i] for i in wanted if i in found]

    def search_dense(
        self,
        vector: Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest([float(x) for x in vector], using=DENSE_VECTOR),
            filter=_filter(flt),
            with_payload=True,
            with_vector=vector_names(with_vectors, sparse=False),
            score_threshold=score_threshold,
        )
        return [hit(p.payload or {}, p.score, p.vector) for p in self._require().query(request)]

    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        """IDF statistics are taken over the bank alone, so other banks never shift scores."""
        if not vector.indices:
            return []
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(_sparse(vector), using=KEYWORD_VECTOR),
            filter=_filter(flt),
            with_payload=True,
            with_vector=False,
            params=qe.SearchParams(idf=qe.IdfParams(corpus=_bank_filter(flt.bank_id))),
        )
        return [hit(p.payload or {}, p.score, p.vector) for p in self._require().query(request)]

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        shard = self._require()
        for patch in patches:
            scope = _filter(Filter(bank_id=bank_id, ids=(patch.id,)))
            shard.update(qe.UpdateOperation.set_payload_by_filter(scope, derived_payload(patch)))

    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        self._set_payload(bank_id, (record_id,), feedback_payload(feedback))

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        if ids:
            self._set_payload(bank_id, tuple(ids), touch_payload(at))

    def _set_payload(
        self, bank_id: str, ids: tuple[uuid.UUID, ...], values: dict[str, Any]
    ) -> None:
        scope = _filter(Filter(bank_id=bank_id, ids=ids))
        self._require().update(qe.UpdateOperation.set_payload_by_filter(scope, values))

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        if ids:
            scope = _filter(Filter(bank_id=bank_id, ids=tuple(ids)))
            self._require().update(qe.UpdateOperation.delete_points_by_filter(scope))

    def scroll(self, flt: Filter, with_vectors: bool = False) -> Iterator[StoredPoint]:
        shard = self._require()
        engine_filter = _filter(flt)
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset,
                limit=self._page_size,
                filter=engine_filter,
                with_payload=True,
                with_vector=vector_names(with_vectors, sparse=True),
            )
            records, offset = shard.scroll(request)
            for r in records:
                yield stored_point(r.payload or {}, r.vector)
            if offset is None:
                return

    def count(self, flt: Filter) -> int:
        return self._require().count(qe.CountRequest(exact=True, filter=_filter(flt)))

    def banks(self) -> list[str]:
        if self._shard is None:
            return []
        response = self._shard.facet(qe.FacetRequest("bank_id", limit=MAX_BANKS, exact=True))
        return sorted(str(hit.value) for hit in response.hits if hit.count > 0)

    def info(self) -> StoreInfo:
        details = {"path": str(self._root), "dense_size": str(self._dense_size)}
        if self._shard is None:
            return StoreInfo(engine=ENGINE, points=0, details=details)
        shard_info = self._shard.info()
        details["segments"] = str(shard_info.segments_count)
        return StoreInfo(engine=ENGINE, points=shard_info.points_count, details=details)

    def flush(self) -> None:
        """Persist segments now, so a reopen does not have to replay the WAL."""
        if self._shard is not None:
            self._shard.flush()

    def optimize(self) -> bool:
        """Build HNSW / merge segments; Edge has no background optimizer, so callers decide."""
        return self._require().optimize()

    def close(self) -> None:
        if self._shard is not None:
            shard, self._shard = self._shard, None
            shard.flush()
            shard.close()

    def _require(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError(
                f"EdgeStore at {self._root} has no open shard: "
                "call ensure_schema(dense_size) first (or the store was closed)"
            )
        return self._shard

    def _adopt_unrecorded_shard(self, dense_size: int) -> None:
        """A shard without our size record: let the engine check the size, then record it."""
        self._require().close()
        self._shard = None
        try:
            self._shard = qe.EdgeShard.load(str(self._shard_dir), _config(dense_size))
        except Exception as exc:
            self._shard = qe.EdgeShard.load(str(self._shard_dir))
            raise DenseSizeMismatchError(str(self._root), None, dense_size, str(exc)) from exc
        self._write_dense_size(dense_size)

    def _read_dense_size(self) -> int | None:
        with contextlib.suppress(FileNotFoundError):
            return int(json.loads(self._meta_path.read_text())["dense_size"])
        return None

    def _write_dense_size(self, dense_size: int) -> None:
        self._root.mkdir(parents=True, exist_ok=True)
        tmp = self._meta_path.with_suffix(".tmp")
        with tmp.open("w") as fh:
            json.dump({"dense_size": dense_size}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self._meta_path)
        self._dense_size = dense_size


MAX_BANKS = 1_000_000


def _config(dense_size: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dense_size, distance=qe.Distance.Cosine)},
        sparse_vectors={KEYWORD_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )


def _index_schemas() -> dict[str, qe.KeywordIndexParams | qe.PayloadSchemaType]:
    schemas: dict[str, qe.KeywordIndexParams | qe.PayloadSchemaType] = {
        field: qe.KeywordIndexParams(is_tenant=field == TENANT_FIELD) for field in KEYWORD_INDEXES
    }
    schemas.update({field: qe.PayloadSchemaType.Float for field in FLOAT_INDEXES})
    return schemas


def _point(point: StoredPoint) -> qe.Point:
    vectors: dict[str, Any] = {DENSE_VECTOR: [float(x) for x in point.dense]}
    if point.sparse.indices:
        vectors[KEYWORD_VECTOR] = _sparse(point.sparse)
    return qe.Point(str(point.record.id), vectors, to_payload(point.record))


def _sparse(vector: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(list(vector.indices), [float(v) for v in vector.values])


def _bank_filter(bank_id: str) -> qe.Filter:
    return qe.Filter(must=[_condition(MatchValue(TENANT_FIELD, bank_id))])


def _filter(flt: Filter) -> qe.Filter:
    return qe.Filter(must=[_condition(c) for c in conditions_of(flt)])


def _condition(cond: Condition) -> qe.FieldCondition | qe.HasIdCondition:
    match cond:
        case MatchValue(key=key, value=value):
            return qe.FieldCondition(key=key, match=qe.MatchValue(value))
        case MatchAny(key=key, values=values):
            return qe.FieldCondition(key=key, match=qe.MatchAny(list(values)))
        case Range(key=key, gte=gte, lte=lte):
            return qe.FieldCondition(key=key, range=qe.RangeFloat(gte=gte, lte=lte))
        case HasIds(ids=ids):
            return qe.HasIdCondition({str(i) for i in ids})
