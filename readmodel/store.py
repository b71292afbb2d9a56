"""The `MemoryStore` port: what Sediment needs from a vector store, in its own terms.

Every call carries a bank id and every adapter applies it as a filter: there is no
call that can read or write across banks.
"""

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

import numpy as np
import numpy.typing as npt

from contracts.memory import Memory, Observation, Relation, State
from readmodel.instructions import instruction_scope

Record = Memory | Observation

DENSE_VECTOR = "dense"
KEYWORD_VECTOR = "keywords"
PASSAGE_VECTOR = "passages"
"""A long memory's passages, one dense vector each (a multivector); absent on a memory
of one passage (`readmodel.passages`). Read to choose a result's snippet, not searched."""


Vector = npt.NDArray[np.float32]
"""A dense vector, float32, as the engines store it; never a Python tuple (a hot path)."""
EMPTY_VECTOR: Vector = np.zeros(0, dtype=np.float32)


@dataclass(frozen=True)
class SparseVector:
    """Keyword vector: hashed term ids and term weights (IDF is applied by the engine)."""

    indices: tuple[int, ...] = ()
    values: tuple[float, ...] = ()


@dataclass(frozen=True)
class PassageStats:
    """One passage of a long text: its character span, stems and whitespace tokens."""

    start: int
    end: int
    stems: frozenset[str]
    tokens: int


@dataclass(frozen=True)
class TextStats:
    """What recall's ranking reads of a record's text: the distinct stems of its words
    (exact match, direct answer), its whitespace tokens (length prior, token budget),
    for a text of several passages, each passage's (`readmodel.passages`: snippets) and,
    for a standing instruction, the span saying when it applies
    (`readmodel.instructions`).
    Written with the record (`readmodel.text.text_stats`) and read back with each hit,
    so no recall tokenises a stored text; a record stored without them has none."""

    stems: frozenset[str]
    tokens: int
    passages: tuple[PassageStats, ...] = ()
    instruction: tuple[int, int] | None = None


@dataclass(frozen=True)
class StoredPoint:
    """A record with its vectors, as written to and read from the store; read back, also
    its text's stored `TextStats` (None when written without; never read on a write).
    `passages`: one dense vector per passage of a long text, a row each in the order of
    `readmodel.passages.passage_spans` (None: none stored; a record of one passage has
    none). Whoever rewrites a point carries them, as it carries `dense`."""

    record: Record
    dense: Vector
    sparse: SparseVector = SparseVector()
    stats: TextStats | None = None
    passages: Vector | None = None


@dataclass(frozen=True)
class Hit:
    """A search result: the record, the engine's score, vectors when asked for, and the
    text's stored `TextStats` (None for a record written without them)."""

    record: Record
    score: float
    dense: Vector | None = None
    stats: TextStats | None = None


@dataclass(frozen=True)
class Filter:
    """Conditions for candidates; all given conditions must hold. `bank_id` always applies.
    `live_at`: records not expired at that instant (no `expires_at`, or a later one);
    `expired_at`: records expired by then (`expires_at` at or before it);
    `current_at`: records that are the current state at that instant or later (not
    superseded, or with `current_until` at or after it); `entities_shared`: records
    naming one of these entities (case-insensitive) or naming none, the records a memory
    naming them may restate (`worker/consolidation/relations.py`, `shares_entity`)."""

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
    slot_keys_any: tuple[str, ...] = ()
    superseded_by: uuid.UUID | None = None
    observation_ids: tuple[uuid.UUID, ...] = ()
    live_at: datetime | None = None
    expired_at: datetime | None = None
    current_at: datetime | None = None
    entities_shared: tuple[str, ...] = ()
    instructions: bool = False


@dataclass(frozen=True)
class DerivedPatch:
    """The consolidation-owned fields of one record, written as a whole."""

    id: uuid.UUID
    state: State
    superseded_by: uuid.UUID | None
    relation: Relation | None
    observation_id: uuid.UUID | None
    consolidated: bool
    supersession_reason: str | None = None
    current_until: datetime | None = None


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


@dataclass(frozen=True)
class Rebuilding:
    """A rebuild started and not finished (`mark_rebuilding`): the banks it derives
    again, and whether it is of every bank (`sediment rebuild --all`)."""

    banks: tuple[str, ...]
    every_bank: bool = False

    def as_json(self) -> dict[str, object]:
        return {"banks": list(self.banks), "all": self.every_bank}

    @staticmethod
    def of_json(value: object) -> "Rebuilding | None":
        """The marker as `as_json` wrote it; None for no marker (or a cleared one)."""
        if not isinstance(value, dict):
            return None
        banks = value.get("banks")
        names = tuple(str(b) for b in banks) if isinstance(banks, list) else ()
        return Rebuilding(names, value.get("all") is True)


def tagset_of(tags: Sequence[str]) -> str:
    """Canonical form of a tag set: consolidation only groups records with equal tag sets."""
    if not tags:
        return ""  # most records have none, and consolidation asks for every pair it compares
    return "\x1f".join(sorted(set(tags)))


def expired(record: Record, at: datetime) -> bool:
    """Whether `record` has expired by `at` (expiry is inclusive: gone at `expires_at`)."""
    return record.expires_at is not None and record.expires_at <= at


