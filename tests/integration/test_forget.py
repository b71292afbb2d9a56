"""Forget, end to end: after a forget, recall never returns the memory, a redelivered
retain of it is skipped, and no byte of its text is left in Redis (every key, dumped)
or in the data directory's files, in embedded mode and with a real `celery worker`."""

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from readmodel.store import Filter
from sediment.bootstrap import Runtime, bootstrap
from sediment.forgetting import forget, forget_event
from sediment.maintenance import replay_letters
from sediment.settings import Settings
from tests.helpers import event, mid
from tests.integration.conftest import WorkerEnv, wait_until
from worker.celery_app import RETAIN_TASK
from worker.publish import publish, publish_forget
from worker.tasks import letter

pytestmark = pytest.mark.integration
BANK = "forget-it"


def marked(marker: str) -> list[RetainEvent]:
    texts = [
        f"Alice keeps the spare key under the {marker} flowerpot.",
        "Alice lives in Lisbon.",
        "Bob drinks green tea every morning.",
    ]
    return [event(t, day, bank=BANK) for day, t in enumerate(texts)]


def files_with(root: Path, marker: str) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and marker.encode() in path.read_bytes():
            found.append(str(path))
    return found


def redis_keys_with(client: redis.Redis, marker: str) -> list[str]:
    found = []
    for key in client.scan_iter(count=1000):
        dumped = client.dump(key)
        if dumped is not None and marker.encode() in dumped:
            found.append(key.decode())
    return found


def recalled_ids(rt: Runtime, query: str) -> set[uuid.UUID]:
    request = RecallRequest(query=query, limit=20, prefer_observations=False, state_mode="history")
    return {r.id for r in rt.recall_pipeline.recall(BANK, request).results}


def poison_of(e: RetainEvent) -> dict[str, object]:
    """A rejected copy of the event, as a dead letter would keep it."""
    return {**e.model_dump(mode="json"), "occurred_at": "2024-01-01T00:00:00"}


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Settings]:
    yield Settings(_env_file=None, mode="embedded", data_dir=tmp_path / "data")  # type: ignore[call-arg]


def test_embedded_forget_leaves_no_trace(embedded: Settings) -> None:
    marker = "zq" + uuid.uuid4().hex
    events = marked(marker)
    doomed = events[0]
    rt = bootstrap(embedded)
    assert rt.publisher.publish_retain(events) == 3
    assert mid(doomed) in recalled_ids(rt, f"spare key {marker} flowerpot")
    rt.dead_letters.add(letter("sediment.retain.v1", poison_of(doomed), ValueError("x"), 1))
    assert forget(rt.publisher, BANK, memory_ids=[mid(doomed)]) == 1
    assert mid(doomed) not in recalled_ids(rt, f"spare key {marker} flowerpot")
    assert rt.publisher.publish_retain([doomed]) == 0
    assert rt.dead_letters.length() == 0
    rt.close()
    assert files_with(embedded.data_dir, marker) == []
    again = bootstrap(embedded)
    assert again.publisher.publish_retain([doomed]) == 0
    assert mid(doomed) not in recalled_ids(again, "spare key flowerpot")
    assert mid(events[1]) in recalled_ids(again, "Alice lives in Lisbon")
    again.close()


def given_up(e: RetainEvent) -> DeadLetter:
    """A valid retain whose attempts all failed (the store down): replayable as it is."""
    return letter(RETAIN_TASK, e.model_dump(mode="json"), ConnectionError("store down"), 4)


def dead_lettered_before_a_forget(rt: Runtime) -> tuple[RetainEvent, RetainEvent, RetainEvent]:
    """A stored memory of the bank, then three retains dead-lettered: one of the bank
    tagged private, one of the bank untagged, one of another bank."""
    assert rt.publisher.publish_retain([event("Alice lives in Lisbon.", 0, bank=BANK)]) == 1
    private = event("Alice's door code is 90210.", 1, bank=BANK, tags=["private"])
    public = event("Alice likes jazz.", 2, bank=BANK)
    elsewhere = event("Bob's door code is 1234.", 1, bank="another-bank", tags=["private"])
    for e in (private, public, elsewhere):
        rt.dead_letters.add(given_up(e))
    return private, public, elsewhere


def replayed_texts(rt: Runtime, bank: str) -> list[str]:
    """Every dead letter replayed through the one retain path; the bank's texts after."""
    replay_letters(rt.dead_letters, rt.publisher, rt.settings.max_text_bytes, None, None)
    return sorted(p.record.text for p in rt.store.scroll(Filter(bank)))


def test_embedded_bank_forget_removes_the_bank_s_dead_letters(embedded: Settings) -> None:
    """A retain dead-lettered before a forget of its bank was never stored: its letter
    goes with the forget, so a replay cannot store it in the bank that forgot it."""
    rt = bootstrap(embedded)
    _, _, elsewhere = dead_lettered_before_a_forget(rt)
    assert forget(rt.publisher, BANK, everything=True) == 1
    assert [json.loads(le.payload)["event_id"] for le in rt.dead_letters.list()] == [
        str(elsewhere.event_id)
    ]
    assert replayed_texts(rt, BANK) == []
    assert replayed_texts(rt, "another-bank") == ["Bob's door code is 1234."]
    rt.close()
    assert files_with(embedded.data_dir, "90210") == []


