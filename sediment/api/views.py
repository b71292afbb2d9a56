"""A record as the API shows it: provenance, edges and history, all within one bank."""

import uuid

from contracts.memory import Observation
from readmodel.store import Filter, MemoryStore, Record
from sediment.api.models import Edges, MemoryView, RecordSummary

MAX_HISTORY_HOPS = 5


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


def history(store: MemoryStore, bank_id: str, record: Record) -> list[RecordSummary]:
    """Newer states, following `superseded_by` at most five hops; a cycle or a record
    missing from the bank ends the walk instead of looping or leaking."""
    chain: list[RecordSummary] = []
    seen = {record.id}
    current = record
    while current.superseded_by is not None and len(chain) < MAX_HISTORY_HOPS:
        if current.superseded_by in seen:
            break
        found = store.fetch(bank_id, [current.superseded_by])
        if not found:
            break
        current = found[0].record
        seen.add(current.id)
        chain.append(summary(current))
    return chain


def memory_view(store: MemoryStore, bank_id: str, memory_id: uuid.UUID) -> MemoryView | None:
    found = store.fetch(bank_id, [memory_id])
    if not found:
        return None
    record = found[0].record
    sources: list[RecordSummary] = []
    if isinstance(record, Observation):
        sources = [summary(p.record) for p in store.fetch(bank_id, record.source_memory_ids)]
    older = store.scroll(Filter(bank_id, superseded_by=record.id))
    edges = Edges(
        superseded_by=record.superseded_by,
        relation=record.relation,
        supersedes=[summary(p.record) for p in older],
    )
    return MemoryView(
        memory=record,
        sources=sources,
        edges=edges,
        history=history(store, bank_id, record),
    )