def matches(flt: Filter, r: Record) -> bool:
    """`flt`'s meaning in plain Python: what every adapter's engine filter must select
    (the contract suite checks each against this), and how a batch's own, not yet
    written records are filtered."""
    return (
        r.bank_id == flt.bank_id
        and (not flt.ids or r.id in flt.ids)
        and (not flt.kinds or r.kind in flt.kinds)
        and (not flt.tags_any or bool(set(flt.tags_any) & set(r.tags)))
        and set(flt.tags_all) <= set(r.tags)
        and (flt.tagset is None or tagset_of(r.tags) == flt.tagset)
        and (flt.state is None or r.state == flt.state)
        and (flt.key is None or r.key == flt.key)
        and (flt.occurred_from is None or r.occurred_at >= flt.occurred_from)
        and (flt.occurred_to is None or r.occurred_at <= flt.occurred_to)
        and (
            not flt.declared_supersedes_any
            or bool(set(flt.declared_supersedes_any) & set(r.declared_supersedes))
        )
        and (not flt.slot_keys_any or bool(set(flt.slot_keys_any) & set(r.slot_keys)))
        and (flt.superseded_by is None or r.superseded_by == flt.superseded_by)
        and (not flt.observation_ids or r.observation_id in flt.observation_ids)
        and (flt.live_at is None or not expired(r, flt.live_at))
        and (flt.expired_at is None or expired(r, flt.expired_at))
        and (flt.current_at is None or r.current_until is None or r.current_until >= flt.current_at)
        and (not flt.entities_shared or not r.entities or _shares(flt.entities_shared, r.entities))
        and (not flt.instructions or instruction_scope(r.text) is not None)
    )


def _shares(a: Sequence[str], b: Sequence[str]) -> bool:
    return bool({e.casefold() for e in a} & {e.casefold() for e in b})


class MemoryStore(Protocol):
    """Port implemented by `EdgeStore` (embedded) and `QdrantStore` (server or local mode)."""

    def ensure_schema(self, dense_size: int) -> None:
        """Create the collection, vectors and payload indexes if missing (idempotent)."""

    def layout(self) -> int | None:
        """The layout of derived fields the stored points were written with, as recorded
        by `mark_layout`; None when none was recorded."""

    def mark_layout(self, version: int) -> None:
        """Record the layout of derived fields the stored points now follow (durably)."""

    def rebuilding(self) -> Rebuilding | None:
        """The rebuild recorded by `mark_rebuilding` and not cleared since: one that is
        running, or one cut short (the derived fields of its banks are half written)."""

    def mark_rebuilding(self, rebuilding: Rebuilding | None) -> None:
        """Record (durably, before returning) the rebuild about to start; None clears it
        once the rebuild has finished."""

    def upsert(self, points: Sequence[StoredPoint]) -> None: ...

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        """Records of `bank_id` with these ids; ids of other banks or unknown ids are absent."""

    def passage_vectors(self, bank_id: str, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Vector]:
        """The passage vectors (`StoredPoint.passages`) of these records of `bank_id`, and
        nothing else of them: what recall reads to cut snippets. Records of other banks,
        unknown ids and records without passages are absent."""

    def search_dense(
        self,
        vector: Vector | Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        """Nearest by cosine, best first; `score` is the cosine similarity. Exact even
        where the engine built an approximate index: consolidation's neighbour queries
        must not depend on when an index was built."""

    def search_dense_batch(
        self,
        queries: Sequence[tuple[Vector, Filter]],
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[list[Hit]]:
        """`search_dense` for each (vector, filter), in one engine call: a batch's
        neighbour queries, one per entity scope, cost about half of what they cost
        one call each."""

    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        """Best sparse (IDF-weighted dot product) matches first; equal scores in id
        order, and a cut inside a group of equal scores keeps the smallest ids (when the
        group ends within twice `limit`), so two stores holding the same points answer
        alike (readmodel/stores/ties.py)."""

    def search_hybrid(
        self, dense: Vector | Sequence[float], sparse: SparseVector, flt: Filter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """`search_dense(dense, flt, limit)` and `search_keyword(sparse, flt, limit)`: one
        engine call for both, then one read of the keyword hits the dense half did not
        bring. No keyword hits without terms. Recall's search: the dense half may use
        the engine's approximate (HNSW) index. A long memory is found by its whole
        text's vectors; its passage vectors choose what recall returns of it
        (`readmodel.recall.snippets`; docs/decisions/0047 says why)."""

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        """Overwrite the derived fields of records of `bank_id`; other banks are untouched."""

    def mark_consolidated(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        """Set the done-marker (`consolidated`) of records of `bank_id`, and nothing else:
        one engine write for a batch whose derived fields were written with its points."""

    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        """Overwrite the vote counts of one record of `bank_id`."""

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        """Set `last_accessed_at` on records of `bank_id`."""

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None: ...

    def scroll(
        self, flt: Filter, with_vectors: bool = False, dense_only: bool = False
    ) -> Iterator[StoredPoint]:
        """Every record matching `flt`, in id order; with `dense_only`, of the vectors
        only the dense one (no keyword vector, no passage vectors)."""

    def count(self, flt: Filter) -> int: ...

    def banks(self) -> list[str]:
        """Every bank holding at least one record (operators' view, e.g. rebuild --all)."""

    def info(self) -> StoreInfo: ...

    def purge(self, bank_id: str) -> None:
        """Forgotten data must leave the engine's files, not only its index: the next
        delete of `bank_id` (the forget's) is dropped physically. Called before the
        delete, so an adapter that defers the work (to `purge_now`, or `close`) records
        the intent durably first and finishes it when the store is next opened if the
        process dies before (see each adapter)."""

    def purge_now(self) -> bool:
        """Do now, with the store open and in use, the purge owed by the deletes since
        the last (`purge`), where the engine needs it done and can; True when it did.
        The serving process calls it every `SEDIMENT_FORGET_PURGE_S`."""

    def close(self) -> None: ...
