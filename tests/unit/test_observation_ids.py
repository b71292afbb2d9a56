"""An observation keeps its id while it grows, so its members are not rewritten."""

import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from contracts.memory import Observation
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import DerivedPatch, Filter
from tests.helpers import edge_consolidator, event, mid
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.consolidation.relations import OBSERVATION_NAMESPACE, observation_id

EMB = HashEmbedder(64)


@pytest.fixture
def cons(tmp_path: Path) -> Consolidator:
    return edge_consolidator(tmp_path, EMB)


def test_the_id_is_the_banks_and_the_smallest_members_in_any_order() -> None:
    ids = [uuid.uuid4() for _ in range(5)]
    first = min(ids, key=lambda i: i.int)
    want = uuid.uuid5(OBSERVATION_NAMESPACE, f"b1\x1f{first}")
    assert observation_id("b1", ids) == observation_id("b1", ids[::-1]) == want
    assert observation_id("b2", ids) != want


def test_a_restatement_joins_without_rewriting_the_other_members(cons: Consolidator) -> None:
    """Each restatement consolidated alone: older members are patched only when the
    newcomer's id is the smallest (the observation's id changes), else never."""
    patched: list[list[uuid.UUID]] = []
    inner = cons.store.set_derived

    def recording(bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        patched.append([p.id for p in patches])
        inner(bank_id, patches)

    cons.store.set_derived = recording  # type: ignore[method-assign]
    events = [event("Alice loves hiking in the Alps.", day) for day in range(8)]
    members: list[uuid.UUID] = []
    kept = 0
    for e in events:
        patched.clear()
        consolidate([e], cons)
        new = mid(e)
        older = {i for call in patched for i in call} - {new}
        if len(members) >= 2 and min(members, key=lambda i: i.int).int < new.int:
            assert older == set(), "a member joining with a larger id rewrote the others"
            kept += 1
        elif members:
            assert older == set(members)  # founded, or renamed by a smaller newcomer
        members.append(new)
    assert kept >= 1  # the events' ids are fixed: some joins keep the id
    (obs,) = [p.record for p in cons.store.scroll(Filter("b1", kinds=("observation",)))]
    assert isinstance(obs, Observation)
    assert sorted(obs.source_memory_ids, key=lambda i: i.int) == sorted(
        members, key=lambda i: i.int
    )
    assert obs.id == observation_id("b1", members)
    raw = list(cons.store.scroll(Filter("b1", kinds=("world", "experience"))))
    assert {p.record.observation_id for p in raw} == {obs.id}
