"""Thin Celery tasks: parse, hand to the consolidation core, sort failures in one place."""

import json
import re
import time
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
from contracts.forget import ForgetEvent
from telemetry.metrics import Metrics, NoopMetrics, count_events
from worker.celery_app import (
    FEEDBACK_TASK,
    FORGET_TASK,
    PUBLISHED_AT_HEADER,
    RETAIN_BATCH_TASK,
    RETAIN_TASK,
)
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.deadletters import DeadLetters
from worker.errors import PoisonEvent, is_transient
from worker.feedback_handler import FeedbackDeps, apply_feedback
from worker.forget import forget
from worker.heap import TrimPace, release_free_memory
from worker.ledger import Kind, Ledger
from worker.rejects import route_rejects
from worker.scrub import scrub

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
    ledger: Ledger | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def bank_of(payload: object) -> str | None:
    bank = payload.get("bank_id") if isinstance(payload, dict) else None
    return bank if isinstance(bank, str) and re.fullmatch(BANK_ID_PATTERN, bank) else None


def _published_header(task: Task) -> object:
    raw = getattr(task.request, PUBLISHED_AT_HEADER, None)
    if raw is None:
        raw = (getattr(task.request, "headers", None) or {}).get(PUBLISHED_AT_HEADER)
    return raw


def published_at(task: Task) -> datetime | None:
    """The publish time from the `sediment_published_at` header (Unix seconds), if sent."""
    raw = _published_header(task)
    if not isinstance(raw, int | float | str):
        return None
    try:
        return datetime.fromtimestamp(float(raw), UTC)
    except (ValueError, OverflowError, OSError):
        return None


def _event_id(payload: object) -> str | None:
    event_id = payload.get("event_id") if isinstance(payload, dict) else None
    return event_id if isinstance(event_id, str) else None


def settle(deps: WorkerDeps, kind: Kind, event_ids: Sequence[object]) -> None:
    """Durably handled (done-marker written, or dead-lettered): the ledger owes nothing."""
    if deps.ledger is not None and event_ids:
        deps.ledger.settle(kind, event_ids)


def letter(task: str, payload: object, exc: BaseException, attempts: int) -> DeadLetter:
    """A dead letter keeps the payload as sent (text stays text) and the reason."""
    now = _now()
    body = payload if isinstance(payload, str) else json.dumps(payload, default=str, sort_keys=True)
    return DeadLetter(
        task=task,
        payload=body,
        error_class=type(exc).__name__,
        message=str(exc)[:4000],
        attempts=attempts,
        first_seen=now,
        last_seen=now,
    )


def dead_letter(
    deps: WorkerDeps, task: str, payload: object, exc: BaseException, attempts: int
) -> None:
    count_events(deps.metrics, "dead_lettered", [bank_of(payload)])
    deps.dead_letters.add(letter(task, payload, exc, attempts))
    log.warning("dead_lettered", task=task, error_class=type(exc).__name__, attempts=attempts)


def parse(payload: object, deps: WorkerDeps) -> RetainEvent:
    if not isinstance(payload, dict):
        raise PoisonEvent(f"payload must be a JSON object, got {type(payload).__name__}")
    try:
        return RetainEvent.model_validate(payload, context={"max_text_bytes": deps.max_text_bytes})
    except pydantic.ValidationError as exc:
        raise PoisonEvent(str(exc)) from exc


TRIM_PACE = TrimPace()
"""Free heap pages go back to the system after a batch, at most once a second."""


def handle(task: Task, name: str, payloads: list[Any], deps: WorkerDeps) -> None:
    """Invalid payloads go to the dead-letter stream; valid ones are consolidated;
    transient failures retry the message with capped exponential backoff; anything
    else is dead-lettered so the worker keeps going. The task's metrics are one batch."""
    try:
        with deps.metrics.batch():
            _handle(task, name, payloads, deps)
    finally:
        if TRIM_PACE.due():
            release_free_memory()


