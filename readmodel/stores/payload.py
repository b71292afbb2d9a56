"""What both store adapters share: the payload layout and an engine-neutral filter form.

Keeping the record <-> payload mapping and the filter semantics in one place is what
makes the embedded and the server adapter agree; each adapter only translates the
neutral conditions into its engine's filter types.
"""

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

import numpy as np

from contracts.memory import Memory, Observation
from readmodel.store import (
    DENSE_VECTOR,
    EMPTY_VECTOR,
    KEYWORD_VECTOR,
    PASSAGE_VECTOR,
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    PassageStats,
    Record,
    SparseVector,
    StoredPoint,
    TextStats,
    Vector,
    tagset_of,
)
from readmodel.stores.decoded import PayloadRecords
from readmodel.text import decode_stems, encode_stems, text_stats

TAGSET_FIELD: Final = "tagset"
OCCURRED_TS_FIELD: Final = "occurred_ts"
EXPIRES_TS_FIELD: Final = "expires_ts"
"""Present only on records that expire, so a record without it is never expired."""
CURRENT_UNTIL_TS_FIELD: Final = "current_until_ts"
"""Present only on superseded records, so a record without it is current at any time."""
ENTITY_KEYS_FIELD: Final = "entity_keys"
"""The record's entities casefolded, each as `e:<entity>`, or `NO_ENTITY` alone when it
names none: what `Filter.entities_shared` matches. A record written before the field
existed has none and is not selected by it (`sediment rebuild` writes it)."""
NO_ENTITY: Final = "none"
STEMS_FIELD: Final = "text_stems"
TOKENS_FIELD: Final = "text_tokens"
"""The text's `TextStats`, which recall ranks by: written with every record, read back
with its hits. A record written before the fields existed has neither, and recall
computes them from its text (`sediment rebuild` writes them)."""
PASSAGE_SPANS_FIELD: Final = "passage_spans"
PASSAGE_STEMS_FIELD: Final = "passage_stems"
PASSAGE_TOKENS_FIELD: Final = "passage_tokens"
"""A text of several passages (`readmodel.passages`): their spans as one flat list of
offsets (start, end, start, end, ...), and each one's stems and whitespace tokens, read
back into `TextStats.passages`; absent on a text of one passage."""
INSTRUCTION_SCOPE_FIELD: Final = "instruction_scope"
ROLE_FIELD: Final = "text_role"
INSTRUCTION_ROLE: Final = "instruction"
"""A standing instruction (`readmodel.instructions`): the span saying when it applies,
and `text_role` set to `instruction`, which `Filter.instructions` matches; absent on
any other text, and on one written before the fields existed (`sediment rebuild`
writes them)."""
INDEX_ONLY_FIELDS: Final = (
    TAGSET_FIELD,
    ENTITY_KEYS_FIELD,
    OCCURRED_TS_FIELD,
    EXPIRES_TS_FIELD,
    CURRENT_UNTIL_TS_FIELD,
    STEMS_FIELD,
    TOKENS_FIELD,
    PASSAGE_SPANS_FIELD,
    PASSAGE_STEMS_FIELD,
    PASSAGE_TOKENS_FIELD,
    INSTRUCTION_SCOPE_FIELD,
    ROLE_FIELD,
)
TIME_STEP: Final = timedelta(microseconds=1)
"""The resolution of stored times: "at or after t" is "not at or before t - TIME_STEP"."""

TENANT_FIELD: Final = "bank_id"
KEYWORD_INDEXES: Final = (
    TENANT_FIELD,
    "kind",
    "state",
    "tags",
    "key",
    TAGSET_FIELD,
    "declared_supersedes",
    "slot_keys",
    "superseded_by",
    "observation_id",
    ENTITY_KEYS_FIELD,
    ROLE_FIELD,
)
FLOAT_INDEXES: Final = (OCCURRED_TS_FIELD, EXPIRES_TS_FIELD, CURRENT_UNTIL_TS_FIELD)


class DenseSizeMismatchError(ValueError):
    """The store already holds vectors of another size than the embedder produces.

    Raised instead of silently mixing dimensions: re-embedding into a fresh store is
    the only fix, so the message names both sizes.
    """

    def __init__(
        self, location: str, existing: int | None, requested: int, detail: str = ""
    ) -> None:
        was = "another size" if existing is None else f"size {existing}"
        super().__init__(
            f"{location} was created with dense vectors of {was}, "
            f"but ensure_schema asked for size {requested}; "
            "use a fresh store (or the matching embedder) instead"
            + (f" ({detail})" if detail else "")
        )
        self.existing = existing
        self.requested = requested


ALWAYS_WRITTEN: Final = ("schema_version", "kind", "state")
"""Fields written even when they hold their default: filters match `kind` and `state`,
and a reader must know which schema a record was written with."""


