"""The `MemoryStore` contract: every adapter must pass every test here.

Filter semantics are checked against a plain-Python reference (`reference_match`), so
the adapters are held to one meaning of `Filter` rather than to each other.
"""

import itertools
import math
import os
import random
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import fakeredis
import numpy as np
import pytest

from contracts.memory import Memory, Observation, Relation, State
from readmodel.store import (
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    MemoryStore,
    Rebuilding,
    Record,
    SparseVector,
    StoredPoint,
    matches,
    tagset_of,
)
from readmodel.stores.edge import EdgeStore
from readmodel.stores.metered import MeteredStore
from readmodel.stores.payload import DenseSizeMismatchError
from readmodel.stores.qdrant import QdrantStore
from telemetry.redis_series import RedisMetrics

DIM = 8
BANK = "bank-a"
OTHER = "bank-b"
BASE = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
NS = uuid.UUID("0b7f3a52-54b4-4d3e-8a53-3c2a1f0e9d11")
KINDS = ("edge", "qdrant-local", "metered")
NO_KEYWORDS = SparseVector()
TAG_CYCLE: tuple[tuple[str, ...], ...] = ((), ("a",), ("a", "b"), ("b",), ("b", "a"), ("c",))

Opener = Callable[[], MemoryStore]


def open_store(kind: str, root: Path) -> MemoryStore:
    if kind == "edge":
        return EdgeStore(root / "edge")
    if kind == "metered":
        return MeteredStore(EdgeStore(root / "metered"), RedisMetrics(fakeredis.FakeRedis(), 600))
    return QdrantStore(path=root / "qdrant", collection="contract")


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def reopen(kind: str, tmp_path: Path) -> Opener:
    return lambda: open_store(kind, tmp_path)


@pytest.fixture
def store(reopen: Opener) -> Iterator[MemoryStore]:
    s = reopen()
    s.ensure_schema(DIM)
    yield s
    s.close()


def mid(bank: str, i: int) -> uuid.UUID:
    return uuid.uuid5(NS, f"{bank}/{i}")


def unit(seed: int, dim: int = DIM) -> tuple[float, ...]:
    v = np.random.default_rng(seed).standard_normal(dim)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def memory(bank: str, i: int, **fields: object) -> Memory:
    base: dict[str, object] = {
        "id": mid(bank, i),
        "bank_id": bank,
        "kind": "world",
        "text": f"memory {i} of {bank}",
        "occurred_at": BASE + timedelta(days=i),
        "created_at": BASE,
    }
    return Memory.model_validate(base | fields)


def observation(bank: str, i: int, **fields: object) -> Observation:
    base: dict[str, object] = {
        "id": mid(bank, i),
        "bank_id": bank,
        "text": f"observation {i}",
        "occurred_at": BASE + timedelta(days=i),
        "created_at": BASE,
        "source_memory_ids": [mid(bank, 900), mid(bank, 901)],
        "proof_count": 2,
        "first_occurred_at": BASE,
        "last_occurred_at": BASE + timedelta(days=i),
        "version": 3,
    }
    return Observation.model_validate(base | fields)


def point(record: Record, seed: int, sparse: SparseVector = NO_KEYWORDS) -> StoredPoint:
    return StoredPoint(record=record, dense=unit(seed), sparse=sparse)


def corpus_record(bank: str, i: int) -> Record:
    """Sixteen-odd records whose attributes vary with `i`, identical in shape per bank."""
    fields: dict[str, object] = {
        "tags": list(TAG_CYCLE[i % len(TAG_CYCLE)]),
        "key": None if i % 5 == 0 else f"k{i % 4}",
        "declared_supersedes": [mid(bank, i - 1)] if i % 2 == 0 and i > 0 else [],
        "state": State.SUPERSEDED if i % 4 == 3 else State.CURRENT,
        "superseded_by": mid(bank, i + 1) if i % 4 == 3 else None,
        "current_until": BASE + timedelta(days=i + 1) if i % 4 == 3 else None,
        "observation_id": mid(bank, 100 + i % 2) if i % 3 == 0 else None,
        "slot_keys": [f"p{i % 3}|home", f"p{i % 3}|"] if i % 2 == 1 else [],
        "entities": [["Ana"], ["ben", "Cleo"], [], ["ANA", "dev"]][i % 4],
        "expires_at": BASE + timedelta(days=i, hours=12) if i % 4 in (1, 2) else None,
    }
    if i % 5 == 1:
        fields["text"] = f"Always give amounts in euros when I ask about budget {i}."
    if i % 3 == 2:
        return observation(bank, i, **fields)
    return memory(bank, i, kind="experience" if i % 3 == 1 else "world", **fields)


CORPUS_SIZE = 16


def load_corpus(store: MemoryStore) -> dict[uuid.UUID, Record]:
    for bank, offset in ((BANK, 0), (OTHER, 1000)):
        store.upsert([point(corpus_record(bank, i), offset + i) for i in range(CORPUS_SIZE)])
    return {r.id: r for r in (corpus_record(BANK, i) for i in range(CORPUS_SIZE))}


