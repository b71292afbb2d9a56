"""`QdrantStore`: the `MemoryStore` port over qdrant-client (a server, or local mode).

Local mode (`path=` or `location=":memory:"`) is qdrant-client's pure-Python engine:
it keeps the same semantics but has no payload indexes, so they are only created on a
server. On disk (`path=`) it keeps each point as a row of one SQLite file per
collection, committed at every write; a deleted row's bytes stay in the file's free
pages unless SQLite was built with `SECURE_DELETE` (most Linux distributions' builds
are, not all), so `purge` vacuums the file (`_vacuum`).
"""

import functools
import os
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import numpy as np
from qdrant_client import QdrantClient, models

from readmodel.store import (
    DENSE_VECTOR,
    KEYWORD_VECTOR,
    PASSAGE_VECTOR,
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    Rebuilding,
    SparseVector,
    StoredPoint,
    StoreInfo,
    Vector,
)
from readmodel.stores import ties
from readmodel.stores.decoded import PayloadRecords
from readmodel.stores.dialect import Dialect, scrolled
from readmodel.stores.payload import (
    DONE_PAYLOAD,
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
    TENANT_FIELD,
    DenseSizeMismatchError,
    HitReader,
    derived_payload,
    feedback_payload,
    hit,
    passages_by_id,
    point_id,
    stored_point,
    touch_payload,
    vector_names,
)
from readmodel.stores.pending_purge import PendingPurge
from readmodel.stores.qdrant_errors import translated

ENGINE: Final = "qdrant"
DEFAULT_COLLECTION: Final = "sediment_memories"
DEFAULT_PAGE_SIZE: Final = 256


LAYOUT_KEY = "sediment_layout"
"""The collection metadata key `mark_layout` writes."""
REBUILDING_KEY = "sediment_rebuilding"
"""The collection metadata key `mark_rebuilding` writes (metadata updates merge)."""


