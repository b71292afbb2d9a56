"""A forget of a whole bank covers a retain accepted before it and still in flight (here
a message held back by a countdown, as a retry is), with a real `celery worker`: the
retain lands after the forget and is forgotten; a retain accepted after it is kept."""

import time

import pytest

from sediment.forgetting import forget_event
from tests.helpers import event, mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.celery_app import PUBLISHED_AT_HEADER, RETAIN_TASK
from worker.publish import publish, publish_forget

pytestmark = pytest.mark.integration
BANK = "forget-in-flight"


def test_a_bank_forget_covers_a_retain_accepted_before_it_and_delivered_after(
    worker_env: WorkerEnv,
) -> None:
    producer = worker_env.producer()
    proc = worker_env.start("worker")
    held = event("Dana's door code is 90210.", 0, bank=BANK)
    producer.send_task(
        RETAIN_TASK,
        args=[held.model_dump(mode="json")],
        queue=worker_env.queue,
        headers={PUBLISHED_AT_HEADER: time.time()},
        countdown=4,
    )
    time.sleep(0.05)
    publish_forget(producer, [forget_event(BANK, everything=True)], worker_env.queue)
    wait_until(lambda: worker_env.redis.exists(f"sediment:forget-rules:{BANK}"), 60, "the forget")
    time.sleep(0.05)
    later = event("Dana's door code is 11111.", 1, bank=BANK)
    publish(producer, [later], worker_env.queue)
    wait_until(worker_env.settled, 60, "the held retain and the later one")
    worker_env.stop(proc)

    rt = worker_env.runtime()
    stored = {p.record.id for p in rt.store.fetch(BANK, [mid(held), mid(later)])}
    assert stored == {mid(later)}
    assert rt.tombstones.forgotten(BANK, [mid(held)]) == {mid(held)}
    rt.close()