def reference_match(r: Record, f: Filter) -> bool:
    return matches(f, r)


FILTER_CASES: dict[str, Filter] = {
    "bank only": Filter(BANK),
    "ids": Filter(BANK, ids=(mid(BANK, 1), mid(BANK, 4), mid(OTHER, 2))),
    "kinds": Filter(BANK, kinds=("experience", "observation")),
    "tags_any": Filter(BANK, tags_any=("b", "c")),
    "tags_all": Filter(BANK, tags_all=("a", "b")),
    "tagset": Filter(BANK, tagset=tagset_of(["b", "a"])),
    "tagset empty": Filter(BANK, tagset=tagset_of([])),
    "state": Filter(BANK, state=State.SUPERSEDED),
    "key": Filter(BANK, key="k1"),
    "occurred_from": Filter(BANK, occurred_from=BASE + timedelta(days=5)),
    "occurred_to": Filter(BANK, occurred_to=BASE + timedelta(days=5)),
    "occurred window": Filter(
        BANK,
        occurred_from=(BASE + timedelta(days=3)).astimezone(timezone(timedelta(hours=2))),
        occurred_to=BASE + timedelta(days=7),
    ),
    "declared_supersedes_any": Filter(
        BANK, declared_supersedes_any=(mid(BANK, 3), mid(BANK, 9), mid(OTHER, 5))
    ),
    "slot_keys_any": Filter(BANK, slot_keys_any=("p1|home", "p2|", "absent|")),
    "superseded_by": Filter(BANK, superseded_by=mid(BANK, 8)),
    "observation_ids": Filter(BANK, observation_ids=(mid(BANK, 100),)),
    "combined": Filter(BANK, kinds=("world", "experience"), tags_any=("a",), state=State.CURRENT),
    "live_at": Filter(BANK, live_at=BASE + timedelta(days=6)),
    "expired_at": Filter(BANK, expired_at=BASE + timedelta(days=6)),
    "live and expired": Filter(
        BANK, live_at=BASE + timedelta(days=2), expired_at=BASE + timedelta(days=10)
    ),
    "live_at, kinds": Filter(BANK, kinds=("observation",), live_at=BASE + timedelta(days=7)),
    "current_at": Filter(BANK, current_at=BASE + timedelta(days=8)),
    "current_at, at a current_until": Filter(BANK, current_at=BASE + timedelta(days=12)),
    "current_at, a microsecond later": Filter(
        BANK, current_at=BASE + timedelta(days=12, microseconds=1)
    ),
    "current_at, slot keys": Filter(
        BANK, slot_keys_any=("p0|home", "p1|home", "p2|home"), current_at=BASE
    ),
    "entities_shared": Filter(BANK, entities_shared=("ana",)),
    "entities_shared, two": Filter(BANK, entities_shared=("Cleo", "Dev")),
    "entities_shared, unknown": Filter(BANK, entities_shared=("Zoe",)),
    "instructions": Filter(BANK, instructions=True),
    "instructions, kinds": Filter(BANK, instructions=True, kinds=("world", "observation")),
    "no match": Filter(BANK, key="absent"),
}


def test_ensure_schema_is_idempotent(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 1), 1)])
    store.ensure_schema(DIM)
    store.ensure_schema(DIM)
    assert store.count(Filter(BANK)) == 1


def test_the_layout_is_unrecorded_until_marked_and_kept_across_reopen(
    store: MemoryStore, reopen: Opener
) -> None:
    assert store.layout() is None
    store.mark_layout(2)
    store.upsert([point(memory(BANK, 1), 1)])
    assert store.layout() == 2
    store.close()
    again = reopen()
    try:
        again.ensure_schema(DIM)
        assert again.layout() == 2
        again.mark_layout(3)
        assert again.layout() == 3
        assert again.count(Filter(BANK)) == 1
    finally:
        again.close()


def test_a_rebuild_recorded_is_kept_across_reopen_until_cleared(
    store: MemoryStore, reopen: Opener
) -> None:
    assert store.rebuilding() is None
    store.mark_layout(4)
    store.mark_rebuilding(Rebuilding((BANK, OTHER), every_bank=True))
    store.close()
    again = reopen()
    try:
        again.ensure_schema(DIM)
        assert again.rebuilding() == Rebuilding((BANK, OTHER), every_bank=True)
        again.mark_rebuilding(None)
        assert again.rebuilding() is None
        assert again.layout() == 4
    finally:
        again.close()


def test_ensure_schema_rejects_another_dense_size(store: MemoryStore, reopen: Opener) -> None:
    with pytest.raises(DenseSizeMismatchError, match=rf"size {DIM}\b.*size {DIM * 2}\b"):
        store.ensure_schema(DIM * 2)
    store.close()
    again = reopen()
    try:
        with pytest.raises(DenseSizeMismatchError, match=rf"size {DIM}\b.*size {DIM * 2}\b"):
            again.ensure_schema(DIM * 2)
    finally:
        again.close()


