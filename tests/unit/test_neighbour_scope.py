"""A memory's dense neighbour query selects only memories it could restate: those that
share an entity with it (case-insensitive) or name none, which is what `restates` asks,
so no link is lost by the narrower query."""

import itertools
import tempfile
from pathlib import Path

import numpy as np

from readmodel.store import StoredPoint, matches
from readmodel.stores.edge import EdgeStore
from tests.helpers import memory
from worker.consolidation.neighbourhood import neighbour_scope
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import LinkKind, relate, shares_entity

ENTITY_LISTS = ([], ["Ana"], ["ana"], ["Ben"], ["ANA", "Ben"], ["Cleo", "Dev"], ["dev"])


def test_the_scope_selects_exactly_the_memories_sharing_an_entity_or_naming_none() -> None:
    for a, b in itertools.product(ENTITY_LISTS, repeat=2):
        new = memory("Someone lives in Porto.", 1, entities=a)
        other = memory("Someone lives in Porto.", 0, entities=b)
        assert matches(neighbour_scope(new), other) == shares_entity(new, other), (a, b)


def test_every_merge_is_within_the_scope() -> None:
    policy = ConsolidationPolicy()
    texts = ("Ana lives in Porto.", "Ana felt calm after a walk.", "The office is on Main Street.")
    merges = 0
    for text in texts:
        for a, b in itertools.product(ENTITY_LISTS, repeat=2):
            new = memory(text, 1, entities=a)
            older = memory(text, 0, entities=b)
            link = relate(new, older, 1.0, policy)
            if link is not None and link.kind is LinkKind.MERGE:
                merges += 1
                assert matches(neighbour_scope(new), older), (text, a, b)
            elif not matches(neighbour_scope(new), older):
                assert link is None, (text, a, b)
    assert merges > 0


def test_the_engine_answers_the_scope_by_entity_keys() -> None:
    vector = np.ones(4, np.float32) / 2
    ana = memory("Ana lives in Porto.", 0, entities=["ANA"])
    nobody = memory("Ana lives in Porto.", 1)
    ben = memory("Ana lives in Porto.", 2, entities=["Ben"])
    new = memory("Ana lives in Porto.", 3, entities=["ana", "Zoe"])
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeStore(Path(tmp))
        store.ensure_schema(4)
        store.upsert([StoredPoint(m, vector) for m in (ana, nobody, ben)])
        hits = store.search_dense(vector, neighbour_scope(new), 10, 0.5)
        store.close()
    assert {h.record.id for h in hits} == {ana.id, nobody.id}
