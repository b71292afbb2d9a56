"""Baselines over the same stored raw memories: dense-only, BM25-only (bm25s), and RRF.

They read raw memories only (kinds world and experience): no observations, no
supersession, no current state. That is the point of comparison: what plain
retrieval over the same vectors and texts finds.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import snowballstemmer

from readmodel.embedders import Embedder
from readmodel.store import Filter, MemoryStore

RAW_KINDS = ("world", "experience")
RRF_K = 60
BM25_SETTINGS = {"library": "bm25s", "stopwords": "en", "stemmer": "snowball english"}


@dataclass(frozen=True)
class Doc:
    id: uuid.UUID
    text: str


@dataclass(frozen=True)
class DenseBaseline:
    """Query embedding plus one filtered top-k dense query: the store's own ranking."""

    store: MemoryStore
    embedder: Embedder

    def search(self, bank_id: str, query: str, limit: int) -> list[Doc]:
        vector = self.embedder.embed([query])[0]
        hits = self.store.search_dense(vector, Filter(bank_id, kinds=RAW_KINDS), limit)
        return [Doc(h.record.id, h.record.text) for h in hits]


def _tokenize(texts: list[str], stemmer: Any) -> Any:
    return bm25s.tokenize(
        texts, stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False
    )


class BM25Index:
    """One bank's raw texts indexed by bm25s; documents with score 0 are not results."""

    def __init__(self, docs: Sequence[Doc]) -> None:
        self._docs = list(docs)
        self._stemmer = snowballstemmer.stemmer("english")
        self._retriever: Any = bm25s.BM25()
        if self._docs:
            tokens = _tokenize([d.text for d in self._docs], self._stemmer)
            self._retriever.index(tokens, show_progress=False)

    def search(self, query: str, limit: int) -> list[Doc]:
        tokens = _tokenize([query], self._stemmer)
        if not self._docs or not tokens[0]:
            return []
        k = min(limit, len(self._docs))
        ids, scores = self._retriever.retrieve(tokens, k=k, show_progress=False)
        return [
            self._docs[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if float(s) > 0.0
        ]


class BM25Baseline:
    """A BM25 index per bank, built from the raw memories the store holds."""

    def __init__(self, store: MemoryStore, banks: Sequence[str]) -> None:
        self._indexes = {
            bank: BM25Index(
                [
                    Doc(p.record.id, p.record.text)
                    for p in store.scroll(Filter(bank, kinds=RAW_KINDS))
                ]
            )
            for bank in banks
        }

    def search(self, bank_id: str, query: str, limit: int) -> list[Doc]:
        index = self._indexes.get(bank_id)
        return index.search(query, limit) if index else []


def rrf(lists: Sequence[Sequence[Doc]], limit: int, k: int = RRF_K) -> list[Doc]:
    """Reciprocal rank fusion: sum of 1/(k + rank); ties by best rank, then id."""
    scores: dict[uuid.UUID, float] = {}
    best_rank: dict[uuid.UUID, int] = {}
    docs: dict[uuid.UUID, Doc] = {}
    for ranked in lists:
        for rank, doc in enumerate(ranked, start=1):
            scores[doc.id] = scores.get(doc.id, 0.0) + 1.0 / (k + rank)
            best_rank[doc.id] = min(best_rank.get(doc.id, rank), rank)
            docs[doc.id] = doc
    order = sorted(scores, key=lambda i: (-scores[i], best_rank[i], str(i)))
    return [docs[i] for i in order[:limit]]
