"""The consolidation core: embed, upsert the raw memory, decide, apply, mark done."""

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import Enum
from functools import partial

import numpy as np

from contracts.events import RetainEvent
from contracts.forget import ForgetRule
from contracts.memory import Memory
from readmodel.embedders import Embedder
from readmodel.store import Filter, MemoryStore, StoredPoint
from readmodel.text import document_vector
from telemetry.metrics import (
    CONSOLIDATION_LAG_MS,
    CONSOLIDATION_MS,
    Metrics,
    NoopMetrics,
    count_events,
    count_stored_once,
)
from worker.consolidation.apply import apply
from worker.consolidation.batch import BatchView, TextVectors
from worker.consolidation.decide import Plan, decide, links_of
from worker.consolidation.features import stored_fields
from worker.consolidation.neighbourhood import (
    RAW_KINDS,
    candidates,
    complete,
    content_view,
    memory_query_keys,
    neighbour_scope,
    slot_filters,
)
from worker.consolidation.passages import passage_vectors
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import LinkKind, features, memory_id
from worker.forget_rules import Unsettled, prunable, ruled_out
from worker.locks import Locks
from worker.tombstones import MemoryTombstones, Tombstones


class Status(Enum):
    """What a delivery did: stored the event (first to write its done-marker), found it
    already done (a redelivery), or found it forgotten."""

    STORED = "stored"
    REDELIVERED = "redelivered"
    FORGOTTEN = "forgotten"


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
    tombstones: Tombstones = field(default_factory=MemoryTombstones)
    unsettled: Unsettled | None = None
    """What retains are still owed (the redelivery ledger, or `NothingOwed` where
    nothing is queued): lets old forget rules go. None: not known, every rule is kept."""


def raw_memory(event: RetainEvent, created_at: datetime) -> Memory:
    """The raw memory an event stores, with its text features computed once, here."""
    return Memory(
        id=memory_id(event.bank_id, event.event_id),
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
        **stored_fields(event.text, event.entities),
        expires_at=event.expires_at,
    )


def consolidate_points(
    bank_id: str, points: Sequence[StoredPoint], deps: Consolidator
) -> list[Plan]:
    """Consolidate raw points of one bank in order, as one batch under the bank's lock:
    each is upserted into the batch's view and what it touches recomputed there; the
    view is written to the store at the end (worker/consolidation/batch.py)."""
    with deps.locks.hold(f"bank:{bank_id}"):
        return [plan for _, plan in consolidate_locked(bank_id, points, deps)]


def consolidate_locked(
    bank_id: str,
    points: Sequence[StoredPoint],
    deps: Consolidator,
    accepted: Mapping[uuid.UUID, datetime] | None = None,
) -> list[tuple[StoredPoint, Plan]]:
    """`consolidate_points` for a caller that holds the bank's lock. Points whose memory
    has a tombstone are left out, and so are those a forget rule covers (`accepted`:
    acceptance times by memory id; worker/forget_rules.py), which get tombstones: checked
    here, under the lock, so a forget that ran while the batch waited for it wins."""
    if accepted and points:
        rules = deps.tombstones.rules(bank_id)
        if rules:
            deps.tombstones.add(ruled_out(points, rules, accepted))
            prune_rules(bank_id, rules, deps)
    forgotten = deps.tombstones.forgotten(bank_id, [p.record.id for p in points])
    points = [p for p in points if p.record.id not in forgotten]
    if not points:
        return []
    view = BatchView(deps.store, bank_id)
    _prefetch(view, bank_id, points, deps.policy)
    texts = TextVectors(deps.embedder)
    plans = []
    for point in points:
        view.upsert([point])
        hood = content_view(candidates(view, point, deps.policy), texts)
        links = links_of(hood, deps.policy)
        plan = decide(complete(view, hood, links), deps.policy, links)
        apply(plan, view, bank_id)
        plans.append(plan)
    view.flush([p.record.id for p in points])
    return list(zip(points, plans, strict=True))


