"""Convergence: any arrival order, with any duplicates, gives the read model of in-order,
exactly-once delivery. Run on the real embedded engine (qdrant-edge)."""

import tempfile
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.events import RetainEvent
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.consolidation.policy import ConsolidationPolicy
from worker.rebuild import rebuild_bank

BANK = "prop"
T0 = datetime(2024, 1, 1, tzinfo=UTC)
SUBJECTS = ["Alice", "Bob"]
CITIES = ["Boston", "Seattle", "Denver"]
DRINKS = ["coffee", "green tea"]
TEMPLATES = [
    ("{s} lives in {c}.", "city"),
    ("{s}'s home is in {c}.", "city"),
    ("{s} moved to {c}.", "city"),
    ("{s} drinks {d} every morning.", "drink"),
    ("{s} no longer drinks {d} every morning.", "drink"),
    ("Every morning {s} drinks {d}.", "drink"),
]
POLICY = ConsolidationPolicy(merge_threshold=0.7)
EMBEDDER = HashEmbedder(64)


@st.composite
def event_sets(draw: st.DrawFn) -> list[RetainEvent]:
    n = draw(st.integers(min_value=2, max_value=9))
    events: list[RetainEvent] = []
    for i in range(n):
        template, slot = draw(st.sampled_from(TEMPLATES))
        subject = draw(st.sampled_from(SUBJECTS))
        text = template.format(
            s=subject, c=draw(st.sampled_from(CITIES)), d=draw(st.sampled_from(DRINKS))
        )
        keyed = draw(st.booleans())
        declared = []
        if events and draw(st.integers(0, 5)) == 0:
            declared = [draw(st.sampled_from(events)).event_id]
        events.append(
            RetainEvent(
                event_id=uuid.UUID(int=i + 1),
                bank_id=BANK,
                text=text,
                occurred_at=T0 + timedelta(days=draw(st.integers(0, 6))),
                entities=[subject],
                key=f"{subject}.{slot}" if keyed else None,
                supersedes=declared,
            )
        )
    return events


def snapshot(store: EdgeStore) -> list[tuple[object, ...]]:
    """What convergence promises: ids, texts, sources, states, edges and their reasons."""
    rows = []
    for p in store.scroll(Filter(BANK)):
        r = p.record
        sources = tuple(getattr(r, "source_memory_ids", ()))
        rows.append(
            (
                str(r.id),
                r.kind,
                r.text,
                r.state.value,
                str(r.superseded_by),
                str(r.relation),
                str(r.supersession_reason),
                str(r.observation_id),
                sources,
            )
        )
    return sorted(rows)


def run(deliveries: Sequence[Sequence[RetainEvent]], workdir: Path) -> list[tuple[object, ...]]:
    store = EdgeStore(workdir)
    store.ensure_schema(EMBEDDER.dimension)
    deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
    for batch in deliveries:
        consolidate(list(batch), deps)
    result = snapshot(store)
    store.close()
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=event_sets(), data=st.data())
def test_any_order_with_duplicates_converges(
    events: list[RetainEvent], data: st.DataObject
) -> None:
    in_order = sorted(events, key=lambda e: (e.occurred_at, str(e.event_id)))
    extra = data.draw(st.lists(st.sampled_from(events), max_size=len(events)))
    shuffled = data.draw(st.permutations([*events, *extra]))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(shuffled) - 1)), max_size=3)))
    batches = [shuffled[a:b] for a, b in zip([0, *cuts], [*cuts, len(shuffled)], strict=True)]
    with tempfile.TemporaryDirectory() as tmp:
        expected = run([[e] for e in in_order], Path(tmp) / "a")
        assert run(batches, Path(tmp) / "b") == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=event_sets(), data=st.data())
def test_any_split_into_batches_equals_one_event_at_a_time(
    events: list[RetainEvent], data: st.DataObject
) -> None:
    """A worker consolidates a delivery as one batch (one view, one flush); any split of
    the stream into batches of any sizes, duplicates inside a batch included, gives the
    read model of the same events delivered one at a time."""
    extra = data.draw(st.lists(st.sampled_from(events), max_size=len(events)))
    stream = data.draw(st.permutations([*events, *extra]))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(stream) - 1)))))
    batches = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    with tempfile.TemporaryDirectory() as tmp:
        one_by_one = run([[e] for e in stream], Path(tmp) / "a")
        assert run(batches, Path(tmp) / "b") == one_by_one
        assert run([stream], Path(tmp) / "c") == one_by_one


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=event_sets(), data=st.data())
def test_rebuild_equals_incremental(events: list[RetainEvent], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(events))
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeStore(Path(tmp))
        store.ensure_schema(EMBEDDER.dimension)
        deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
        for e in shuffled:
            consolidate([e], deps)
        incremental = snapshot(store)
        rebuild_bank(BANK, deps)
        assert snapshot(store) == incremental
        store.close()


def test_the_generated_worlds_exercise_merges_and_supersessions() -> None:
    """Guards the property above against vacuity: its templates do merge and supersede."""
    alice = [
        ("Alice lives in Boston.", 0, "Alice.city"),
        ("Alice's home is in Boston.", 1, "Alice.city"),
        ("Alice moved to Seattle.", 2, None),
        ("Alice drinks coffee every morning.", 0, None),
        ("Every morning Alice drinks coffee.", 1, None),
        ("Alice no longer drinks coffee every morning.", 3, None),
    ]
    events = [
        RetainEvent(
            event_id=uuid.UUID(int=i + 1),
            bank_id=BANK,
            text=text,
            occurred_at=T0 + timedelta(days=day),
            entities=["Alice"],
            key=key,
        )
        for i, (text, day, key) in enumerate(alice)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        rows = run([[e] for e in events], Path(tmp))
    kinds = {row[1] for row in rows}
    states = {row[3] for row in rows}
    relations = {row[5] for row in rows}
    assert any(row[6] != "None" for row in rows)
    assert "observation" in kinds and "superseded" in states
    assert {"EVOLVED_INTO", "INVALIDATED_BY"} <= relations
