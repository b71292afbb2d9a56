"""A Redis restart under a live `sediment worker`: Celery clears its event loop's timers
when the broker connection drops, celery-batches' flush timer among them. The retain
messages the worker holds in its batch, and those it takes after the restart, must be
consolidated once Redis is back, not only when a 64th message fills the batch."""

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.reliability.cluster import RedisServer
from tests.helpers import event
from tests.integration.conftest import WorkerEnv, make_worker_env, wait_until
from worker.holders import HOLDERS_KEY, read_claims
from worker.publish import publish

pytestmark = pytest.mark.integration
BANK = "restarted"
RECOVERY_TARGET_S = 30.0

HELD_BATCH = {
    "SEDIMENT_WORKER_BATCH_WAIT_MS": "6000",
    "SEDIMENT_WORKER_BATCH_MAX_WAIT_MS": "6000",
    "SEDIMENT_HOLDER_TTL_S": "2",
    "SEDIMENT_VISIBILITY_TIMEOUT_S": "600",
    "SEDIMENT_TASK_SOFT_TIME_LIMIT_S": "60",
    "SEDIMENT_TASK_TIME_LIMIT_S": "90",
    "SEDIMENT_LEDGER_GRACE_S": "600",
}
"""A batch waits long enough for Redis to be stopped under it; kombu's redelivery and
the ledger's republish are too slow to be what brings the messages through."""


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[tuple[RedisServer, WorkerEnv]]:
    """A Redis of the test's own (AOF, on a free port), since the test restarts it."""
    server = RedisServer(tmp_path)
    server.start()
    env = make_worker_env(server.url, server.client(), tmp_path)
    try:
        yield server, env
    finally:
        env.kill_leftovers()
        server.stop()


def held_in_batch(env: WorkerEnv, n: int) -> bool:
    unacked = {k.decode() for k in env.redis.hkeys("unacked")}
    return len(unacked) == n and unacked <= read_claims(env.redis).tags


def consolidated(log: Path) -> set[str]:
    records = (json.loads(line) for line in log.read_text().splitlines() if line[:1] == "{")
    return {str(r["event_id"]) for r in records if r.get("event") == "consolidated"}


def test_a_worker_consolidates_what_it_holds_and_takes_after_redis_restarts(
    restartable: tuple[RedisServer, WorkerEnv],
) -> None:
    server, env = restartable
    env.env.update(HELD_BATCH)
    proc = env.start("worker")
    wait_until(lambda: env.redis.zcard(HOLDERS_KEY) == 1, 60, "the worker's heartbeat")
    held = [event(f"Erin shelved book number {i}.", i, bank=BANK) for i in range(3)]
    publish(env.producer(), held, env.queue, batch_size=1)
    wait_until(lambda: held_in_batch(env, len(held)), 4, "the worker to hold the messages")
    log = env.log_dir / "worker.log"
    assert not consolidated(log), "the batch ran before Redis stopped"

    server.stop()
    time.sleep(2)
    server.start()
    back_at = time.monotonic()
    env.redis = server.client()
    taken_after = [event(f"Erin lent book number {i}.", i, bank=BANK) for i in range(3, 23)]
    publish(env.producer(), taken_after, env.queue, batch_size=1)

    wait_until(lambda: env.owed() == 0, RECOVERY_TARGET_S, "every event to be consolidated")
    recovery_s = time.monotonic() - back_at
    wait_until(env.settled, 30, "every message to be acknowledged")
    assert proc.poll() is None, "the worker survived the restart"
    env.stop(proc)
    assert consolidated(log) == {str(e.event_id) for e in [*held, *taken_after]}
    assert recovery_s <= RECOVERY_TARGET_S
