"""Feedback events: capped counts, counted once, bank-scoped; kept across observation rewrites."""

import uuid
from pathlib import Path
from types import SimpleNamespace

import fakeredis
import pytest

from contracts.feedback import FeedbackEvent
from contracts.memory import Observation
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from sediment.forgetting import forget_event
from telemetry.metrics import FEEDBACK_DROPPED
from telemetry.redis_series import RedisMetrics
from tests.fakes import NoLocks
from tests.helpers import T0, event, mid
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.deadletters import FileDeadLetters
from worker.errors import PoisonEvent
from worker.feedback_handler import FeedbackDeps, Tally, apply_feedback
from worker.forget import forget
from worker.tasks import WorkerDeps, handle_feedback
from worker.tombstones import RedisTombstones


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Consolidator, FeedbackDeps]:
    store = EdgeStore(tmp_path)
    store.ensure_schema(64)
    cons = Consolidator(store, HashEmbedder(64), NoLocks())
    return cons, FeedbackDeps(store, NoLocks(), fakeredis.FakeRedis())


def vote(
    memory_id: uuid.UUID, kind: str, bank: str = "b1", eid: uuid.UUID | None = None
) -> FeedbackEvent:
    return FeedbackEvent(
        event_id=eid or uuid.uuid4(), bank_id=bank, memory_id=memory_id, vote=kind, occurred_at=T0
    )  # type: ignore[arg-type]


def test_votes_are_capped_and_counted_once(setup: tuple[Consolidator, FeedbackDeps]) -> None:
    cons, deps = setup
    [out] = consolidate([event("Alice likes tea.")], cons)
    for _ in range(100):
        apply_feedback(vote(out.memory_id, "up"), deps)
        apply_feedback(vote(out.memory_id, "down"), deps)
        apply_feedback(vote(out.memory_id, "not_useful"), deps)
    [p] = cons.store.fetch("b1", [out.memory_id])
    assert (p.record.votes_up, p.record.votes_down, p.record.not_useful) == (3, 3, 5)
    [out2] = consolidate([event("Bob likes coffee.")], cons)
    same = uuid.uuid4()
    assert apply_feedback(vote(out2.memory_id, "up", eid=same), deps) is Tally.COUNTED
    assert apply_feedback(vote(out2.memory_id, "up", eid=same), deps) is Tally.REPEATED
    [p2] = cons.store.fetch("b1", [out2.memory_id])
    assert p2.record.votes_up == 1


def test_a_vote_through_another_bank_is_poison(setup: tuple[Consolidator, FeedbackDeps]) -> None:
    cons, deps = setup
    [out] = consolidate([event("Alice likes tea.")], cons)
    with pytest.raises(PoisonEvent, match="no memory"):
        apply_feedback(vote(out.memory_id, "up", bank="b2"), deps)
    [p] = cons.store.fetch("b1", [out.memory_id])
    assert p.record.votes_up == 0


@pytest.mark.parametrize("smallest", [False, True])
def test_observation_votes_survive_its_growth(
    setup: tuple[Consolidator, FeedbackDeps], smallest: bool
) -> None:
    """A member joining with a larger id keeps the observation's id and its votes; one
    with the smallest id gives it a new id, and the votes are carried over."""
    cons, deps = setup
    first = [event("Alice loves hiking.", 0), event("Alice loves hiking.", 1)]
    consolidate(first, cons)
    [obs] = [p.record for p in cons.store.scroll(Filter("b1", kinds=("observation",)))]
    apply_feedback(vote(obs.id, "up"), deps)
    low = min(mid(e).int for e in first)
    joining = next(
        e
        for e in (event("Alice loves hiking.", day) for day in range(2, 200))
        if (mid(e).int < low) is smallest
    )
    consolidate([joining], cons)
    [grown] = [p.record for p in cons.store.scroll(Filter("b1", kinds=("observation",)))]
    assert isinstance(grown, Observation) and grown.proof_count == 3
    assert (grown.id != obs.id) is smallest
    assert grown.votes_up == 1


def test_a_vote_on_a_forgotten_memory_is_dropped_and_counted_not_dead_lettered(
    tmp_path: Path,
) -> None:
    """A vote that raced a forget: the worker's own path (`handle_feedback`), a real
    store, tombstones and metrics in Redis, the dead-letter stream on disk."""
    client = fakeredis.FakeRedis()
    store = EdgeStore(tmp_path / "store")
    store.ensure_schema(64)
    tombstones = RedisTombstones(client)
    metrics = RedisMetrics(client, 3600)
    cons = Consolidator(store, HashEmbedder(64), NoLocks(), tombstones=tombstones)
    letters = FileDeadLetters(tmp_path / "dlq.jsonl", 100)
    feedback = FeedbackDeps(store, NoLocks(), client, tombstones, metrics)
    worker = WorkerDeps(cons, letters, 16384, 3, 60, feedback, metrics=metrics)
    [out] = consolidate([event("Alice's PIN is 4417.")], cons)
    forget(forget_event("b1", everything=True), cons)
    task = SimpleNamespace(request=SimpleNamespace(retries=0))
    late = vote(out.memory_id, "up").model_dump(mode="json")
    handle_feedback(task, late, worker)  # type: ignore[arg-type]
    assert letters.length() == 0
    snap = metrics.snapshot(5, "b1")
    assert snap.total(FEEDBACK_DROPPED, reason="forgotten") == 1
    assert apply_feedback(vote(out.memory_id, "down"), feedback) is Tally.FORGOTTEN
    assert metrics.snapshot(5, "b1").total(FEEDBACK_DROPPED) == 2
    never = vote(uuid.uuid4(), "up").model_dump(mode="json")
    handle_feedback(task, never, worker)  # type: ignore[arg-type]
    [letter] = letters.list()
    assert letter.error_class == "PoisonEvent" and "no memory" in letter.message
