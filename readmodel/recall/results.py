"""Candidates to the response contract."""

import uuid

from contracts.memory import Observation
from contracts.recall import Components, RecallResult, Span
from readmodel.recall.candidate import Candidate
from readmodel.recall.labels import SEMANTIC_FLOOR, labels_of
from readmodel.recall.snippets import returned_text, snippet_spans


def components_of(c: Candidate, score_from: uuid.UUID | None = None) -> Components:
    return Components(
        vector=round(c.vector, 6),
        vector_calibrated=round(c.vector_calibrated, 6),
        keyword=round(c.keyword, 6),
        exact=round(c.exact, 6),
        date=c.date,
        importance=c.importance,
        recency=round(c.recency, 6),
        feedback=round(c.feedback, 6),
        fused=round(c.fused, 6),
        decay=round(c.decay, 6),
        recency_bias=round(c.recency_bias, 6),
        rerank=None if c.rerank is None else round(c.rerank, 6),
        score_from=score_from,
    )


def to_result(
    c: Candidate,
    explain: bool,
    semantic_floor: float = SEMANTIC_FLOOR,
    score_from: uuid.UUID | None = None,
) -> RecallResult:
    """`score_from`: the superseded state whose score and components `c` carries."""
    r = c.record
    return RecallResult(
        id=r.id,
        kind=r.kind,
        text=returned_text(c),
        snippet=[Span(start=s, end=e) for s, e in snippet_spans(c)],
        occurred_at=r.occurred_at,
        score=round(c.score, 6),
        state=r.state,
        superseded_by=r.superseded_by,
        relation=r.relation,
        state_replaces=c.state_replaces,
        outdated_by=c.outdated_by,
        source_memory_ids=list(r.source_memory_ids) if isinstance(r, Observation) else [],
        entities=list(r.entities),
        tags=list(r.tags),
        metadata=dict(r.metadata),
        labels=labels_of(c, semantic_floor),
        components=components_of(c, score_from) if explain else None,
    )