def test_fetch_is_bank_scoped_and_skips_unknown_ids(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 1), 1), point(memory(OTHER, 2), 2)])
    got = store.fetch(BANK, [mid(BANK, 1), mid(OTHER, 2), mid(BANK, 99)])
    assert [p.record.id for p in got] == [mid(BANK, 1)]
    assert store.fetch(OTHER, [mid(BANK, 1)]) == []
    assert store.fetch(BANK, []) == []


def test_fetch_returns_vectors_when_asked(store: MemoryStore) -> None:
    sparse = SparseVector((3, 17, 40), (0.5, 1.0, 2.0))
    store.upsert([point(memory(BANK, 1), 1, sparse), point(memory(BANK, 2), 2)])
    with_v = {p.record.id: p for p in store.fetch(BANK, [mid(BANK, 1), mid(BANK, 2)], True)}
    assert with_v[mid(BANK, 1)].dense == pytest.approx(unit(1), abs=1e-6)
    assert isinstance(with_v[mid(BANK, 1)].dense, np.ndarray)
    assert with_v[mid(BANK, 1)].sparse == sparse
    assert with_v[mid(BANK, 2)].sparse == SparseVector()
    [without] = store.fetch(BANK, [mid(BANK, 1)])
    assert without.record == memory(BANK, 1)


def test_records_round_trip_with_every_field(store: MemoryStore) -> None:
    full = memory(
        BANK,
        1,
        kind="experience",
        mentioned_at=BASE - timedelta(hours=3),
        last_accessed_at=BASE + timedelta(minutes=5),
        entities=["alice", "paris"],
        tags=["travel", "work"],
        key="trip",
        importance=0.9,
        metadata={"source": "chat"},
        event_id=uuid.uuid4(),
        declared_supersedes=[mid(BANK, 0)],
        state=State.SUPERSEDED,
        superseded_by=mid(BANK, 2),
        relation=Relation.INVALIDATED_BY,
        current_until=BASE + timedelta(days=2, microseconds=7),
        observation_id=mid(BANK, 3),
        consolidated=True,
        expires_at=BASE + timedelta(days=30),
    )
    obs = observation(BANK, 2, tags=["travel"], expires_at=BASE + timedelta(days=3))
    store.upsert([point(full, 1), point(obs, 2)])
    got = {p.record.id: p.record for p in store.fetch(BANK, [full.id, obs.id])}
    assert got[full.id] == full
    assert isinstance(got[obs.id], Observation)
    assert got[obs.id] == obs
    assert got[obs.id].model_dump() == obs.model_dump()


def test_upsert_same_id_overwrites(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 1, text="old"), 1, SparseVector((1,), (1.0,)))])
    store.upsert([point(memory(BANK, 1, text="new"), 2, SparseVector((2,), (1.0,)))])
    assert store.count(Filter(BANK)) == 1
    [p] = store.fetch(BANK, [mid(BANK, 1)], with_vectors=True)
    assert p.record.text == "new"
    assert p.dense == pytest.approx(unit(2), abs=1e-6)
    assert p.sparse == SparseVector((2,), (1.0,))


def test_search_dense_ranks_by_cosine(store: MemoryStore) -> None:
    load_corpus(store)
    query = np.array(unit(777))
    expected = sorted(
        ((float(query @ np.array(unit(i))), mid(BANK, i)) for i in range(CORPUS_SIZE)),
        reverse=True,
    )
    hits = store.search_dense(tuple(query), Filter(BANK), limit=5)
    assert [h.record.id for h in hits] == [i for _, i in expected[:5]]
    assert [h.score for h in hits] == pytest.approx([s for s, _ in expected[:5]], abs=1e-5)
    assert all(h.dense is None for h in hits)
    threshold = expected[3][0] - 1e-4
    above = store.search_dense(tuple(query), Filter(BANK), limit=50, score_threshold=threshold)
    assert [h.record.id for h in above] == [i for _, i in expected[:4]]


def test_search_dense_batch_answers_each_query_as_search_dense_does(store: MemoryStore) -> None:
    """Each query under its own filter, as `search_dense` answers it alone; a point found
    by two queries is the same record in both."""
    load_corpus(store)
    store.upsert([point(memory(OTHER, 778), 778)])
    raw = Filter(BANK, kinds=("world", "experience"))
    queries = [
        (np.array(unit(777), dtype=np.float32), raw),
        (np.array(unit(778), dtype=np.float32), Filter(BANK, ids=(mid(BANK, 3), mid(BANK, 4)))),
        (np.array(unit(778), dtype=np.float32), Filter(OTHER)),
        (np.array(unit(3), dtype=np.float32), raw),
    ]
    batch = store.search_dense_batch(queries, limit=4, score_threshold=0.0, with_vectors=True)
    assert len(batch) == 4
    for (query, flt), hits in zip(queries, batch, strict=True):
        one = store.search_dense(query, flt, limit=4, score_threshold=0.0, with_vectors=True)
        assert [h.record.id for h in hits] == [h.record.id for h in one]
        assert [h.score for h in hits] == pytest.approx([h.score for h in one], abs=1e-6)
        assert all(h.dense is not None and h.dense.shape == (DIM,) for h in hits)
    assert {h.record.id for h in batch[1]} == {mid(BANK, 3), mid(BANK, 4)}
    assert batch[2][0].record.id == mid(OTHER, 778)
    assert {h.record.bank_id for h in batch[2]} == {OTHER}
    assert store.search_dense_batch([], limit=4) == []


