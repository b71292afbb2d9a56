"""Forget converges: for any retains and any subset forgotten, delivered in any
interleaving, with duplicates and redeliveries after the forget, the read model equals
the one from retaining only the events never forgotten. Real embedded engine."""

import tempfile
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.events import RetainEvent
from contracts.forget import ForgetEvent, ForgetFilter
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import mid
from tests.property.test_convergence import (
    BANK,
    EMBEDDER,
    POLICY,
    event_sets,
    run,
    snapshot,
)
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.consolidation.relations import memory_id
from worker.forget import forget
from worker.rebuild import rebuild_bank

Delivery = RetainEvent | ForgetEvent


def forget_of(events: Sequence[RetainEvent], n: int) -> ForgetEvent:
    return ForgetEvent(
        event_id=uuid.UUID(int=10_000 + n),
        bank_id=BANK,
        memory_ids=[mid(e) for e in events],
    )


def play(deliveries: Sequence[Delivery], workdir: Path) -> list[tuple[object, ...]]:
    store = EdgeStore(workdir)
    store.ensure_schema(EMBEDDER.dimension)
    deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
    for d in deliveries:
        if isinstance(d, ForgetEvent):
            forget(d, deps)
        else:
            consolidate([d], deps)
    result = snapshot(store)
    store.close()
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=event_sets(), data=st.data())
def test_forgetting_any_subset_in_any_order_equals_never_retaining_it(
    events: list[RetainEvent], data: st.DataObject
) -> None:
    doomed = data.draw(st.lists(st.sampled_from(events), unique_by=lambda e: e.event_id))
    kept = [e for e in events if e not in doomed]
    groups = data.draw(st.integers(1, 3))
    forgets = [forget_of(doomed[i::groups], i) for i in range(groups) if doomed[i::groups]]
    extra = data.draw(st.lists(st.sampled_from(events), max_size=len(events)))
    stream: list[Delivery] = data.draw(st.permutations([*events, *extra, *forgets]))
    redelivered = data.draw(st.lists(st.sampled_from(events), max_size=3))
    in_order = sorted(kept, key=lambda e: (e.occurred_at, str(e.event_id)))
    with tempfile.TemporaryDirectory() as tmp:
        expected = run([[e] for e in in_order], Path(tmp) / "a")
        assert play([*stream, *redelivered], Path(tmp) / "b") == expected


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=event_sets(), data=st.data())
def test_forget_then_rebuild_and_replay_never_brings_it_back(
    events: list[RetainEvent], data: st.DataObject
) -> None:
    doomed = data.draw(
        st.lists(st.sampled_from(events), min_size=1, unique_by=lambda e: e.event_id)
    )
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeStore(Path(tmp))
        store.ensure_schema(EMBEDDER.dimension)
        deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
        consolidate(events, deps)
        forget(forget_of(doomed, 0), deps)
        after = snapshot(store)
        outcomes = consolidate(doomed, deps)
        assert {o.status for o in outcomes} == {Status.FORGOTTEN}
        rebuild_bank(BANK, deps)
        assert snapshot(store) == after
        ids = {str(mid(e)) for e in doomed}
        assert not ids & {row[0] for row in after}
        store.close()


def test_a_filter_forget_removes_the_tagged_memories_only() -> None:
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    events = [
        RetainEvent(
            event_id=uuid.UUID(int=1),
            bank_id=BANK,
            text="Alice lives in Boston.",
            occurred_at=t0,
            tags=["private"],
            metadata={"source_id": "doc-1"},
        ),
        RetainEvent(
            event_id=uuid.UUID(int=2), bank_id=BANK, text="Bob drinks coffee.", occurred_at=t0
        ),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeStore(Path(tmp))
        store.ensure_schema(EMBEDDER.dimension)
        deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
        consolidate(events, deps)
        event = ForgetEvent(
            event_id=uuid.UUID(int=9), bank_id=BANK, filter=ForgetFilter(source_id="doc-1")
        )
        assert forget(event, deps).forgotten == 1
        assert [row[2] for row in snapshot(store)] == ["Bob drinks coffee."]
        assert deps.tombstones.forgotten(BANK, [memory_id(BANK, uuid.UUID(int=1))])
        store.close()
