"""The embedded store's keyword IDF: over the whole shard while it holds one bank (the
same statistics, without the engine's pass over the bank on every query), over the
bank as soon as the shard holds another bank's points, including points written by
a call that failed and banks found when the store is reopened."""

from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe

from readmodel.store import KEYWORD_VECTOR, Filter, StoredPoint
from readmodel.stores.edge import DIALECT, EdgeStore
from readmodel.text import document_vector, query_vector
from tests.helpers import T0, event
from worker.consolidation.consolidator import raw_memory

DIM = 4
TEXTS = (
    "Ana moved to Lisbon in spring.",
    "Ana adopted a cat named Miso.",
    "Ben works at the bakery on Elm Street.",
    "Ana and Ben walked to the bakery.",
    "Ben moved to Porto for work.",
    "The cat sleeps on the bakery's windowsill.",
)
QUERIES = ("Where did Ana move?", "Who works at the bakery?", "the cat Miso", "Ben Porto work")


def points(bank: str, texts: tuple[str, ...] = TEXTS) -> list[StoredPoint]:
    out = []
    for i, text in enumerate(texts):
        record = raw_memory(event(text, i, bank=bank), T0)
        dense = np.array([1.0 if d == i % DIM else 0.1 for d in range(DIM)], dtype=np.float32)
        out.append(StoredPoint(record, dense, document_vector(text)))
    return out


def opened(root: Path) -> EdgeStore:
    store = EdgeStore(root)
    store.ensure_schema(DIM)
    return store


def bank_idf_scores(store: EdgeStore, bank: str, query: str) -> list[tuple[str, float]]:
    """What the engine answers with the bank as the IDF corpus, asked directly."""
    scope = DIALECT.filter(Filter(bank_id=bank))
    request = qe.QueryRequest(
        limit=20,
        query=qe.Query.Nearest(DIALECT.sparse_of(query_vector(query)), using=KEYWORD_VECTOR),
        filter=scope,
        with_payload=False,
        with_vector=False,
        params=qe.SearchParams(idf=qe.IdfParams(corpus=DIALECT.bank(bank))),
    )
    return sorted((str(p.id), round(p.score, 5)) for p in store._require().query(request))


def scores(store: EdgeStore, bank: str, query: str) -> list[tuple[str, float]]:
    hits = store.search_keyword(query_vector(query), Filter(bank_id=bank), limit=20)
    return sorted((str(h.record.id), round(h.score, 5)) for h in hits)


def hybrid_scores(store: EdgeStore, bank: str, query: str) -> list[tuple[str, float]]:
    _, hits = store.search_hybrid((1.0,) * DIM, query_vector(query), Filter(bank_id=bank), 20)
    return sorted((str(h.record.id), round(h.score, 5)) for h in hits)


def test_one_bank_uses_the_shard_statistics_and_scores_as_the_bank_corpus(
    tmp_path: Path,
) -> None:
    store = opened(tmp_path)
    store.upsert(points("a"))
    assert store._idf_corpus("a") is None
    for q in QUERIES:
        expected = bank_idf_scores(store, "a", q)
        assert expected, q
        assert scores(store, "a", q) == expected
        assert hybrid_scores(store, "a", q) == expected
    store.close()


def test_a_second_bank_brings_the_bank_corpus_back_and_leaves_scores_unchanged(
    tmp_path: Path,
) -> None:
    store = opened(tmp_path)
    store.upsert(points("a"))
    alone = {q: scores(store, "a", q) for q in QUERIES}
    store.upsert(points("b", TEXTS[:2] * 3))
    assert store._idf_corpus("a") is not None
    assert store._idf_corpus("b") is not None
    for q in QUERIES:
        assert scores(store, "a", q) == alone[q]
        assert hybrid_scores(store, "a", q) == alone[q]
    store.close()


def test_a_bank_asked_about_before_any_write_is_counted_once_written(tmp_path: Path) -> None:
    store = opened(tmp_path)
    assert store._idf_corpus("a") is None  # an empty shard: read from the engine now
    store.upsert(points("a"))
    store.upsert(points("b"))
    assert store._idf_corpus("a") is not None
    store.close()


def test_a_failed_write_still_counts_its_bank(tmp_path: Path) -> None:
    """Banks are added before the engine writes, so a write the engine took in part,
    or one racing a query, never leaves the shard statistics in use for another bank."""
    store = opened(tmp_path)
    store.upsert(points("a"))
    assert store._idf_corpus("a") is None
    wrong = [
        StoredPoint(p.record, np.ones(DIM + 3, dtype=np.float32), p.sparse) for p in points("b")
    ]
    with pytest.raises(Exception, match="dimension"):
        store.upsert(wrong)
    assert store._idf_corpus("a") is not None
    store.close()


def test_reopening_reads_the_banks_from_the_engine(tmp_path: Path) -> None:
    store = opened(tmp_path)
    store.upsert(points("a"))
    store.upsert(points("b"))
    store.close()
    reopened = opened(tmp_path)
    assert reopened._idf_corpus("a") is not None
    for q in QUERIES:
        assert scores(reopened, "a", q) == bank_idf_scores(reopened, "a", q)
    reopened.close()
    only_a = opened(tmp_path / "one")
    only_a.upsert(points("a"))
    only_a.close()
    again = opened(tmp_path / "one")
    assert again._idf_corpus("a") is None
    assert again._idf_corpus("b") is not None  # another bank's corpus is its own (empty)
    again.close()