def test_vector_reads_give_each_point_as_it_is_now(store: MemoryStore) -> None:
    """A neighbour search or a dense-only scroll with vectors, after a write, gives the
    written record (the adapters keep points read before at the versions they had),
    and each point's vector; a point deleted since is gone from both."""
    store.upsert([point(memory(BANK, i), i) for i in range(4)])
    scope = Filter(BANK)

    def searched() -> dict[uuid.UUID, Hit]:
        [hits] = store.search_dense_batch([(np.array(unit(0)), scope)], 10, None, True)
        return {h.record.id: h for h in hits}

    def scrolled() -> dict[uuid.UUID, StoredPoint]:
        return {p.record.id: p for p in store.scroll(scope, with_vectors=True, dense_only=True)}

    assert searched()[mid(BANK, 0)].record.superseded_by is None
    assert scrolled()[mid(BANK, 0)].record.superseded_by is None
    patch = DerivedPatch(
        mid(BANK, 0), State.SUPERSEDED, mid(BANK, 2), Relation.EVOLVED_INTO, None, True, "moved"
    )
    store.set_derived(BANK, [patch])
    store.upsert([point(memory(BANK, 1, text="memory 1, said again"), 11)])
    store.delete(BANK, [mid(BANK, 3)])
    for read in (searched(), scrolled()):
        assert read[mid(BANK, 0)].record.superseded_by == mid(BANK, 2)
        assert read[mid(BANK, 1)].record.text == "memory 1, said again"
        assert read[mid(BANK, 1)].dense == pytest.approx(unit(11), abs=1e-6)
        assert read[mid(BANK, 2)].dense == pytest.approx(unit(2), abs=1e-6)
        assert mid(BANK, 3) not in read
    [hit] = store.search_dense(unit(11), Filter(BANK, ids=(mid(BANK, 1),)), 1, None, True)
    assert hit.record.text == "memory 1, said again"
    [fetched] = store.fetch(BANK, [mid(BANK, 0)])
    assert fetched.record.state is State.SUPERSEDED


def test_dense_only_scroll_reads_every_point_in_id_order(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, i), i) for i in range(600)])
    store.upsert([point(memory(OTHER, i), i) for i in range(20)])
    dense = list(store.scroll(Filter(BANK), with_vectors=True, dense_only=True))
    assert [p.record.id for p in dense] == sorted(mid(BANK, i) for i in range(600))
    again = list(store.scroll(Filter(BANK), with_vectors=True, dense_only=True))
    assert [p.record for p in again] == [p.record for p in dense]
    for p in dense[:5]:
        i = next(j for j in range(600) if mid(BANK, j) == p.record.id)
        assert p.dense == pytest.approx(unit(i), abs=1e-6)


def test_search_dense_returns_vectors_when_asked(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 1), 1), point(memory(OTHER, 2), 1)])
    [hit] = store.search_dense(unit(1), Filter(BANK), limit=10, with_vectors=True)
    assert hit.record.id == mid(BANK, 1)
    assert hit.score == pytest.approx(1.0, abs=1e-5)
    assert hit.dense == pytest.approx(unit(1), abs=1e-6)


@pytest.mark.parametrize("case", list(FILTER_CASES))
def test_every_filter_field_is_honoured(store: MemoryStore, case: str) -> None:
    records = load_corpus(store)
    flt = FILTER_CASES[case]
    expected = sorted(i for i, r in records.items() if reference_match(r, flt))
    assert [p.record.id for p in store.scroll(flt)] == expected
    dense = list(store.scroll(flt, with_vectors=True, dense_only=True))
    assert [p.record for p in dense] == [records[i] for i in expected]
    assert store.count(flt) == len(expected)
    hits = store.search_dense(unit(5), flt, limit=100)
    assert sorted(h.record.id for h in hits) == expected
    if case != "no match":
        assert expected, "a filter case that matches nothing tests nothing"


def keyword_corpus(store: MemoryStore, bank: str, rare_docs: int = 1) -> None:
    common = [point(memory(bank, i), i, SparseVector((1,), (2.0,))) for i in range(rare_docs, 10)]
    rare = [point(memory(bank, i), i, SparseVector((2,), (1.0,))) for i in range(rare_docs)]
    store.upsert(common + rare)


def idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def test_search_keyword_weights_rare_terms_by_idf(store: MemoryStore) -> None:
    keyword_corpus(store, BANK)
    query = SparseVector((1, 2), (1.0, 1.0))
    hits = store.search_keyword(query, Filter(BANK), limit=10)
    assert hits[0].record.id == mid(BANK, 0)
    assert hits[0].score == pytest.approx(idf(10, 1), rel=1e-4)
    assert hits[1].score == pytest.approx(2.0 * idf(10, 9), rel=1e-4)
    assert len(hits) == 10
    assert len(store.search_keyword(query, Filter(BANK), limit=3)) == 3
    assert store.search_keyword(SparseVector(), Filter(BANK), limit=10) == []


