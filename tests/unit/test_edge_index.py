"""The embedded store's HNSW index: recall may use it, the worker's neighbour queries
never do, and recall's results on an indexed store are those of the full scan.

The shard here is created with thresholds low enough that `optimize` indexes a few
hundred points (the shipped configuration waits for about 10,000)."""

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import qdrant_edge as qe

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import (
    DENSE_VECTOR,
    KEYWORD_VECTOR,
    PASSAGE_VECTOR,
    Filter,
    MemoryStore,
    SparseVector,
    StoredPoint,
)
from readmodel.stores.edge import META_FILE, NO_GRAPH, SHARD_DIR, EdgeStore
from readmodel.text import document_vector
from sediment.maintenance import optimize
from tests.helpers import T0, event
from worker.consolidation.consolidator import raw_memory

EMB = HashEmbedder(384)
BANK = "b1"
STEMS = ("bra", "cle", "dro", "fin", "gal")
WORDS = [f"{a}{b}{c}" for a in STEMS for b in "aeiou" for c in "mnrsz"]
QUERIES = [" ".join(WORDS[i : i + 2]) for i in range(0, 120, 15)]


def distinct_texts(n: int, seed: int = 5) -> list[str]:
    """Texts of four words of 125, so a query's words match fewer texts than recall's
    depth: a tie at the depth's edge would make the engine's order, not the index,
    decide which candidates are read."""
    rng = random.Random(seed)
    return [f"note {i}: " + " ".join(rng.sample(WORDS, 4)) for i in range(n)]


def indexing_shard(root: Path, dense_size: int) -> None:
    """A shard whose optimizer indexes any segment, searched through the graph at any
    filter size; `EdgeStore` opens it as it is."""
    root.mkdir(parents=True, exist_ok=True)
    (root / META_FILE).write_text(json.dumps({"dense_size": dense_size}))
    config = qe.EdgeConfig(
        vectors={
            DENSE_VECTOR: qe.EdgeVectorParams(size=dense_size, distance=qe.Distance.Cosine),
            PASSAGE_VECTOR: qe.EdgeVectorParams(
                size=dense_size,
                distance=qe.Distance.Cosine,
                multivector_config=qe.MultiVectorConfig(comparator=qe.MultiVectorComparator.MaxSim),
                hnsw_config=NO_GRAPH,
            ),
        },
        sparse_vectors={KEYWORD_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        hnsw_config=qe.HnswIndexConfig(
            m=16, ef_construct=100, full_scan_threshold=1, max_indexing_threads=1
        ),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
    )
    qe.EdgeShard.create(str(root / SHARD_DIR), config).close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EdgeStore]:
    indexing_shard(tmp_path, EMB.dimension)
    s = EdgeStore(tmp_path)
    s.ensure_schema(EMB.dimension)
    now = datetime.now(UTC)
    events = [
        event(text, 0, bank=BANK).model_copy(update={"occurred_at": T0 + timedelta(hours=i)})
        for i, text in enumerate(distinct_texts(400))
    ]
    vectors = EMB.embed([e.indexed_text() for e in events])
    s.upsert(
        [
            StoredPoint(
                raw_memory(e, now).model_copy(update={"consolidated": True}),
                v,
                document_vector(e.indexed_text()),
            )
            for e, v in zip(events, vectors, strict=True)
        ]
    )
    yield s
    s.close()


def recalled(store: MemoryStore) -> list[list[tuple[str, float]]]:
    pipeline = RecallPipeline(store, EMB, clock=lambda: T0 + timedelta(days=30))
    return [
        [
            (str(r.id), r.score)
            for r in pipeline.recall(BANK, RecallRequest(query=q, limit=10)).results
        ]
        for q in QUERIES
    ]


def test_recall_on_the_indexed_store_equals_recall_on_the_full_scan(store: EdgeStore) -> None:
    before = recalled(store)
    assert store.info().details["segments"] == "1"
    assert store.optimize()
    assert store.info().details["segments"] == "2"
    assert recalled(store) == before


