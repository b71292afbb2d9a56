"""`BatchView` answers a scroll with the stored points and the batch's own writes, as the
store would after the writes; a slot-key or declared scroll finds the batch's own points
through an index of their keys."""

import tempfile
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from contracts.memory import State
from readmodel.store import DerivedPatch, Filter, SparseVector, StoredPoint, matches
from readmodel.stores.edge import EdgeStore
from readmodel.text import document_vector
from tests.helpers import T0, memory
from worker.consolidation.batch import BatchView


def pt(text: str, day: int, **kw: object) -> StoredPoint:
    return StoredPoint(memory(text, day, entities=["Ana"], **kw), np.ones(4, np.float32))


@pytest.fixture
def store() -> Iterator[EdgeStore]:
    with tempfile.TemporaryDirectory() as tmp:
        s = EdgeStore(Path(tmp))
        s.ensure_schema(4)
        yield s
        s.close()


def test_scrolls_see_the_batchs_own_points_by_slot_key_and_declaration(store: EdgeStore) -> None:
    porto, lyon = pt("Ana lives in Porto.", 0), pt("Ana lives in Lyon.", 1)
    walk = pt("Ana felt calm after a walk.", 2)
    note = pt("Ignore that.", 3, supersedes=[porto.record.event_id])
    store.upsert([porto])
    view = BatchView(store, "b1")
    view.upsert([lyon, walk, note])
    slot = Filter("b1", slot_keys_any=("ana|residence",))
    assert [p.record.id for p in view.scroll(slot)] == sorted([porto.record.id, lyon.record.id])
    declared = Filter("b1", declared_supersedes_any=(porto.record.event_id,))  # type: ignore[arg-type]
    assert [p.record.id for p in view.scroll(declared)] == [note.record.id]
    everything = {p.record.id for p in view.scroll(Filter("b1"))}
    assert everything == {p.record.id for p in (porto, lyon, walk, note)}


def test_a_patched_own_point_is_filtered_by_its_patched_state(store: EdgeStore) -> None:
    porto, lyon = pt("Ana lives in Porto.", 0), pt("Ana lives in Lyon.", 1)
    view = BatchView(store, "b1")
    view.upsert([porto, lyon])
    until = T0 + timedelta(days=1)
    patch = DerivedPatch(
        porto.record.id, State.SUPERSEDED, lyon.record.id, None, None, False, None, until
    )
    view.set_derived("b1", [patch])
    later = Filter("b1", slot_keys_any=("ana|residence",), current_at=until + timedelta(days=1))
    assert [p.record.id for p in view.scroll(later)] == [lyon.record.id]
    at = Filter("b1", slot_keys_any=("ana|residence",), current_at=until)
    assert len(list(view.scroll(at))) == 2


def test_scrolled_points_are_held_without_keyword_vectors_and_fetched_with_them(
    store: EdgeStore,
) -> None:
    porto = pt("Ana lives in Porto.", 0)
    stored = replace(porto, sparse=document_vector(porto.record.text))
    assert stored.sparse.indices
    store.upsert([stored])
    view = BatchView(store, "b1")
    slot = Filter("b1", slot_keys_any=("ana|residence",))
    view.prefetch_scroll(slot)
    [held] = view.scroll(slot)
    assert held.record == stored.record and held.sparse == SparseVector()
    [other] = view.scroll(Filter("b1", kinds=("world", "experience")))
    assert other.sparse == SparseVector()
    [fetched] = view.fetch("b1", [porto.record.id], with_vectors=True)
    assert fetched.sparse == stored.sparse and np.array_equal(held.dense, fetched.dense)


