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
from readmodel.store import DerivedPatch, Filter, SparseVector, StoredPoint
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