def prune_rules(bank_id: str, rules: Sequence[ForgetRule], deps: Consolidator) -> None:
    """Drop the bank's forget rules no retain still owed can need (under the bank's
    lock); kept all when nothing says what is owed (`Consolidator.unsettled` None)."""
    if deps.unsettled is None or not rules:
        return
    oldest = deps.unsettled.oldest_accepted(bank_id)
    since = datetime.fromtimestamp(oldest, UTC) if oldest is not None else None
    stale = prunable(rules, since, deps.clock())
    if stale:
        deps.tombstones.drop_rules(bank_id, [r.forget_event_id for r in stale])


def _prefetch(
    view: BatchView, bank_id: str, points: Sequence[StoredPoint], policy: ConsolidationPolicy
) -> None:
    """The store reads every event's gather starts with, one call per kind of read."""
    queries = [(p.dense, neighbour_scope(p.record)) for p in points]
    view.prefetch_neighbours(queries, policy.neighbour_limit, policy.search_threshold)
    reverse = [k for p in points for k in (p.record.id, p.record.event_id) if k is not None]
    view.prefetch_scroll(
        Filter(bank_id=bank_id, kinds=RAW_KINDS, declared_supersedes_any=tuple(reverse))
    )
    since = min(p.record.occurred_at for p in points)
    # The slot filters at `since` differ only in their keys and in which of the two
    # times they set: one scroll for each time, with the keys of all.
    merged: dict[tuple[object, object], tuple[Filter, set[str]]] = {}
    for p in points:
        for flt in slot_filters(bank_id, features(p.record), since, memory_query_keys(p.record)):
            _, keys = merged.setdefault((flt.current_at, flt.occurred_from), (flt, set()))
            keys.update(flt.slot_keys_any)
    for scope, keys in merged.values():
        view.prefetch_scroll(replace(scope, slot_keys_any=tuple(sorted(keys))))


def _not_done(bank_id: str, points: Sequence[StoredPoint], store: MemoryStore) -> list[StoredPoint]:
    """The points whose done-marker is still unset, read under the bank's lock: another
    delivery of the same event may have finished while this one embedded."""
    ids = [p.record.id for p in points]
    done = {p.record.id for p in store.fetch(bank_id, ids) if p.record.consolidated}
    return [p for p in points if p.record.id not in done]


def event_memory_id(event: RetainEvent) -> uuid.UUID:
    """The id of the memory `event` stores: one per (bank, event id)."""
    return memory_id(event.bank_id, event.event_id)


def _by_bank(events: Sequence[RetainEvent]) -> dict[str, list[uuid.UUID]]:
    out: dict[str, list[uuid.UUID]] = {}
    for e in events:
        out.setdefault(e.bank_id, []).append(event_memory_id(e))
    return out


def _already_done(events: Sequence[RetainEvent], store: MemoryStore) -> set[uuid.UUID]:
    done: set[uuid.UUID] = set()
    for bank, ids in _by_bank(events).items():
        done.update(p.record.id for p in store.fetch(bank, ids) if p.record.consolidated)
    return done


def _forgotten(events: Sequence[RetainEvent], deps: Consolidator) -> set[uuid.UUID]:
    out: set[uuid.UUID] = set()
    for bank, ids in _by_bank(events).items():
        out |= deps.tombstones.forgotten(bank, ids)
    return out


def consolidate(
    events: Sequence[RetainEvent],
    deps: Consolidator,
    published: Mapping[uuid.UUID, datetime] | None = None,
) -> list[Outcome]:
    """Consolidate events in order; ones already done (the done-marker is set) are skipped.

    `published` maps a memory id (`event_memory_id`) to when its event's message was
    published (the publish header): its acceptance time, for the publish-to-visible
    lag and for the forget rules a bank or filter forget leaves (worker/forget_rules.py);
    the metrics of the whole call are sent as one batch.

    Counting: an event is counted `stored` once, whichever delivery writes or finds its
    done-marker first settles the count owed since just before the marker was written
    (`Metrics.expect`, under the bank's lock after the done check); every other
    delivery of it counts `redelivered`. A delivery killed between the store write and
    the metrics leaves the count to the next one, which finds the event done.
    """
    with deps.metrics.batch():
        return _consolidate(events, deps, published or {})


def _ms(delta: timedelta) -> float:
    return max(0.0, delta.total_seconds() * 1000)


