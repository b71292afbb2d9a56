"""The `MemoryStore` contract for long memories stored by passages: every adapter
reads a memory's passage vectors and passage stats back, keeps them bank-scoped and
through derived writes, and an embedded store created before passages existed opens
with its points intact."""

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe

from readmodel.passages import passage_spans
from readmodel.store import Filter, MemoryStore, SparseVector, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.stores.payload import stored_point
from tests.contract.test_store_contract import BANK, DIM, KINDS, OTHER, memory, mid, open_store

LONG_TEXT = "\n\n".join(
    " ".join(f"w{p}x{i}" for i in range(100)) + "." for p in range(3)
)  # three paragraphs of 100 words: three passages


def axis(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v


def long_point(bank: str, i: int, rows: list[int]) -> StoredPoint:
    """A long memory whose whole vector is axis 0 and whose passages point along `rows`."""
    return StoredPoint(
        memory(bank, i, text=LONG_TEXT),
        axis(0),
        SparseVector(),
        passages=np.stack([axis(r) for r in rows]),
    )


def dense_of(r: qe.Record) -> np.ndarray:
    return stored_point(r.payload or {}, r.vector).dense


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    s = open_store(str(request.param), tmp_path)
    s.ensure_schema(DIM)
    yield s
    s.close()


def test_the_long_text_has_three_passages() -> None:
    assert len(passage_spans(LONG_TEXT)) == 3


def test_passage_vectors_and_stats_read_back(store: MemoryStore) -> None:
    store.upsert([long_point(BANK, 1, [1, 2, 3])])
    [p] = store.fetch(BANK, [mid(BANK, 1)], with_vectors=True)
    assert p.passages is not None
    assert np.allclose(p.passages, np.stack([axis(1), axis(2), axis(3)]), atol=1e-6)
    assert p.stats is not None
    spans = [(q.start, q.end) for q in p.stats.passages]
    assert spans == list(passage_spans(LONG_TEXT))
    assert [q.tokens for q in p.stats.passages] == [100, 100, 100]
    assert "w1x5" in p.stats.passages[1].stems and "w1x5" not in p.stats.passages[0].stems
    [scrolled] = list(store.scroll(Filter(BANK), with_vectors=True))
    assert scrolled.passages is not None and scrolled.passages.shape == (3, DIM)
    [bare] = store.fetch(BANK, [mid(BANK, 1)])
    assert bare.passages is None
    assert store.fetch(OTHER, [mid(BANK, 1)], with_vectors=True) == []


def test_a_short_memory_has_no_passages(store: MemoryStore) -> None:
    store.upsert([StoredPoint(memory(BANK, 1), axis(1), SparseVector())])
    [p] = store.fetch(BANK, [mid(BANK, 1)], with_vectors=True)
    assert p.passages is None
    assert p.stats is not None and p.stats.passages == ()


def test_derived_writes_keep_the_passages(store: MemoryStore) -> None:
    store.upsert([long_point(BANK, 1, [1, 2, 3])])
    store.mark_consolidated(BANK, [mid(BANK, 1)])
    store.touch(BANK, [mid(BANK, 1)], memory(BANK, 1).occurred_at)
    [p] = store.fetch(BANK, [mid(BANK, 1)], with_vectors=True)
    assert p.passages is not None and np.allclose(p.passages[2], axis(3), atol=1e-6)
    assert p.record.consolidated


def test_an_edge_store_from_before_passages_opens_with_its_points(tmp_path: Path) -> None:
    """A shard created with the dense and keyword vectors alone (as every store was
    before passages) is copied into one with the passage vector when opened."""
    root = tmp_path / "edge"
    first = EdgeStore(root)
    first.ensure_schema(DIM)
    first.upsert([StoredPoint(memory(BANK, 1), axis(1), SparseVector())])
    first.close()
    old_dir = tmp_path / "old"
    old = qe.EdgeShard.create(
        str(old_dir),
        qe.EdgeConfig(
            vectors={"dense": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)},
            sparse_vectors={"keywords": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        ),
    )
    current = qe.EdgeShard.load(str(root / "shard"))
    records, _ = current.scroll(
        qe.ScrollRequest(limit=10, with_payload=True, with_vector=["dense", "keywords"])
    )
    ids = [uuid.UUID(str(r.id)) for r in records]
    old.update(
        qe.UpdateOperation.upsert_points(
            [
                qe.Point(
                    str(r.id), {"dense": list(stored_point(r.payload, r.vector).dense)}, r.payload
                )
                for r in records
            ]
        )
    )
    current.close()
    old.flush()
    old.close()
    shutil.rmtree(root / "shard")
    shutil.move(str(old_dir), str(root / "shard"))
    reopened = EdgeStore(root)
    try:
        reopened.ensure_schema(DIM)
        assert [p.record.id for p in reopened.fetch(BANK, ids)] == [mid(BANK, 1)]
        reopened.upsert([long_point(BANK, 2, [1, 2, 3])])
        [p] = reopened.fetch(BANK, [mid(BANK, 2)], with_vectors=True)
        assert p.passages is not None and p.passages.shape == (3, DIM)
    finally:
        reopened.close()


def test_passage_vectors_are_read_alone_and_bank_scoped(store: MemoryStore) -> None:
    store.upsert(
        [
            long_point(BANK, 1, [1, 2, 3]),
            long_point(OTHER, 2, [4, 5, 6]),
            StoredPoint(memory(BANK, 3), axis(1), SparseVector()),
        ]
    )
    ids = [mid(BANK, 1), mid(OTHER, 2), mid(BANK, 3), mid(BANK, 99)]
    found = store.passage_vectors(BANK, ids)
    assert list(found) == [mid(BANK, 1)]
    assert np.allclose(found[mid(BANK, 1)], np.stack([axis(1), axis(2), axis(3)]), atol=1e-6)
    assert list(store.passage_vectors(OTHER, ids)) == [mid(OTHER, 2)]
    assert store.passage_vectors(BANK, []) == {}
