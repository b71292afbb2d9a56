"""Publishing retain and feedback events. Any Celery client can do the same with

    app.send_task("sediment.retain.v1", args=[event_dict], queue="sediment")

where `event_dict` is a RetainEvent as JSON (contracts/schema/RetainEvent.json). A raw
`send_task` gets kombu's delivery guarantee only; `publish` here also writes each event
to the redelivery ledger (worker/ledger.py) first, so a worker killed at the wrong
moment cannot lose it.
"""

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from celery import Celery

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from contracts.forget import ForgetEvent
from worker.celery_app import (
    FEEDBACK_TASK,
    FORGET_TASK,
    PUBLISHED_AT_HEADER,
    RETAIN_BATCH_TASK,
    RETAIN_TASK,
)
from worker.ledger import Entry, Kind, Ledger, event_key, ledger_for, payload_key

CHUNK_MESSAGES = 64
"""Messages whose ledger entries are written in one round trip before they are sent."""
REPUBLISH_BATCH = 64


@dataclass(frozen=True)
class Message:
    task: str
    kind: Kind
    payloads: list[dict[str, object]]

    @property
    def args(self) -> list[object]:
        return [self.payloads[0]] if self.task != RETAIN_BATCH_TASK else [self.payloads]


def publish(
    app: Celery,
    events: Iterable[RetainEvent],
    queue: str,
    batch_size: int = 1,
    ledger: Ledger | None = None,
) -> int:
    """Send events, one per message or `batch_size` per batch message; returns how many.
    `ledger` defaults to the one in the app's broker database (none for `memory://`)."""
    payloads = (e.model_dump(mode="json") for e in events)
    return _publish(app, _retain_messages(payloads, batch_size), queue, ledger)


def publish_feedback(
    app: Celery, events: Iterable[FeedbackEvent], queue: str, ledger: Ledger | None = None
) -> int:
    """Send feedback events, one message each (`sediment.feedback.v1`)."""
    messages = (Message(FEEDBACK_TASK, Kind.FEEDBACK, [e.model_dump(mode="json")]) for e in events)
    return _publish(app, messages, queue, ledger)


def publish_forget(
    app: Celery, events: Iterable[ForgetEvent], queue: str, ledger: Ledger | None = None
) -> int:
    """Send forget events, one message each (`sediment.forget.v1`), on the retains' queue."""
    messages = (Message(FORGET_TASK, Kind.FORGET, [e.model_dump(mode="json")]) for e in events)
    return _publish(app, messages, queue, ledger)


_SINGLE_TASKS = {Kind.FEEDBACK: FEEDBACK_TASK, Kind.FORGET: FORGET_TASK}


def republish(app: Celery, entries: Sequence[Entry], at: float) -> int:
    """Send ledger entries again (the sweeper has already re-recorded them at `at`).
    Each message carries the time its events were first accepted, not `at`: a forget
    requested after they were accepted must still cover them (worker/forget_rules.py),
    so only entries accepted at the same time share a message. An entry that does not
    know its acceptance (written before the ledger kept it) goes out dated `at`."""
    groups: dict[tuple[str, Kind, float], list[dict[str, object]]] = {}
    for e in entries:
        accepted = e.accepted_at if e.accepted_at is not None else at
        groups.setdefault((e.queue, e.kind, accepted), []).append(e.payload)
    sent = 0
    for (queue, kind, accepted), payloads in groups.items():
        if kind is Kind.RETAIN:
            messages: Iterable[Message] = _retain_messages(iter(payloads), REPUBLISH_BATCH)
        else:
            messages = (Message(_SINGLE_TASKS[kind], kind, [p]) for p in payloads)
        for message in messages:
            _send(app, message, queue, accepted)
            sent += len(message.payloads)
    return sent


def _retain_messages(payloads: Iterator[dict[str, object]], batch_size: int) -> Iterator[Message]:
    pending: list[dict[str, object]] = []
    for payload in payloads:
        pending.append(payload)
        if len(pending) >= batch_size:
            yield _retain_message(pending)
            pending = []
    if pending:
        yield _retain_message(pending)


def _retain_message(payloads: list[dict[str, object]]) -> Message:
    task = RETAIN_TASK if len(payloads) == 1 else RETAIN_BATCH_TASK
    return Message(task, Kind.RETAIN, payloads)


def _publish(app: Celery, messages: Iterable[Message], queue: str, ledger: Ledger | None) -> int:
    ledger = ledger if ledger is not None else ledger_for(app)
    sent = 0
    chunk: list[Message] = []
    for message in messages:
        chunk.append(message)
        if len(chunk) >= CHUNK_MESSAGES:
            sent += _send_chunk(app, chunk, queue, ledger)
            chunk = []
    if chunk:
        sent += _send_chunk(app, chunk, queue, ledger)
    return sent


def _send_chunk(app: Celery, chunk: Sequence[Message], queue: str, ledger: Ledger | None) -> int:
    """Ledger entries first, one round trip; a failed send settles what was not sent, so
    an error to the caller means nothing more is owed for those events."""
    at = time.time()
    if ledger is not None:
        ledger.record([_entry(m.kind, p, queue, at) for m in chunk for p in m.payloads], at)
    sent = 0
    for i, message in enumerate(chunk):
        try:
            _send(app, message, queue, at)
        except Exception:
            if ledger is not None:
                for unsent in chunk[i:]:
                    ledger.settle(unsent.kind, [payload_key(p) for p in unsent.payloads])
            raise
        sent += len(message.payloads)
    return sent


def _entry(kind: Kind, payload: dict[str, object], queue: str, at: float) -> Entry:
    key = event_key(payload["bank_id"], payload["event_id"])
    return Entry(kind, key, queue, payload, accepted_at=at)


def _send(app: Celery, message: Message, queue: str, at: float) -> None:
    """The publish time header (`at`: when the events were first accepted) lets workers
    measure lag, the forget rules judge what a forget covers, and the sweeper order the
    queue (a header is never later than the message's push)."""
    app.send_task(message.task, args=message.args, queue=queue, headers={PUBLISHED_AT_HEADER: at})
