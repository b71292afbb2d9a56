"""Chains of any length: after N updates of one subject and attribute, delivered in any
order with any duplicates, the current-state recall returns the newest state first and
no other state of it, however large N is, and a memory's view lists every later state
in time order up to the newest (`sediment.api.views.history`). Keyed updates ("The
build server is now version N", one `key`) and updates read from the text alone ("Dana
lives in X"). Run on the real embedded engine (qdrant-edge) with the real consolidator."""

import tempfile
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contracts.events import RetainEvent
from contracts.memory import State
from contracts.recall import MAX_LIMIT, RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from sediment.api.views import history
from tests.fakes import NoLocks
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.consolidation.policy import ConsolidationPolicy

BANK = "chains"
T0 = datetime(2024, 1, 1, tzinfo=UTC)
POLICY = ConsolidationPolicy(merge_threshold=0.7)
EMBEDDER = HashEmbedder(64)
LONGEST = 1000


def keyed(i: int) -> RetainEvent:
    return RetainEvent(
        event_id=uuid.UUID(int=i + 1),
        bank_id=BANK,
        text=f"The build server is now version {i + 1}.",
        occurred_at=T0 + timedelta(hours=i),
        key="build-server",
    )


def unkeyed(i: int) -> RetainEvent:
    return RetainEvent(
        event_id=uuid.UUID(int=i + 1),
        bank_id=BANK,
        text=f"Dana lives in Town{i + 1}.",
        occurred_at=T0 + timedelta(hours=i),
        entities=["Dana"],
    )


CHAINS: dict[str, tuple[Callable[[int], RetainEvent], str]] = {
    "keyed": (keyed, "What version is the build server now?"),
    "unkeyed": (unkeyed, "Where does Dana live now?"),
}


def deliveries(
    events: Sequence[RetainEvent], order: Sequence[int], extra: Sequence[int], cuts: set[int]
) -> list[list[RetainEvent]]:
    """The events in `order`, the duplicates `extra` after them, cut into batches."""
    stream = [events[i] for i in order] + [events[i] for i in extra]
    bounds = sorted(c for c in cuts if 0 < c < len(stream))
    return [stream[a:b] for a, b in zip([0, *bounds], [*bounds, len(stream)], strict=True)]


def check_chain(kind: str, n: int, batches: list[list[RetainEvent]]) -> None:
    make, question = CHAINS[kind]
    events = [make(i) for i in range(n)]
    newest = events[-1].text
    texts = {e.text for e in events}
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeStore(Path(tmp))
        try:
            store.ensure_schema(EMBEDDER.dimension)
            deps = Consolidator(store, EMBEDDER, NoLocks(), POLICY)
            for batch in batches:
                consolidate(batch, deps)
            stored = [p.record for p in store.scroll(Filter(BANK))]
            current = [r.text for r in stored if r.state is State.CURRENT]
            assert current == [newest], f"{n} updates: current in the store {current[:5]}"
            recall = RecallPipeline(store, EMBEDDER, clock=lambda: T0 + timedelta(days=400))
            for limit in (1, 10):
                found = recall.recall(BANK, RecallRequest(query=question, limit=limit)).results
                assert found[0].text == newest and found[0].state is State.CURRENT, (
                    f"{n} updates, limit {limit}: first {found[0].text!r} ({found[0].state})"
                )
                others = [r.text for r in found[1:] if r.text in texts]
                assert not others, f"{n} updates: other states shown {others}"
            everything = RecallRequest(query=question, limit=MAX_LIMIT, history=True)
            listed = recall.recall(BANK, everything).results
            states = {r.text: r.state for r in listed if r.text in texts}
            assert len(states) == min(n, MAX_LIMIT)
            assert states.get(newest, State.CURRENT) is State.CURRENT
            assert [t for t, s in states.items() if s is State.CURRENT] in ([], [newest])
            oldest = next(r for r in stored if r.text == events[0].text)
            later = [s.text for s in history(store, BANK, oldest)]
            assert later == [e.text for e in events[1:]], f"{n} updates: history {later[-2:]}"
        finally:
            store.close()


@st.composite
def chain_deliveries(draw: st.DrawFn) -> tuple[str, int, list[list[RetainEvent]]]:
    kind = draw(st.sampled_from(sorted(CHAINS)))
    n = draw(st.integers(min_value=2, max_value=60))
    make = CHAINS[kind][0]
    events = [make(i) for i in range(n)]
    order = draw(st.permutations(range(n)))
    extra = draw(st.lists(st.integers(0, n - 1), max_size=n // 2))
    cuts = draw(st.sets(st.integers(1, n + len(extra) - 1), max_size=4))
    return kind, n, deliveries(events, order, extra, cuts)


def _longest(kind: str) -> tuple[str, int, list[list[RetainEvent]]]:
    """1,000 updates, newest first, every tenth delivered twice, in batches of 100."""
    make = CHAINS[kind][0]
    events = [make(i) for i in range(LONGEST)]
    order = list(range(LONGEST - 1, -1, -1))
    extra = list(range(0, LONGEST, 10))
    cuts = set(range(100, LONGEST + len(extra), 100))
    return kind, LONGEST, deliveries(events, order, extra, cuts)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(case=_longest("keyed"))
@example(case=_longest("unkeyed"))
@given(case=chain_deliveries())
def test_the_head_of_any_chain_is_the_first_and_only_current_result(
    case: tuple[str, int, list[list[RetainEvent]]],
) -> None:
    kind, n, batches = case
    check_chain(kind, n, batches)
