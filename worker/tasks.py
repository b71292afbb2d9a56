"""Thin Celery tasks: parse, hand to the consolidation core, sort failures in one place."""

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pydantic
import structlog
from celery import Celery, Task

from contracts.base import BANK_ID_PATTERN
from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from readmodel.metrics import Metrics, NoopMetrics, count_events
from worker.celery_app import FEEDBACK_TASK, PUBLISHED_AT_HEADER, RETAIN_BATCH_TASK, RETAIN_TASK
from worker.consolidation.service import Consolidator, consolidate
from worker.deadletters import DeadLetters
from worker.errors import PoisonEvent, is_transient
from worker.feedback import FeedbackDeps, apply_feedback

log = structlog.get_logger("sediment.worker")


@dataclass(frozen=True)
class WorkerDeps:
    consolidator: Consolidator
    dead_letters: DeadLetters
    max_text_bytes: int
    retry_max: int
    retry_backoff_max_s: int
    feedback: FeedbackDeps | None = None
    metrics: Metrics = field(default_factory=NoopMetrics)


def _now() -> datetime:
    return datetime.now(UTC)


def _bank_of(payload: object) -> str | None:
    bank = payload.get("bank_id") if isinstance(payload, dict) else None
    return bank if isinstance(bank, str) and re.fullmatch(BANK_ID_PATTERN, bank) else None


def published_at(task: Task) -> datetime | None:
    """The publish time from the `sediment_published_at` header (Unix seconds), if sent."""
    raw = getattr(task.request, PUBLISHED_AT_HEADER, None)
    if raw is None:
        raw = (getattr(task.request, "headers", None) or {}).get(PUBLISHED_AT_HEADER)
    try:
        return datetime.fromtimestamp(float(raw), UTC) if raw is not None else None
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def dead_letter(
    deps: WorkerDeps, task: str, payload: object, exc: BaseException, attempts: int
) -> None:
    count_events(deps.metrics, "dead_lettered", [_bank_of(payload)])
    now = _now()
    body = payload if isinstance(payload, str) else json.dumps(payload, default=str, sort_keys=True)
    deps.dead_letters.add(
        DeadLetter(
            task=task,
            payload=body,
            error_class=type(exc).__name__,
            message=str(exc)[:4000],
            attempts=attempts,
            first_seen=now,
            last_seen=now,
        )
    )
    log.warning("dead_lettered", task=task, error_class=type(exc).__name__, attempts=attempts)


def parse(payload: object, deps: WorkerDeps) -> RetainEvent:
    if not isinstance(payload, dict):
        raise PoisonEvent(f"payload must be a JSON object, got {type(payload).__name__}")
    try:
        return RetainEvent.model_validate(payload, context={"max_text_bytes": deps.max_text_bytes})
    except pydantic.ValidationError as exc:
        raise PoisonEvent(str(exc)) from exc


def handle(task: Task, name: str, payloads: list[Any], deps: WorkerDeps) -> None:
    """Invalid payloads go to the dead-letter stream; valid ones are consolidated;
    transient failures retry the message with capped exponential backoff; anything
    else is dead-lettered so the worker keeps going. The task's metrics are one batch."""
    with deps.metrics.batch():
        _handle(task, name, payloads, deps)


def _handle(task: Task, name: str, payloads: list[Any], deps: WorkerDeps) -> None:
    attempt = int(task.request.retries or 0) + 1
    if attempt == 1:
        count_events(deps.metrics, "received", [_bank_of(p) for p in payloads])
    events: list[RetainEvent] = []
    for payload in payloads:
        try:
            events.append(parse(payload, deps))
        except PoisonEvent as exc:
            dead_letter(deps, name, payload, exc, 1)
    task_id = str(getattr(task.request, "id", None) or "")
    banks = ",".join(sorted({e.bank_id for e in events}))
    try:
        with structlog.contextvars.bound_contextvars(task_id=task_id, bank_id=banks):
            outcomes = consolidate(events, deps.consolidator, published_at(task))
    except Exception as exc:
        _retry_or_raise(task, name, exc, deps, [e.bank_id for e in events])
        for event in events:
            dead_letter(deps, name, event.model_dump(mode="json"), exc, attempt)
        return
    for o in outcomes:
        log.info(
            "consolidated",
            task_id=task_id,
            event_id=str(o.event_id),
            bank_id=banks,
            status=o.status.value,
            merged=o.merged,
            superseded=o.superseded,
        )


def _retry_or_raise(
    task: Task,
    name: str,
    exc: Exception,
    deps: WorkerDeps,
    banks: Sequence[str | None] = (None,),
) -> bool:
    """Raise Celery's retry for a transient failure with attempts left; else return False."""
    attempt = int(task.request.retries or 0) + 1
    if is_transient(exc) and attempt <= deps.retry_max:
        delay = min(deps.retry_backoff_max_s, 2**attempt)
        count_events(deps.metrics, "retried", banks)
        log.info("retrying", task=name, attempt=attempt, delay_s=delay, error=type(exc).__name__)
        raise task.retry(exc=exc, countdown=delay, max_retries=deps.retry_max) from exc
    return False


def handle_feedback(task: Task, payload: Any, deps: WorkerDeps) -> None:
    """A vote on a memory of the same bank; unknown memory or bad payload: dead letter."""
    attempt = int(task.request.retries or 0) + 1
    try:
        if deps.feedback is None:
            raise PoisonEvent("this worker has no feedback store configured")
        event = FeedbackEvent.model_validate(payload)
        counted = apply_feedback(event, deps.feedback)
        log.info(
            "feedback",
            bank_id=event.bank_id,
            memory_id=str(event.memory_id),
            vote=event.vote,
            counted=counted,
        )
    except pydantic.ValidationError as exc:
        dead_letter(deps, FEEDBACK_TASK, payload, PoisonEvent(str(exc)), attempt)
    except Exception as exc:
        if not _retry_or_raise(task, FEEDBACK_TASK, exc, deps):
            dead_letter(deps, FEEDBACK_TASK, payload, exc, attempt)


def register_tasks(app: Celery, deps: Callable[[], WorkerDeps]) -> None:
    """Declare the versioned tasks on `app`; `deps` is resolved in the worker process."""

    options = {"bind": True, "acks_late": True, "reject_on_worker_lost": True}

    @app.task(name=RETAIN_TASK, **options)  # type: ignore[untyped-decorator]
    def retain(self: Task, payload: Any) -> None:
        handle(self, RETAIN_TASK, [payload], deps())

    @app.task(name=FEEDBACK_TASK, **options)  # type: ignore[untyped-decorator]
    def feedback(self: Task, payload: Any) -> None:
        handle_feedback(self, payload, deps())

    @app.task(name=RETAIN_BATCH_TASK, **options)  # type: ignore[untyped-decorator]
    def retain_batch(self: Task, payloads: Any) -> None:
        if not isinstance(payloads, list):
            dead_letter(
                deps(),
                RETAIN_BATCH_TASK,
                payloads,
                PoisonEvent("batch payload must be a JSON array"),
                1,
            )
            return
        handle(self, RETAIN_BATCH_TASK, payloads, deps())
