"""Expiry: `expires_at` (or `ttl_s` where a request is accepted) hides a memory from
recall the moment it passes, on the real embedded engine with a controlled clock; the
expiry sweep then forgets it, and the read model is the one the unexpired events alone
give (chains: the previous state is current again; observations lose the source)."""

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import fakeredis
import pydantic
import pytest

from contracts.events import RetainEvent, RetainItem, with_expiry
from contracts.forget import ForgetEvent
from contracts.memory import State
from contracts.recall import RecallRequest, RecallResponse
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.state import chain_heads
from readmodel.store import Filter, Record, expired
from readmodel.stores.edge import EdgeStore
from sediment.api.views import memory_view
from tests.fakes import NoLocks
from tests.helpers import T0, event, memory, mid
from tests.unit.test_recall_stages import CountingFetch, superseded
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.expiry import ExpirySweep
from worker.forget import forget

EMB = HashEmbedder(64)
NOW = T0 + timedelta(days=30)
LATER = NOW + timedelta(hours=2)
SOON = NOW + timedelta(hours=1)

BOSTON = event("Alice lives in Boston.", 0, key="alice.city", entities=["Alice"])
SEATTLE = event(
    "Alice lives in Seattle.", 20, key="alice.city", entities=["Alice"], expires_at=SOON
)
CELLO_1 = event("Bob plays the cello in an orchestra.", 1, entities=["Bob"], expires_at=SOON)
CELLO_2 = event("Bob plays the cello in an orchestra.", 2, entities=["Bob"])
LOCKER = event("The locker code is 4711.", 3, expires_at=SOON)
EVENTS = [BOSTON, SEATTLE, CELLO_1, CELLO_2, LOCKER]


def test_ttl_becomes_expires_at_counted_from_acceptance() -> None:
    data = with_expiry({"text": "x", "ttl_s": 90}, NOW)
    assert data == {"text": "x", "expires_at": NOW + timedelta(seconds=90)}
    assert with_expiry({"text": "x", "ttl_s": None}, NOW) == {"text": "x"}


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        pytest.param({"ttl_s": 60, "expires_at": "2024-01-02T00:00:00Z"}, "not both", id="both"),
        pytest.param({"ttl_s": 0}, "greater than 0", id="zero ttl"),
        pytest.param({"ttl_s": True}, "valid number", id="a flag is no ttl"),
        pytest.param({"ttl_s": "60"}, "valid number", id="a string is no ttl"),
        pytest.param({"expires_at": 1714554000}, "Unix times", id="expires_at as a number"),
        pytest.param({"expires_at": "2024-05-01T09:00:00"}, "no timezone", id="naive expires_at"),
    ],
)
def test_bad_expiry_is_refused_with_a_message(fields: dict[str, object], problem: str) -> None:
    item = {"text": "x", "occurred_at": "2024-01-01T00:00:00Z", **fields}
    with pytest.raises(pydantic.ValidationError, match=problem):
        RetainItem.model_validate(item)


def test_an_event_carries_expires_at_and_an_already_past_one_is_accepted() -> None:
    past = event("gone already", 0, expires_at=T0 - timedelta(days=1))
    assert past.expires_at == T0 - timedelta(days=1)
    with pytest.raises(pydantic.ValidationError, match="ttl_s"):
        RetainEvent.model_validate({**BOSTON.model_dump(), "ttl_s": 60})


def chain(*expiring: bool) -> list[Record]:
    """States 0..n-1 of one fact, each superseded by the next; `expiring[i]`: state i has
    expired by LATER."""
    states: list[Record] = [
        memory(f"state {i}", i, expires_at=SOON if gone else None)
        for i, gone in enumerate(expiring)
    ]
    for i in range(len(states) - 2, -1, -1):
        states[i] = superseded(states[i], states[i + 1])
    return states


@pytest.mark.parametrize(
    ("expiring", "shown"),
    [
        pytest.param((False, False, False), 2, id="nothing expired: the head"),
        pytest.param((False, True), 0, id="A->B(expired): A is current again"),
        pytest.param((False, True, False), 2, id="A->B(expired)->C: C, walked through B"),
        pytest.param((False, False, True), 1, id="A->B->C(expired): B is current again"),
        pytest.param((False, True, True), 0, id="both later states expired: A"),
    ],
)
def test_chain_heads_never_show_an_expired_state(expiring: tuple[bool, ...], shown: int) -> None:
    states = chain(*expiring)
    heads = chain_heads([states[0]], CountingFetch(states), live=lambda r: not expired(r, LATER))
    head = heads[states[0].id]
    assert head.id == states[shown].id
    if shown < len(states) - 1:
        assert (head.state, head.superseded_by) == (State.CURRENT, None)


@pytest.fixture
def cons(tmp_path: Path) -> Consolidator:
    store = EdgeStore(tmp_path / "store")
    store.ensure_schema(EMB.dimension)
    deps = Consolidator(store, EMB, NoLocks())
    consolidate(EVENTS, deps)
    return deps


