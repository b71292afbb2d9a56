"""The recall pipeline: fetch, fuse, current state, prefer observations, order, truncate."""

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from contracts.memory import Observation
from contracts.recall import RecallRequest, RecallResponse, RecallResult
from readmodel.embedders import Embedder
from readmodel.keywords import query_vector
from readmodel.recall.candidate import Candidate
from readmodel.recall.fetch import fetch_candidates
from readmodel.recall.fusion import rrf
from readmodel.recall.observations import prefer_observations
from readmodel.recall.order import rank
from readmodel.recall.state import resolve_current
from readmodel.store import Filter, MemoryStore, Record


@dataclass(frozen=True)
class Recall:
    """Reads the model. Wired once per process; `recall` is safe to call from many threads."""

    store: MemoryStore
    embedder: Embedder
    depth: int = 50

    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        timings: dict[str, float] = {}
        clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[stage] = round((now - clock) * 1000, 3)
            clock = now

        dense = self.embedder.embed([request.query])[0]
        lap("embed")
        flt = _filter(bank_id, request)
        candidates = fetch_candidates(
            self.store, dense, query_vector(request.query), flt, max(self.depth, request.limit * 3)
        )
        lap("fetch")
        candidates = rrf(candidates)
        if request.state_mode == "current":
            candidates = resolve_current(candidates, lambda ids: self._fetch(bank_id, ids))
            lap("state")
        dropped = 0
        if request.prefer_observations:
            candidates, dropped = prefer_observations(candidates)
        shown = rank(candidates, request.limit)
        lap("rank")
        return RecallResponse(
            bank_id=bank_id,
            query=request.query,
            results=[_result(c) for c in shown],
            dropped_by_prefer_observations=dropped,
            timings_ms=timings,
        )

    def _fetch(self, bank_id: str, ids: Sequence[uuid.UUID]) -> list[Record]:
        return [p.record for p in self.store.fetch(bank_id, ids)]


def _filter(bank_id: str, request: RecallRequest) -> Filter:
    tags = tuple(request.tags)
    return Filter(
        bank_id=bank_id,
        kinds=tuple(request.kinds),
        tags_any=tags if request.tags_match == "any" else (),
        tags_all=tags if request.tags_match == "all" else (),
        occurred_from=request.start,
        occurred_to=request.end,
    )


def _result(c: Candidate) -> RecallResult:
    r = c.record
    return RecallResult(
        id=r.id,
        kind=r.kind,
        text=r.text,
        occurred_at=r.occurred_at,
        score=round(c.score, 6),
        state=r.state,
        superseded_by=r.superseded_by,
        relation=r.relation,
        state_replaces=c.state_replaces,
        source_memory_ids=list(r.source_memory_ids) if isinstance(r, Observation) else [],
        entities=list(r.entities),
        tags=list(r.tags),
        metadata=dict(r.metadata),
    )
