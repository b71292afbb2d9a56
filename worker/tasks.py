"""Thin Celery tasks: parse, hand to the consolidation core, sort failures in one place."""

import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pydantic
import structlog
from celery import Celery, Task
from celery_batches import SimpleRequest

from contracts.base import is_bank_id
from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from contracts.forget import ForgetEvent
from telemetry.metrics import Metrics, NoopMetrics, count_events
from telemetry.tracing import NOOP_TRACER, TRACE_HEADERS, Tracer
from worker.aof_rewrite import AofRewrites
from worker.batching import (
    BATCHED_TASKS,
    Batching,
    Delivery,
    register_batched,
    requeue_of,
    run_buffered,
)
from worker.busy import Busy
from worker.celery_app import (
    FEEDBACK_TASK,
    FORGET_TASK,
    PUBLISHED_AT_HEADER,
    RETAIN_BATCH_TASK,
    RETAIN_TASK,
)
from worker.consolidation.consolidator import (
    Consolidator,
    Status,
    consolidate,
    event_memory_id,
)
from worker.deadletters import DeadLetters
from worker.errors import PoisonEvent, invalid, is_transient
from worker.feedback_handler import FeedbackDeps, Tally, apply_feedback
from worker.forget import forget
from worker.forget_rules import events_ruled_out
from worker.heap import TrimPace, release_free_memory
from worker.ledger import Kind, Ledger, event_key, payload_key
from worker.rejects import route_rejects
from worker.scrub import scrub
from worker.traces import Refs, consolidating, outcome_counts, processing

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
    aof_rewrites: AofRewrites | None = None
    tracer: Tracer = NOOP_TRACER


def _now() -> datetime:
    return datetime.now(UTC)


def bank_of(payload: object) -> str | None:
    bank = payload.get("bank_id") if isinstance(payload, dict) else None
    return bank if isinstance(bank, str) and is_bank_id(bank) else None


def _published_header(task: Task) -> object:
    raw = getattr(task.request, PUBLISHED_AT_HEADER, None)
    if raw is None:
        raw = (getattr(task.request, "headers", None) or {}).get(PUBLISHED_AT_HEADER)
    return raw


def published_time(raw: object) -> datetime | None:
    """The publish time from a `sediment_published_at` header (Unix seconds), if sent."""
    if not isinstance(raw, int | float | str):
        return None
    try:
        return datetime.fromtimestamp(float(raw), UTC)
    except (ValueError, OverflowError, OSError):
        return None


def _ledger_keys(payload: object) -> list[str]:
    return [k for k in [payload_key(payload)] if k is not None]


def _keys(events: Sequence[RetainEvent]) -> list[str]:
    return [event_key(e.bank_id, e.event_id) for e in events]


def settle(deps: WorkerDeps, kind: Kind, keys: Sequence[object]) -> None:
    """Durably handled (done-marker written, or dead-lettered): the ledger owes nothing
    for these events (by `worker.ledger.event_key`)."""
    if deps.ledger is not None and keys:
        deps.ledger.settle(kind, keys)


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
        raise invalid(exc) from exc


TRIM_PACE = TrimPace()
"""Free heap pages go back to the system after a batch, at most once a second."""


def handle(deliveries: Sequence[Delivery], name: str, deps: WorkerDeps) -> None:
    """The retain messages a worker took at once, consolidated together: invalid
    payloads go to the dead-letter stream; a transient failure queues each message
    again with capped exponential backoff; any other failure consolidates each message
    alone, so one message's events cannot cost the others theirs, and what fails alone
    is dead-lettered so the worker keeps going. The metrics are one batch."""
    try:
        with deps.metrics.batch(), processing(deliveries, name, deps.tracer) as refs:
            _handle(deliveries, name, deps, refs)
    finally:
        if TRIM_PACE.due():
            release_free_memory()


Taken = list[tuple[Delivery, list[RetainEvent]]]


