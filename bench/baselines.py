"""Baselines over the same stored raw memories: dense-only, BM25-only (bm25s), and RRF.

They read raw memories only (kinds world and experience): no observations, no
supersession, no current state. That is the point of comparison: what plain
retrieval over the same vectors and texts finds. A query's time (`until`) holds for
them as `as_of` holds for Sediment: they see only memories that had occurred by then.
"""

import bisect
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import bm25s
import snowballstemmer

from readmodel.embedders import Embedder
from readmodel.store import Filter, MemoryStore

RAW_KINDS = ("world", "experience")
RRF_K = 60
BM25_SETTINGS = {"library": "bm25s", "stopwords": "en", "stemmer": "snowball english"}
INDEX_CACHE = 16


@dataclass(frozen=True)
class Doc:
    id: uuid.UUID
    text: str
    occurred_at: datetime | None = None


@dataclass(frozen=True)
class DenseBaseline:
    """Query embedding plus one filtered top-k dense query: the store's own ranking."""

    store: MemoryStore
    embedder: Embedder

    def search(
        self, bank_id: str, query: str, limit: int, until: datetime | None = None
    ) -> list[Doc]:
        vector = self.embedder.embed([query])[0]
        flt = Filter(bank_id, kinds=RAW_KINDS, occurred_to=until)
        hits = self.store.search_dense(vector, flt, limit)
        return [Doc(h.record.id, h.record.text, h.record.occurred_at) for h in hits]


def _tokenize(texts: list[str], stemmer: Any) -> Any:
    return bm25s.tokenize(
        texts, stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False
    )


class BM25Index:
    """Documents indexed by bm25s; documents with score 0 are not results. `tokens` are
    the documents' tokens when the caller has them already."""

    def __init__(self, docs: Sequence[Doc], tokens: Sequence[list[str]] | None = None) -> None:
        self._docs = list(docs)
        self._stemmer = snowballstemmer.stemmer("english")
        self._retriever: Any = bm25s.BM25()
        if self._docs:
            found = (
                tokens if tokens is not None else _tokenize([d.text for d in docs], self._stemmer)
            )
            self._retriever.index(list(found), show_progress=False)

    def search(self, query: str, limit: int) -> list[Doc]:
        tokens = _tokenize([query], self._stemmer)
        if not self._docs or not tokens[0]:
            return []
        k = min(limit, len(self._docs))
        ids, scores = self._retriever.retrieve(tokens, k=k, show_progress=False)
        return [
            self._docs[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if float(s) > 0.0
        ]


class BankCorpus:
    """One bank's raw memories in event-time order. The index for a time covers exactly
    the memories that had occurred by then (term statistics included), and is kept for
    the next queries of the same time."""

    def __init__(self, docs: Sequence[Doc]) -> None:
        if any(d.occurred_at is None for d in docs):
            raise ValueError("every document of a bank corpus needs its occurred_at")
        self._docs = sorted(docs, key=lambda d: (d.occurred_at, str(d.id)))
        self._times = [d.occurred_at for d in self._docs if d.occurred_at is not None]
        stemmer = snowballstemmer.stemmer("english")
        texts = [d.text for d in self._docs]
        self._tokens: list[list[str]] = list(_tokenize(texts, stemmer)) if texts else []
        self._indexes: OrderedDict[int, BM25Index] = OrderedDict()

    def visible(self, until: datetime | None) -> int:
        """How many documents had occurred by `until` (all of them without a time)."""
        if until is None:
            return len(self._docs)
        return bisect.bisect_right(self._times, until)

    def index(self, until: datetime | None) -> BM25Index:
        n = self.visible(until)
        found = self._indexes.get(n)
        if found is None:
            found = BM25Index(self._docs[:n], self._tokens[:n])
            self._indexes[n] = found
            if len(self._indexes) > INDEX_CACHE:
                self._indexes.popitem(last=False)
        else:
            self._indexes.move_to_end(n)
        return found


class BM25Baseline:
    """A BM25 index per bank (and per query time), built from the raw memories the store holds."""

    def __init__(self, store: MemoryStore, banks: Sequence[str]) -> None:
        self._banks = {
            bank: BankCorpus(
                [
                    Doc(p.record.id, p.record.text, p.record.occurred_at)
                    for p in store.scroll(Filter(bank, kinds=RAW_KINDS))
                ]
            )
            for bank in banks
        }

    def search(
        self, bank_id: str, query: str, limit: int, until: datetime | None = None
    ) -> list[Doc]:
        corpus = self._banks.get(bank_id)
        return corpus.index(until).search(query, limit) if corpus else []


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