def to_payload(record: Record) -> dict[str, Any]:
    """The stored payload: the record as JSON without the fields that hold their
    default (`from_payload` restores them, and no filter matches a default: an absent
    list or null holds no value to match), plus the fields only filters need. Each value
    costs the embedded engine's binding 2 to 14 us to convert, and a raw memory holds
    its defaults in about half of its fields."""
    payload = record.model_dump(mode="json", exclude_defaults=True)
    payload["schema_version"] = record.schema_version
    payload["kind"] = record.kind
    payload["state"] = record.state.value
    payload[TAGSET_FIELD] = tagset_of(record.tags)
    payload[ENTITY_KEYS_FIELD] = entity_keys(record.entities)
    payload[OCCURRED_TS_FIELD] = record.occurred_at.timestamp()
    stats = text_stats(record.text)
    payload[STEMS_FIELD] = encode_stems(stats.stems)
    payload[TOKENS_FIELD] = stats.tokens
    if stats.passages:
        payload[PASSAGE_SPANS_FIELD] = [x for p in stats.passages for x in (p.start, p.end)]
        payload[PASSAGE_STEMS_FIELD] = [encode_stems(p.stems) for p in stats.passages]
        payload[PASSAGE_TOKENS_FIELD] = [p.tokens for p in stats.passages]
    if stats.instruction is not None:
        payload[INSTRUCTION_SCOPE_FIELD] = list(stats.instruction)
        payload[ROLE_FIELD] = INSTRUCTION_ROLE
    if record.expires_at is not None:
        payload[EXPIRES_TS_FIELD] = record.expires_at.timestamp()
    if record.current_until is not None:
        payload[CURRENT_UNTIL_TS_FIELD] = record.current_until.timestamp()
    return payload


def entity_keys(entities: Sequence[str]) -> list[str]:
    """The `entity_keys` of a record naming `entities`; `Filter.entities_shared` selects
    those holding one of its own or `NO_ENTITY`."""
    if not entities:
        return [NO_ENTITY]
    return sorted({f"e:{e.casefold()}" for e in entities})


TIME_FIELDS: Final = (
    "occurred_at",
    "mentioned_at",
    "created_at",
    "last_accessed_at",
    "current_until",
    "expires_at",
    "first_occurred_at",
    "last_occurred_at",
)
"""The records' top-level timestamps, which `to_payload` writes as UTC strings."""
_fromisoformat = datetime.fromisoformat


def stored_time(value: Any) -> Any:
    """A timestamp as `to_payload` writes it (`2023-07-06T17:40:00Z`, or with six
    digits of microseconds), parsed here; anything else is left to the model's own
    validation. The models' RFC 3339 check, Python functions per field, costs more
    than this; the record is equal either way."""
    if (
        value.__class__ is str
        and len(value) in (20, 27)
        and value[-1] == "Z"
        and value[10] == "T"
        and "0002" <= value[:4] <= "9998"
    ):
        try:
            return _fromisoformat(value)
        except ValueError:
            return value
    return value


def from_payload(payload: Mapping[str, Any]) -> Record:
    """Rebuild the record; the `kind` decides whether it is an observation."""
    data = {k: v for k, v in payload.items() if k not in INDEX_ONLY_FIELDS}
    for field in TIME_FIELDS:
        value = data.get(field)
        if value is not None:
            data[field] = stored_time(value)
    if data.get("kind") == "observation":
        return Observation.model_validate(data)
    return Memory.model_validate(data)


def derived_payload(patch: DerivedPatch) -> dict[str, Any]:
    """The consolidation-owned fields of `patch` as payload values.

    Engines drop a key that is set to null; loading restores the `None` default.
    """
    until = patch.current_until
    return {
        "state": patch.state.value,
        "superseded_by": _str_or_none(patch.superseded_by),
        "relation": None if patch.relation is None else patch.relation.value,
        "supersession_reason": patch.supersession_reason,
        "observation_id": _str_or_none(patch.observation_id),
        "consolidated": patch.consolidated,
        "current_until": None if until is None else until.isoformat(),
        CURRENT_UNTIL_TS_FIELD: None if until is None else until.timestamp(),
    }


def same_values(
    patches: Sequence[DerivedPatch],
) -> dict[tuple[tuple[str, Any], ...], tuple[uuid.UUID, ...]]:
    """Patches grouped by the payload values they set, ids in order; a later patch of
    the same id wins."""
    last = {p.id: p for p in patches}
    groups: dict[tuple[tuple[str, Any], ...], list[uuid.UUID]] = {}
    for patch in last.values():
        groups.setdefault(tuple(derived_payload(patch).items()), []).append(patch.id)
    return {values: tuple(ids) for values, ids in groups.items()}


