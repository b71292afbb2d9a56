"""Builders shared by tests."""

import math
import os
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from contracts.events import RetainEvent
from contracts.memory import Memory, Relation
from readmodel.embedders import Embedder
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.candidate import Candidate
from readmodel.recall.order import sort_key
from readmodel.store import StoredPoint
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from worker.consolidation.consolidator import Consolidator, consolidate, raw_memory
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import LinkKind, memory_id, relate

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def event(text: str, day: int = 0, bank: str = "b1", **kw: object) -> RetainEvent:
    eid = kw.pop("event_id", None) or uuid.uuid5(uuid.NAMESPACE_URL, f"{bank}/{text}/{day}")
    return RetainEvent(
        event_id=eid,
        bank_id=bank,
        text=text,  # type: ignore[arg-type]
        occurred_at=T0 + timedelta(days=day),
        **kw,
    )


def memory(text: str, day: int = 0, **kw: object) -> Memory:
    return raw_memory(event(text, day, **kw), T0)


def ranked_candidates(*rows: tuple[str, float]) -> list[Candidate]:
    """Candidates of these texts and scores, in the order recall ranks them."""
    return sorted(
        (Candidate(memory(text, i), score=score) for i, (text, score) in enumerate(rows)),
        key=sort_key,
    )


def texts(out: Sequence[Candidate]) -> list[str]:
    return [c.record.text for c in out]


def verdict(
    older: str,
    newer: str,
    entities: Sequence[str] = (),
    newer_entities: Sequence[str] | None = None,
) -> Relation | None:
    """The relation `newer` (30 days later) puts on `older` through `relate`, checked to be
    the same in both call orders; None when it supersedes nothing. `newer_entities`
    defaults to `entities`."""
    policy = ConsolidationPolicy()
    a = memory(older, 0, entities=list(entities))
    b = memory(newer, 30, entities=list(entities if newer_entities is None else newer_entities))
    one, two = relate(a, b, 0.0, policy), relate(b, a, 0.0, policy)
    assert one == two
    if one is None or one.kind is not LinkKind.SUPERSEDE:
        return None
    assert (one.older, one.newer) == (a.id, b.id)
    return one.relation


def point(m: Memory, angle_deg: float) -> StoredPoint:
    """A point on the unit circle: cos(angle difference) is the similarity between two points."""
    a = math.radians(angle_deg)
    return StoredPoint(m, (math.cos(a), math.sin(a)))


def angle_for(similarity: float) -> float:
    return math.degrees(math.acos(similarity))


def edge_consolidator(root: Path, embedder: Embedder) -> Consolidator:
    """A consolidator over a new embedded store at `root`, without locks."""
    store = EdgeStore(root)
    store.ensure_schema(embedder.dimension)
    return Consolidator(store, embedder, NoLocks())


def ingested(root: Path, texts: Sequence[str]) -> tuple[EdgeStore, HashEmbedder]:
    """A new embedded store at `root` holding `texts` consolidated (bank b1, a day
    apart), and the embedder they were embedded with."""
    embedder = HashEmbedder(64)
    deps = edge_consolidator(root, embedder)
    consolidate([event(t, i) for i, t in enumerate(texts)], deps)
    assert isinstance(deps.store, EdgeStore)
    return deps.store, embedder


def mid(e: RetainEvent) -> uuid.UUID:
    return memory_id(e.bank_id, e.event_id)


def redis_url(db: int) -> str:
    """The test Redis: 127.0.0.1:6379 unless SEDIMENT_TEST_REDIS_PORT names another port,
    so two test runs on one machine can each have their own server."""
    port = os.environ.get("SEDIMENT_TEST_REDIS_PORT", "6379")
    return f"redis://127.0.0.1:{port}/{db}"


DEFAULT_STAGES = [  # the recall stages `explain` lists with the default settings
    "embed",
    "fetch",
    "fuse",
    "length",
    "session",
    "speaker",
    "gate",
    "current_state",
    "feedback",
    "sort",
    "subject",
    "plans",
    "successors",
    "outdated",
    "snippets",
    "instructions",
    "prefer_observations",
    "truncate",
]


def cli_commands() -> list[tuple[str, Any]]:
    """Every leaf command of the `sediment` CLI with its name under `sediment` ("recall",
    "dlq list"), as click commands."""
    from typer.main import get_command

    from sediment.cli import app

    def walk(group: Any, prefix: str) -> Iterator[tuple[str, Any]]:
        for name, cmd in group.commands.items():
            if hasattr(cmd, "commands"):
                yield from walk(cmd, f"{prefix}{name} ")
            else:
                yield f"{prefix}{name}", cmd

    return list(walk(get_command(app), ""))
