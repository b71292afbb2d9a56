"""What became of retained events, read back from the store once they are consolidated
(in-process consolidation: the CLI and MCP in embedded mode, the HTTP API where the
publisher consolidates before it answers). Where a worker consolidates later, the
answer is `queued` with the event ids instead."""

import uuid
from collections.abc import Sequence

from contracts.memory import derive_memory_id
from readmodel.store import Filter, MemoryStore
from sediment.api.models import Outcome
from sediment.memory_ids import short


def outcomes(store: MemoryStore, bank_id: str, event_ids: Sequence[uuid.UUID]) -> list[Outcome]:
    """One `Outcome` per event, in order."""
    ids = [derive_memory_id(bank_id, e) for e in event_ids]
    found = {p.record.id: p.record for p in store.fetch(bank_id, ids)} if ids else {}
    out: list[Outcome] = []
    for event_id, memory_id in zip(event_ids, ids, strict=True):
        record = found.get(memory_id)
        if record is None:
            said = f"not stored: event {event_id} was forgotten, or has expired"
            out.append(Outcome(event_id=event_id, memory_id=memory_id, stored=False, said=said))
            continue
        older = [p.record.id for p in store.scroll(Filter(bank_id, superseded_by=memory_id))]
        observation = getattr(record, "observation_id", None)
        outcome = Outcome(
            event_id=event_id,
            memory_id=memory_id,
            observation_id=observation,
            supersedes=older,
            superseded_by=record.superseded_by,
        )
        out.append(outcome.model_copy(update={"said": words(outcome)}))
    return out


def words(o: Outcome) -> str:
    parts = [f"stored {short(o.memory_id)}"]
    if o.observation_id is not None:
        parts.append(f"merged into observation {short(o.observation_id)}")
    if o.supersedes:
        parts.append("superseded " + ", ".join(short(i) for i in o.supersedes))
    if o.superseded_by is not None:
        parts.append(f"an earlier state of {short(o.superseded_by)} (which is current)")
    return "; ".join(parts)
