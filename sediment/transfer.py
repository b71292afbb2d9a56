"""Export and import of a bank: JSON lines, replayed through the one retain path.

    {"format": "sediment-export", "version": 1, "bank": "team-a", "exported_at": "..."}
    {"type": "retain", "event": {<RetainEvent>}}          one per raw memory, event-time order
    {"type": "tombstone", "tombstone": {<Tombstone>}}     one per forgotten memory

The raw events are the bank's source of truth: observations, states and edges are
derived, so an import re-derives them (by convergence, the same read model: same ids,
states, edges, observations). A memory's id derives from its bank and event id, so an
import into another bank (`--bank`) is a copy: the source bank keeps its memories.
Tombstones are imported as forgets, first, so an import never brings back what was
forgotten. Importing twice changes nothing: the events are
duplicates by id. Votes and last-access times are not exported; `expires_at` is, so an
imported memory expires when the original would have (at once, if that has passed).
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from contracts.events import RetainEvent
from contracts.forget import Tombstone
from contracts.memory import Memory
from readmodel.store import Filter, MemoryStore
from sediment.forgetting import forget_event
from sediment.retain import Publisher
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.consolidation.relations import time_key
from worker.tombstones import Tombstones

FORMAT: Final = "sediment-export"
VERSION: Final = 1
IMPORT_BATCH: Final = 256
FORGET_BATCH: Final = 1000


def retain_event(memory: Memory) -> RetainEvent:
    """The retain event a raw memory was stored from (its derived fields dropped)."""
    assert memory.event_id is not None
    return RetainEvent(
        event_id=memory.event_id,
        bank_id=memory.bank_id,
        kind="experience" if memory.kind == "experience" else "world",
        text=memory.text,
        context=memory.context,
        occurred_at=memory.occurred_at,
        mentioned_at=memory.mentioned_at,
        entities=memory.entities,
        tags=memory.tags,
        key=memory.key,
        supersedes=memory.declared_supersedes,
        importance=memory.importance,
        metadata=memory.metadata,
        expires_at=memory.expires_at,
    )


def export_lines(
    store: MemoryStore,
    tombstones: Tombstones,
    bank_id: str,
    now: datetime,
    counts: dict[str, int] | None = None,
) -> Iterator[str]:
    """The export, line by line; memories expired by `now` are left out (they are as
    good as forgotten; the sweep tombstones them). `counts`, when given, is filled with
    the number of `events` and `tombstones` written."""
    tally = counts if counts is not None else {}
    tally.update(events=0, tombstones=0)
    header = {"format": FORMAT, "version": VERSION, "bank": bank_id, "exported_at": now.isoformat()}
    yield json.dumps(header, sort_keys=True)
    raw = [p.record for p in store.scroll(Filter(bank_id, kinds=RAW_KINDS, live_at=now))]
    for memory in sorted(raw, key=time_key):
        if memory.event_id is not None:
            event = retain_event(memory).model_dump(mode="json", exclude_defaults=True)
            tally["events"] += 1
            yield json.dumps({"type": "retain", "event": event}, sort_keys=True)
    for stone in tombstones.of_bank(bank_id):
        body = stone.model_dump(mode="json")
        tally["tombstones"] += 1
        yield json.dumps({"type": "tombstone", "tombstone": body}, sort_keys=True)


@dataclass(frozen=True)
class Imported:
    bank: str
    events: int
    stored: int
    tombstones: int


def _parse(
    lines: Iterable[str], bank: str | None
) -> tuple[str, list[RetainEvent], list[Tombstone], datetime]:
    it = iter(line for line in lines if line.strip())
    header = json.loads(next(it, "{}"))
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise ValueError(f"not a {FORMAT} file of version {VERSION}: header {header!r}")
    target = bank or str(header["bank"])
    events, stones = [], []
    for n, line in enumerate(it, start=2):
        row = json.loads(line)
        if row.get("type") == "retain":
            events.append(RetainEvent.model_validate({**row["event"], "bank_id": target}))
        elif row.get("type") == "tombstone":
            stones.append(Tombstone.model_validate({**row["tombstone"], "bank_id": target}))
        else:
            raise ValueError(f"line {n}: unknown record type {row.get('type')!r}")
    return target, events, stones, datetime.fromisoformat(header["exported_at"])


def import_lines(publisher: Publisher, lines: Iterable[str], bank: str | None = None) -> Imported:
    """Tombstones first (as forgets of their memory ids), then the events in batches."""
    target, events, stones, exported_at = _parse(lines, bank)
    by_event = [s.event_id for s in stones if s.event_id is not None]
    by_memory = [s.memory_id for s in stones if s.event_id is None]
    for start in range(0, len(by_event), FORGET_BATCH):
        chunk = by_event[start : start + FORGET_BATCH]
        publisher.publish_forget([forget_event(target, event_ids=chunk, now=exported_at)])
    for start in range(0, len(by_memory), FORGET_BATCH):
        chunk = by_memory[start : start + FORGET_BATCH]
        publisher.publish_forget([forget_event(target, memory_ids=chunk, now=exported_at)])
    stored = 0
    for start in range(0, len(events), IMPORT_BATCH):
        stored += publisher.publish_retain(events[start : start + IMPORT_BATCH])
    return Imported(target, len(events), stored, len(stones))
