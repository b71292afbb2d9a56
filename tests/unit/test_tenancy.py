"""Two banks that use the same event id hold two memories: a memory's id derives from its
bank and event id, so one bank's write can never replace, hide or re-derive another's."""

import uuid
from pathlib import Path

import fakeredis
import pytest

from contracts.memory import State, derive_memory_id
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from tests.helpers import edge_consolidator, event, mid
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.ledger import Entry, Kind, Ledger, event_key

EMB = HashEmbedder(64)
SHARED = uuid.UUID("00000000-0000-0000-0000-00000000e0e0")


@pytest.fixture
def cons(tmp_path: Path) -> Consolidator:
    return edge_consolidator(tmp_path, EMB)


def text_of(cons: Consolidator, bank: str, memory: uuid.UUID) -> str | None:
    found = cons.store.fetch(bank, [memory])
    return found[0].record.text if found else None


def test_a_memory_id_is_derived_from_bank_and_event_id() -> None:
    assert derive_memory_id("team-a", SHARED) != derive_memory_id("team-b", SHARED)
    assert derive_memory_id("team-a", SHARED) == derive_memory_id("team-a", SHARED)
    e = event("Bea's locker code is 1111.", bank="team-b", event_id=SHARED)
    assert mid(e) == derive_memory_id("team-b", SHARED)


def test_reusing_another_banks_event_id_leaves_its_memory_alone(cons: Consolidator) -> None:
    victim = event("Bea's locker code is 1111.", bank="team-b", event_id=SHARED)
    attacker = event("Mallory was here.", bank="team-a-x", event_id=SHARED)
    assert [o.status for o in consolidate([victim], cons)] == [Status.STORED]
    assert [o.status for o in consolidate([attacker], cons)] == [Status.STORED]
    assert text_of(cons, "team-b", mid(victim)) == "Bea's locker code is 1111."
    assert text_of(cons, "team-a-x", mid(attacker)) == "Mallory was here."
    assert text_of(cons, "team-a-x", mid(victim)) is None
    b_texts = [p.record.text for p in cons.store.scroll(Filter("team-b"))]
    assert b_texts == ["Bea's locker code is 1111."]


def test_reusing_the_event_id_of_a_newer_state_leaves_the_chain(cons: Consolidator) -> None:
    """Bank B's current state stays B's newer memory, superseded_by stays inside B."""
    newer_id = uuid.UUID(int=77)
    older = event("Bob lives in Boston.", 0, bank="team-b", key="city")
    newer = event("Bob lives in Denver.", 5, bank="team-b", key="city", event_id=newer_id)
    consolidate([older, newer], cons)
    consolidate([event("Bob lives in Paris.", 9, bank="team-a", event_id=newer_id)], cons)
    (old,) = cons.store.fetch("team-b", [mid(older)])
    assert old.record.state is State.SUPERSEDED
    assert old.record.superseded_by == mid(newer)
    (head,) = cons.store.fetch("team-b", [mid(newer)])
    assert head.record.state is State.CURRENT and head.record.text == "Bob lives in Denver."


def test_the_same_event_id_twice_in_one_batch_keeps_the_first(cons: Consolidator) -> None:
    """One rule within a batch and across batches: the first delivery wins."""
    first = event("Ana drinks tea.", bank="b1", event_id=SHARED)
    second = event("Ana drinks coffee.", bank="b1", event_id=SHARED)
    outcomes = consolidate([first, second], cons)
    assert [o.status for o in outcomes] == [Status.STORED, Status.REDELIVERED]
    assert text_of(cons, "b1", mid(first)) == "Ana drinks tea."
    consolidate([second], cons)
    assert text_of(cons, "b1", mid(first)) == "Ana drinks tea."


def test_one_batch_with_the_same_event_id_in_two_banks_stores_both(cons: Consolidator) -> None:
    a = event("Ana drinks tea.", bank="team-a", event_id=SHARED)
    b = event("Ben drinks coffee.", bank="team-b", event_id=SHARED)
    assert [o.status for o in consolidate([a, b], cons)] == [Status.STORED, Status.STORED]
    assert text_of(cons, "team-a", mid(a)) == "Ana drinks tea."
    assert text_of(cons, "team-b", mid(b)) == "Ben drinks coffee."


def test_settling_one_banks_event_leaves_the_other_banks_entry_owed() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    owed = [
        Entry(Kind.RETAIN, event_key(bank, SHARED), "q", {"event_id": str(SHARED)})
        for bank in ("team-a", "team-b")
    ]
    ledger.record(owed, 100.0)
    ledger.settle(Kind.RETAIN, [event_key("team-a", SHARED)])
    assert ledger.size() == 1
    assert ledger.client.hexists("sediment:ledger", owed[1].member)