def test_search_keyword_is_bank_scoped_including_idf(store: MemoryStore) -> None:
    keyword_corpus(store, BANK)
    query = SparseVector((1, 2), (1.0, 1.0))
    before = store.search_keyword(query, Filter(BANK), limit=10)
    keyword_corpus(store, OTHER, rare_docs=9)
    after = store.search_keyword(query, Filter(BANK), limit=10)
    assert {h.record.bank_id for h in after} == {BANK}
    assert [h.record.id for h in after] == [h.record.id for h in before]
    assert [h.score for h in after] == pytest.approx([h.score for h in before], rel=1e-5)
    one = store.search_keyword(query, Filter(BANK, ids=(mid(BANK, 3),)), limit=10)
    assert [h.record.id for h in one] == [mid(BANK, 3)]


def test_search_hybrid_is_dense_and_keyword_search_in_one_call(store: MemoryStore) -> None:
    keyword_corpus(store, BANK)
    keyword_corpus(store, OTHER, rare_docs=9)
    query = SparseVector((1, 2), (1.0, 1.0))
    flt = Filter(BANK, ids=tuple(mid(BANK, i) for i in range(8)))
    dense, keyword = store.search_hybrid(unit(3), query, flt, 5)
    same_hits(dense, store.search_dense(unit(3), flt, 5))
    same_hits(keyword, store.search_keyword(query, flt, 5))
    assert len(dense) == len(keyword) == 5
    assert {h.record.bank_id for h in dense + keyword} == {BANK}
    only_dense, none = store.search_hybrid(unit(3), SparseVector(), Filter(BANK), 4)
    assert none == []
    same_hits(only_dense, store.search_dense(unit(3), Filter(BANK), 4))


def test_keyword_ties_at_the_cut_are_broken_by_id(store: MemoryStore) -> None:
    """Thirty memories with the same keyword score, and a cut inside them: the
    smallest ids are kept, in both keyword searches, whatever order the engine holds
    them in (an engine's own pick among tied hits differed between two stores holding
    the same points). Exact while the tied group ends within twice the depth."""
    tied = [memory(BANK, i) for i in range(30)]
    rng = random.Random(5)
    rng.shuffle(tied)
    for i in range(0, len(tied), 10):
        batch = tied[i : i + 10]
        store.upsert(
            [point(r, j, SparseVector((7, 100 + j % 3), (1.0, 1.0))) for j, r in enumerate(batch)]
        )
    store.upsert([point(memory(BANK, 400), 400, SparseVector((7,), (2.0,)))])
    query = SparseVector((7,), (1.0,))
    smallest = sorted((r.id for r in tied), key=lambda i: i.int)
    expected = [mid(BANK, 400), *smallest[:19]]
    assert [h.record.id for h in store.search_keyword(query, Filter(BANK), 20)] == expected
    _, keyword = store.search_hybrid(unit(1), query, Filter(BANK), 20)
    assert [h.record.id for h in keyword] == expected
    assert all(h.record.text for h in keyword)
    assert len({h.score for h in keyword[1:]}) == 1


def same_hits(got: list[Hit], expected: list[Hit]) -> None:
    """Same records in the same order; scores equal up to the engine's float rounding."""
    assert [h.record for h in got] == [h.record for h in expected]
    assert [h.score for h in got] == pytest.approx([h.score for h in expected], rel=1e-6)


def patch_for(i: uuid.UUID, superseded_by: uuid.UUID | None) -> DerivedPatch:
    return DerivedPatch(
        id=i,
        state=State.SUPERSEDED if superseded_by else State.CURRENT,
        superseded_by=superseded_by,
        relation=Relation.EVOLVED_INTO if superseded_by else None,
        observation_id=mid(BANK, 50) if superseded_by else None,
        consolidated=True,
        current_until=BASE + timedelta(days=3) if superseded_by else None,
    )


def test_set_derived_overwrites_only_that_banks_existing_points(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 1), 1), point(memory(OTHER, 2), 2)])
    store.set_derived(
        BANK,
        [
            patch_for(mid(BANK, 1), mid(BANK, 9)),
            patch_for(mid(OTHER, 2), mid(BANK, 9)),
            patch_for(mid(BANK, 77), mid(BANK, 9)),
        ],
    )
    [patched] = store.fetch(BANK, [mid(BANK, 1)])
    assert patched.record == memory(
        BANK,
        1,
        state=State.SUPERSEDED,
        superseded_by=mid(BANK, 9),
        relation=Relation.EVOLVED_INTO,
        observation_id=mid(BANK, 50),
        consolidated=True,
        current_until=BASE + timedelta(days=3),
    )
    assert store.count(Filter(BANK, current_at=BASE + timedelta(days=3))) == 1
    assert store.count(Filter(BANK, current_at=BASE + timedelta(days=4))) == 0
    assert [p.record for p in store.fetch(OTHER, [mid(OTHER, 2)])] == [memory(OTHER, 2)]
    assert store.fetch(BANK, [mid(BANK, 77)]) == []
    assert store.info().points == 2
    store.set_derived(BANK, [patch_for(mid(BANK, 1), None)])
    [cleared] = store.fetch(BANK, [mid(BANK, 1)])
    assert cleared.record == memory(BANK, 1, consolidated=True)
    assert store.count(Filter(BANK, current_at=BASE + timedelta(days=4))) == 1
    assert store.count(Filter(BANK, superseded_by=mid(BANK, 9))) == 0


