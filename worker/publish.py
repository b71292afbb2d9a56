"""Publishing retain events. Any Celery client can do the same with

    app.send_task("sediment.retain.v1", args=[event_dict], queue="sediment")

where `event_dict` is a RetainEvent as JSON (contracts/schema/RetainEvent.json).
"""

import time
from collections.abc import Iterable, Sequence

from celery import Celery

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from worker.celery_app import FEEDBACK_TASK, PUBLISHED_AT_HEADER, RETAIN_BATCH_TASK, RETAIN_TASK


def _headers() -> dict[str, float]:
    """The publish time, so workers can measure publish-to-visible lag (optional header)."""
    return {PUBLISHED_AT_HEADER: time.time()}


def publish(app: Celery, events: Iterable[RetainEvent], queue: str, batch_size: int = 1) -> int:
    """Send events, one per message or `batch_size` per batch message; returns how many."""
    pending: list[dict[str, object]] = []
    sent = 0
    for event in events:
        pending.append(event.model_dump(mode="json"))
        if len(pending) >= batch_size:
            sent += _send(app, pending, queue)
            pending = []
    if pending:
        sent += _send(app, pending, queue)
    return sent


def _send(app: Celery, payloads: Sequence[dict[str, object]], queue: str) -> int:
    if len(payloads) == 1:
        app.send_task(RETAIN_TASK, args=[payloads[0]], queue=queue, headers=_headers())
    else:
        app.send_task(RETAIN_BATCH_TASK, args=[list(payloads)], queue=queue, headers=_headers())
    return len(payloads)


def publish_feedback(app: Celery, events: Iterable[FeedbackEvent], queue: str) -> int:
    """Send feedback events, one message each (`sediment.feedback.v1`)."""
    sent = 0
    for event in events:
        app.send_task(
            FEEDBACK_TASK, args=[event.model_dump(mode="json")], queue=queue, headers=_headers()
        )
        sent += 1
    return sent
