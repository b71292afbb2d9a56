"""A real `celery worker` takes many single-event messages per delivery: they are
consolidated together, each is acknowledged and settled, and a forget queued after
them still sees them (the worker runs what it has buffered before the forget)."""

import json
from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.store import Filter
from sediment.forgetting import forget_event
from tests.helpers import event, mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.holders import HOLDERS_KEY, read_claims
from worker.publish import publish, publish_forget

pytestmark = pytest.mark.integration
BANK = "batched"


def consolidated_lines(log: Path) -> list[dict[str, object]]:
    out = []
    for line in log.read_text().splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("event") == "consolidated":
                out.append(record)
    return out


def test_single_event_messages_are_batched_and_a_later_forget_sees_them(
    worker_env: WorkerEnv,
) -> None:
    before = [event(f"Note {i}: Alice planted tree number {i}.", i, bank=BANK) for i in range(150)]
    after = event("Bob repainted the shed green.", 200, bank=BANK)
    producer = worker_env.producer()
    publish(producer, before, worker_env.queue, batch_size=1)
    publish_forget(producer, [forget_event(BANK, everything=True)], worker_env.queue)
    publish(producer, [after], worker_env.queue, batch_size=1)
    assert worker_env.redis.llen(worker_env.queue) == 152
    proc = worker_env.start("worker")
    wait_until(worker_env.settled, 120, "the retains and the forget")
    worker_env.stop(proc)

    lines = consolidated_lines(worker_env.log_dir / "worker.log")
    assert sorted(str(r["event_id"]) for r in lines) == sorted(
        str(e.event_id) for e in [*before, after]
    )
    assert all(r["status"] == "stored" for r in lines)
    sizes = [int(str(r["messages"])) for r in lines]
    assert max(sizes) > 1, "messages waiting in the queue are consolidated together"
    assert len({r["task_id"] for r in lines}) == len(lines), "one message per event"

    rt = worker_env.runtime()
    try:
        kept = rt.store.scroll(Filter(BANK))
        assert [p.record.id for p in kept] == [mid(after)]
        assert len(rt.tombstones.of_bank(BANK)) == len(before)
        request = RecallRequest(query="tree planted by Alice", prefer_observations=False)
        found = rt.recaller.recall(BANK, request).results
        assert {r.id for r in found} <= {mid(after)}
    finally:
        rt.close()


def test_a_live_worker_claims_the_messages_waiting_in_its_batch(worker_env: WorkerEnv) -> None:
    """Messages taken into a batch but not yet run are unacknowledged; the worker's
    heartbeat must claim them, or the sweeper would hand them to another worker."""
    worker_env.env["SEDIMENT_WORKER_BATCH_WAIT_MS"] = "4000"
    worker_env.env["SEDIMENT_WORKER_BATCH_MAX_WAIT_MS"] = "4000"
    worker_env.env["SEDIMENT_HOLDER_TTL_S"] = "2"
    proc = worker_env.start("worker")
    wait_until(lambda: worker_env.redis.zcard(HOLDERS_KEY) == 1, 60, "the worker's heartbeat")
    producer = worker_env.producer()
    waiting = [event(f"Dana collects stamp number {i}.", i, bank=BANK) for i in range(3)]
    publish(producer, waiting, worker_env.queue, batch_size=1)

    def claimed() -> bool:
        unacked = {k.decode() for k in worker_env.redis.hkeys("unacked")}
        return len(unacked) == 3 and unacked <= read_claims(worker_env.redis).tags

    wait_until(claimed, 3, "the waiting messages to be claimed")
    wait_until(worker_env.settled, 60, "the batch to run")
    worker_env.stop(proc)
    lines = consolidated_lines(worker_env.log_dir / "worker.log")
    assert sorted(str(r["event_id"]) for r in lines) == sorted(str(e.event_id) for e in waiting)
    assert {int(str(r["messages"])) for r in lines} == {3}