DONE_PAYLOAD: Final = {"consolidated": True}
"""What `mark_consolidated` sets."""


def feedback_payload(feedback: Feedback) -> dict[str, Any]:
    return {
        "votes_up": feedback.votes_up,
        "votes_down": feedback.votes_down,
        "not_useful": feedback.not_useful,
    }


def touch_payload(at: datetime) -> dict[str, Any]:
    return {"last_accessed_at": at.isoformat()}


def point_id(value: object) -> uuid.UUID:
    """Engines hand ids back as `UUID` or as `str`; the port speaks `UUID`."""
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def vector_names(with_vectors: bool, sparse: bool, passages: bool = False) -> list[str] | bool:
    """The `with_vector(s)` selector both engines accept; `passages` adds the passage
    vectors (to a full read: `sparse` true)."""
    if not with_vectors:
        return False
    if not sparse:
        return [DENSE_VECTOR]
    return (
        [DENSE_VECTOR, KEYWORD_VECTOR, PASSAGE_VECTOR]
        if passages
        else [DENSE_VECTOR, KEYWORD_VECTOR]
    )


def stored_point(
    payload: Mapping[str, Any], vectors: Any, decoded: PayloadRecords | None = None
) -> StoredPoint:
    """A point as read back; engine sparse vectors are duck-typed (`indices`, `values`).
    With `decoded`, a payload equal to one decoded before gives that one's record."""
    named: Mapping[str, Any] = vectors if isinstance(vectors, Mapping) else {}
    rows = named.get(PASSAGE_VECTOR)
    record, stats = _decoded(payload, decoded)
    return StoredPoint(
        record=record,
        dense=_dense_or_empty(named),
        sparse=_sparse(named),
        stats=stats,
        passages=None if not rows else np.asarray(rows, dtype=np.float32),
    )


def _decoded(
    payload: Mapping[str, Any], decoded: PayloadRecords | None
) -> tuple[Record, TextStats | None]:
    key = payload.get("id")
    if decoded is None or not isinstance(key, str):
        return from_payload(payload), stored_stats(payload)
    found = decoded.get(key, payload)
    if found is None:
        found = (from_payload(payload), stored_stats(payload))
        decoded.put(key, payload, found)
    return found


def passages_by_id(
    bank_id: str, records: Iterable[tuple[object, Mapping[str, Any] | None, Any]]
) -> dict[uuid.UUID, Vector]:
    """(id, payload holding the bank, vectors) read back, to the passage vectors of the
    records of `bank_id` that have them."""
    out: dict[uuid.UUID, Vector] = {}
    for rid, payload, vectors in records:
        rows = vectors.get(PASSAGE_VECTOR) if isinstance(vectors, Mapping) else None
        if rows and (payload or {}).get(TENANT_FIELD) == bank_id:
            out[point_id(rid)] = np.asarray(rows, dtype=np.float32)
    return out


def stored_stats(payload: Mapping[str, Any]) -> TextStats | None:
    """The `TextStats` written with the record, or None when it was written without."""
    stems, count = payload.get(STEMS_FIELD), payload.get(TOKENS_FIELD)
    if not isinstance(stems, str) or not isinstance(count, int):
        return None
    return TextStats(decode_stems(stems), count, _passage_stats(payload), _instruction(payload))


def _instruction(payload: Mapping[str, Any]) -> tuple[int, int] | None:
    span = payload.get(INSTRUCTION_SCOPE_FIELD)
    if not isinstance(span, list) or len(span) != 2:
        return None
    return int(span[0]), int(span[1])


def _passage_stats(payload: Mapping[str, Any]) -> tuple[PassageStats, ...]:
    spans = payload.get(PASSAGE_SPANS_FIELD)
    stems = payload.get(PASSAGE_STEMS_FIELD)
    counts = payload.get(PASSAGE_TOKENS_FIELD)
    if not spans or not stems or not counts:
        return ()
    if len(spans) != 2 * len(stems) or len(stems) != len(counts):
        return ()
    return tuple(
        PassageStats(int(spans[2 * i]), int(spans[2 * i + 1]), decode_stems(s), int(n))
        for i, (s, n) in enumerate(zip(stems, counts, strict=True))
    )


def hit(payload: Mapping[str, Any], score: float, vectors: Any) -> Hit:
    named: Mapping[str, Any] = vectors if isinstance(vectors, Mapping) else {}
    return Hit(
        record=from_payload(payload),
        score=float(score),
        dense=_dense(named),
        stats=stored_stats(payload),
    )