def test_delete_removes_only_that_banks_points(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, i), i) for i in range(3)] + [point(memory(OTHER, 0), 9)])
    store.delete(BANK, [mid(BANK, 0), mid(OTHER, 0), mid(BANK, 42)])
    store.delete(BANK, [])
    assert [p.record.id for p in store.scroll(Filter(BANK))] == sorted([mid(BANK, 1), mid(BANK, 2)])
    assert store.count(Filter(OTHER)) == 1


def test_scroll_pages_through_everything_in_id_order(store: MemoryStore) -> None:
    store.upsert(
        [point(memory(BANK, i, tags=["even"] if i % 2 == 0 else []), i) for i in range(600)]
    )
    store.upsert([point(memory(OTHER, i), i) for i in range(20)])
    everything = list(store.scroll(Filter(BANK)))
    assert [p.record.id for p in everything] == sorted(mid(BANK, i) for i in range(600))
    evens = [p.record.id for p in store.scroll(Filter(BANK, tags_all=("even",)), True)]
    assert evens == sorted(mid(BANK, i) for i in range(0, 600, 2))
    assert store.count(Filter(BANK)) == 600
    assert store.count(Filter(BANK, tags_any=("even",))) == 300
    [first] = store.scroll(Filter(BANK, ids=(mid(BANK, 7),)), with_vectors=True)
    assert first.dense == pytest.approx(unit(7), abs=1e-6)


def test_scroll_dense_only_reads_the_dense_vector_alone(store: MemoryStore) -> None:
    keywords = SparseVector((3, 7), (0.5, 1.5))
    store.upsert([point(memory(BANK, i), i, keywords) for i in range(3)])
    full = list(store.scroll(Filter(BANK), with_vectors=True))
    dense = list(store.scroll(Filter(BANK), with_vectors=True, dense_only=True))
    assert [p.record for p in dense] == [p.record for p in full]
    assert all(p.sparse.indices == (3, 7) for p in full)
    assert all(p.sparse == NO_KEYWORDS and p.passages is None for p in dense)
    for p in dense:
        i = [mid(BANK, j) for j in range(3)].index(p.record.id)
        assert p.dense == pytest.approx(unit(i), abs=1e-6)


def test_scroll_reads_each_point_as_it_is_now(store: MemoryStore) -> None:
    """A scroll after a write gives the written record, never one decoded before it
    (the adapters keep records decoded from equal payloads)."""
    store.upsert([point(memory(BANK, i), i) for i in range(3)])
    before = {p.record.id: p.record for p in store.scroll(Filter(BANK), True, True)}
    newer = mid(BANK, 2)
    patch = DerivedPatch(
        mid(BANK, 0), State.SUPERSEDED, newer, Relation.EVOLVED_INTO, None, True, "moved", BASE
    )
    store.set_derived(BANK, [patch])
    store.upsert([point(memory(BANK, 1, text="memory 1, said again"), 1)])
    after = {p.record.id: p.record for p in store.scroll(Filter(BANK), True, True)}
    assert after[mid(BANK, 0)].superseded_by == newer
    assert after[mid(BANK, 0)].state is State.SUPERSEDED
    assert after[mid(BANK, 1)].text == "memory 1, said again"
    assert after[mid(BANK, 2)] == before[mid(BANK, 2)]
    assert before[mid(BANK, 0)].superseded_by is None


def test_info_reports_engine_and_points(store: MemoryStore, kind: str) -> None:
    store.upsert([point(memory(BANK, i), i) for i in range(3)] + [point(memory(OTHER, 0), 9)])
    info = store.info()
    engines = {"edge": "qdrant-edge", "qdrant-local": "qdrant", "metered": "qdrant-edge"}
    assert info.engine == engines[kind]
    assert info.points == 4


def test_banks_lists_every_bank_with_records(store: MemoryStore) -> None:
    assert store.banks() == []
    store.upsert([point(memory(OTHER, 0), 1), point(memory(BANK, 0), 2), point(memory(BANK, 1), 3)])
    assert store.banks() == sorted([BANK, OTHER])
    store.delete(OTHER, [mid(OTHER, 0)])
    assert store.banks() == [BANK]


def test_data_survives_close_and_reopen(store: MemoryStore, reopen: Opener) -> None:
    records = load_corpus(store)
    store.set_derived(BANK, [patch_for(mid(BANK, 1), mid(BANK, 2))])
    store.close()
    again = reopen()
    try:
        again.ensure_schema(DIM)
        assert again.count(Filter(BANK)) == len(records)
        assert again.count(Filter(BANK, superseded_by=mid(BANK, 2))) == 1
    finally:
        again.close()