def test_the_neighbour_query_stays_a_full_scan_once_indexed(store: EdgeStore) -> None:
    """`search_dense` and `search_dense_batch` find the best scores numpy's full scan
    finds (scores, not ids: two texts may share a vector)."""
    assert store.optimize()
    flt = Filter(bank_id=BANK)
    points = list(store.scroll(flt, with_vectors=True))
    matrix = np.stack([p.dense / np.linalg.norm(p.dense) for p in points])
    queries = EMB.embed(QUERIES)
    batch = store.search_dense_batch([(q, flt) for q in queries], 20, None, True)
    for query, batched in zip(queries, batch, strict=True):
        exact = np.sort(matrix @ (query / np.linalg.norm(query)))[::-1][:20]
        alone = store.search_dense(query, flt, 20)
        assert [h.score for h in alone] == pytest.approx(exact.tolist(), abs=1e-5)
        assert [h.score for h in batched] == pytest.approx(exact.tolist(), abs=1e-5)


class RecordingShard:
    """The engine shard, with every query request kept."""

    def __init__(self, inner: qe.EdgeShard) -> None:
        self.inner = inner
        self.requests: list[Any] = []

    def query(self, request: qe.QueryRequest) -> Any:
        self.requests.append(request)
        return self.inner.query(request)

    def query_batch(self, request: qe.QueryBatchRequest) -> Any:
        self.requests.extend(request.queries)
        return self.inner.query_batch(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_the_worker_asks_for_exact_search_and_recall_does_not(store: EdgeStore) -> None:
    shard = RecordingShard(store._require())
    store._shard = shard  # type: ignore[assignment]
    flt, query = Filter(bank_id=BANK), EMB.embed(["coffee"])[0]
    store.search_dense(query, flt, 5, 0.1, True)
    store.search_dense_batch([(query, flt), (query, flt)], 5, 0.1, True)
    assert [r.params is not None and r.params.exact for r in shard.requests] == [True] * 3
    shard.requests.clear()
    store.search_hybrid(query, SparseVector(), flt, 5)
    assert [r.params is not None and r.params.exact for r in shard.requests] == [False]
    store._shard = shard.inner


def test_optimize_reports_what_it_did(store: EdgeStore) -> None:
    first = optimize(store)
    assert first is not None
    assert (first.changed, first.segments_before, first.segments_after) == (True, "1", "2")
    again = optimize(store)
    assert again is not None
    assert (again.changed, again.segments_after) == (False, "2")


def test_recall_touching_what_it_returned_leaves_the_index_whole(store: EdgeStore) -> None:
    """A payload write to an indexed point copies it into the unindexed segment; last
    access is therefore kept beside the points, and every point stays indexed."""
    assert store.optimize()
    shard = store._require()
    before = shard.info()
    ids = [p.record.id for p in store.scroll(Filter(bank_id=BANK))]
    at = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    for start in range(0, len(ids), 10):
        store.touch(BANK, ids[start : start + 10], at)
    after = shard.info()
    assert after.indexed_vectors_count == before.indexed_vectors_count > 0
    assert after.segments_count == before.segments_count
    assert {p.record.last_accessed_at for p in store.scroll(Filter(bank_id=BANK))} == {at}


def test_optimize_folds_the_pending_access_times_into_the_points(
    store: EdgeStore, tmp_path: Path
) -> None:
    ids = [p.record.id for p in store.scroll(Filter(bank_id=BANK))][:30]
    first, second = T0 + timedelta(days=40), T0 + timedelta(days=41)
    store.touch(BANK, ids[:20], first)
    store.touch(BANK, ids[10:30], second)
    [own] = store.fetch(BANK, [ids[0]], with_vectors=True)
    later = own.record.model_copy(update={"last_accessed_at": T0 + timedelta(days=90)})
    store.upsert([StoredPoint(later, own.dense, own.sparse)])
    want = {i: first for i in ids[1:10]} | {i: second for i in ids[10:30]}
    want[ids[0]] = T0 + timedelta(days=90)
    assert len(store._access) == 30
    assert store.optimize()
    assert len(store._access) == 0
    store.close()
    again = EdgeStore(tmp_path)
    try:
        again.ensure_schema(EMB.dimension)
        assert len(again._access) == 0
        assert {p.record.id: p.record.last_accessed_at for p in again.fetch(BANK, ids)} == want
    finally:
        again.close()
