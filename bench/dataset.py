"""What a retrieval benchmark runs on, whatever file it came from, and the generic format.

Each memory carries a label (a LoCoMo `dia_id`, a producer's id) and each query the
gold labels it needs. Labels are matched through memory ids, which consolidation
derives from event ids, so observations are scored through their provenance.
"""

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from contracts.events import EventKind, RetainEvent
from worker.consolidation.relations import memory_id

BENCH_NAMESPACE = uuid.UUID("9d3c2b1a-5e4f-5a6b-8c7d-0e1f2a3b4c5d")
ADVERSARIAL = "adversarial"


@dataclass(frozen=True)
class BenchQuery:
    id: str
    bank_id: str
    query: str
    gold: frozenset[str]
    category: str
    query_time: datetime | None = None


@dataclass(frozen=True)
class BenchSet:
    """Events to retain and queries to score. `adversarial` queries are reported apart."""

    name: str
    events: list[RetainEvent]
    labels: dict[uuid.UUID, str]
    queries: list[BenchQuery]
    adversarial: list[BenchQuery] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    category_order: tuple[str, ...] = ()
    mapping: dict[str, str] = field(default_factory=dict)
    """How the file became events, where the harness chose (reported with the settings)."""

    @property
    def banks(self) -> list[str]:
        return sorted({e.bank_id for e in self.events})


def event_id(bank_id: str, label: str) -> uuid.UUID:
    """Deterministic: rerunning a benchmark writes the same points."""
    return uuid.uuid5(BENCH_NAMESPACE, f"{bank_id}\x1f{label}")


def label_map(events: list[RetainEvent], key: str) -> dict[uuid.UUID, str]:
    return {memory_id(e.bank_id, e.event_id): e.metadata[key] for e in events}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GenericMemory(_Model):
    id: str = Field(min_length=1, max_length=128)
    bank_id: str
    text: str
    context: str | None = None
    occurred_at: datetime
    kind: EventKind = "world"
    entities: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    key: str | None = None


class GenericQuery(_Model):
    id: str
    bank_id: str
    query: str
    gold_ids: list[str]
    category: str = "all"
    query_time: datetime | None = None


class GenericFile(_Model):
    name: str = "unnamed"
    memories: list[GenericMemory]
    queries: list[GenericQuery]


SOURCE_ID = "source_id"


def load_generic(path: Path) -> BenchSet:
    """The format of BENCHMARKS.md section 2; the producer's id is kept as `source_id`."""
    data = GenericFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    events = [
        RetainEvent(
            event_id=event_id(m.bank_id, m.id),
            bank_id=m.bank_id,
            kind=m.kind,
            text=m.text,
            context=m.context,
            occurred_at=m.occurred_at,
            entities=m.entities,
            tags=m.tags,
            key=m.key,
            metadata={SOURCE_ID: m.id},
        )
        for m in sorted(data.memories, key=lambda m: (m.bank_id, m.occurred_at, m.id))
    ]
    known = {(m.bank_id, m.id) for m in data.memories}
    queries: list[BenchQuery] = []
    skipped = 0
    for q in data.queries:
        gold = frozenset(g for g in q.gold_ids if (q.bank_id, g) in known)
        if not gold:
            skipped += 1
            continue
        queries.append(BenchQuery(q.id, q.bank_id, q.query, gold, q.category, q.query_time))
    return BenchSet(
        name=data.name,
        events=events,
        labels=label_map(events, SOURCE_ID),
        queries=[q for q in queries if q.category != ADVERSARIAL],
        adversarial=[q for q in queries if q.category == ADVERSARIAL],
        counts={"skipped_no_gold": skipped},
    )
