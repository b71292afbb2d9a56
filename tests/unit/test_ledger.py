"""The redelivery ledger and its sweeper, on fakeredis: which entries are republished."""

import base64
import json
import uuid
from collections.abc import Sequence

import fakeredis
import pytest

from contracts.events import RetainEvent
from worker.celery_app import PUBLISHED_AT_HEADER, RETAIN_BATCH_TASK, RETAIN_TASK
from worker.ledger import INDEX_KEY, Entry, Kind, Ledger, event_key
from worker.publish import publish
from worker.sweeper import SWEEP_LOCK, Sweeper, carried, published_at

NOW = 10_000.0
GRACE = 60.0
QUEUE = "sediment"


def payload(n: int) -> dict[str, object]:
    return {
        "event_id": str(uuid.UUID(int=n)),
        "bank_id": "b",
        "text": f"fact {n}",
        "occurred_at": "2024-01-01T00:00:00+00:00",
    }


def entry(n: int) -> Entry:
    return Entry(Kind.RETAIN, event_key("b", uuid.UUID(int=n)), QUEUE, payload(n))


def kombu_message(payloads: list[dict[str, object]], at: float | None) -> dict[str, object]:
    """A task message as kombu's Redis transport stores it (protocol 2, base64 body)."""
    task = RETAIN_TASK if len(payloads) == 1 else RETAIN_BATCH_TASK
    args = [payloads[0]] if len(payloads) == 1 else [payloads]
    body = json.dumps([args, {}, {"callbacks": None}]).encode()
    headers: dict[str, object] = {"task": task, "id": str(uuid.uuid4())}
    if at is not None:
        headers[PUBLISHED_AT_HEADER] = at
    return {
        "body": base64.b64encode(body).decode(),
        "content-type": "application/json",
        "headers": headers,
        "properties": {"body_encoding": "base64", "delivery_tag": str(uuid.uuid4())},
    }


class Harness:
    """A ledger, a queue and an `unacked` hash in one fake Redis, and a sweeper whose
    republished and abandoned entries are recorded instead of sent."""

    def __init__(self) -> None:
        self.redis = fakeredis.FakeRedis()
        self.ledger = Ledger(self.redis)
        self.sent: list[Entry] = []
        self.abandoned: list[Entry] = []
        self.during_pause: list[object] = []
        self.sweeper = Sweeper(
            self.ledger,
            self.republish,
            self.abandoned.append,
            GRACE,
            max_republish=2,
            queues=[QUEUE],
            confirm_s=0,
            clock=lambda: NOW,
            pause=lambda _: [f() for f in self.during_pause],  # type: ignore[operator]
        )

    def republish(self, entries: Sequence[Entry], at: float) -> int:
        self.sent += entries
        return len(entries)

    def publish(self, n: int, at: float) -> Entry:
        e = entry(n)
        self.ledger.record([e], at)
        return e

    def queue(self, payloads: list[dict[str, object]], at: float | None) -> None:
        self.redis.lpush(QUEUE, json.dumps(kombu_message(payloads, at)))

    def deliver(self, payloads: list[dict[str, object]], at: float) -> None:
        value = json.dumps([kombu_message(payloads, at), "", QUEUE])
        self.redis.hset("unacked", str(uuid.uuid4()), value)


@pytest.fixture
def h() -> Harness:
    return Harness()


def test_stale_and_absent_is_republished_once_and_redated(h: Harness) -> None:
    lost = h.publish(1, NOW - 300)
    report = h.sweeper.sweep()
    assert report.republished == [lost.member] and [e.key for e in h.sent] == [lost.key]
    assert h.sent[0].republished == 1
    assert h.redis.zscore(INDEX_KEY, lost.member) == NOW
    assert h.sweeper.sweep().republished == []


def test_waiting_in_a_backlog_is_not_republished(h: Harness) -> None:
    """A long queue: the oldest waiting message was published with the entry, long ago."""
    for n in range(50):
        h.publish(n, NOW - 3600 + n)
        h.queue([payload(n)], NOW - 3600 + n)
    report = h.sweeper.sweep()
    assert report.republished == [] and report.candidates == 0


def test_published_before_the_oldest_waiting_message_is_republished(h: Harness) -> None:
    lost = h.publish(1, NOW - 3600)
    h.publish(2, NOW - 1800)
    h.queue([payload(2)], NOW - 1800)
    report = h.sweeper.sweep()
    assert report.republished == [lost.member]


def test_a_queue_known_only_from_its_entries_is_judged_by_its_own_tail(h: Harness) -> None:
    other = "reports"
    lost = Entry(Kind.RETAIN, event_key("b", uuid.UUID(int=7)), other, payload(7))
    waiting = Entry(Kind.RETAIN, event_key("b", uuid.UUID(int=8)), other, payload(8))
    h.ledger.record([lost], NOW - 3600)
    h.ledger.record([waiting], NOW - 1800)
    h.redis.lpush(other, json.dumps(kombu_message([payload(8)], NOW - 1800)))
    report = h.sweeper.sweep()
    assert report.republished == [lost.member] and report.held_back == 1


