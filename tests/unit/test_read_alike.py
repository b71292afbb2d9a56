"""Statements read alike merge however far apart an embedder puts them: they meet by
their reading's key (`readmodel.reading.reading_key`), and the reading decides."""

from pathlib import Path

import numpy as np
import pytest

from contracts.memory import State
from readmodel.embedders.hashing import HashEmbedder
from readmodel.reading import read, reading_key
from readmodel.store import Filter
from tests.helpers import edge_consolidator, event
from worker.consolidation.consolidator import consolidate
from worker.consolidation.features import computed, stored_fields
from worker.consolidation.openkeys import open_keys, open_query_keys
from worker.consolidation.updates import slot_keys

EMB = HashEmbedder(64)
AT_SEVEN = ("Dinner is at 7 pm.", "Dinner is at seven in the evening.")


def _cosine(a: str, b: str) -> float:
    x, y = (np.asarray(v, dtype=float) for v in EMB.embed([a, b]))
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def test_the_key_is_the_reading_not_the_words() -> None:
    assert reading_key(read(AT_SEVEN[0])) == reading_key(read(AT_SEVEN[1])) is not None
    assert reading_key(read("Dinner is at 8 pm.")) != reading_key(read(AT_SEVEN[0]))
    assert reading_key(read("Dan works at Initech.")) != reading_key(
        read("Dan's wife works at Initech.")
    )
    talk = "We met. We ate. We talked. We walked. We left."  # a passage, not a statement
    assert not read(talk).readable and reading_key(read(talk)) is None


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_texts_read_alike_merge_whatever_their_closeness(
    tmp_path: Path, order: tuple[int, int]
) -> None:
    assert _cosine(*AT_SEVEN) < 0.5  # far below any threshold: only the key brings them
    cons = edge_consolidator(tmp_path, EMB)
    consolidate([event(AT_SEVEN[i], day) for day, i in enumerate(order)], cons)
    observations = list(cons.store.scroll(Filter("b1", kinds=("observation",))))
    assert len(observations) == 1
    raw = list(cons.store.scroll(Filter("b1", kinds=("world",))))
    assert {p.record.observation_id for p in raw} == {observations[0].record.id}


def test_texts_read_otherwise_stay_apart(tmp_path: Path) -> None:
    cons = edge_consolidator(tmp_path, EMB)
    consolidate([event("Dan works at Initech.", 0), event("Dan's wife works at Initech.", 1)], cons)
    raw = list(cons.store.scroll(Filter("b1", kinds=("world",))))
    assert len(raw) == 2
    assert all(p.record.observation_id is None for p in raw)
    assert all(p.record.state is State.CURRENT for p in raw)


def test_a_memory_stores_its_reading_key_not_the_keys_it_reads_by() -> None:
    """Stored keys are what other memories meet this one by: its slots, its frames and its
    reading. The keys it reads its own neighbours by (`open_query_keys`, broader) are
    not stored, or every statement of a subject would meet every other."""
    text = "My dentist is Dr. Hale now."
    found = computed(text)
    stored = set(stored_fields(text, [])["slot_keys"])
    assert reading_key(found.reading) in stored
    assert stored == {
        *slot_keys(found.statement),
        *open_keys(found.open),
        reading_key(found.reading),
    }
    assert set(open_query_keys(found.open)) - set(open_keys(found.open))  # broader: not stored