CHILD = """
import os, signal, sys, uuid
from datetime import datetime, timezone
from pathlib import Path
from contracts.memory import Memory, State
from readmodel.store import DerivedPatch, SparseVector, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.stores.qdrant import QdrantStore
from telemetry.metrics import NoopMetrics
from readmodel.stores.metered import MeteredStore

kind, root = sys.argv[1], Path(sys.argv[2])
if kind == "edge":
    store = EdgeStore(root / "edge")
elif kind == "metered":
    store = MeteredStore(EdgeStore(root / "metered"), NoopMetrics())
else:
    store = QdrantStore(path=root / "qdrant", collection="contract")
store.ensure_schema(4)
ns = uuid.UUID(int=7)
when = datetime(2024, 1, 1, tzinfo=timezone.utc)
pts = [
    StoredPoint(
        Memory(id=uuid.uuid5(ns, str(i)), bank_id="b", kind="world", text=f"t{i}",
               occurred_at=when, created_at=when),
        (1.0, float(i), 0.0, 0.5),
        SparseVector((i,), (1.0,)),
    )
    for i in range(50)
]
store.upsert(pts)
patch = DerivedPatch(uuid.uuid5(ns, "3"), State.SUPERSEDED, None, None, None, True)
store.set_derived("b", [patch])
store.delete("b", [uuid.uuid5(ns, "4")])
print("written", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_acknowledged_writes_survive_kill_9(kind: str, tmp_path: Path) -> None:
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), kind, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert child.stdout.strip() == "written"
    store = open_store(kind, tmp_path)
    try:
        store.ensure_schema(4)
        assert store.count(Filter("b")) == 49
        ns = uuid.UUID(int=7)
        assert store.count(Filter("b", state=State.SUPERSEDED)) == 1
        assert store.fetch("b", [uuid.uuid5(ns, "4")]) == []
        [p] = store.fetch("b", [uuid.uuid5(ns, "3")], with_vectors=True)
        assert p.record.consolidated and p.sparse == SparseVector((3,), (1.0,))
    finally:
        store.close()


def apply_script(store: MemoryStore) -> None:
    store.ensure_schema(DIM)
    load_corpus(store)
    store.upsert([point(memory(BANK, 100 + i, tags=["x"]), 5000 + i) for i in range(80)])
    store.set_derived(BANK, [patch_for(mid(BANK, 100 + i), mid(BANK, 1)) for i in range(0, 80, 7)])
    store.delete(BANK, [mid(BANK, 100 + i) for i in range(0, 80, 11)])


def test_adapters_agree(tmp_path: Path) -> None:
    stores = [open_store(k, tmp_path) for k in KINDS]
    try:
        for s in stores:
            apply_script(s)
        edge, *others = stores
        for flt, other in itertools.product(
            [*FILTER_CASES.values(), Filter(BANK, superseded_by=mid(BANK, 1))], others
        ):
            for seed in (11, 12):
                a = edge.search_dense(unit(seed), flt, limit=20)
                b = other.search_dense(unit(seed), flt, limit=20)
                assert [h.record.id for h in a] == [h.record.id for h in b]
                assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-5)
            assert [p.record for p in edge.scroll(flt)] == [p.record for p in other.scroll(flt)]
            assert edge.count(flt) == other.count(flt)
        assert all(edge.info().points == other.info().points for other in others)
    finally:
        for s in stores:
            s.close()


def test_edge_checks_a_shard_that_has_no_size_record(tmp_path: Path) -> None:
    """A shard restored from an Edge snapshot arrives without our `store.json`."""
    first = EdgeStore(tmp_path)
    first.ensure_schema(DIM)
    first.upsert([point(memory(BANK, 1), 1)])
    first.close()
    (tmp_path / "store.json").unlink()
    restored = EdgeStore(tmp_path)
    try:
        with pytest.raises(DenseSizeMismatchError, match=rf"size {DIM * 2}"):
            restored.ensure_schema(DIM * 2)
        restored.ensure_schema(DIM)
        assert restored.count(Filter(BANK)) == 1
        assert restored.info().details["dense_size"] == str(DIM)
    finally:
        restored.close()


def test_feedback_and_touch_are_bank_scoped(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 0), 1), point(memory(OTHER, 0), 2)])
    store.set_feedback(BANK, mid(BANK, 0), Feedback(votes_up=2, votes_down=1, not_useful=3))
    store.set_feedback(BANK, mid(OTHER, 0), Feedback(votes_up=3))
    at = BASE + timedelta(days=3)
    store.touch(BANK, [mid(BANK, 0), mid(OTHER, 0)], at)
    [mine] = store.fetch(BANK, [mid(BANK, 0)])
    [theirs] = store.fetch(OTHER, [mid(OTHER, 0)])
    assert (mine.record.votes_up, mine.record.votes_down, mine.record.not_useful) == (2, 1, 3)
    assert mine.record.last_accessed_at == at
    assert theirs.record.votes_up == 0 and theirs.record.last_accessed_at is None
    store.set_feedback(BANK, uuid.uuid4(), Feedback(votes_up=1))
    assert store.count(Filter(BANK)) == 1


def test_last_access_reads_back_from_every_read_and_survives_reopen(
    store: MemoryStore, reopen: Opener
) -> None:
    """However a store keeps last access, every read shows it, and a point's own later
    time (carried by an upsert, as a rebuilt observation's is) wins."""
    sparse = SparseVector(indices=(3,), values=(1.0,))
    store.upsert([point(memory(BANK, i), i, sparse) for i in range(3)])
    store.upsert([point(memory(OTHER, 0), 0, sparse)])
    late = BASE + timedelta(days=3)
    store.touch(BANK, [mid(BANK, 0)], BASE + timedelta(days=1))
    store.touch(BANK, [mid(BANK, 0), mid(BANK, 1)], late)
    store.touch(BANK, [mid(OTHER, 0)], late)
    carried = memory(BANK, 2, last_accessed_at=BASE + timedelta(days=9))
    store.touch(BANK, [mid(BANK, 2)], late)
    store.upsert([point(carried, 2, sparse)])
    want = {mid(BANK, 0): late, mid(BANK, 1): late, mid(BANK, 2): carried.last_accessed_at}

    def seen(records: Iterable[Record]) -> dict[uuid.UUID, datetime | None]:
        return {r.id: r.last_accessed_at for r in records}

    flt = Filter(BANK)
    assert seen(p.record for p in store.fetch(BANK, list(want))) == want
    assert seen(h.record for h in store.search_dense(unit(0), flt, 10)) == want
    [batched] = store.search_dense_batch([(np.asarray(unit(0)), flt)], 10)
    assert seen(h.record for h in batched) == want
    assert seen(h.record for h in store.search_keyword(sparse, flt, 10)) == want
    dense, keyword = store.search_hybrid(unit(0), sparse, flt, 10)
    assert seen(h.record for h in dense) == seen(h.record for h in keyword) == want
    assert seen(p.record for p in store.scroll(flt)) == want
    [theirs] = store.fetch(OTHER, [mid(OTHER, 0)])
    assert theirs.record.last_accessed_at is None
    store.close()
    again = reopen()
    try:
        again.ensure_schema(DIM)
        assert seen(p.record for p in again.scroll(flt)) == want
    finally:
        again.close()


def test_a_forgotten_point_written_again_has_no_last_access(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, 0), 0)])
    store.touch(BANK, [mid(BANK, 0)], BASE + timedelta(days=2))
    store.delete(BANK, [mid(BANK, 0)])
    store.upsert([point(memory(BANK, 0), 0)])
    [again] = store.fetch(BANK, [mid(BANK, 0)])
    assert again.record.last_accessed_at is None


