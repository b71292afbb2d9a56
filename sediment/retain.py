"""The one retain path: CLI ingest, the HTTP API, the MCP server, the demo, dead-letter
replay and the benchmarks all hand their events to a `Publisher`.

Where events go is decided once, at bootstrap, by which publisher a process gets:
`InlinePublisher` consolidates them in the calling process (embedded commands, the
benchmarks), `QueuePublisher` sends the versioned Celery tasks any producer sends,
each recorded in the redelivery ledger first (standalone, distributed, and the
in-memory queue of an embedded `sediment serve`). No caller checks the run mode.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from celery import Celery

from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from contracts.forget import ForgetEvent
from telemetry.tracing import (
    DELETE_MEMORY,
    UPDATE_MEMORY,
    Tracer,
    memory_operation,
    memory_span_name,
)
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.deadletters import DeadLetters
from worker.feedback_handler import FeedbackDeps, apply_feedback
from worker.forget import forget
from worker.ledger import Ledger
from worker.publish import publish, publish_feedback, publish_forget
from worker.scrub import scrub

RETAIN_BATCH_SIZE = 64


def repeats(event_ids: Sequence[uuid.UUID | None]) -> dict[int, int]:
    """Where an id repeats one before it: position -> the first position with that id
    (None is no id). A request may not name one event twice: the caller would not know
    which of the two is kept (across requests, the first event of an id is kept)."""
    first: dict[uuid.UUID, int] = {}
    out: dict[int, int] = {}
    for i, event_id in enumerate(event_ids):
        if event_id is None:
            continue
        if event_id in first:
            out[i] = first[event_id]
        else:
            first[event_id] = i
    return out


def repeat_problem(event_id: uuid.UUID, first: int, derived: bool) -> str:
    """Why item `first`'s twin is refused, and what to do about it."""
    if derived:
        return (
            f"same text and occurred_at as item {first}, so the same event_id {event_id}: "
            "send the fact once"
        )
    return (
        f"event_id {event_id} is item {first}'s too: each item of a request needs its own "
        "event_id (send one of the two)"
    )


class PublishError(Exception):
    """The events were not taken (broker down); the caller may retry the same request."""


class Publisher(Protocol):
    @property
    def queued(self) -> bool:
        """True when events are handed to workers (visible later), false when handled here."""

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        """Retain events; returns how many were taken (stored here, or published).
        Raises `PublishError` when nothing could be handed on."""

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        """Feedback events; raises `PublishError` on failure."""

    def publish_forget(self, events: Sequence[ForgetEvent]) -> int:
        """Forget events, on the same path as retains; returns how many memories were
        forgotten here (inline) or how many events were published (queued)."""

    def broker_ok(self) -> bool: ...


@dataclass(frozen=True)
class InlinePublisher:
    """Consolidates in the calling process: the count is of events newly stored
    (an event already stored is a duplicate, not counted)."""

    consolidator: Consolidator
    feedback: FeedbackDeps
    queued: bool = False
    dead_letters: DeadLetters | None = None

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        outcomes = consolidate(list(events), self.consolidator)
        return sum(1 for o in outcomes if o.status is Status.STORED)

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        for event in events:
            apply_feedback(event, self.feedback)

    def publish_forget(self, events: Sequence[ForgetEvent]) -> int:
        forgotten = 0
        for event in events:
            outcome = forget(event, self.consolidator)
            scrub(event, outcome.forgotten_event_ids, None, self.dead_letters)
            forgotten += outcome.forgotten
        return forgotten

    def broker_ok(self) -> bool:
        return True


@dataclass(frozen=True)
class QueuePublisher:
    """The task messages any Celery producer sends, each event recorded in the
    redelivery ledger first."""

    app: Celery
    queue: str
    ledger: Ledger | None
    batch_size: int = RETAIN_BATCH_SIZE
    queued: bool = True

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        try:
            return publish(self.app, events, self.queue, self.batch_size, self.ledger)
        except Exception as exc:
            raise PublishError(type(exc).__name__) from exc

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        try:
            publish_feedback(self.app, events, self.queue, self.ledger)
        except Exception as exc:
            raise PublishError(type(exc).__name__) from exc

    def publish_forget(self, events: Sequence[ForgetEvent]) -> int:
        try:
            return publish_forget(self.app, events, self.queue, self.ledger)
        except Exception as exc:
            raise PublishError(type(exc).__name__) from exc

    def broker_ok(self) -> bool:
        with self.app.connection_for_write() as conn:
            conn.connect()
        return True


@dataclass(frozen=True)
class TracedPublisher:
    """A span around each publish, named for the GenAI memory operation it is
    (`update_memory`, `delete_memory`; a vote is `sediment.feedback`): the queue's
    producer spans and an inline consolidation are its children."""

    inner: Publisher
    tracer: Tracer

    @property
    def queued(self) -> bool:
        return self.inner.queued

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        banks = [e.bank_id for e in events]
        attributes = {
            **memory_operation(UPDATE_MEMORY, banks, len(events)),
            "sediment.queued": self.queued,
        }
        with self.tracer.span(memory_span_name(UPDATE_MEMORY, banks), attributes) as span:
            taken = self.inner.publish_retain(events)
            span.set_attributes({"sediment.taken": taken})
            return taken

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        banks = sorted({e.bank_id for e in events})
        with self.tracer.span(
            "sediment.feedback", {"sediment.banks": banks, "sediment.votes": len(events)}
        ):
            self.inner.publish_feedback(events)

    def publish_forget(self, events: Sequence[ForgetEvent]) -> int:
        banks = [e.bank_id for e in events]
        attributes = memory_operation(DELETE_MEMORY, banks, len(events))
        with self.tracer.span(memory_span_name(DELETE_MEMORY, banks), attributes) as span:
            done = self.inner.publish_forget(events)
            span.set_attributes({"sediment.taken": done})
            return done

    def broker_ok(self) -> bool:
        return self.inner.broker_ok()