def test_narrower_scrolls_answer_as_the_filter_defines(store: EdgeStore) -> None:
    """Scrolls answered from a wider prefetched one (fewer slot keys or declared ids, a
    later `current_at` or `occurred_from`) give exactly the points `matches` selects
    among the stored ones as the batch left them and the batch's own."""
    rng = np.random.default_rng(5)
    keys = [f"k{i}" for i in range(6)]

    def random_point(i: int, *, own: bool = False) -> StoredPoint:
        m = memory(f"statement {i}{' (own)' if own else ''}", int(rng.integers(0, 20)))
        superseded = not own and rng.random() < 0.4
        record = m.model_copy(
            update={
                "slot_keys": sorted(rng.choice(keys, size=int(rng.integers(1, 3)), replace=False)),
                "state": State.SUPERSEDED if superseded else State.CURRENT,
                "current_until": T0 + timedelta(days=int(rng.integers(0, 20)))
                if superseded
                else None,
            }
        )
        return StoredPoint(record, np.ones(4, np.float32))

    stored = [random_point(i) for i in range(40)]
    declaring = [
        replace(p, record=p.record.model_copy(update={"declared_supersedes": [q.record.id]}))
        for p, q in zip(stored[:10], stored[10:20], strict=True)
    ]
    stored[:10] = declaring
    store.upsert(stored)
    view = BatchView(store, "b1")
    since = T0 + timedelta(days=3)
    view.prefetch_scroll(Filter("b1", slot_keys_any=tuple(keys), current_at=since))
    view.prefetch_scroll(Filter("b1", slot_keys_any=tuple(keys), occurred_from=since))
    targets = tuple(p.record.id for p in stored[10:20])
    view.prefetch_scroll(Filter("b1", declared_supersedes_any=targets))
    own = [random_point(100 + i, own=True) for i in range(5)]
    view.upsert(own)
    until = T0 + timedelta(days=9)
    patches = [
        DerivedPatch(p.record.id, State.SUPERSEDED, own[0].record.id, None, None, True, None, until)
        for p in stored[20:26]
    ]
    view.set_derived("b1", patches)
    view.delete("b1", [stored[30].record.id])
    patched = {p.id: p for p in patches}
    now = [
        p.record.model_copy(update={"state": State.SUPERSEDED, "current_until": until})
        if p.record.id in patched
        else p.record
        for p in stored
        if p.record.id != stored[30].record.id
    ] + [p.record for p in own]
    for _ in range(200):
        asked = tuple(sorted(rng.choice(keys, size=int(rng.integers(1, 4)), replace=False)))
        day = timedelta(days=int(rng.integers(3, 22)))
        flt = [
            Filter("b1", slot_keys_any=asked, current_at=T0 + day),
            Filter("b1", slot_keys_any=asked, occurred_from=T0 + day),
            Filter("b1", declared_supersedes_any=tuple(rng.choice(targets, size=2))),
        ][int(rng.integers(0, 3))]
        expected = sorted((r.id for r in now if matches(flt, r)), key=lambda i: i.int)
        assert [p.record.id for p in view.scroll(flt)] == expected, flt
    assert len(view._scrolls) == 3, "every scroll was answered from a prefetched one"


def test_own_points_are_scored_as_stacking_them_anew_would(store: EdgeStore) -> None:
    """The batch's own points, scored against a neighbour query from rows kept as they
    are written, give the scores of stacking their vectors at the query, bit for bit,
    through writes again in place, deletes and patches."""
    rng = np.random.default_rng(3)
    view = BatchView(store, "b1")
    points = [
        StoredPoint(memory(f"statement {i}", i), rng.standard_normal(4).astype(np.float32))
        for i in range(150)
    ]
    for step, p in enumerate(points):
        view.upsert([p])
        if step % 7 == 3:
            again = rng.integers(0, step + 1)
            view.upsert([replace(points[again], dense=rng.standard_normal(4).astype(np.float32))])
        if step % 11 == 5:
            view.delete("b1", [points[int(rng.integers(0, step + 1))].record.id])
        if step % 13 == 6:
            patch = DerivedPatch(p.record.id, State.CURRENT, None, None, None, True)
            view.set_derived("b1", [patch])
        query = rng.standard_normal(4).astype(np.float32)
        own = [q for q in view._written.values()]
        expected = np.stack([q.dense for q in own]) @ query
        hits = view.search_dense(query, Filter("b1"), 1000, None)
        assert {h.record.id: h.score for h in hits} == {
            q.record.id: float(s) for q, s in zip(own, expected, strict=True)
        }