class HitReader:
    """Hits of one batch of queries: a point found by several queries is converted once
    (validating a payload is the costly part of reading a hit)."""

    def __init__(self) -> None:
        self._seen: dict[object, tuple[Record, Vector | None, TextStats | None]] = {}

    def __call__(
        self, point_id: object, payload: Mapping[str, Any], score: float, vectors: Any
    ) -> Hit:
        known = self._seen.get(point_id)
        if known is None:
            named: Mapping[str, Any] = vectors if isinstance(vectors, Mapping) else {}
            known = (from_payload(payload), _dense(named), stored_stats(payload))
            self._seen[point_id] = known
        return Hit(record=known[0], score=float(score), dense=known[1], stats=known[2])


def _dense_or_empty(vectors: Mapping[str, Any]) -> Vector:
    dense = _dense(vectors)
    return EMPTY_VECTOR if dense is None else dense


def _dense(vectors: Mapping[str, Any]) -> Vector | None:
    dense = vectors.get(DENSE_VECTOR)
    return None if dense is None else np.asarray(dense, dtype=np.float32)


def _sparse(vectors: Mapping[str, Any]) -> SparseVector:
    sparse = vectors.get(KEYWORD_VECTOR)
    if sparse is None:
        return SparseVector()
    return SparseVector(tuple(map(int, sparse.indices)), tuple(map(float, sparse.values)))


@dataclass(frozen=True)
class MatchValue:
    """The field equals `value` (for array fields: some element equals it)."""

    key: str
    value: str


@dataclass(frozen=True)
class MatchAny:
    """The field equals one of `values` (for array fields: some element does)."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Range:
    """Inclusive bounds on a float field; a missing bound is open."""

    key: str
    gte: float | None
    lte: float | None


@dataclass(frozen=True)
class HasIds:
    ids: tuple[uuid.UUID, ...]


Condition = MatchValue | MatchAny | Range | HasIds


def conditions_of(flt: Filter) -> list[Condition]:
    """The conditions of `flt` that must hold, to be ANDed; the bank condition is always
    first. `excluded_of` gives those that must not."""
    conds: list[Condition] = [MatchValue(TENANT_FIELD, flt.bank_id)]
    if flt.ids:
        conds.append(HasIds(flt.ids))
    if flt.kinds:
        conds.append(MatchAny("kind", flt.kinds))
    if flt.tags_any:
        conds.append(MatchAny("tags", flt.tags_any))
    conds.extend(MatchValue("tags", tag) for tag in flt.tags_all)
    if flt.tagset is not None:
        conds.append(MatchValue(TAGSET_FIELD, flt.tagset))
    if flt.state is not None:
        conds.append(MatchValue("state", flt.state.value))
    if flt.key is not None:
        conds.append(MatchValue("key", flt.key))
    if flt.occurred_from is not None or flt.occurred_to is not None:
        conds.append(
            Range(
                OCCURRED_TS_FIELD,
                None if flt.occurred_from is None else flt.occurred_from.timestamp(),
                None if flt.occurred_to is None else flt.occurred_to.timestamp(),
            )
        )
    conds.extend(_uuid_conditions(flt))
    if flt.expired_at is not None:
        conds.append(Range(EXPIRES_TS_FIELD, None, flt.expired_at.timestamp()))
    if flt.entities_shared:
        keys = (*entity_keys(flt.entities_shared), NO_ENTITY)
        conds.append(MatchAny(ENTITY_KEYS_FIELD, keys))
    if flt.instructions:
        conds.append(MatchValue(ROLE_FIELD, INSTRUCTION_ROLE))
    return conds


def excluded_of(flt: Filter) -> list[Condition]:
    """The conditions no selected record may meet: having expired by `live_at`; having
    stopped being current before `current_at`. A record without `expires_ts` (or
    `current_until_ts`) meets no range, so it is never excluded (nor are records written
    before those fields existed)."""
    out: list[Condition] = []
    if flt.live_at is not None:
        out.append(Range(EXPIRES_TS_FIELD, None, flt.live_at.timestamp()))
    if flt.current_at is not None:
        before = (flt.current_at - TIME_STEP).timestamp()
        out.append(Range(CURRENT_UNTIL_TS_FIELD, None, before))
    return out


def _uuid_conditions(flt: Filter) -> list[Condition]:
    conds: list[Condition] = []
    if flt.declared_supersedes_any:
        conds.append(MatchAny("declared_supersedes", _strs(flt.declared_supersedes_any)))
    if flt.slot_keys_any:
        conds.append(MatchAny("slot_keys", flt.slot_keys_any))
    if flt.superseded_by is not None:
        conds.append(MatchValue("superseded_by", str(flt.superseded_by)))
    if flt.observation_ids:
        conds.append(MatchAny("observation_id", _strs(flt.observation_ids)))
    return conds


def _strs(ids: tuple[uuid.UUID, ...]) -> tuple[str, ...]:
    return tuple(str(i) for i in ids)


def _str_or_none(value: uuid.UUID | None) -> str | None:
    return None if value is None else str(value)