def _handle(task: Task, name: str, payloads: list[Any], deps: WorkerDeps) -> None:
    attempt = int(task.request.retries or 0) + 1
    if attempt == 1:
        count_events(deps.metrics, "received", [bank_of(p) for p in payloads])
    events = _valid(name, payloads, deps, first_attempt=attempt == 1)
    task_id = str(getattr(task.request, "id", None) or "")
    banks = ",".join(sorted({e.bank_id for e in events}))
    ids = [e.event_id for e in events]
    try:
        with structlog.contextvars.bound_contextvars(task_id=task_id, bank_id=banks):
            outcomes = consolidate(events, deps.consolidator, published_at(task))
    except Exception as exc:
        retry = _Retry(Kind.RETAIN, ids)
        _retry_or_raise(task, name, exc, deps, [e.bank_id for e in events], retry)
        for event in events:
            dead_letter(deps, name, event.model_dump(mode="json"), exc, attempt)
        settle(deps, Kind.RETAIN, ids)
        return
    settle(deps, Kind.RETAIN, ids)
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


def _valid(
    name: str, payloads: list[Any], deps: WorkerDeps, first_attempt: bool
) -> list[RetainEvent]:
    """The payloads that parse. The others are dead-lettered on the message's first
    attempt only: validation gives the same answer on every retry of a batch."""
    events: list[RetainEvent] = []
    poison: list[str] = []
    for payload in payloads:
        try:
            events.append(parse(payload, deps))
        except PoisonEvent as exc:
            if first_attempt:
                dead_letter(deps, name, payload, exc, 1)
                poison += [i for i in [_event_id(payload)] if i is not None]
    settle(deps, Kind.RETAIN, poison)
    return events


@dataclass(frozen=True)
class _Retry:
    """What a retry queues again: the ledger entries it re-dates."""

    kind: Kind
    event_ids: Sequence[object]


def _retry_or_raise(
    task: Task,
    name: str,
    exc: Exception,
    deps: WorkerDeps,
    banks: Sequence[str | None],
    retry: _Retry,
) -> bool:
    """Raise Celery's retry for a transient failure with attempts left; else return False.

    The retry is a new message at the queue's head, so the ledger entries are re-dated
    first: the sweeper must not take an event queued again for a lost one. The original
    publish time header goes along, for the publish-to-visible lag."""
    attempt = int(task.request.retries or 0) + 1
    if is_transient(exc) and attempt <= deps.retry_max:
        delay = min(deps.retry_backoff_max_s, 2**attempt)
        count_events(deps.metrics, "retried", banks)
        log.info("retrying", task=name, attempt=attempt, delay_s=delay, error=type(exc).__name__)
        if deps.ledger is not None:
            deps.ledger.touch(retry.kind, retry.event_ids, time.time())
        header = _published_header(task)
        options: dict[str, Any] = {"headers": {PUBLISHED_AT_HEADER: header}} if header else {}
        raise task.retry(exc=exc, countdown=delay, max_retries=deps.retry_max, **options) from exc
    return False


def handle_feedback(task: Task, payload: Any, deps: WorkerDeps) -> None:
    """A vote on a memory of the same bank; unknown memory or bad payload: dead letter."""
    attempt = int(task.request.retries or 0) + 1
    ids = [i for i in [_event_id(payload)] if i is not None]
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
        if not _retry_or_raise(task, FEEDBACK_TASK, exc, deps, [None], _Retry(Kind.FEEDBACK, ids)):
            dead_letter(deps, FEEDBACK_TASK, payload, exc, attempt)
    settle(deps, Kind.FEEDBACK, ids)