def test_in_flight_in_unacked_is_not_republished(h: Harness) -> None:
    h.publish(1, NOW - 300)
    h.publish(2, NOW - 300)
    h.deliver([payload(1), payload(2)], NOW - 300)
    report = h.sweeper.sweep()
    assert report.republished == [] and report.in_flight == 2


def test_fresh_is_not_republished(h: Harness) -> None:
    h.publish(1, NOW - GRACE / 2)
    assert h.sweeper.sweep().republished == []


def test_a_tail_without_publish_time_proves_nothing(h: Harness) -> None:
    h.publish(1, NOW - 3600)
    h.queue([payload(9)], None)
    assert h.sweeper.sweep().republished == []


def test_delivery_caught_between_list_and_unacked_is_not_republished(h: Harness) -> None:
    """The first look finds the event nowhere (popped, not yet in `unacked`); the second
    look, a moment later, finds it in `unacked`."""
    h.publish(1, NOW - 300)
    h.during_pause.append(lambda: h.deliver([payload(1)], NOW - 300))
    report = h.sweeper.sweep()
    assert report.candidates == 1 and report.republished == []


def test_retried_meanwhile_is_not_republished(h: Harness) -> None:
    e = h.publish(1, NOW - 300)
    h.during_pause.append(lambda: h.ledger.touch(Kind.RETAIN, [e.key], NOW - 1))
    assert h.sweeper.sweep().republished == []


def test_settled_entry_is_gone_and_never_republished(h: Harness) -> None:
    e = h.publish(1, NOW - 300)
    h.ledger.settle(Kind.RETAIN, [e.key])
    assert h.ledger.size() == 0 and h.redis.zcard(INDEX_KEY) == 0
    assert h.sweeper.sweep().republished == []


def test_settled_during_the_pause_is_not_republished(h: Harness) -> None:
    e = h.publish(1, NOW - 300)
    h.during_pause.append(lambda: h.ledger.settle(Kind.RETAIN, [e.key]))
    assert h.sweeper.sweep().republished == []


def test_republished_too_often_is_abandoned(h: Harness) -> None:
    e = entry(1)
    h.ledger.record([Entry(e.kind, e.key, e.queue, e.payload, republished=2)], NOW - 300)
    report = h.sweeper.sweep()
    assert report.abandoned == [e.member] and report.republished == []
    assert [a.key for a in h.abandoned] == [e.key] and h.ledger.size() == 0


def test_one_sweeper_at_a_time(h: Harness) -> None:
    h.publish(1, NOW - 300)
    h.redis.set(SWEEP_LOCK, b"other", ex=30)
    report = h.sweeper.sweep()
    assert not report.swept and h.sent == []


def test_touch_only_redates_existing_entries(h: Harness) -> None:
    e = h.publish(1, NOW - 300)
    h.ledger.touch(Kind.RETAIN, [e.key, "not-there"], NOW)
    assert h.redis.zscore(INDEX_KEY, e.member) == NOW
    assert h.redis.zcard(INDEX_KEY) == 1


def test_message_reading() -> None:
    message = kombu_message([payload(1), payload(2)], 12.5)
    raw = json.dumps([message, "", QUEUE])
    assert carried(raw) == {entry(1).member, entry(2).member}
    assert published_at(json.dumps(message)) == 12.5
    assert published_at(json.dumps(kombu_message([payload(1)], None))) is None
    assert carried(b"not json") == set()


class FailingApp:
    """A producer whose broker goes away after `ok` messages."""

    def __init__(self, ok: int) -> None:
        self.ok = ok
        self.sent: list[tuple[str, list[object]]] = []

    def send_task(self, name: str, args: list[object], **_: object) -> None:
        if len(self.sent) >= self.ok:
            raise ConnectionError("broker gone")
        self.sent.append((name, args))


def test_publish_records_every_event_of_a_batch_before_sending() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    app = FailingApp(ok=10)
    events = [RetainEvent.model_validate(payload(n)) for n in range(3)]
    assert publish(app, events, QUEUE, batch_size=2, ledger=ledger) == 3  # type: ignore[arg-type]
    assert [name for name, _ in app.sent] == [RETAIN_BATCH_TASK, RETAIN_TASK]
    assert ledger.size() == 3


def test_a_failed_send_leaves_nothing_owed_for_what_was_not_sent() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    events = [RetainEvent.model_validate(payload(n)) for n in range(3)]
    with pytest.raises(ConnectionError):
        publish(FailingApp(ok=1), events, QUEUE, ledger=ledger)  # type: ignore[arg-type]
    assert set(ledger.entries([entry(n).member for n in range(3)])) == {entry(0).member}