def ask(cons: Consolidator, at: datetime, query: str, **kw: object) -> RecallResponse:
    pipeline = RecallPipeline(cons.store, EMB, clock=lambda: at)
    request = RecallRequest.model_validate({"query": query, "limit": 10, **kw})
    return pipeline.recall("b1", request)


def texts(response: RecallResponse) -> list[str]:
    return [r.text for r in response.results]


def test_an_expired_memory_is_invisible_to_recall_at_once(cons: Consolidator) -> None:
    assert "The locker code is 4711." in texts(ask(cons, NOW, "locker code"))
    for mode in ("current", "history"):
        assert "The locker code is 4711." not in texts(
            ask(cons, SOON, "locker code", state_mode=mode)
        )
    as_of = ask(cons, LATER, "locker code", as_of=T0 + timedelta(days=10))
    assert "The locker code is 4711." not in texts(as_of)


def test_an_expired_head_gives_the_previous_state_back_before_the_sweep(
    cons: Consolidator,
) -> None:
    [before] = ask(cons, NOW, "Where does Alice live?", limit=1).results
    assert before.text == "Alice lives in Seattle."
    [after] = ask(cons, LATER, "Where does Alice live?", limit=1).results
    assert (after.text, after.state, after.superseded_by) == (
        "Alice lives in Boston.",
        State.CURRENT,
        None,
    )


def test_an_observation_hides_with_its_first_expiring_member(cons: Consolidator) -> None:
    [obs] = [p.record for p in cons.store.scroll(Filter("b1", kinds=("observation",)))]
    assert obs.expires_at == SOON
    before = ask(cons, NOW, "Bob cello orchestra").results
    assert before[0].kind == "observation"
    after = ask(cons, LATER, "Bob cello orchestra").results
    assert [(r.id, r.kind) for r in after if "cello" in r.text] == [(mid(CELLO_2), "world")]


def inline_forget(cons: Consolidator) -> Callable[[Sequence[ForgetEvent]], object]:
    return lambda events: [forget(e, cons) for e in events]


def test_the_sweep_forgets_what_expired_and_converges(cons: Consolidator, tmp_path: Path) -> None:
    early = ExpirySweep(lambda: cons.store, inline_forget(cons), clock=lambda: NOW).sweep()
    assert early.expired == {}
    report = ExpirySweep(lambda: cons.store, inline_forget(cons), clock=lambda: LATER).sweep()
    assert report.expired == {"b1": 3} and report.events == 1
    gone = [mid(SEATTLE), mid(CELLO_1), mid(LOCKER)]
    assert cons.store.fetch("b1", gone) == []
    assert cons.tombstones.forgotten("b1", gone) == set(gone)
    assert consolidate([LOCKER], cons)[0].status.value == "forgotten"

    fresh = EdgeStore(tmp_path / "fresh")
    fresh.ensure_schema(EMB.dimension)
    consolidate([BOSTON, CELLO_2], Consolidator(fresh, EMB, NoLocks()))
    assert snapshot_b1(cons.store) == snapshot_b1(fresh)
    fresh.close()


def snapshot_b1(store: EdgeStore) -> list[tuple[object, ...]]:
    rows = []
    for p in store.scroll(Filter("b1")):
        r = p.record
        sources = tuple(str(i) for i in getattr(r, "source_memory_ids", ()))
        rows.append((str(r.id), r.kind, r.text, r.state.value, str(r.superseded_by), sources))
    return sorted(rows)


def test_a_sweep_held_elsewhere_does_nothing_and_event_ids_are_derived(
    cons: Consolidator,
) -> None:
    client = fakeredis.FakeRedis()
    sent: list[ForgetEvent] = []
    sweep = ExpirySweep(lambda: cons.store, sent.extend, client, clock=lambda: LATER)
    with client.lock("sediment:expiry:sweep", timeout=30):
        assert not sweep.sweep().swept
    assert sent == []
    assert sweep.sweep().swept
    again: list[ForgetEvent] = []
    ExpirySweep(lambda: cons.store, again.extend, clock=lambda: LATER).sweep()
    expected = sorted([mid(SEATTLE), mid(CELLO_1), mid(LOCKER)], key=str)
    assert [e.memory_ids for e in sent] == [expected]
    assert [e.event_id for e in again] == [e.event_id for e in sent]


def test_the_memory_view_hides_what_expired(cons: Consolidator) -> None:
    assert memory_view(cons.store, "b1", mid(LOCKER), NOW) is not None
    assert memory_view(cons.store, "b1", mid(LOCKER), LATER) is None
    before = memory_view(cons.store, "b1", mid(BOSTON), NOW)
    after = memory_view(cons.store, "b1", mid(BOSTON), LATER)
    assert before is not None and [h.id for h in before.history] == [mid(SEATTLE)]
    assert after is not None and after.history == []