def handle_forget(task: Task, payload: Any, deps: WorkerDeps) -> None:
    """Forget what the event selects, then scrub the ledger and dead letters of the
    forgotten events; transient failures retry (a forget is safe to run again)."""
    attempt = int(task.request.retries or 0) + 1
    ids = [i for i in [_event_id(payload)] if i is not None]
    try:
        event = ForgetEvent.model_validate(payload)
        outcome = forget(event, deps.consolidator)
        scrub(outcome.forgotten_event_ids, deps.ledger, deps.dead_letters)
        log.info(
            "forgot",
            event_id=str(event.event_id),
            bank_id=event.bank_id,
            forgotten=outcome.forgotten,
            recomputed=outcome.recomputed,
        )
    except pydantic.ValidationError as exc:
        dead_letter(deps, FORGET_TASK, payload, PoisonEvent(str(exc)), attempt)
    except Exception as exc:
        banks = [bank_of(payload)]
        if not _retry_or_raise(task, FORGET_TASK, exc, deps, banks, _Retry(Kind.FORGET, ids)):
            dead_letter(deps, FORGET_TASK, payload, exc, attempt)
    settle(deps, Kind.FORGET, ids)


def one_argument(name: str, keyword: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The task's single argument. Tasks take *args so that a message with the wrong
    arguments reaches this check (and the dead-letter stream) instead of failing in
    Celery before any of our code runs."""
    if len(args) == 1 and not kwargs:
        return args[0]
    if not args and set(kwargs) == {keyword}:
        return kwargs[keyword]
    raise PoisonEvent(
        f"{name} takes exactly one argument ({keyword}); got {len(args)} positional "
        f"and keyword arguments {sorted(kwargs)}"
    )


def register_tasks(app: Celery, deps: Callable[[], WorkerDeps]) -> None:
    """Declare the versioned tasks on `app`; `deps` is resolved in the worker process.
    Messages Celery refuses before a task runs go to the dead-letter stream as well."""

    # shared=False: Celery otherwise adds every task to each app created later in the
    # process, so a second app's tasks would run the first app's `deps` (and warn).
    options = {
        "bind": True,
        "acks_late": True,
        "reject_on_worker_lost": True,
        "typing": False,
        "shared": False,
    }

    def argument(name: str, keyword: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            return one_argument(name, keyword, args, kwargs)
        except PoisonEvent as exc:
            dead_letter(deps(), name, {"args": list(args), "kwargs": kwargs}, exc, 1)
            return _MISSING

    @app.task(name=RETAIN_TASK, **options)  # type: ignore[untyped-decorator]
    def retain(self: Task, *args: Any, **kwargs: Any) -> None:
        payload = argument(RETAIN_TASK, "payload", args, kwargs)
        if payload is not _MISSING:
            handle(self, RETAIN_TASK, [payload], deps())

    @app.task(name=FEEDBACK_TASK, **options)  # type: ignore[untyped-decorator]
    def feedback(self: Task, *args: Any, **kwargs: Any) -> None:
        payload = argument(FEEDBACK_TASK, "payload", args, kwargs)
        if payload is not _MISSING:
            handle_feedback(self, payload, deps())

    @app.task(name=FORGET_TASK, **options)  # type: ignore[untyped-decorator]
    def forget_task(self: Task, *args: Any, **kwargs: Any) -> None:
        payload = argument(FORGET_TASK, "payload", args, kwargs)
        if payload is not _MISSING:
            handle_forget(self, payload, deps())

    @app.task(name=RETAIN_BATCH_TASK, **options)  # type: ignore[untyped-decorator]
    def retain_batch(self: Task, *args: Any, **kwargs: Any) -> None:
        payloads = argument(RETAIN_BATCH_TASK, "payloads", args, kwargs)
        if payloads is _MISSING:
            return
        if not isinstance(payloads, list):
            error = PoisonEvent("batch payload must be a JSON array")
            dead_letter(deps(), RETAIN_BATCH_TASK, payloads, error, 1)
            return
        handle(self, RETAIN_BATCH_TASK, payloads, deps())

    route_rejects(app, lambda task, body, reason: _reject(deps(), task, body, reason))


_MISSING = object()


def _reject(deps: WorkerDeps, task: str, body: str, reason: str) -> None:
    dead_letter(deps, task, body, PoisonEvent(reason), 1)
