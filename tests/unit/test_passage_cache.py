"""The passage-vector cache: one read per memory and text, a changed text read again,
banks kept apart, the oldest entry dropped, and recall through it returning what it
returns without it."""

import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from contracts.recall import RecallRequest
from readmodel.recall.candidate import Candidate
from readmodel.recall.passage_cache import PassageCache
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Vector
from tests.helpers import ingested, memory
from tests.unit.test_passages import BOAT, FLASK, long_text


class Reads:
    """A passage-vector reader that counts what it was asked for."""

    def __init__(self) -> None:
        self.asked: list[list[uuid.UUID]] = []

    def __call__(self, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Vector]:
        self.asked.append(list(ids))
        return {i: np.full((2, 4), float(len(self.asked)), np.float32) for i in ids}


def candidate(text: str, bank: str = "b1") -> Candidate:
    m = memory(text)
    return Candidate(m.model_copy(update={"bank_id": bank}))


def test_a_memory_is_read_once_for_its_text() -> None:
    cache, read = PassageCache(), Reads()
    a, b = candidate("first text"), candidate("second text")
    first = cache.vectors(read, [a, b])
    again = cache.vectors(read, [a, b])
    assert read.asked == [[a.id, b.id]]
    assert {k: v.tolist() for k, v in again.items()} == {k: v.tolist() for k, v in first.items()}


def test_a_changed_text_is_read_again() -> None:
    cache, read = PassageCache(), Reads()
    a = candidate("first text")
    cache.vectors(read, [a])
    changed = Candidate(a.record.model_copy(update={"text": "first text, edited"}))
    got = cache.vectors(read, [changed])
    assert read.asked == [[a.id], [a.id]]
    assert got[a.id][0, 0] == 2.0


def test_banks_are_kept_apart() -> None:
    cache, read = PassageCache(), Reads()
    mine = candidate("same text", "b1")
    theirs = Candidate(mine.record.model_copy(update={"bank_id": "b2"}))
    cache.vectors(read, [mine])
    cache.vectors(read, [theirs])
    assert read.asked == [[mine.id], [theirs.id]]


def test_a_memory_without_passages_is_not_kept_and_the_oldest_goes_first() -> None:
    cache = PassageCache(size=2)
    a, b, c = candidate("a"), candidate("b"), candidate("c")
    cache.vectors(lambda ids: {}, [a])
    assert len(cache) == 0
    read = Reads()
    cache.vectors(read, [a, b, c])
    assert len(cache) == 2
    cache.vectors(read, [b, c])
    assert len(read.asked) == 1
    cache.vectors(read, [a])
    assert read.asked[-1] == [a.id]


def test_recall_through_the_cache_returns_the_same_snippets(tmp_path: Path) -> None:
    store, embedder = ingested(tmp_path, [long_text(BOAT), long_text(FLASK)])
    request = RecallRequest(query="sailing boat Petrel marina", limit=5)
    cached = RecallPipeline(store, embedder)
    uncached = RecallPipeline(store, embedder, passages=PassageCache(size=0))
    first = cached.recall("b1", request)
    assert len(cached.passages) == 2
    second = cached.recall("b1", request)
    plain = uncached.recall("b1", request)
    assert len(uncached.passages) == 0
    shown = [(r.id, r.text, r.snippet) for r in first.results]
    assert shown == [(r.id, r.text, r.snippet) for r in second.results]
    assert shown == [(r.id, r.text, r.snippet) for r in plain.results]
    assert any(r.snippet and "Petrel" in r.text for r in first.results)
