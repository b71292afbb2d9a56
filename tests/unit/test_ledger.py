"""The redelivery ledger and its sweeper, on fakeredis: which entries are republished."""

import base64
import json
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import fakeredis
import pytest
from celery import Celery

from contracts.events import RetainEvent
from worker.celery_app import FORGET_TASK, PUBLISHED_AT_HEADER, RETAIN_BATCH_TASK, RETAIN_TASK
from worker.deadletters import FileDeadLetters
from worker.ledger import (
    INDEX_KEY,
    LEDGER_KEY,
    Entry,
    Kind,
    Ledger,
    accepted_key,
    event_key,
    member,
)
from worker.publish import publish, republish
from worker.sweeper import SWEEP_LOCK, Sweeper, carried, make_sweeper, published_at

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


class RecordingApp:
    """A producer that keeps what it sends, headers and all."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list[object], dict[str, object]]] = []

    def send_task(self, name: str, args: list[object], **options: object) -> None:
        headers = options.get("headers")
        self.sent.append((name, args, dict(headers) if isinstance(headers, dict) else {}))


def accepted(n: int, at: float) -> Entry:
    e = entry(n)
    return Entry(e.kind, e.key, e.queue, e.payload, accepted_at=at)


def test_publish_keeps_each_events_acceptance_time_in_its_entry() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    app = RecordingApp()
    events = [RetainEvent.model_validate(payload(n)) for n in range(2)]
    publish(app, events, QUEUE, batch_size=2, ledger=ledger)  # type: ignore[arg-type]
    [(_, _, headers)] = app.sent
    found = ledger.entries([entry(n).member for n in range(2)])
    assert {e.accepted_at for e in found.values()} == {headers[PUBLISHED_AT_HEADER]}
    assert ledger.oldest_accepted("b") == headers[PUBLISHED_AT_HEADER]


def test_the_sweeper_republishes_with_the_original_acceptance_time(h: Harness) -> None:
    """A republish is a new message, but its events were accepted when first published:
    a forget requested in between must still cover them."""
    first = accepted(1, NOW - 300)
    h.ledger.record([first], NOW - 300)
    assert h.sweeper.sweep().republished == [first.member]
    assert h.sent[0].accepted_at == NOW - 300
    assert h.redis.zscore(INDEX_KEY, first.member) == NOW  # re-dated for the sweeper only
    assert h.ledger.entries([first.member])[first.member].accepted_at == NOW - 300
    assert h.ledger.oldest_accepted("b") == NOW - 300


def test_an_entry_without_its_acceptance_is_republished_dated_as_last_published(
    h: Harness,
) -> None:
    """Written before the ledger kept acceptance times: its latest publish is the best
    known, and it joins the bank's `accepted` index."""
    h.publish(1, NOW - 300)
    h.sweeper.sweep()
    assert h.sent[0].accepted_at == NOW - 300
    assert h.ledger.oldest_accepted("b") == NOW - 300


def test_republish_sends_each_message_with_its_events_acceptance_time() -> None:
    app = RecordingApp()
    entries = [accepted(1, 100.0), accepted(2, 100.0), accepted(3, 200.0), entry(4)]
    assert republish(app, entries, 999.0) == 4  # type: ignore[arg-type]
    dated = sorted(
        (h[PUBLISHED_AT_HEADER], len(a[0]) if n == RETAIN_BATCH_TASK else 1) for n, a, h in app.sent
    )
    assert dated == [(100.0, 2), (200.0, 1), (999.0, 1)]


def test_the_oldest_retain_owed_per_bank() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    old, mid_, new = accepted(1, 100.0), accepted(2, 200.0), accepted(3, 300.0)
    ledger.record([old, mid_], 100.0)
    ledger.record([new], 300.0)
    other = Entry(Kind.RETAIN, event_key("c", uuid.UUID(int=9)), QUEUE, payload(9), 0, 50.0)
    ledger.record([other], 50.0)
    assert ledger.oldest_accepted("b") == 100.0
    ledger.touch(Kind.RETAIN, [old.key], 400.0)  # a retry keeps the acceptance
    assert ledger.oldest_accepted("b") == 100.0
    ledger.settle(Kind.RETAIN, [old.key])
    assert ledger.oldest_accepted("b") == 200.0
    ledger.record([accepted(2, 250.0)], 250.0)  # published again: the first acceptance holds
    assert ledger.oldest_accepted("b") == 200.0
    assert ledger.claim(mid_, 250.0, 500.0, None)  # abandoned by the sweeper
    assert ledger.oldest_accepted("b") == 300.0
    ledger.settle(Kind.RETAIN, [new.key])
    assert ledger.oldest_accepted("b") is None and ledger.oldest_accepted("c") == 50.0


def test_an_index_entry_left_without_its_ledger_entry_is_dropped() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    ledger.record([accepted(1, 100.0), accepted(2, 200.0)], 100.0)
    ledger.client.hdel(LEDGER_KEY, entry(1).member)
    assert ledger.oldest_accepted("b") == 200.0
    assert ledger.client.zcard(accepted_key("b")) == 1


def test_feedback_and_forgets_are_not_retains_in_the_index() -> None:
    ledger = Ledger(fakeredis.FakeRedis())
    vote = Entry(Kind.FEEDBACK, entry(1).key, QUEUE, payload(1), accepted_at=10.0)
    ledger.record([vote], 10.0)
    assert ledger.oldest_accepted("b") is None


def test_a_forget_in_flight_is_read_as_a_forget() -> None:
    message = kombu_message([payload(1)], 12.5)
    message["headers"]["task"] = FORGET_TASK  # type: ignore[index]
    assert carried(json.dumps([message, "", QUEUE])) == {member(Kind.FORGET, entry(1).key)}


def test_an_abandoned_forget_is_dead_lettered_as_a_forget(tmp_path: Path) -> None:
    """So that `sediment dlq replay` sends it again as a forget, not as a retain."""
    ledger = Ledger(fakeredis.FakeRedis())
    letters = FileDeadLetters(tmp_path / "dlq.jsonl", 10)
    app = Celery(broker="memory://", set_as_current=False)
    sweeper = make_sweeper(app, ledger, letters, GRACE, max_republish=1, queues=[QUEUE])
    gone = Entry(Kind.FORGET, entry(1).key, QUEUE, payload(1), republished=1)
    ledger.record([gone], time.time() - 600)
    assert sweeper.sweep().abandoned == [gone.member]
    [letter] = letters.list()
    assert letter.task == FORGET_TASK and letter.error_class == "Undelivered"
