"""The consolidation core: embed, upsert the raw memory, decide, apply, mark done."""

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum
from functools import partial

from contracts.events import RetainEvent
from contracts.memory import Memory
from readmodel.embedders import Embedder
from readmodel.keywords import document_vector
from readmodel.metrics import (
    CONSOLIDATION_LAG_MS,
    CONSOLIDATION_MS,
    Metrics,
    NoopMetrics,
    count_events,
)
from readmodel.store import MemoryStore, StoredPoint
from worker.consolidation.apply import apply
from worker.consolidation.decide import Plan, decide
from worker.consolidation.neighbourhood import content_view, gather
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import LinkKind, memory_id
from worker.locks import Locks


class Status(Enum):
    STORED = "stored"
    DUPLICATE = "duplicate"


@dataclass(frozen=True)
class Outcome:
    event_id: uuid.UUID
    memory_id: uuid.UUID
    status: Status
    merged: int = 0
    superseded: int = 0


@dataclass(frozen=True)
class Consolidator:
    """Everything consolidation needs, wired once per process by the bootstrap."""

    store: MemoryStore
    embedder: Embedder
    locks: Locks
    policy: ConsolidationPolicy = field(default_factory=ConsolidationPolicy)
    clock: Callable[[], datetime] = field(default=partial(datetime.now, UTC))
    metrics: Metrics = field(default_factory=NoopMetrics)


def raw_memory(event: RetainEvent, created_at: datetime) -> Memory:
    return Memory(
        id=memory_id(event.event_id),
        bank_id=event.bank_id,
        kind=event.kind,
        text=event.text,
        context=event.context,
        occurred_at=event.occurred_at,
        mentioned_at=event.mentioned_at,
        created_at=created_at,
        entities=list(event.entities),
        tags=list(event.tags),
        key=event.key,
        importance=event.importance,
        metadata=dict(event.metadata),
        event_id=event.event_id,
        declared_supersedes=list(event.supersedes),
    )


def consolidate_point(point: StoredPoint, deps: Consolidator) -> Plan:
    """Upsert the raw memory and recompute what it touches, under the bank's lock."""
    bank = point.record.bank_id
    with deps.locks.hold(f"bank:{bank}"):
        deps.store.upsert([point])
        hood = content_view(gather(deps.store, point, deps.policy), deps.embedder)
        plan = decide(hood, deps.policy)
        apply(plan, deps.store, bank)
    return plan


def _already_done(events: Sequence[RetainEvent], store: MemoryStore) -> set[uuid.UUID]:
    done: set[uuid.UUID] = set()
    by_bank: dict[str, list[uuid.UUID]] = {}
    for e in events:
        by_bank.setdefault(e.bank_id, []).append(memory_id(e.event_id))
    for bank, ids in by_bank.items():
        done.update(p.record.id for p in store.fetch(bank, ids) if p.record.consolidated)
    return done


def consolidate(
    events: Sequence[RetainEvent], deps: Consolidator, published_at: datetime | None = None
) -> list[Outcome]:
    """Consolidate events in order; ones already done (the done-marker is set) are skipped.

    `published_at` is when the message was published (the publish header), for the
    publish-to-visible lag; the metrics of the whole call are sent as one batch.
    """
    with deps.metrics.batch():
        return _consolidate(events, deps, published_at)


def _ms(delta: timedelta) -> float:
    return max(0.0, delta.total_seconds() * 1000)


def _measured(
    deps: Consolidator,
    event: RetainEvent,
    outcome: Outcome,
    started: float,
    published_at: datetime | None,
) -> None:
    """Outcome counters, duration, and lag from event time (and publish time) to visible."""
    m, bank = deps.metrics, event.bank_id
    count_events(m, "stored", [bank])
    if outcome.merged:
        count_events(m, "merged", [bank])
    if outcome.superseded:
        count_events(m, "superseded", [bank])
    m.observe(CONSOLIDATION_MS, (time.perf_counter() - started) * 1000, {"bank": bank})
    now = deps.clock()
    m.observe(CONSOLIDATION_LAG_MS, _ms(now - event.occurred_at), {"since": "occurred"})
    if published_at is not None:
        m.observe(CONSOLIDATION_LAG_MS, _ms(now - published_at), {"since": "published"})


def _consolidate(
    events: Sequence[RetainEvent], deps: Consolidator, published_at: datetime | None
) -> list[Outcome]:
    done = _already_done(events, deps.store)
    todo = [e for e in events if memory_id(e.event_id) not in done]
    embedded = deps.embedder.embed([e.indexed_text() for e in todo]) if todo else []
    vectors = dict(zip((e.event_id for e in todo), embedded, strict=True))
    outcomes = []
    for event in events:
        mid = memory_id(event.event_id)
        if event.event_id not in vectors or mid in done:
            outcomes.append(Outcome(event.event_id, mid, Status.DUPLICATE))
            count_events(deps.metrics, "duplicate", [event.bank_id])
            continue
        started = time.perf_counter()
        record = raw_memory(event, deps.clock())
        plan = consolidate_point(
            StoredPoint(record, vectors.pop(event.event_id), document_vector(event.indexed_text())),
            deps,
        )
        done.add(mid)
        merged = sum(1 for lk in plan.links if lk.kind is LinkKind.MERGE)
        outcome = Outcome(event.event_id, mid, Status.STORED, merged, len(plan.links) - merged)
        outcomes.append(outcome)
        _measured(deps, event, outcome, started, published_at)
    return outcomes
