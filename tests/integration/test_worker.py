"""A real `celery worker` process consuming from real Redis: no loss, no duplicates, poison
to the dead-letter stream, survival of kill -9."""

import json
import random
import signal
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from readmodel.store import Filter
from tests.helpers import mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.publish import publish

pytestmark = pytest.mark.integration

N_EVENTS = 2000
PLACES = ["Lisbon", "Oslo", "Kyoto", "Lima", "Accra", "Perth", "Quito", "Riga", "Hanoi", "Cusco"]
THINGS = ["violin lessons", "sourdough", "chess club", "marathon", "pottery", "sailing course"]


def events(bank: str) -> list[dict[str, object]]:
    rng = random.Random(7)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    out = []
    for i in range(N_EVENTS):
        text = (
            f"Note {i}: member {i % 40} talked about {rng.choice(THINGS)} "
            f"in {rng.choice(PLACES)} on day {i}."
        )
        out.append(
            {
                "event_id": str(uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}-{i}")),
                "bank_id": bank,
                "text": text,
                "occurred_at": (start + timedelta(minutes=i)).isoformat(),
            }
        )
    return out


def poison(bank: str) -> list[object]:
    base = {
        "event_id": str(uuid.uuid4()),
        "bank_id": bank,
        "text": "x",
        "occurred_at": "2024-01-01T00:00:00Z",
    }
    bad: list[object] = []
    for i in range(20):
        variant = i % 5
        if variant == 0:
            bad.append({**base, "occurred_at": "2024-01-01T00:00:00"})
        elif variant == 1:
            bad.append({**base, "text": "y" * 20_000})
        elif variant == 2:
            bad.append({**base, "schema_version": 99})
        elif variant == 3:
            bad.append({**base, "bank_id": "no spaces allowed"})
        else:
            bad.append(["not", "an", "object", i])
    return bad


def test_kill_9_mid_stream_loses_nothing_and_duplicates_nothing(worker_env: WorkerEnv) -> None:
    """Good events go through `worker.publish` (the redelivery ledger); the poison is sent
    raw, as a third-party producer's mistakes would be."""
    bank = "itest"
    good = [RetainEvent.model_validate(e) for e in events(bank)]
    producer = worker_env.producer()
    first = worker_env.start("worker-1")
    sent = 0
    for i, bad in enumerate(poison(bank)):
        upto = 100 + i * 90
        sent += publish(producer, good[sent:upto], worker_env.queue)
        producer.send_task("sediment.retain.v1", args=[bad], queue=worker_env.queue)
    sent += publish(producer, good[sent:], worker_env.queue)
    assert sent == N_EVENTS
    total = N_EVENTS + 20
    wait_until(lambda: worker_env.pending() < total - 300, 180, "the first worker to start")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert worker_env.pending() > 0, "the worker finished before it could be killed"
    second = worker_env.start("worker-2")
    wait_until(worker_env.settled, 600, "the queue to drain and the ledger to empty")
    worker_env.stop(second)

    rt = worker_env.runtime()
    assert rt.store.count(Filter(bank, kinds=("world",))) == N_EVENTS
    raw = list(rt.store.scroll(Filter(bank, kinds=("world",))))
    assert {p.record.id for p in raw} == {mid(e) for e in good}
    assert all(p.record.consolidated for p in raw)
    for e in good:
        response = rt.recall_pipeline.recall(
            bank,
            RecallRequest(query=e.text, limit=5, prefer_observations=False, state_mode="history"),
        )
        assert mid(e) in [r.id for r in response.results]
    letters = rt.dead_letters.list(1000)
    # Each of the 20 poison messages is dead-lettered; one that the killed worker had
    # dead-lettered but not yet acknowledged (its batch had not finished) is delivered
    # again and dead-lettered again. Nothing else is: every letter is poison.
    assert 20 <= len(letters) <= 20 + 64
    assert {le.error_class for le in letters} == {"PoisonEvent"}
    reasons = " ".join(le.message for le in letters)
    for phrase in (
        "has no timezone",
        "the limit is",
        "schema_version",
        "bank_id",
        "must be a JSON object",
    ):
        assert phrase in reasons
    assert all(json.loads(le.payload) is not None for le in letters)
    rt.close()
