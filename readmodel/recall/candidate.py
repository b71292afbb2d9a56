"""The unit every recall stage works on."""

import uuid
from dataclasses import dataclass

from readmodel.store import Record


@dataclass(frozen=True)
class Candidate:
    """A record with its evidence and the score stages build from it.

    Evidence components are in 0..1 (`feedback` is a signed bias); ranks are 1-based
    and None when the record was not in that list; `gate` is the factor the relevance
    gate applied to query-independent parts (1.0 when not gated).
    """

    record: Record
    vector: float = 0.0
    keyword: float = 0.0
    vector_rank: int | None = None
    keyword_rank: int | None = None
    exact: float = 0.0
    date: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    feedback: float = 0.0
    fused: float = 0.0
    gate: float = 1.0
    decay: float = 1.0
    recency_bias: float = 0.0
    rerank: float | None = None
    score: float = 0.0
    state_replaces: uuid.UUID | None = None

    @property
    def id(self) -> uuid.UUID:
        return self.record.id

    @property
    def semantic(self) -> bool:
        """Found by meaning, not only by words."""
        return self.vector_rank is not None