class QdrantStore:
    """Store in one Qdrant collection shared by all banks; `bank_id` is the tenant key."""

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        path: str | os.PathLike[str] | None = None,
        location: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> None:
        given = [
            n for n, v in (("url", url), ("path", path), ("location", location)) if v is not None
        ]
        if len(given) != 1:
            raise ValueError(f"give exactly one of url, path, location (got {given or 'none'})")
        self._sqlite: Path | None = None
        self._pending_purge: PendingPurge | None = None
        self._purge_on_close = False
        if url is not None:
            self._client = QdrantClient(url=url, api_key=api_key)
        elif path is not None:
            root = Path(path)
            self._sqlite = root / "collection" / collection / "storage.sqlite"
            self._pending_purge = PendingPurge(root)
            if self._pending_purge.pending:
                _vacuum(self._sqlite)
                self._pending_purge.clear()
            self._client = QdrantClient(path=os.fspath(path))
        else:
            self._client = QdrantClient(location=location)
        self._mode = "local" if path is not None or location == ":memory:" else "server"
        self._collection = collection
        self._page_size = page_size
        self._by_payload = PayloadRecords()
        self._passages = True
        """Whether the collection has the passage vector (one created before it has not:
        its points are written and read without passages; docs/upgrading.md)."""

    @translated
    def ensure_schema(self, dense_size: int) -> None:
        if not self._client.collection_exists(self._collection):
            self._client.create_collection(
                self._collection,
                vectors_config={
                    DENSE_VECTOR: _dense_params(dense_size),
                    PASSAGE_VECTOR: _passage_params(dense_size),
                },
                sparse_vectors_config={
                    KEYWORD_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
            )
        existing = self._dense_size()
        self._passages = self._has_passages()
        if existing != dense_size:
            where = f"Qdrant collection {self._collection!r}"
            raise DenseSizeMismatchError(where, existing, dense_size)
        if self._mode == "server":
            self._ensure_payload_indexes()

    @translated
    def layout(self) -> int | None:
        metadata = self._client.get_collection(self._collection).config.metadata or {}
        value = metadata.get(LAYOUT_KEY)
        return value if isinstance(value, int) else None

    @translated
    def mark_layout(self, version: int) -> None:
        self._client.update_collection(self._collection, metadata={LAYOUT_KEY: version})

    @translated
    def rebuilding(self) -> Rebuilding | None:
        metadata = self._client.get_collection(self._collection).config.metadata or {}
        return Rebuilding.of_json(metadata.get(REBUILDING_KEY))

    @translated
    def mark_rebuilding(self, rebuilding: Rebuilding | None) -> None:
        marker = rebuilding.as_json() if rebuilding is not None else None
        self._client.update_collection(self._collection, metadata={REBUILDING_KEY: marker})

    @translated
    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if points:
            self._client.upsert(
                self._collection,
                points=[DIALECT.point_of(p, self._passages) for p in points],
                wait=True,
            )

    @translated
    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        records = self._client.retrieve(
            self._collection,
            ids=[str(i) for i in wanted],
            with_payload=True,
            with_vectors=vector_names(with_vectors, sparse=True, passages=self._passages),
        )
        found = {
            point_id(r.id): stored_point(r.payload or {}, r.vector, self._by_payload)
            for r in records
            if (r.payload or {}).get(TENANT_FIELD) == bank_id
        }
        return [found[i] for i in wanted if i in found]

    @translated
    def passage_vectors(self, bank_id: str, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Vector]:
        wanted = list(dict.fromkeys(ids))
        if not wanted or not self._passages:
            return {}
        records = self._client.retrieve(
            self._collection,
            ids=[str(i) for i in wanted],
            with_payload=[TENANT_FIELD],
            with_vectors=[PASSAGE_VECTOR],
        )
        return passages_by_id(bank_id, ((r.id, r.payload, r.vector) for r in records))

    @translated
    def search_dense(
        self,
        vector: Vector | Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        response = self._client.query_points(
            self._collection,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            using=DENSE_VECTOR,
            query_filter=_filter(flt),
            limit=limit,
            score_threshold=score_threshold,
            with_payload=True,
            with_vectors=vector_names(with_vectors, sparse=False),
            search_params=EXACT,
        )
        return [hit(p.payload or {}, p.score, p.vector) for p in response.points]

    @translated
    def search_dense_batch(
        self,
        queries: Sequence[tuple[Vector, Filter]],
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[list[Hit]]:
        if not queries:
            return []
        scopes = {flt: _filter(flt) for flt in dict.fromkeys(flt for _, flt in queries)}
        requests = [
            models.QueryRequest(
                query=np.asarray(v, dtype=np.float32).tolist(),
                using=DENSE_VECTOR,
                filter=scopes[flt],
                limit=limit,
                score_threshold=score_threshold,
                with_payload=True,
                with_vector=vector_names(with_vectors, sparse=False),
                params=EXACT,
            )
            for v, flt in queries
        ]
        answers = self._client.query_batch_points(self._collection, requests=requests)
        read = HitReader()
        return [[read(p.id, p.payload or {}, p.score, p.vector) for p in a.points] for a in answers]

    @translated
    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        """IDF statistics are taken over the bank alone, so other banks never shift scores."""
        if not vector.indices:
            return []
        scope = _filter(flt)
        first = self._keyword_read(vector, scope, flt.bank_id, ties.first_read(limit))
        return self._keyword_hits(flt.bank_id, limit, first, {})

    def _keyword_request(
        self, vector: SparseVector, scope: models.Filter, bank_id: str, limit: int
    ) -> models.QueryRequest:
        """Ids and scores only (the hits kept are read by id, `_keyword_hits`)."""
        return models.QueryRequest(
            query=DIALECT.sparse_of(vector),
            using=KEYWORD_VECTOR,
            filter=scope,
            limit=limit,
            with_payload=False,
            with_vector=False,
            params=_keyword_params(bank_id),
        )

    def _keyword_read(
        self, vector: SparseVector, scope: models.Filter, bank_id: str, limit: int
    ) -> list[ties.Scored]:
        request = self._keyword_request(vector, scope, bank_id, limit)
        answer = self._client.query_batch_points(self._collection, requests=[request])
        return _scored(answer[0].points)

    def _keyword_hits(
        self, bank_id: str, limit: int, first: list[ties.Scored], known: dict[uuid.UUID, Hit]
    ) -> list[Hit]:
        return ties.kept_hits(first, limit, known, functools.partial(self.fetch, bank_id))

    @translated
    def search_hybrid(
        self, dense: Vector | Sequence[float], sparse: SparseVector, flt: Filter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        scope = _filter(flt)
        requests = [
            models.QueryRequest(
                query=np.asarray(dense, dtype=np.float32).tolist(),
                using=DENSE_VECTOR,
                filter=scope,
                limit=limit,
                with_payload=True,
                with_vector=False,
            )
        ]
        if sparse.indices:
            first_n = ties.first_read(limit)
            requests.append(self._keyword_request(sparse, scope, flt.bank_id, first_n))
        answers = self._client.query_batch_points(self._collection, requests=requests)
        read = HitReader()
        dense_hits = [read(p.id, p.payload or {}, p.score, p.vector) for p in answers[0].points]
        if len(answers) == 1:
            return dense_hits, []
        known = {h.record.id: h for h in dense_hits}
        first = _scored(answers[1].points)
        return dense_hits, self._keyword_hits(flt.bank_id, limit, first, known)

    @translated
    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        if not patches:
            return
        operations: list[models.UpdateOperation] = [
            models.SetPayloadOperation(
                set_payload=models.SetPayload(
                    payload=derived_payload(patch),
                    filter=_filter(Filter(bank_id=bank_id, ids=(patch.id,))),
                )
            )
            for patch in patches
        ]
        self._client.batch_update_points(self._collection, operations, wait=True)

    def mark_consolidated(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        if ids:
            self._set_payload(bank_id, tuple(ids), DONE_PAYLOAD)

    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        self._set_payload(bank_id, (record_id,), feedback_payload(feedback))

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        if ids:
            self._set_payload(bank_id, tuple(ids), touch_payload(at))

    @translated
    def _set_payload(
        self, bank_id: str, ids: tuple[uuid.UUID, ...], values: dict[str, Any]
    ) -> None:
        scope = _filter(Filter(bank_id=bank_id, ids=ids))
        self._client.set_payload(self._collection, payload=values, points=scope, wait=True)

    @translated
    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        if ids:
            scope = _filter(Filter(bank_id=bank_id, ids=tuple(ids)))
            selector = models.FilterSelector(filter=scope)
            self._client.delete(self._collection, points_selector=selector, wait=True)

    def scroll(
        self, flt: Filter, with_vectors: bool = False, dense_only: bool = False
    ) -> Iterator[StoredPoint]:
        engine_filter = _filter(flt)
        wanted = vector_names(with_vectors, sparse=not dense_only, passages=self._passages)
        return scrolled(lambda offset: self._page(engine_filter, offset, wanted), self._by_payload)

    @translated
    def _page(
        self, engine_filter: models.Filter | None, offset: Any, wanted: list[str] | bool
    ) -> tuple[list[models.Record], Any]:
        return self._client.scroll(
            self._collection,
            scroll_filter=engine_filter,
            limit=self._page_size,
            offset=offset,
            with_payload=True,
            with_vectors=wanted,
        )

    @translated
    def count(self, flt: Filter) -> int:
        return self._client.count(self._collection, count_filter=_filter(flt), exact=True).count

    @translated
    def banks(self) -> list[str]:
        if not self._client.collection_exists(self._collection):
            return []
        response = self._client.facet(self._collection, key="bank_id", limit=1_000_000, exact=True)
        return sorted(str(hit.value) for hit in response.hits if hit.count > 0)

    @translated
    def info(self) -> StoreInfo:
        details = {"mode": self._mode, "collection": self._collection}
        if not self._client.collection_exists(self._collection):
            return StoreInfo(engine=ENGINE, points=0, details=details)
        points = self._client.count(self._collection, exact=True).count
        return StoreInfo(engine=ENGINE, points=points, details=details)

    def purge(self, bank_id: str) -> None:
        """A Qdrant server drops deleted points from its segments with its vacuum
        optimizer (collection `optimizers_config.deleted_threshold`); nothing to call.
        Local mode on disk vacuums its SQLite file at close, or at the next open after a
        process that died first (`purge.pending`, written before the forget's delete)."""
        if self._pending_purge is not None and not self._purge_on_close:
            self._pending_purge.record()
            self._purge_on_close = True

    def purge_now(self) -> bool:
        """Nothing while open: a server vacuums on its own schedule, local mode's SQLite
        file is vacuumed at close (the client holds it open)."""
        return False

    def close(self) -> None:
        self._by_payload.clear()
        self._client.close()
        if self._purge_on_close and self._sqlite is not None and self._pending_purge:
            _vacuum(self._sqlite)
            self._pending_purge.clear()
            self._purge_on_close = False

    def _dense_size(self) -> int | None:
        vectors = self._client.get_collection(self._collection).config.params.vectors
        params = vectors.get(DENSE_VECTOR) if isinstance(vectors, dict) else None
        return None if params is None else params.size

    def _has_passages(self) -> bool:
        vectors = self._client.get_collection(self._collection).config.params.vectors
        return isinstance(vectors, dict) and PASSAGE_VECTOR in vectors

    def _ensure_payload_indexes(self) -> None:
        present = set(self._client.get_collection(self._collection).payload_schema)
        for field, schema in _index_schemas().items():
            if field not in present:
                self._client.create_payload_index(
                    self._collection, field_name=field, field_schema=schema, wait=True
                )


def _vacuum(sqlite_file: Path) -> None:
    """Rewrite the SQLite file with its live rows alone: deleted rows' bytes go with the
    free pages (SQLite's VACUUM, atomic through its journal)."""
    if not sqlite_file.exists():
        return
    connection = sqlite3.connect(sqlite_file)
    try:
        connection.execute("VACUUM")
    finally:
        connection.close()


def _dense_params(dense_size: int) -> models.VectorParams:
    return models.VectorParams(size=dense_size, distance=models.Distance.COSINE)


def _passage_params(dense_size: int) -> models.VectorParams:
    """A long memory's passages: one vector each, read by id and never searched (no
    HNSW graph)."""
    return models.VectorParams(
        size=dense_size,
        distance=models.Distance.COSINE,
        hnsw_config=models.HnswConfigDiff(m=0),
        multivector_config=models.MultiVectorConfig(
            comparator=models.MultiVectorComparator.MAX_SIM
        ),
    )


def _index_schemas() -> dict[str, models.PayloadSchemaParams | models.PayloadSchemaType]:
    schemas: dict[str, models.PayloadSchemaParams | models.PayloadSchemaType] = {
        field: models.PayloadSchemaType.KEYWORD for field in KEYWORD_INDEXES
    }
    schemas[TENANT_FIELD] = models.KeywordIndexParams(
        type=models.KeywordIndexType.KEYWORD, is_tenant=True
    )
    schemas.update({field: models.PayloadSchemaType.FLOAT for field in FLOAT_INDEXES})
    return schemas


QdrantCondition = models.FieldCondition | models.HasIdCondition
DIALECT: Final[Dialect[models.Filter, QdrantCondition, models.PointStruct, models.SparseVector]] = (
    Dialect(
        all_of=lambda must, must_not: models.Filter(must=must, must_not=must_not or None),
        equals=lambda key, value: models.FieldCondition(
            key=key, match=models.MatchValue(value=value)
        ),
        any_of=lambda key, values: models.FieldCondition(
            key=key, match=models.MatchAny(any=values)
        ),
        between=lambda key, gte, lte: models.FieldCondition(
            key=key, range=models.Range(gte=gte, lte=lte)
        ),
        has_ids=lambda ids: models.HasIdCondition(has_id=list(ids)),
        point=lambda id_, vectors, payload: models.PointStruct(
            id=id_, vector=vectors, payload=payload
        ),
        sparse=lambda indices, values: models.SparseVector(indices=indices, values=values),
    )
)
_filter = DIALECT.filter


EXACT: Final = models.SearchParams(exact=True)
"""The worker's neighbour queries (`search_dense`, `search_dense_batch`) are exact even
where the server built an HNSW graph, as in `EdgeStore`; recall's `search_hybrid` is not."""


def _scored(points: Sequence[models.ScoredPoint]) -> list[ties.Scored]:
    return [(point_id(p.id), float(p.score)) for p in points]


def _keyword_params(bank_id: str) -> models.SearchParams:
    """IDF statistics over the bank alone, so other banks never shift scores."""
    return models.SearchParams(idf=models.IdfCorpusParams(corpus=DIALECT.bank(bank_id)))