def test_mark_consolidated_sets_only_that_banks_done_markers(store: MemoryStore) -> None:
    superseded = memory(
        BANK, 1, state=State.SUPERSEDED, superseded_by=mid(BANK, 2), relation=Relation.EVOLVED_INTO
    )
    store.upsert([point(superseded, 1), point(memory(BANK, 2), 2), point(memory(OTHER, 3), 3)])
    store.mark_consolidated(BANK, [mid(BANK, 1), mid(OTHER, 3), mid(BANK, 77)])
    got = {p.record.id: p.record for p in store.fetch(BANK, [mid(BANK, 1), mid(BANK, 2)])}
    assert got[mid(BANK, 1)] == superseded.model_copy(update={"consolidated": True})
    assert got[mid(BANK, 2)] == memory(BANK, 2)
    assert [p.record for p in store.fetch(OTHER, [mid(OTHER, 3)])] == [memory(OTHER, 3)]
    assert store.fetch(BANK, [mid(BANK, 77)]) == []
    store.mark_consolidated(BANK, [])
    assert store.info().points == 3


def test_set_derived_applies_many_patches_and_the_last_of_an_id_wins(store: MemoryStore) -> None:
    store.upsert([point(memory(BANK, i), i) for i in range(6)])
    head = mid(BANK, 5)
    patches = [
        DerivedPatch(mid(BANK, i), State.SUPERSEDED, head, Relation.EVOLVED_INTO, None, True)
        for i in range(3)
    ]
    patches.append(DerivedPatch(mid(BANK, 3), State.CURRENT, None, None, None, True))
    patches.append(DerivedPatch(mid(BANK, 0), State.CURRENT, None, None, None, False))
    store.set_derived(BANK, patches)
    got = {p.record.id: p.record for p in store.fetch(BANK, [mid(BANK, i) for i in range(6)])}
    assert got[mid(BANK, 0)].state is State.CURRENT and not got[mid(BANK, 0)].consolidated
    assert all(got[mid(BANK, i)].superseded_by == head for i in (1, 2))
    assert got[mid(BANK, 3)].consolidated and not got[mid(BANK, 4)].consolidated
