"""The redelivery ledger against real Redis and a real `celery worker`: a message lost
between the queue and `unacked` (as when a worker is killed between BRPOP and
QoS.append) is published again and stored; messages Celery refuses reach the DLQ."""

import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from kombu import Connection, Exchange

from contracts.events import RetainEvent
from readmodel.store import Filter
from tests.helpers import mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.publish import publish

pytestmark = pytest.mark.integration

GRACE_S = 3


def retain_events(bank: str, n: int) -> list[RetainEvent]:
    start = datetime(2024, 3, 1, tzinfo=UTC)
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}-{i}"),
            bank_id=bank,
            text=f"Parcel {i} left the depot in Gdansk on day {i}.",  # type: ignore[arg-type]
            occurred_at=start + timedelta(days=i),
        )
        for i in range(n)
    ]


def lose_oldest(env: WorkerEnv) -> bytes:
    """What a worker killed between BRPOP and QoS.append does: the message leaves the
    list and never reaches the `unacked` hash."""
    raw = env.redis.rpop(env.queue)
    assert isinstance(raw, bytes)
    assert env.redis.hlen("unacked") == 0
    return raw


def test_a_message_lost_in_delivery_is_published_again_and_stored(worker_env: WorkerEnv) -> None:
    bank = "redelivery"
    events = retain_events(bank, 3)
    assert publish(worker_env.producer(), events, worker_env.queue) == 3
    assert worker_env.owed() == 3
    lose_oldest(worker_env)
    assert worker_env.redis.llen(worker_env.queue) == 2
    proc = worker_env.start("worker")
    wait_until(worker_env.settled, 180, "the lost event to be republished and handled")
    worker_env.stop(proc)
    rt = worker_env.runtime()
    assert rt.store.count(Filter(bank, kinds=("world",))) == 3
    stored = {p.record.id: p.record for p in rt.store.scroll(Filter(bank, kinds=("world",)))}
    assert set(stored) == {mid(e) for e in events}
    assert all(r.consolidated for r in stored.values())
    rt.close()
    log = (worker_env.log_dir / "worker.log").read_text()
    assert '"republished"' in log


def test_reconcile_republishes_only_what_is_lost(worker_env: WorkerEnv) -> None:
    """An entry younger than the grace period may be in a worker's hands between BRPOP
    and `unacked`: left alone. Older, neither queued nor in flight: published again,
    once. Each `sediment reconcile` is a new process whose start-up alone can take
    seconds on a loaded machine, so the grace of each call is chosen to make its age
    certain (far longer than any start-up; then shorter than the sleep before it)."""
    events = retain_events("reconcile", 1)
    publish(worker_env.producer(), events, worker_env.queue)
    lose_oldest(worker_env)
    fresh = reconcile(worker_env, grace_s=600)
    assert "republished 0" in fresh and worker_env.redis.llen(worker_env.queue) == 0
    assert worker_env.owed() == 1
    time.sleep(GRACE_S + 0.5)
    out = reconcile(worker_env, grace_s=GRACE_S)
    assert "republished 1" in out and str(events[0].event_id) in out
    assert worker_env.redis.llen(worker_env.queue) == 1
    assert "republished 0" in reconcile(worker_env, grace_s=GRACE_S)
    assert worker_env.redis.llen(worker_env.queue) == 1 and worker_env.owed() == 1


def reconcile(env: WorkerEnv, grace_s: int) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "sediment.cli", "reconcile"],
        env={**env.env, "SEDIMENT_LEDGER_GRACE_S": str(grace_s), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return proc.stdout


def test_messages_celery_refuses_reach_the_dead_letter_stream(worker_env: WorkerEnv) -> None:
    event = retain_events("refused", 1)[0].model_dump(mode="json")
    producer = worker_env.producer()
    producer.send_task("sediment.retain.v1", args=[event, event], queue=worker_env.queue)
    producer.send_task("sediment.retain.v0", args=[event], queue=worker_env.queue)
    with Connection(worker_env.env["SEDIMENT_REDIS_URL"]) as conn:
        conn.Producer().publish(
            b"\x80\x04not json at all",
            exchange=Exchange(""),
            routing_key=worker_env.queue,
            content_type="application/x-python-serialize",
            content_encoding="binary",
            headers={"task": "sediment.retain.v1", "id": str(uuid.uuid4())},
        )
    proc = worker_env.start("worker")
    wait_until(lambda: worker_env.redis.xlen("sediment:dlq") >= 3, 120, "three dead letters")
    wait_until(lambda: worker_env.pending() == 0, 60, "the queue to drain")
    worker_env.stop(proc)
    rt = worker_env.runtime()
    reasons = sorted(le.message for le in rt.dead_letters.list())
    rt.close()
    assert len(reasons) == 3
    assert any("exactly one argument" in r for r in reasons)
    assert any("unknown task 'sediment.retain.v0'" in r for r in reasons)
    assert any("application/x-python-serialize" in r for r in reasons)
