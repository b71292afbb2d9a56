"""A retain accepted before a bank forget and delivered again after it, by each path
that delivers a message again, keeps its acceptance time and is forgotten (the forget's
rule, worker/forget_rules.py); a real `celery worker` on real Redis.

Each case: a retain is published through the ledger and taken off its queue (as by a
consumer killed with it in hand); a forget of the whole bank is published after it and
handled; then the retain comes back: republished by the ledger's sweeper, restored from
`unacked`, or queued again by a retry. It must land forgotten, not stored. And a vote
that arrives after the forget of its memory is dropped and counted, not dead-lettered.
"""

import json
import time
import uuid
from datetime import UTC, datetime

import pytest
from celery import Celery

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from sediment.forgetting import forget_event
from telemetry.metrics import FEEDBACK_DROPPED
from tests.helpers import event, mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.celery_app import PUBLISHED_AT_HEADER, RETAIN_TASK
from worker.ledger import Kind, Ledger, event_key
from worker.publish import publish, publish_feedback, publish_forget
from worker.tombstones import RULES_KEY

pytestmark = pytest.mark.integration
BANK = "forget-redelivered"


def taken(env: WorkerEnv) -> dict[str, object]:
    """The retain's message, off its queue: in no one's hands, owed by the ledger only."""
    raw = env.redis.rpop(env.queue)
    assert isinstance(raw, bytes)
    message: dict[str, object] = json.loads(raw)
    return message


def forgotten_after(env: WorkerEnv, producer: Celery) -> float:
    """Publish a forget of the whole bank, wait until a worker has handled it; returns
    when it was requested (Unix seconds)."""
    time.sleep(0.05)
    forget = forget_event(BANK, everything=True)
    publish_forget(producer, [forget], env.queue)
    wait_until(lambda: env.redis.exists(RULES_KEY.format(bank=BANK)), 60, "the forget")
    assert forget.requested_at is not None
    return forget.requested_at.timestamp()


def outcome(env: WorkerEnv, proc: object, retain: RetainEvent) -> tuple[bool, bool]:
    """(stored, tombstoned) once everything is handled."""
    wait_until(env.settled, 120, "the retain to come back and be handled")
    env.stop(proc)  # type: ignore[arg-type]
    rt = env.runtime()
    try:
        stored = bool(rt.store.fetch(BANK, [mid(retain)]))
        stoned = rt.tombstones.forgotten(BANK, [mid(retain)]) == {mid(retain)}
    finally:
        rt.close()
    return stored, stoned


def test_a_retain_republished_by_the_sweeper_keeps_its_acceptance(worker_env: WorkerEnv) -> None:
    worker_env.env["SEDIMENT_LEDGER_GRACE_S"] = "3"
    producer = worker_env.producer()
    retain = event("Dana's door code is 90210.", 0, bank=BANK)
    publish(producer, [retain], worker_env.queue)
    message = taken(worker_env)
    headers = message["headers"]
    assert isinstance(headers, dict)
    accepted = float(headers[PUBLISHED_AT_HEADER])
    proc = worker_env.start("worker")
    assert forgotten_after(worker_env, producer) > accepted
    # the sweeper finds the retain neither queued nor in flight after its grace
    assert outcome(worker_env, proc, retain) == (False, True)
    log = (worker_env.log_dir / "worker.log").read_text()
    assert '"republished"' in log


def test_a_retain_restored_from_unacked_keeps_its_acceptance(worker_env: WorkerEnv) -> None:
    """The message a dead consumer held, put back by the sweeper with kombu's restore."""
    worker_env.env.update({"SEDIMENT_HOLDER_TTL_S": "2", "SEDIMENT_LEDGER_GRACE_S": "600"})
    producer = worker_env.producer()
    retain = event("Dana's door code is 90210.", 0, bank=BANK)
    publish(producer, [retain], worker_env.queue)
    message = taken(worker_env)
    proc = worker_env.start("worker")
    forgotten_after(worker_env, producer)
    properties = message["properties"]
    assert isinstance(properties, dict)
    delivery = properties["delivery_info"]
    tag = properties["delivery_tag"]
    held = json.dumps([message, delivery["exchange"], delivery["routing_key"]])
    with worker_env.redis.pipeline(transaction=True) as pipe:
        pipe.hset("unacked", tag, held)
        pipe.zadd("unacked_index", {tag: time.time() - 60})
        pipe.execute()
    assert outcome(worker_env, proc, retain) == (False, True)


def test_a_retried_retain_keeps_its_acceptance(worker_env: WorkerEnv) -> None:
    """A retry is a new message with the original header and a countdown (what
    `worker.tasks` sends after a transient failure, with the ledger entry re-dated)."""
    producer = worker_env.producer()
    retain = event("Dana's door code is 90210.", 0, bank=BANK)
    publish(producer, [retain], worker_env.queue)
    message = taken(worker_env)
    headers = message["headers"]
    assert isinstance(headers, dict)
    Ledger(worker_env.redis).touch(Kind.RETAIN, [event_key(BANK, retain.event_id)], time.time())
    producer.send_task(
        RETAIN_TASK,
        args=[retain.model_dump(mode="json")],
        queue=worker_env.queue,
        headers={PUBLISHED_AT_HEADER: headers[PUBLISHED_AT_HEADER]},
        countdown=4,
        retries=1,
    )
    proc = worker_env.start("worker")
    forgotten_after(worker_env, producer)
    assert outcome(worker_env, proc, retain) == (False, True)


def test_a_retain_accepted_after_the_forget_and_republished_is_kept(
    worker_env: WorkerEnv,
) -> None:
    """The other side: acceptance after the forget, then lost and republished: kept."""
    worker_env.env["SEDIMENT_LEDGER_GRACE_S"] = "3"
    producer = worker_env.producer()
    first = worker_env.start("worker-1")
    forgotten_after(worker_env, producer)
    worker_env.stop(first)
    time.sleep(0.05)
    retain = event("Dana's door code is 11111.", 1, bank=BANK)
    publish(producer, [retain], worker_env.queue)
    taken(worker_env)
    proc = worker_env.start("worker-2")
    assert outcome(worker_env, proc, retain) == (True, False)


def test_a_vote_on_a_memory_forgotten_before_it_arrives_is_dropped_and_counted(
    worker_env: WorkerEnv,
) -> None:
    """The vote was accepted while the memory existed; a forget was handled first: the
    vote is dropped and counted (`feedback_dropped`), not dead-lettered."""
    producer = worker_env.producer()
    retain = event("Dana's door code is 90210.", 0, bank=BANK)
    publish(producer, [retain], worker_env.queue)
    proc = worker_env.start("worker")
    wait_until(worker_env.settled, 60, "the retain")
    publish_forget(producer, [forget_event(BANK, memory_ids=[mid(retain)])], worker_env.queue)
    wait_until(worker_env.settled, 60, "the forget")
    vote = FeedbackEvent(
        event_id=uuid.uuid4(),
        bank_id=BANK,
        memory_id=mid(retain),
        vote="up",
        occurred_at=datetime.now(UTC),
    )
    publish_feedback(producer, [vote], worker_env.queue)
    wait_until(worker_env.settled, 60, "the vote")
    worker_env.stop(proc)
    rt = worker_env.runtime()
    try:
        assert rt.dead_letters.length() == 0
        assert rt.metrics.snapshot(5, BANK).total(FEEDBACK_DROPPED, reason="forgotten") == 1
    finally:
        rt.close()
