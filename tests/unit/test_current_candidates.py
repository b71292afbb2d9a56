"""Same-slot candidates are bounded by `current_until`: a fact is not compared with
memories that stopped being current before it occurred (nothing it could change), and
is still compared with every memory newer than itself."""

import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.text import document_vector
from tests.fakes import NoLocks
from tests.helpers import event, mid
from worker.consolidation.consolidator import Consolidator, consolidate, raw_memory
from worker.consolidation.neighbourhood import candidates
from worker.consolidation.policy import ConsolidationPolicy

EMBEDDER = HashEmbedder(64)
POLICY = ConsolidationPolicy(merge_threshold=0.999, propose_threshold=0.999)
"""Nothing is a restatement: only slot keys (and declarations) make candidates."""


@pytest.fixture
def deps() -> Iterator[Consolidator]:
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeStore(Path(tmp))
        store.ensure_schema(EMBEDDER.dimension)
        yield Consolidator(store, EMBEDDER, NoLocks(), POLICY)
        store.close()


def stored_point(text: str, day: int) -> StoredPoint:
    e = event(text, day, entities=["Alice"])
    [vector] = EMBEDDER.embed([e.indexed_text()])
    return StoredPoint(
        raw_memory(e, e.occurred_at),
        np.asarray(vector, np.float32),
        document_vector(e.indexed_text()),
    )


def test_memories_superseded_before_a_fact_are_not_its_candidates(deps: Consolidator) -> None:
    boston = event("Alice lives in Boston.", 0, entities=["Alice"])
    seattle = event("Alice lives in Seattle.", 10, entities=["Alice"])
    consolidate([boston, seattle], deps)
    later = candidates(deps.store, stored_point("Alice lives in Denver.", 20), POLICY)
    assert {p.record.id for p in later.neighbours} == {mid(seattle)}
    between = candidates(deps.store, stored_point("Alice lives in Denver.", 5), POLICY)
    assert {p.record.id for p in between.neighbours} == {mid(boston), mid(seattle)}


def test_a_memory_superseded_by_a_declaration_back_in_time_still_updates_older_facts(
    deps: Consolidator,
) -> None:
    denver = event("Alice lives in Denver.", 9, entities=["Alice"])
    note = event("Ignore that.", 1, supersedes=[denver.event_id])
    boston = event("Alice lives in Boston.", 5, entities=["Alice"])
    consolidate([denver, note], deps)
    consolidate([boston], deps)
    [stored] = deps.store.fetch("b1", [mid(boston)])
    assert stored.record.superseded_by == mid(denver)


def _model(deps: Consolidator) -> list[tuple[str, str, str]]:
    return sorted(
        (str(p.record.id), str(p.record.superseded_by), str(p.record.observation_id))
        for p in deps.store.scroll(Filter("b1"))
    )


def test_a_keyed_fact_restates_a_superseded_one_in_any_order() -> None:
    """Two keyed facts that share a value restate one another however far apart their
    texts: the same-key candidates are not bounded in time, so Boston (day 2) joins
    Boston (day 0) whether or not Seattle (day 1) superseded it first."""
    texts = [("Alice lives in Boston.", 0), ("Alice lives in Seattle.", 1)]
    texts.append(("Alice's home is in Boston.", 2))
    events = [event(t, d, entities=["Alice"], key="alice.city") for t, d in texts]
    models = []
    for order in (events, events[::-1]):
        with tempfile.TemporaryDirectory() as tmp:
            store = EdgeStore(Path(tmp))
            store.ensure_schema(EMBEDDER.dimension)
            deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
            for e in order:
                consolidate([e], deps)
            models.append(_model(deps))
            store.close()
    assert models[0] == models[1]
    assert any(row[2] != "None" for row in models[0])
