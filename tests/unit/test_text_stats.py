"""What ranking reads of a text (its stems and token count) is stored with the memory
when it is written and read back with each hit; a memory stored without them is ranked
the same, from its text."""

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import qdrant_edge as qe

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.candidate import Candidate, replace, text_stats
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter, Hit, MemoryStore, SparseVector, TextStats, Vector
from readmodel.stores.edge import EdgeStore
from readmodel.stores.payload import (
    STEMS_FIELD,
    TOKENS_FIELD,
    from_payload,
    stored_stats,
    to_payload,
)
from readmodel.text import decode_stems, encode_stems, query_vector
from readmodel.text import text_stats as stats_of_text
from tests.helpers import edge_consolidator, event, ingested, memory
from worker.consolidation.consolidator import consolidate
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.rebuild import rebuild_bank

TEXTS = [
    "Melanie: We roasted marshmallows by the lake, it's Caroline's favourite!",
    "Caroline: Always include version numbers when I ask about libraries.",
    "Melanie: The lake trip was in July; the marshmallows burned. " + "filler words " * 80,
    "Caroline: I moved to Denver for the new job at the library.",
]


def test_the_stats_are_the_stems_of_every_word_and_the_whitespace_tokens() -> None:
    stats = stats_of_text("Melanie's cats were running, and running!")
    assert stats.stems == {"melani", "cat", "were", "run", "and"}
    assert stats.tokens == 6
    assert decode_stems(encode_stems(stats.stems)) == stats.stems
    assert stats_of_text("").stems == frozenset() and stats_of_text("").tokens == 0


def test_the_payload_holds_them_and_the_record_does_not() -> None:
    record = memory(TEXTS[0])
    payload = to_payload(record)
    assert isinstance(payload[STEMS_FIELD], str)
    assert stored_stats(payload) == stats_of_text(record.text)
    assert from_payload(payload) == record
    assert stored_stats({k: v for k, v in payload.items() if k != STEMS_FIELD}) is None
    assert stored_stats({k: v for k, v in payload.items() if k != TOKENS_FIELD}) is None


def test_a_candidate_reads_them_as_stored_or_from_its_text() -> None:
    record = memory(TEXTS[1])
    stored = TextStats(frozenset({"stored"}), 99)
    assert text_stats(Candidate(record, stats=stored)) == stored
    assert text_stats(Candidate(record)) == stats_of_text(record.text)


def test_a_record_of_another_text_drops_the_stored_stats() -> None:
    stored = TextStats(frozenset({"stored"}), 99)
    c = Candidate(memory(TEXTS[1]), stats=stored)
    assert replace(c, score=1.0).stats == stored
    assert replace(c, record=c.record.model_copy(update={"importance": 0.9})).stats == stored
    other = replace(c, record=memory(TEXTS[3]))
    assert other.stats is None
    assert text_stats(other) == stats_of_text(TEXTS[3])


def test_ingest_writes_them_and_every_hit_carries_them(tmp_path: Path) -> None:
    store, embedder = ingested(tmp_path, TEXTS)
    scope = Filter("b1", kinds=RAW_KINDS)
    points = list(store.scroll(scope))
    assert len(points) == len(TEXTS)
    assert all(p.stats == stats_of_text(p.record.text) for p in points)
    query = "marshmallows lake library"
    dense, keyword = store.search_hybrid(embedder.embed([query])[0], query_vector(query), scope, 10)
    assert dense and keyword
    assert all(h.stats == stats_of_text(h.record.text) for h in [*dense, *keyword])
    # keyword hits the dense half did not bring are read by id: they carry them too
    few, kw = store.search_hybrid(embedder.embed([query])[0], query_vector(query), scope, 1)
    assert {h.record.id for h in kw} - {h.record.id for h in few}
    assert all(h.stats == stats_of_text(h.record.text) for h in kw)


@dataclasses.dataclass
class WithoutStats:
    """The store as an older version wrote it: hits carry no stored stats."""

    store: MemoryStore

    def search_hybrid(
        self, dense: Vector, sparse: SparseVector, flt: Filter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        a, b = self.store.search_hybrid(dense, sparse, flt, limit)
        return _bare(a), _bare(b)

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)


def _bare(hits: Sequence[Hit]) -> list[Hit]:
    return [dataclasses.replace(h, stats=None) for h in hits]


def test_a_memory_without_them_ranks_the_same(tmp_path: Path) -> None:
    store, embedder = ingested(tmp_path, TEXTS)
    stored = RecallPipeline(store, embedder)
    bare = RecallPipeline(WithoutStats(store), embedder)  # type: ignore[arg-type]
    for query in ["marshmallows by the lake", "version numbers libraries", "Caroline Denver"]:
        request = RecallRequest(query=query, limit=4, explain=True)
        a, b = stored.recall("b1", request), bare.recall("b1", request)
        assert [(r.id, r.score, r.components) for r in a.results] == [
            (r.id, r.score, r.components) for r in b.results
        ]
        assert a.direct_answer == b.direct_answer


def test_rebuild_writes_them_for_a_memory_stored_without(tmp_path: Path) -> None:
    embedder = HashEmbedder(64)
    deps = edge_consolidator(tmp_path, embedder)
    consolidate([event(t, i) for i, t in enumerate(TEXTS)], deps)
    store = deps.store
    assert isinstance(store, EdgeStore)
    scope = Filter("b1", kinds=RAW_KINDS)
    ids = [str(p.record.id) for p in store.scroll(scope)]
    store._update(qe.UpdateOperation.delete_payload(ids, [STEMS_FIELD, TOKENS_FIELD]))
    assert all(p.stats is None for p in store.scroll(scope))
    rebuild_bank("b1", deps)
    after = list(store.scroll(scope))
    assert len(after) == len(TEXTS)
    assert all(p.stats == stats_of_text(p.record.text) for p in after)
