"""A record as the API shows it: provenance, edges and history, all within one bank.
What has expired is not shown: not the record itself (None, a 404), nor as a source,
an older state or a newer one (recall's rule)."""

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

from contracts.memory import Observation
from readmodel.recall.chains import later_states
from readmodel.store import Filter, MemoryStore, Record, StoredPoint, expired
from sediment.api.models import Edges, MemoryView, RecordSummary


def summary(record: Record) -> RecordSummary:
    return RecordSummary(
        id=record.id,
        kind=record.kind,
        text=record.text,
        occurred_at=record.occurred_at,
        state=record.state,
        superseded_by=record.superseded_by,
        relation=record.relation,
        supersession_reason=record.supersession_reason,
    )


def history(
    store: MemoryStore, bank_id: str, record: Record, now: datetime | None = None
) -> list[RecordSummary]:
    """Newer states, following `superseded_by` to the current one however many times
    the value changed; a cycle or a record missing from the bank ends the walk instead
    of looping or leaking. After the first step the rest of the chain is read ahead in
    one call (`readmodel.recall.chains.later_states`, what recall's walks use), and a
    state it missed is fetched by id. A state expired by `now` is walked through, not
    listed."""
    chain: list[RecordSummary] = []
    seen = {record.id}
    ahead: dict[uuid.UUID, Record] = {}
    current = record
    while current.superseded_by is not None and current.superseded_by not in seen:
        newer = ahead.get(current.superseded_by)
        if newer is None:
            found = store.fetch(bank_id, [current.superseded_by])
            if not found:
                break
            newer = found[0].record
            if not ahead:
                read = later_states(store, bank_id, [(current, newer)])
                ahead = {r.id: r for r in read} or {newer.id: newer}
        current = newer
        seen.add(current.id)
        if now is None or not expired(current, now):
            chain.append(summary(current))
    return chain


def _live(points: Iterable[StoredPoint], now: datetime) -> list[RecordSummary]:
    return [summary(p.record) for p in points if not expired(p.record, now)]


def memory_view(
    store: MemoryStore, bank_id: str, memory_id: uuid.UUID, now: datetime | None = None
) -> MemoryView | None:
    """None when the bank holds no such record, or it has expired by `now` (default:
    this moment)."""
    at = now or datetime.now(UTC)
    found = store.fetch(bank_id, [memory_id])
    if not found or expired(found[0].record, at):
        return None
    record = found[0].record
    sources: list[RecordSummary] = []
    if isinstance(record, Observation):
        sources = _live(store.fetch(bank_id, record.source_memory_ids), at)
    older = store.scroll(Filter(bank_id, superseded_by=record.id, live_at=at))
    edges = Edges(
        superseded_by=record.superseded_by,
        relation=record.relation,
        supersedes=[summary(p.record) for p in older],
    )
    return MemoryView(
        memory=record,
        sources=sources,
        edges=edges,
        history=history(store, bank_id, record, at),
    )
