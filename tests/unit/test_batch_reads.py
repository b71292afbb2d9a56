"""What a batch reads by id: a neighbour query brings points without their keyword
vectors, so a fetch that asks for vectors reads such a point again, and an observation
keeps the keyword vector of the member it takes its vectors from."""

import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, StoredPoint
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import event, mid
from worker.consolidation.batch import BatchView
from worker.consolidation.consolidator import Consolidator, consolidate

EMB = HashEmbedder(64)
TEXT = "Alice loves hiking in the Alps."


class CountingStore(EdgeStore):
    """An Edge store that records the ids of each fetch."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.fetched: list[list[uuid.UUID]] = []

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        self.fetched.append(list(ids))
        return super().fetch(bank_id, ids, with_vectors)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[CountingStore]:
    s = CountingStore(tmp_path)
    s.ensure_schema(EMB.dimension)
    yield s
    s.close()


def observation_point(store: EdgeStore) -> StoredPoint:
    (point,) = store.scroll(Filter("b1", kinds=("observation",)), with_vectors=True)
    return point


def test_an_observation_takes_the_keyword_vector_of_a_stored_latest_member(
    store: CountingStore,
) -> None:
    """The later restatement is stored first; the earlier one arrives after it and finds
    it as a neighbour. The observation takes its vectors from the latest member, the
    stored one, which a neighbour query brings without its keyword vector."""
    later, earlier = event(TEXT, 5), event(TEXT, 2)
    deps = Consolidator(store, EMB, NoLocks())
    consolidate([later], deps)
    consolidate([earlier], deps)
    (source,) = store.fetch("b1", [mid(later)], with_vectors=True)
    obs = observation_point(store)
    assert set(obs.record.source_memory_ids) == {mid(later), mid(earlier)}  # type: ignore[union-attr]
    assert source.sparse.indices
    assert obs.sparse == source.sparse
    assert np.array_equal(obs.dense, source.dense)


def test_a_neighbour_is_read_again_only_when_its_vectors_are_asked_for(
    store: CountingStore,
) -> None:
    first, second = event(TEXT, 1), event(TEXT, 2)
    consolidate([first, second], Consolidator(store, EMB, NoLocks()))
    (held,) = store.fetch("b1", [mid(first)], with_vectors=True)
    view = BatchView(store, "b1")
    view.prefetch_neighbours([(held.dense, Filter("b1", ids=(mid(first),)))], 5, None)
    store.fetched.clear()
    (plain,) = view.fetch("b1", [mid(first)])
    assert plain.record == held.record and store.fetched == []
    found = view.fetch("b1", [mid(first), mid(second)], with_vectors=True)
    assert store.fetched == [[mid(first), mid(second)]]
    assert [p.sparse for p in found] == [
        p.sparse for p in store.fetch("b1", [mid(first), mid(second)], with_vectors=True)
    ]
    assert all(p.sparse.indices for p in found)
    store.fetched.clear()
    view.fetch("b1", [mid(first), mid(second)], with_vectors=True)
    assert store.fetched == []