def _handle(deliveries: Sequence[Delivery], name: str, deps: WorkerDeps, refs: Refs) -> None:
    taken: Taken = []
    for d in deliveries:
        if d.attempt == 1:
            count_events(deps.metrics, "received", [bank_of(p) for p in d.payloads])
        taken.append((d, _valid(name, d.payloads, deps, first_attempt=d.attempt == 1)))
    for chunk in chunks(taken, BATCH_EVENTS):
        try:
            _consolidated(chunk, deps, refs)
        except Exception as exc:
            if len(chunk) > 1 and not is_transient(exc):
                for one in chunk:
                    _alone(one, name, deps, refs)
                continue
            for d, events in chunk:
                _failed(d, events, name, exc, deps)


BATCH_EVENTS = 64
"""Events consolidated in one call at most (a message with more is one call): the batch
view compares each event with those written before it in the batch, so a call's cost
grows faster than its size; merging sixteen 64-event messages into one call ran
standalone ingest at 420 events/s instead of about 1,000."""


def chunks(taken: Taken, size: int) -> list[Taken]:
    """Consecutive messages in groups of at most `size` events (a larger message alone)."""
    out: list[Taken] = []
    current: Taken = []
    held = 0
    for one in taken:
        n = len(one[1])
        if current and held + n > size:
            out.append(current)
            current, held = [], 0
        current.append(one)
        held += n
    if current:
        out.append(current)
    return out


def _alone(
    one: tuple[Delivery, list[RetainEvent]], name: str, deps: WorkerDeps, refs: Refs
) -> None:
    try:
        _consolidated([one], deps, refs)
    except Exception as exc:
        _failed(*one, name, exc, deps)


def _consolidated(taken: Taken, deps: WorkerDeps, refs: Refs) -> None:
    events = [e for _, evs in taken for e in evs]
    published = {
        event_memory_id(e): at
        for d, evs in taken
        if (at := published_time(d.published))
        for e in evs
    }
    task_of = {e.event_id: d.task_id for d, evs in taken for e in evs}
    banks = ",".join(sorted({e.bank_id for e in events}))
    with (
        consolidating(taken, deps.tracer, refs) as span,
        structlog.contextvars.bound_contextvars(bank_id=banks, messages=len(taken)),
    ):
        outcomes = consolidate(events, deps.consolidator, published)
        span.set_attributes(outcome_counts(outcomes))
    settle(deps, Kind.RETAIN, _keys(events))
    if deps.aof_rewrites is not None and any(o.status is Status.FORGOTTEN for o in outcomes):
        deps.aof_rewrites.owe(start=False)
    for o in outcomes:
        log.info(
            "consolidated",
            task_id=task_of.get(o.event_id, ""),
            event_id=str(o.event_id),
            bank_id=banks,
            status=o.status.value,
            merged=o.merged,
            superseded=o.superseded,
            messages=len(taken),
        )


def _failed(
    d: Delivery, events: list[RetainEvent], name: str, exc: Exception, deps: WorkerDeps
) -> None:
    """Queue the message again for a transient failure with attempts left; else its
    events are dead-lettered (with the attempts made), but for those a forget rule
    covers (worker/forget_rules.py), which are forgotten, and the ledger settled."""
    ids = _keys(events)
    delay = retry_delay(exc, d.attempt, deps)
    if delay is not None and d.requeue is not None and events:
        _retrying(name, d.attempt, delay, exc, deps, [e.bank_id for e in events])
        if deps.ledger is not None:
            deps.ledger.touch(Kind.RETAIN, ids, time.time())
        d.requeue(delay, d.retries + 1, _header(d.published))
        return
    forgotten = _ruled_out(events, published_time(d.published), deps)
    for event in events:
        if event_memory_id(event) not in forgotten:
            dead_letter(deps, name, event.model_dump(mode="json"), exc, d.attempt)
    settle(deps, Kind.RETAIN, ids)


