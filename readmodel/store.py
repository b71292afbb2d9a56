"""The `MemoryStore` port: what Sediment needs from a vector store, in its own terms.

Every call carries a bank id and every adapter applies it as a filter: there is no
call that can read or write across banks.
"""

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from contracts.memory import Memory, Observation, Relation, State

Record = Memory | Observation

DENSE_VECTOR = "dense"
KEYWORD_VECTOR = "keywords"


@dataclass(frozen=True)
class SparseVector:
    """Keyword vector: hashed term ids and term weights (IDF is applied by the engine)."""

    indices: tuple[int, ...] = ()
    values: tuple[float, ...] = ()


@dataclass(frozen=True)
class StoredPoint:
    """A record with its vectors, as written to and read from the store."""

    record: Record
    dense: tuple[float, ...]
    sparse: SparseVector = SparseVector()


@dataclass(frozen=True)
class Hit:
    """A search result: the record, the engine's score, and vectors when asked for."""

    record: Record
    score: float
    dense: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Filter:
    """Conditions for candidates; all given conditions must hold. `bank_id` always applies."""

    bank_id: str
    ids: tuple[uuid.UUID, ...] = ()
    kinds: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    tagset: str | None = None
    state: State | None = None
    key: str | None = None
    occurred_from: datetime | None = None
    occurred_to: datetime | None = None
    declared_supersedes_any: tuple[uuid.UUID, ...] = ()
    superseded_by: uuid.UUID | None = None
    observation_ids: tuple[uuid.UUID, ...] = ()


@dataclass(frozen=True)
class DerivedPatch:
    """The consolidation-owned fields of one record, written as a whole."""

    id: uuid.UUID
    state: State
    superseded_by: uuid.UUID | None
    relation: Relation | None
    observation_id: uuid.UUID | None
    consolidated: bool


@dataclass(frozen=True)
class Feedback:
    """Votes on one record, already capped by the caller."""

    votes_up: int = 0
    votes_down: int = 0
    not_useful: int = 0


@dataclass(frozen=True)
class StoreInfo:
    engine: str
    points: int
    details: dict[str, str] = field(default_factory=dict)


def tagset_of(tags: Sequence[str]) -> str:
    """Canonical form of a tag set: consolidation only groups records with equal tag sets."""
    return "\x1f".join(sorted(set(tags)))


class MemoryStore(Protocol):
    """Port implemented by `EdgeStore` (embedded) and `QdrantStore` (server or local mode)."""

    def ensure_schema(self, dense_size: int) -> None:
        """Create the collection, vectors and payload indexes if missing (idempotent)."""

    def upsert(self, points: Sequence[StoredPoint]) -> None: ...

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        """Records of `bank_id` with these ids; ids of other banks or unknown ids are absent."""

    def search_dense(
        self,
        vector: Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        """Nearest by cosine, best first; `score` is the cosine similarity."""

    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        """Best sparse (IDF-weighted dot product) matches first."""

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        """Overwrite the derived fields of records of `bank_id`; other banks are untouched."""

    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        """Overwrite the vote counts of one record of `bank_id`."""

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        """Set `last_accessed_at` on records of `bank_id`."""

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None: ...

    def scroll(self, flt: Filter, with_vectors: bool = False) -> Iterator[StoredPoint]:
        """Every record matching `flt`, in id order."""

    def count(self, flt: Filter) -> int: ...

    def banks(self) -> list[str]:
        """Every bank holding at least one record (operators' view, e.g. rebuild --all)."""

    def info(self) -> StoreInfo: ...

    def close(self) -> None: ...
