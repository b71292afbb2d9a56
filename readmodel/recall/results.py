"""Candidates to the response contract."""

from contracts.memory import Observation
from contracts.recall import Components, RecallResult
from readmodel.recall.candidate import Candidate
from readmodel.recall.labels import labels_of


def components_of(c: Candidate) -> Components:
    return Components(
        vector=round(c.vector, 6),
        keyword=round(c.keyword, 6),
        exact=round(c.exact, 6),
        importance=c.importance,
        recency=round(c.recency, 6),
        feedback=round(c.feedback, 6),
        fused=round(c.fused, 6),
        decay=round(c.decay, 6),
        recency_bias=round(c.recency_bias, 6),
        rerank=None if c.rerank is None else round(c.rerank, 6),
    )


def to_result(c: Candidate, explain: bool) -> RecallResult:
    r = c.record
    labels = labels_of(c)
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
        labels=labels,
        components=components_of(c) if explain else None,
    )
