"""Records decoded once per point version: the embedded store's searches reuse them, and a
write to a point (a new version) is always read afresh."""

import uuid
from pathlib import Path

import numpy as np
import pytest

from contracts.memory import State
from readmodel.store import DerivedPatch, Feedback, Filter, StoredPoint
from readmodel.stores.decoded import DecodedRecords
from readmodel.stores.edge import EdgeStore
from readmodel.text import document_vector, query_vector
from tests.helpers import T0, event
from worker.consolidation.consolidator import raw_memory

DIM = 4
BANK = "b"
TEXTS = (
    "Ana moved to Lisbon in spring.",
    "Ana adopted a cat named Miso.",
    "Ben works at the bakery on Elm Street.",
)


def points() -> list[StoredPoint]:
    out = []
    for i, text in enumerate(TEXTS):
        record = raw_memory(event(text, i, bank=BANK), T0)
        dense = np.array([1.0 if d == i else 0.1 for d in range(DIM)], dtype=np.float32)
        out.append(StoredPoint(record, dense, document_vector(text)))
    return out


@pytest.fixture
def store(tmp_path: Path) -> EdgeStore:
    s = EdgeStore(tmp_path)
    s.ensure_schema(DIM)
    s.upsert(points())
    yield s
    s.close()


def search(store: EdgeStore, query: str, dense_to: int = 0, limit: int = 10):
    dense = np.array([1.0 if d == dense_to else 0.0 for d in range(DIM)], dtype=np.float32)
    dense_hits, keyword_hits = store.search_hybrid(
        dense, query_vector(query), Filter(bank_id=BANK), limit
    )
    return {h.record.id: h for h in dense_hits}, {h.record.id: h for h in keyword_hits}


def test_an_entry_answers_only_for_its_version() -> None:
    decoded, record = DecodedRecords(), points()[0].record
    decoded.put(record.id, 7, (record, None))
    assert decoded.get(record.id, 7) == (record, None)
    assert decoded.get(record.id, 8) is None
    assert decoded.get(uuid.uuid4(), 7) is None


def test_the_oldest_entry_goes_first_and_size_zero_keeps_none() -> None:
    decoded, records = DecodedRecords(size=2), [p.record for p in points()]
    for version, r in enumerate(records):
        decoded.put(r.id, version, (r, None))
    assert len(decoded) == 2
    assert decoded.get(records[0].id, 0) is None
    assert decoded.get(records[2].id, 2) == (records[2], None)
    off = DecodedRecords(size=0)
    off.put(records[0].id, 0, (records[0], None))
    assert len(off) == 0


def test_a_point_read_again_at_its_version_is_not_decoded_again(store: EdgeStore) -> None:
    first_dense, first_keyword = search(store, "Ana cat Miso bakery")
    again_dense, again_keyword = search(store, "Ana cat Miso bakery")
    assert first_dense and first_keyword
    for rid, h in again_dense.items():
        assert h.record is first_dense[rid].record
        assert h.stats is first_dense[rid].stats
    for rid, h in again_keyword.items():
        assert h.record is first_keyword[rid].record


def test_a_keyword_hit_the_dense_half_missed_is_reused_too(store: EdgeStore) -> None:
    _, first = search(store, "bakery Elm Street", limit=1)
    _, again = search(store, "bakery Elm Street", limit=1)
    (rid,) = first
    assert rid == points()[2].record.id
    assert again[rid].record is first[rid].record


def test_a_write_to_a_point_is_read_afresh(store: EdgeStore) -> None:
    ana = points()[0].record
    before, _ = search(store, "Ana Lisbon")
    assert before[ana.id].record.votes_up == 0
    store.set_feedback(BANK, ana.id, Feedback(votes_up=3))
    dense, keyword = search(store, "Ana Lisbon")
    assert dense[ana.id].record.votes_up == 3
    assert keyword[ana.id].record.votes_up == 3
    other = points()[1].record.id
    patch = DerivedPatch(ana.id, State.SUPERSEDED, other, None, None, True)
    store.set_derived(BANK, [patch])
    dense, keyword = search(store, "Ana Lisbon")
    assert dense[ana.id].record.superseded_by == other
    assert keyword[ana.id].record.state is State.SUPERSEDED


def test_access_times_are_merged_into_reused_records(store: EdgeStore) -> None:
    ana = points()[0].record
    search(store, "Ana Lisbon")
    at = T0.replace(year=T0.year + 1)
    store.touch(BANK, [ana.id], at)
    dense, keyword = search(store, "Ana Lisbon")
    assert dense[ana.id].record.last_accessed_at == at
    assert keyword[ana.id].record.last_accessed_at == at


def test_a_fetch_reuses_records_keeps_the_order_asked_and_reads_writes(
    store: EdgeStore,
) -> None:
    ids = [p.record.id for p in reversed(points())]
    first = store.fetch(BANK, [*ids, uuid.uuid4()])
    assert [p.record.id for p in first] == ids
    again = store.fetch(BANK, ids)
    assert all(a.record is f.record for a, f in zip(again, first, strict=True))
    store.set_feedback(BANK, ids[0], Feedback(votes_up=2))
    fresh = store.fetch(BANK, ids)
    assert fresh[0].record.votes_up == 2
    assert fresh[1].record is first[1].record
    assert store.fetch("another bank", ids) == []


def test_a_fetch_with_vectors_reads_them(store: EdgeStore) -> None:
    ids = [p.record.id for p in points()]
    store.fetch(BANK, ids)
    with_vectors = store.fetch(BANK, ids, with_vectors=True)
    assert all(p.dense.shape == (DIM,) for p in with_vectors)


class DeletesBeforeReading(EdgeStore):
    """A store whose point `doomed` is deleted between a search and its read by id."""

    doomed: uuid.UUID | None = None

    def _read(self, bank_id, ids, with_vectors=False):  # type: ignore[no-untyped-def]
        if self.doomed is not None and self.doomed in ids:
            self.delete(bank_id, [self.doomed])
            self.doomed = None
        return super()._read(bank_id, ids, with_vectors)


def test_a_point_deleted_after_the_search_is_not_a_hit(tmp_path: Path) -> None:
    store = DeletesBeforeReading(tmp_path)
    store.ensure_schema(DIM)
    store.upsert(points())
    ana = points()[0].record.id
    store.doomed = ana
    dense, keyword = search(store, "Ana Lisbon")
    assert ana not in dense and ana not in keyword
    assert dense and keyword
    store.close()