def _measured(
    deps: Consolidator,
    event: RetainEvent,
    outcome: Outcome,
    duration_ms: float,
    published_at: datetime | None,
) -> None:
    """Outcome counters, duration, and lag from event time (and publish time) to visible."""
    m, bank = deps.metrics, event.bank_id
    if outcome.merged:
        count_events(m, "merged", [bank])
    if outcome.superseded:
        count_events(m, "superseded", [bank])
    m.observe(CONSOLIDATION_MS, duration_ms, {"bank": bank})
    now = deps.clock()
    m.observe(CONSOLIDATION_LAG_MS, _ms(now - event.occurred_at), {"since": "occurred"})
    if published_at is not None:
        m.observe(CONSOLIDATION_LAG_MS, _ms(now - published_at), {"since": "published"})


def _first_of_each(events: Sequence[RetainEvent], done: set[uuid.UUID]) -> list[RetainEvent]:
    """One event per memory id, the first delivered: the same rule as across batches,
    where the first to write its done-marker wins and later ones are redeliveries."""
    first: dict[uuid.UUID, RetainEvent] = {}
    for e in events:
        key = event_memory_id(e)
        if key not in done:
            first.setdefault(key, e)
    return list(first.values())


def _consolidate(
    events: Sequence[RetainEvent], deps: Consolidator, published: Mapping[uuid.UUID, datetime]
) -> list[Outcome]:
    todo = _first_of_each(events, _already_done(events, deps.store))
    started = time.perf_counter()
    embedded = deps.embedder.embed([e.indexed_text() for e in todo])
    records = [raw_memory(e, deps.clock()) for e in todo]
    passages = passage_vectors(deps.embedder, [r.text for r in records])
    by_bank: dict[str, list[StoredPoint]] = {}
    for event, record, vector, rows in zip(todo, records, embedded, passages, strict=True):
        point = StoredPoint(
            record,
            np.asarray(vector, dtype=np.float32),
            document_vector(event.indexed_text()),
            passages=rows,
        )
        by_bank.setdefault(event.bank_id, []).append(point)
    stored: dict[uuid.UUID, Outcome] = {}
    unarmed: set[uuid.UUID] = set()
    for bank, points in by_bank.items():
        with deps.locks.hold(f"bank:{bank}"):
            points = _not_done(bank, points, deps.store)
            ids = [p.record.id for p in points]
            if not deps.metrics.expect([str(i) for i in ids]):
                unarmed.update(ids)
            kept = consolidate_locked(bank, points, deps, published)
        for point, plan in kept:
            merged = sum(1 for lk in plan.links if lk.kind is LinkKind.MERGE)
            eid = point.record.event_id
            assert eid is not None
            stored[point.record.id] = Outcome(
                eid, point.record.id, Status.STORED, merged, len(plan.links) - merged
            )
    share_ms = (time.perf_counter() - started) * 1000 / max(1, len(todo))
    return _outcomes(events, deps, stored, unarmed, share_ms, published)


def _outcomes(
    events: Sequence[RetainEvent],
    deps: Consolidator,
    stored: dict[uuid.UUID, Outcome],
    unarmed: set[uuid.UUID],
    share_ms: float,
    published: Mapping[uuid.UUID, datetime],
) -> list[Outcome]:
    """One outcome per delivered event, counted; the metrics token of an event is its
    memory id, one per (bank, event id)."""
    outcomes = []
    forgotten = _forgotten(events, deps)
    for event in events:
        key = event_memory_id(event)
        outcome = stored.pop(key, None)
        if outcome is None and key in forgotten:
            outcomes.append(Outcome(event.event_id, key, Status.FORGOTTEN))
            count_events(deps.metrics, "forgotten", [event.bank_id])
            continue
        if outcome is None:
            outcomes.append(Outcome(event.event_id, key, Status.REDELIVERED))
            count_stored_once(deps.metrics, str(key), event.bank_id)
            continue
        outcomes.append(outcome)
        count_stored_once(deps.metrics, str(key), event.bank_id, key in unarmed)
        _measured(deps, event, outcome, share_ms, published.get(key))
    return outcomes
