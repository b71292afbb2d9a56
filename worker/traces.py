"""Spans of the retain tasks, across the queue.

A retain message carries its producer's trace context in its headers (the Celery
instrumentation injects it at publish, sediment/tracing.py). celery-batches runs many
messages as one task call, which the instrumentation sees as one `run` span with no
parent, so the link between producer and consumer is made here:

- each message gets a consumer span, `process {queue}`, a child of the producer span
  its headers name (messaging conventions: `messaging.operation.type` process);
- each consolidation call (up to 64 events of consecutive messages) gets an
  `consolidate` span, a child of its first message's `process` span, linked to the
  other messages' `process` spans and to the batch's `run` span. Its store calls are
  its children.

So a retain whose message was consolidated first in its batch is one trace from the
HTTP request to the store write; one that shared a batch ends at its `process` span
and reaches the write by the link (several producers map to one execution: a span has
one parent).
"""

from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager

from contracts.events import RetainEvent
from telemetry.tracing import STORE_ID, AttributeValue, Span, SpanKind, Tracer
from worker.batching import Delivery
from worker.consolidation.consolidator import Outcome, Status

Refs = Mapping[int, object]
"""Each message's `process` span, by `id()` of its `Delivery`."""


def process_attributes(d: Delivery, task: str, messages: int) -> dict[str, AttributeValue]:
    return {
        "messaging.system": "redis",
        "messaging.operation.type": "process",
        "messaging.operation.name": "process",
        "messaging.destination.name": d.queue,
        "messaging.message.id": d.task_id,
        "messaging.batch.message_count": messages,
        "celery.task_name": task,
        "sediment.events": len(d.payloads),
        "sediment.attempt": d.attempt,
    }


@contextmanager
def processing(deliveries: Sequence[Delivery], task: str, tracer: Tracer) -> Iterator[Refs]:
    """A consumer span per message while the batch runs, each a child of its producer."""
    if not tracer.enabled:
        yield {}
        return
    refs: dict[int, object] = {}
    with ExitStack() as stack:
        for d in deliveries:
            span = stack.enter_context(
                tracer.span(
                    f"process {d.queue or task}",
                    process_attributes(d, task, len(deliveries)),
                    kind=SpanKind.CONSUMER,
                    parent=tracer.remote(d.carrier),
                    current=False,
                )
            )
            refs[id(d)] = span.ref
        yield refs


@contextmanager
def consolidating(
    taken: Sequence[tuple[Delivery, list[RetainEvent]]], tracer: Tracer, refs: Refs
) -> Iterator[Span]:
    """The `consolidate` span of one consolidation call (see the module docstring)."""
    events = [e for _, evs in taken for e in evs]
    banks = sorted({e.bank_id for e in events})
    attributes: dict[str, AttributeValue] = {
        "sediment.events": len(events),
        "sediment.messages": len(taken),
        "sediment.banks": banks,
    }
    if len(banks) == 1:
        attributes[STORE_ID] = banks[0]
    mine = [refs[id(d)] for d, _ in taken if id(d) in refs]
    batch = tracer.current()
    links = [*mine[1:], *([batch] if batch is not None else [])]
    parent = mine[0] if mine else None
    with tracer.span("consolidate", attributes, parent=parent, links=links) as span:
        yield span


def outcome_counts(outcomes: Sequence[Outcome]) -> dict[str, AttributeValue]:
    """What a consolidation call did, as counts: events stored, found already done or
    forgotten, and the memories merged into and superseded."""
    counts: dict[str, AttributeValue] = {
        f"sediment.{status.value}": sum(1 for o in outcomes if o.status is status)
        for status in Status
    }
    counts["sediment.merged"] = sum(o.merged for o in outcomes)
    counts["sediment.superseded"] = sum(o.superseded for o in outcomes)
    return counts
