"""Expiry and the audit stream with real Redis and a real `celery worker`: a memory
retained with a short ttl is forgotten by the worker's own expiry sweep (tombstone,
chain recomputed: the earlier state is current again), and the bank's audit stream in
Redis records the retain (cli) and the expiry (worker), holding no byte of the text."""

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from contracts.audit import AuditEntry
from contracts.recall import RecallRequest
from tests.helpers import event, mid
from tests.integration.conftest import WorkerEnv, wait_until
from tests.integration.test_forget import redis_keys_with

pytestmark = pytest.mark.integration
BANK = "expiring"


def audit_of(worker_env: WorkerEnv) -> list[AuditEntry]:
    out = subprocess.run(
        [sys.executable, "-m", "sediment.cli", "audit", "--bank", BANK, "--json"],
        env=worker_env.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return [AuditEntry.model_validate(e) for e in json.loads(out)]


def test_the_worker_forgets_what_expired_and_the_audit_says_so(worker_env: WorkerEnv) -> None:
    worker_env.env["SEDIMENT_EXPIRY_SWEEP_S"] = "1"
    marker = "zq" + uuid.uuid4().hex
    soon = datetime.now(UTC) + timedelta(seconds=3)
    boston = event("Alice lives in Boston.", 0, bank=BANK, key="alice.city")
    seattle = event(
        f"Alice lives in Seattle, gate code {marker}.",
        20,
        bank=BANK,
        key="alice.city",
        expires_at=soon,
    )
    tea = event("Bob drinks green tea every morning.", 1, bank=BANK)
    producer = worker_env.runtime()
    assert producer.publisher.publish_retain([boston, seattle, tea]) == 3
    producer.close()
    proc = worker_env.start("worker")
    gone = mid(seattle)

    def swept() -> bool:
        stones = worker_env.redis.hkeys(f"sediment:tombstones:{BANK}")
        return str(gone).encode() in stones and worker_env.settled()

    wait_until(swept, 180, "the expiry sweep's forget")
    worker_env.stop(proc)

    rt = worker_env.runtime()
    assert rt.store.fetch(BANK, [gone]) == []
    request = RecallRequest(query="Where does Alice live?", limit=3)
    [head, *_] = rt.recaller.recall(BANK, request).results
    assert (head.id, head.state.value, head.superseded_by) == (
        mid(boston),
        "current",
        None,
    )
    rt.close()
    entries = audit_of(worker_env)
    expiries = [e for e in entries if e.action == "expire"]
    assert expiries and {e.actor for e in expiries} == {"worker"}
    assert gone in {i for e in expiries for i in e.memory_ids}
    [retained] = [e for e in entries if e.action == "retain"]
    assert retained.actor == "cli" and retained.counts == {"events": 3}
    assert redis_keys_with(worker_env.redis, marker) == []
