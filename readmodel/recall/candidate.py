"""The unit every recall stage works on."""

import uuid
from dataclasses import dataclass

from readmodel.store import Record


@dataclass(frozen=True)
class Candidate:
    """A record with its evidence. Scores are 0..1; ranks are 1-based, None when absent."""

    record: Record
    vector: float = 0.0
    keyword: float = 0.0
    vector_rank: int | None = None
    keyword_rank: int | None = None
    score: float = 0.0
    state_replaces: uuid.UUID | None = None

    @property
    def id(self) -> uuid.UUID:
        return self.record.id
