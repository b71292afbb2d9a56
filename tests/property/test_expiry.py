"""Expiry converges: for any retains, some expiring before the sweep's time and some
after, delivered in any order with duplicates and with sweeps anywhere in between, a
final sweep leaves the read model of retaining only the events that had not expired,
and a redelivered expired event stays forgotten. Real embedded engine."""

import tempfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.events import RetainEvent
from readmodel.store import expired
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import memory
from tests.property.test_convergence import EMBEDDER, POLICY, T0, event_sets, run, snapshot
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.expiry import ExpirySweep
from worker.forget import forget

SWEEP_AT = T0 + timedelta(days=30)
SWEEP = "sweep"
Delivery = RetainEvent | str


def play(deliveries: Sequence[Delivery], workdir: Path) -> list[tuple[object, ...]]:
    store = EdgeStore(workdir)
    store.ensure_schema(EMBEDDER.dimension)
    deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
    sweep = ExpirySweep(
        lambda: store, lambda events: [forget(e, deps) for e in events], clock=lambda: SWEEP_AT
    )
    for d in deliveries:
        if isinstance(d, RetainEvent):
            consolidate([d], deps)
        else:
            sweep.sweep()
    result = snapshot(store)
    store.close()
    return result


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=event_sets(), data=st.data())
def test_expiring_any_subset_in_any_order_equals_never_retaining_it(
    events: list[RetainEvent], data: st.DataObject
) -> None:
    offsets = st.sampled_from([None, -1, 1])
    timed = []
    for e in events:
        days = data.draw(offsets)
        at = None if days is None else SWEEP_AT + timedelta(days=days)
        timed.append(e.model_copy(update={"expires_at": at}))
    kept = [e for e in timed if e.expires_at is None or e.expires_at > SWEEP_AT]
    extra = data.draw(st.lists(st.sampled_from(timed), max_size=len(timed)))
    sweeps = data.draw(st.integers(0, 2))
    stream: list[Delivery] = data.draw(st.permutations([*timed, *extra, *[SWEEP] * sweeps]))
    redelivered = data.draw(st.lists(st.sampled_from(timed), max_size=3))
    in_order = sorted(kept, key=lambda e: (e.occurred_at, str(e.event_id)))
    with tempfile.TemporaryDirectory() as tmp:
        expected = run([[e] for e in in_order], Path(tmp) / "a")
        assert play([*stream, SWEEP, *redelivered], Path(tmp) / "b") == expected


def test_expired_and_record_agree() -> None:
    """`readmodel.store.expired` is what the sweep and recall apply: inclusive."""
    assert expired(memory("x", expires_at=SWEEP_AT), SWEEP_AT)
    assert not expired(memory("x", expires_at=SWEEP_AT + timedelta(seconds=1)), SWEEP_AT)
    assert not expired(memory("x"), SWEEP_AT)