def _ruled_out(
    events: Sequence[RetainEvent], accepted_at: datetime | None, deps: WorkerDeps
) -> set[uuid.UUID]:
    """The memory ids of the given-up events a forget rule covers (accepted no later
    than a forget of their bank, or by a filter that selects them): forgotten, with a
    tombstone, as if they had arrived, instead of dead-lettered. Rules that cannot be
    read (Redis down, which may be why the events failed): none, all are dead-lettered."""
    if accepted_at is None or not events:
        return set()
    stones = deps.consolidator.tombstones
    try:
        found = [
            t
            for bank in sorted({e.bank_id for e in events})
            if (rules := stones.rules(bank))
            for t in events_ruled_out([e for e in events if e.bank_id == bank], rules, accepted_at)
        ]
        stones.add(found)
    except Exception as exc:
        log.warning("forget_rules_unread", error_class=type(exc).__name__)
        return set()
    count_events(deps.metrics, "forgotten", [t.bank_id for t in found])
    return {t.memory_id for t in found}


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
                poison += _ledger_keys(payload)
    settle(deps, Kind.RETAIN, poison)
    return events


@dataclass(frozen=True)
class _Retry:
    """What a retry queues again: the ledger entries it re-dates (by `event_key`)."""

    kind: Kind
    keys: Sequence[object]


def retry_delay(exc: Exception, attempt: int, deps: WorkerDeps) -> int | None:
    """Seconds until attempt `attempt` + 1 for a transient failure with attempts left."""
    if is_transient(exc) and attempt <= deps.retry_max:
        return int(min(deps.retry_backoff_max_s, 2**attempt))
    return None


def _retrying(
    name: str,
    attempt: int,
    delay: int,
    exc: Exception,
    deps: WorkerDeps,
    banks: Sequence[str | None],
) -> None:
    count_events(deps.metrics, "retried", banks)
    log.info("retrying", task=name, attempt=attempt, delay_s=delay, error=type(exc).__name__)


