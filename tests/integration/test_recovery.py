"""Recovery from a killed worker without waiting for the visibility timeout: what a
process killed with -9 held goes back on the queue once its heartbeat lapses, and its
bank lock lapses within SEDIMENT_LOCK_TIMEOUT_S; a stale `unacked` entry (what a Redis
outage left behind, D8) is put back too."""

import json
import signal
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from contracts.events import RetainEvent
from readmodel.store import Filter
from tests.helpers import mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.ledger import LEDGER_KEY
from worker.publish import publish
from worker.sweeper import carried

pytestmark = pytest.mark.integration

SLOW_REDELIVERY = {
    "SEDIMENT_VISIBILITY_TIMEOUT_S": "600",
    "SEDIMENT_TASK_SOFT_TIME_LIMIT_S": "60",
    "SEDIMENT_TASK_TIME_LIMIT_S": "90",
    "SEDIMENT_HOLDER_TTL_S": "4",
    "SEDIMENT_LEDGER_GRACE_S": "600",
}
"""kombu's own redelivery and the ledger's republish are both too slow to be what
recovers the messages here."""


def retain_events(bank: str, n: int) -> list[RetainEvent]:
    start = datetime(2024, 3, 1, tzinfo=UTC)
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}-{i}"),
            bank_id=bank,
            text=f"Crate {i} was loaded onto the ferry at Piraeus on day {i}.",  # type: ignore[arg-type]
            occurred_at=start + timedelta(hours=i),
        )
        for i in range(n)
    ]


def stored_ids(env: WorkerEnv, bank: str) -> set[uuid.UUID]:
    rt = env.runtime()
    try:
        return {p.record.id for p in rt.store.scroll(Filter(bank, kinds=("world",)))}
    finally:
        rt.close()


def in_flight(env: WorkerEnv) -> set[str]:
    return {m for raw in env.redis.hvals("unacked") for m in carried(raw)}


def test_a_killed_workers_messages_are_back_within_seconds(worker_env: WorkerEnv) -> None:
    worker_env.env.update(SLOW_REDELIVERY)
    bank = "recovery"
    events = retain_events(bank, 300)
    assert publish(worker_env.producer(), events, worker_env.queue) == 300
    first = worker_env.start("worker-1")
    wait_until(lambda: worker_env.owed() < 250, 180, "the first worker to consume")
    wait_until(lambda: in_flight(worker_env), 30, "a message in flight")
    first.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    first.wait(timeout=30)
    held = in_flight(worker_env)
    assert held, "the killed worker held nothing"
    second = worker_env.start("worker-2")

    def recovered() -> bool:
        return not any(worker_env.redis.hexists(LEDGER_KEY, m) for m in held)

    wait_until(recovered, 60, "the killed worker's events to be handled")
    recovery_s = time.monotonic() - killed_at
    worker_env.stop(second)
    # A message the killed worker had popped from the queue but not yet recorded as
    # unacked is in neither list: only the ledger brings it back, after its grace. A
    # worker with the fixture's short grace finishes the stream.
    worker_env.env["SEDIMENT_LEDGER_GRACE_S"] = "3"
    third = worker_env.start("worker-3")
    wait_until(worker_env.settled, 300, "the rest of the stream")
    worker_env.stop(third)
    assert recovery_s <= 30, f"recovered in {recovery_s:.1f} s"
    assert stored_ids(worker_env, bank) == {mid(e) for e in events}


def test_a_stale_unacked_entry_is_put_back_and_handled(worker_env: WorkerEnv) -> None:
    """D8: an `unacked` entry without its index entry, as a Redis outage left one:
    kombu's restore reads the index and never saw it; the ledger took it for in flight."""
    worker_env.env.update(SLOW_REDELIVERY)
    bank = "stale"
    [event] = retain_events(bank, 1)
    assert publish(worker_env.producer(), [event], worker_env.queue) == 1
    raw = worker_env.redis.rpop(worker_env.queue)
    assert isinstance(raw, bytes)
    message = json.loads(raw)
    delivery = message["properties"]["delivery_info"]
    tag = message["properties"]["delivery_tag"]
    entry = json.dumps([message, delivery["exchange"], delivery["routing_key"]])
    worker_env.redis.hset("unacked", tag, entry)
    proc = worker_env.start("worker")
    wait_until(worker_env.settled, 60, "the stale entry to be put back and handled")
    worker_env.stop(proc)
    assert stored_ids(worker_env, bank) == {mid(event)}