def test_embedded_filter_forget_removes_the_dead_letters_it_selects(embedded: Settings) -> None:
    rt = bootstrap(embedded)
    _, public, elsewhere = dead_lettered_before_a_forget(rt)
    assert forget(rt.publisher, BANK, tags=["private"]) == 0
    kept = {json.loads(le.payload)["event_id"] for le in rt.dead_letters.list()}
    assert kept == {str(public.event_id), str(elsewhere.event_id)}
    assert replayed_texts(rt, BANK) == ["Alice likes jazz.", "Alice lives in Lisbon."]
    rt.close()


def test_worker_bank_forget_removes_the_bank_s_dead_letters(worker_env: WorkerEnv) -> None:
    producer = worker_env.producer()
    proc = worker_env.start("worker")
    rt = worker_env.runtime()
    marker = "zq" + uuid.uuid4().hex
    doomed = event(f"Alice's door code is {marker}.", 1, bank=BANK)
    elsewhere = event("Bob's door code is 1234.", 1, bank="another-bank")
    for e in (doomed, elsewhere):
        rt.dead_letters.add(given_up(e))
    publish_forget(producer, [forget_event(BANK, everything=True)], worker_env.queue)
    wait_until(worker_env.settled, 120, "the forget")
    worker_env.stop(proc)
    letters = rt.dead_letters.list()
    assert [json.loads(le.payload)["event_id"] for le in letters] == [str(elsewhere.event_id)]
    assert redis_keys_with(worker_env.redis, marker) == []
    rt.close()


def test_worker_forget_leaves_no_trace_in_redis_or_files(worker_env: WorkerEnv) -> None:
    marker = "zq" + uuid.uuid4().hex
    events = marked(marker)
    doomed = events[0]
    producer = worker_env.producer()
    proc = worker_env.start("worker")
    publish(producer, events, worker_env.queue)
    producer.send_task("sediment.retain.v1", args=[poison_of(doomed)], queue=worker_env.queue)
    wait_until(worker_env.settled, 120, "the retains")
    assert worker_env.redis.xlen("sediment:dlq") == 1
    forget_ev = forget_event(BANK, memory_ids=[mid(doomed)])
    publish_forget(producer, [forget_ev], worker_env.queue)
    wait_until(worker_env.settled, 120, "the forget")
    publish(producer, [doomed], worker_env.queue)
    wait_until(worker_env.settled, 120, "the redelivered retain")
    worker_env.stop(proc)

    assert redis_keys_with(worker_env.redis, marker) == []
    assert worker_env.redis.xlen("sediment:dlq") == 0
    rt = worker_env.runtime()
    assert mid(doomed) not in recalled_ids(rt, f"spare key {marker} flowerpot")
    assert mid(events[1]) in recalled_ids(rt, "Alice lives in Lisbon")
    stones = rt.tombstones.of_bank(BANK)
    assert [t.memory_id for t in stones] == [mid(doomed)]
    assert marker not in json.dumps([t.model_dump(mode="json") for t in stones])
    rt.close()
    assert files_with(worker_env.data_dir, marker) == []
    log = (worker_env.log_dir / "worker.log").read_bytes()
    assert marker.encode() not in log


def test_forget_survives_a_worker_killed_mid_stream_and_a_replay(worker_env: WorkerEnv) -> None:
    """Retains and a forget of one of them in one stream; the worker is killed -9 while it
    works through it and started again; then the whole original stream is replayed. The
    forgotten memory never comes back, and every other event is stored."""
    events = [event(f"Carol noted item {i} in the ledger.", i, bank=BANK) for i in range(60)]
    doomed = events[5]
    producer = worker_env.producer()
    proc = worker_env.start("worker")
    publish(producer, events[:30], worker_env.queue)
    publish_forget(
        producer,
        [forget_event(BANK, memory_ids=[mid(doomed)])],
        worker_env.queue,
    )
    publish(producer, events[30:], worker_env.queue)
    wait_until(lambda: worker_env.owed() < 61, 120, "the worker to start consuming")
    proc.kill()
    proc.wait(30)
    proc = worker_env.start("worker")
    wait_until(worker_env.settled, 180, "the stream after the kill")
    publish(producer, events, worker_env.queue)
    wait_until(worker_env.settled, 180, "the replay")
    worker_env.stop(proc)

    rt = worker_env.runtime()
    stored = {p.record.id for p in rt.store.fetch(BANK, [mid(e) for e in events])}
    assert mid(doomed) not in stored
    assert stored == {mid(e) for e in events if e is not doomed}
    assert mid(doomed) not in recalled_ids(rt, "Carol noted item 5 in the ledger")
    rt.close()