def _header(raw: object) -> dict[str, Any]:
    """The original publish time goes along with a retry, for the publish-to-visible lag."""
    return {PUBLISHED_AT_HEADER: raw} if raw else {}


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
    first: the sweeper must not take an event queued again for a lost one."""
    attempt = int(task.request.retries or 0) + 1
    delay = retry_delay(exc, attempt, deps)
    if delay is not None:
        _retrying(name, attempt, delay, exc, deps, banks)
        if deps.ledger is not None:
            deps.ledger.touch(retry.kind, retry.keys, time.time())
        options = {"headers": _header(_published_header(task))}
        raise task.retry(exc=exc, countdown=delay, max_retries=deps.retry_max, **options) from exc
    return False


def handle_feedback(task: Task, payload: Any, deps: WorkerDeps) -> None:
    """A vote on a memory of the same bank; a forgotten memory: dropped and counted;
    unknown memory or bad payload: dead letter."""
    attempt = int(task.request.retries or 0) + 1
    ids = _ledger_keys(payload)
    try:
        if deps.feedback is None:
            raise PoisonEvent("this worker has no feedback store configured")
        event = FeedbackEvent.model_validate(payload)
        tally = apply_feedback(event, deps.feedback)
        log.info(
            "feedback",
            bank_id=event.bank_id,
            memory_id=str(event.memory_id),
            vote=event.vote,
            counted=tally is Tally.COUNTED,
            outcome=tally.value,
        )
    except pydantic.ValidationError as exc:
        dead_letter(deps, FEEDBACK_TASK, payload, invalid(exc), attempt)
    except Exception as exc:
        if not _retry_or_raise(task, FEEDBACK_TASK, exc, deps, [None], _Retry(Kind.FEEDBACK, ids)):
            dead_letter(deps, FEEDBACK_TASK, payload, exc, attempt)
    settle(deps, Kind.FEEDBACK, ids)


def handle_forget(task: Task, payload: Any, deps: WorkerDeps) -> None:
    """Forget what the event selects, then scrub the ledger and dead letters of the
    forgotten events and of the dead-lettered events it selects (worker/scrub.py), and
    owe Redis a rewrite of its AOF (worker/aof_rewrite.py);
    transient failures retry (a forget is safe to run again)."""
    attempt = int(task.request.retries or 0) + 1
    ids = _ledger_keys(payload)
    try:
        event = ForgetEvent.model_validate(payload)
        outcome = forget(event, deps.consolidator)
        scrub(event, outcome.forgotten_event_ids, deps.ledger, deps.dead_letters)
        if deps.aof_rewrites is not None:
            deps.aof_rewrites.owe()
        log.info(
            "forgot",
            event_id=str(event.event_id),
            bank_id=event.bank_id,
            forgotten=outcome.forgotten,
            recomputed=outcome.recomputed,
        )
    except pydantic.ValidationError as exc:
        dead_letter(deps, FORGET_TASK, payload, invalid(exc), attempt)
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


def delivery(task: Task, req: SimpleRequest, deps: WorkerDeps) -> Delivery | None:
    """A retain message as a `Delivery`, or None when its arguments are unusable (then
    it is dead-lettered here)."""
    name = str(task.name)
    keyword = "payload" if name == RETAIN_TASK else "payloads"
    args, kwargs = tuple(req.args or ()), dict(req.kwargs or {})
    try:
        arg = one_argument(name, keyword, args, kwargs)
    except PoisonEvent as exc:
        dead_letter(deps, name, {"args": list(args), "kwargs": kwargs}, exc, 1)
        return None
    if name == RETAIN_BATCH_TASK and not isinstance(arg, list):
        dead_letter(deps, name, arg, PoisonEvent("batch payload must be a JSON array"), 1)
        return None
    info = req.request_dict or {}
    return Delivery(
        payloads=[arg] if name == RETAIN_TASK else arg,
        retries=int(info.get("retries") or 0),
        published=info.get(PUBLISHED_AT_HEADER),
        task_id=str(req.id or ""),
        requeue=requeue_of(task, req),
        carrier={k: v for k in TRACE_HEADERS if isinstance(v := info.get(k), str)},
        queue=str((req.delivery_info or {}).get("routing_key") or ""),
    )


def register_tasks(
    app: Celery,
    deps: Callable[[], WorkerDeps],
    batching: Batching | None = None,
    busy: Busy | None = None,
) -> None:
    """Declare the versioned tasks on `app`; `deps` is resolved in the worker process.
    The retain tasks take many messages per delivery (worker/batching.py), each batch
    marked in `busy` while it runs. Messages Celery refuses before a task runs go to
    the dead-letter stream as well."""
    marks = busy or Busy()

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

    def retains(task: Task, requests: Sequence[SimpleRequest]) -> None:
        d = deps()
        taken = [x for r in requests if (x := delivery(task, r, d)) is not None]
        if taken:
            with marks.running():
                handle(taken, str(task.name), d)

    for name in BATCHED_TASKS:
        register_batched(app, name, options, batching or Batching(), retains)

    @app.task(name=FEEDBACK_TASK, **options)  # type: ignore[untyped-decorator]
    def feedback(self: Task, *args: Any, **kwargs: Any) -> None:
        payload = argument(FEEDBACK_TASK, "payload", args, kwargs)
        if payload is not _MISSING:
            run_buffered(app)
            handle_feedback(self, payload, deps())

    @app.task(name=FORGET_TASK, **options)  # type: ignore[untyped-decorator]
    def forget_task(self: Task, *args: Any, **kwargs: Any) -> None:
        payload = argument(FORGET_TASK, "payload", args, kwargs)
        if payload is not _MISSING:
            run_buffered(app)
            handle_forget(self, payload, deps())

    route_rejects(app, lambda task, body, reason: _reject(deps(), task, body, reason))


_MISSING = object()


def _reject(deps: WorkerDeps, task: str, body: str, reason: str) -> None:
    dead_letter(deps, task, body, PoisonEvent(reason), 1)
