"""`BatchView`: the store as one bank's batch of events sees it.

A batch is consolidated one event after another, exactly as single events are, but
against this view instead of the store: reads go to the store once (neighbour queries
for the whole batch in one engine call, then fetches and scrolls remembered) and are
answered from memory after that; writes are kept here, and events of the batch see
each other's writes (a batch-local neighbour index over the points written so far).
`flush` then writes everything in four store calls, done-markers last, so a crash
anywhere leaves the batch to be redone whole. The result is the read model that one
event at a time would give (tests/property/test_convergence.py checks any split).
"""

import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields, replace
from typing import Protocol

import numpy as np

from contracts.memory import Observation
from readmodel.embedders import Embedder, Vectors
from readmodel.store import (
    DerivedPatch,
    Filter,
    Hit,
    MemoryStore,
    Record,
    SparseVector,
    StoredPoint,
    Vector,
    matches,
)

Query = tuple[bytes, Filter, int, float | None]


def patched(record: Record, patch: DerivedPatch) -> Record:
    return record.model_copy(
        update={
            "state": patch.state,
            "superseded_by": patch.superseded_by,
            "relation": patch.relation,
            "observation_id": patch.observation_id,
            "consolidated": patch.consolidated,
            "supersession_reason": patch.supersession_reason,
            "current_until": patch.current_until,
        }
    )


class BatchView:
    """Implements the store calls gather and apply make (fetch, search_dense, scroll,
    upsert, set_derived, delete) for one bank, over `store`."""

    def __init__(self, store: MemoryStore, bank_id: str) -> None:
        self._store = store
        self._bank = bank_id
        self._seen: dict[uuid.UUID, StoredPoint | None] = {}
        self._partial: set[uuid.UUID] = set()
        """Ids `_seen` holds without their keyword vector (neighbour hits): a fetch with
        vectors reads these from the store."""
        self._written: dict[uuid.UUID, StoredPoint] = {}
        self._patches: dict[uuid.UUID, DerivedPatch] = {}
        self._deleted: set[uuid.UUID] = set()
        self._searches: dict[Query, list[Hit]] = {}
        self._scrolls: dict[Filter, list[StoredPoint]] = {}
        self._known: list[_Scrolled] = []
        """The store's scrolls, as `_stored_for` compares them (without hashing their
        filters again: a prefetched one holds hundreds of keys)."""
        self._written_by_key: dict[str, set[uuid.UUID]] = {}
        self._own = _OwnRows()

    def prefetch_neighbours(
        self, queries: Sequence[tuple[Vector, Filter]], limit: int, threshold: float | None
    ) -> None:
        """The store's answers to every event's neighbour query (each under its own
        filter), in one engine call."""
        if not queries:
            return
        answers = self._store.search_dense_batch(queries, limit, threshold, True)
        for (vector, flt), hits in zip(queries, answers, strict=True):
            key = np.asarray(vector, dtype=np.float32).tobytes()
            self._searches[(key, flt, limit, threshold)] = hits
            for h in hits:
                dense = h.dense if h.dense is not None else np.zeros(0, np.float32)
                self._hold(StoredPoint(h.record, dense))

    def prefetch_scroll(self, flt: Filter) -> None:
        """Remember the store's answer to `flt`; later scrolls whose filter asks for a
        subset of its `declared_supersedes_any` or `slot_keys_any` are answered from it."""
        self._scroll_store(flt)

    def _scroll_store(self, flt: Filter) -> list[StoredPoint]:
        """The store's answer to `flt`, remembered, and each of its points held for a
        fetch by id (the members and superseders a plan reads are mostly among them)."""
        points = _held(self._store.scroll(flt, with_vectors=True, dense_only=True))
        self._scrolls[flt] = points
        self._known.append(_Scrolled(flt, points))
        seen, partial = self._seen, self._partial
        for p in points:
            rid = p.record.id
            if rid not in seen:
                seen[rid] = p
                partial.add(rid)
        return points

    def _hold(self, point: StoredPoint) -> None:
        """Remember a point read without its keyword vector, unless one is held already."""
        if point.record.id not in self._seen:
            self._seen[point.record.id] = point
            self._partial.add(point.record.id)

    def _read(self, ids: Sequence[uuid.UUID]) -> None:
        """`ids` from the store, with both vectors, remembered (absent ones as None): a
        read by id with vectors costs the engine less than one without, which asks it
        for the points' versions first."""
        found = {p.record.id: p for p in self._store.fetch(self._bank, ids, True)}
        for i in ids:
            self._seen[i] = found.get(i)
            self._partial.discard(i)

    def _current(self, point: StoredPoint) -> StoredPoint | None:
        """The point as this batch has left it: written, patched, deleted or untouched."""
        rid = point.record.id
        if rid in self._deleted:
            return None
        if rid in self._written:
            return self._written[rid]
        patch = self._patches.get(rid)
        return point if patch is None else replace(point, record=patched(point.record, patch))

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        if bank_id != self._bank:
            return self._store.fetch(bank_id, ids, with_vectors)
        wanted = list(dict.fromkeys(ids))
        missing = [
            i
            for i in wanted
            if i not in self._written
            and (i not in self._seen or (with_vectors and i in self._partial))
        ]
        if missing:
            self._read(missing)
        out = []
        for i in wanted:
            base = self._written.get(i) or self._seen.get(i)
            point = None if base is None else self._current(base)
            if point is not None:
                out.append(point)
        return out

    def search_dense(
        self,
        vector: Vector | Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        query = np.asarray(vector, dtype=np.float32)
        key = (query.tobytes(), flt, limit, score_threshold)
        if key not in self._searches:
            self._searches[key] = self._store.search_dense(query, flt, limit, score_threshold, True)
        hits = {}
        written, patches, deleted = self._written, self._patches, self._deleted
        for h in self._searches[key]:
            rid = h.record.id
            untouched = rid not in written and rid not in patches and rid not in deleted
            if untouched and h.dense is not None:
                # As the engine found it, under this filter: nothing in the batch changed it.
                hits[rid] = h
                continue
            base = StoredPoint(
                h.record, h.dense if h.dense is not None else np.zeros(0, np.float32)
            )
            point = self._current(base)
            if point is not None and matches(flt, point.record):
                hits[point.record.id] = Hit(point.record, h.score, point.dense)
        # The batch's own points scored at once, and the filter tested only on those at
        # the threshold (a few of the batch).
        own, matrix = self._own.scored(self._written, query)
        if own:
            scores = matrix @ query
            kept = (
                range(len(own))
                if score_threshold is None
                else np.flatnonzero(scores >= score_threshold)
            )
            for i in kept:
                point = written[own[i]]
                if matches(flt, point.record):
                    hits[point.record.id] = Hit(point.record, float(scores[i]), point.dense)
        ranked = sorted(hits.values(), key=lambda h: (-h.score, h.record.id.int))
        return ranked[:limit]

    def scroll(
        self, flt: Filter, with_vectors: bool = False, dense_only: bool = False
    ) -> Iterator[StoredPoint]:
        """Every point matching `flt` as the batch has left them, in id order (the
        stored ones without their keyword vectors, whatever is asked: `_held`)."""
        source, known = self._stored_for(flt)
        residual = _residual(flt, known)
        written, patches, deleted = self._written, self._patches, self._deleted
        found: dict[uuid.UUID, StoredPoint] = {}
        for p in source:
            rid = p.record.id
            if rid not in written and rid not in patches and rid not in deleted:
                # As the store selected it under `known`, and unchanged since.
                if residual is None or residual(p.record):
                    found[rid] = p
                continue
            current = self._current(p)
            if current is not None and matches(flt, current.record):
                found[current.record.id] = current
        for p in self._written_for(flt):
            if matches(flt, p.record):
                found[p.record.id] = p
        return iter([found[k] for k in sorted(found, key=_uuid_order)])

    def _written_for(self, flt: Filter) -> list[StoredPoint]:
        """The batch's own points that may match `flt`: for a slot-key or declared
        filter, those holding one of its values (an index kept by `upsert`: patches
        change neither), else all of them."""
        if flt.slot_keys_any:
            keys = [f"s:{k}" for k in flt.slot_keys_any]
        elif flt.declared_supersedes_any:
            keys = [f"d:{k}" for k in flt.declared_supersedes_any]
        else:
            return list(self._written.values())
        ids = {i for k in keys for i in self._written_by_key.get(k, ())}
        return [self._written[i] for i in ids if i in self._written]

    def _stored_for(self, flt: Filter) -> tuple[list[StoredPoint], Filter]:
        """The stored points for `flt`, and the filter the store selected them by: from
        a prefetched scroll that selects a superset (the same filter with more
        `declared_supersedes_any` or `slot_keys_any` values, and no later `current_at`
        or `occurred_from`), else from the store (and remembered)."""
        shape = _shape(flt)
        for known in self._known:
            if known.shape == shape and _narrows(flt, known.filter, known.any_of):
                return (known.among(flt) if flt.slot_keys_any else known.points), known.filter
        if flt not in self._scrolls:
            return self._scroll_store(flt), flt
        return self._scrolls[flt], flt

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        for p in points:
            self._written[p.record.id] = p
            self._own.put(p)
            r = p.record
            for k in (*(f"s:{s}" for s in r.slot_keys), *(f"d:{d}" for d in r.declared_supersedes)):
                self._written_by_key.setdefault(k, set()).add(r.id)
            self._deleted.discard(p.record.id)
            self._patches.pop(p.record.id, None)

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        for patch in patches:
            if patch.id in self._written:
                point = self._written[patch.id]
                self._written[patch.id] = replace(point, record=patched(point.record, patch))
            else:
                self._patches[patch.id] = patch

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        for i in ids:
            if self._written.pop(i, None) is not None:
                self._own.invalidate()
            self._patches.pop(i, None)
            self._deleted.add(i)

    def flush(self, new_ids: Sequence[uuid.UUID]) -> None:
        """Raw points and observations, then patches of older records, then deletes;
        the batch's done-markers last."""
        news = set(new_ids)
        pending = [
            replace(p, record=p.record.model_copy(update={"consolidated": False}))
            if p.record.id in news
            else p
            for p in self._written.values()
        ]
        raw_first = sorted(pending, key=lambda p: isinstance(p.record, Observation))
        if raw_first:
            self._store.upsert(raw_first)
        older = [p for i, p in sorted(self._patches.items(), key=lambda kv: kv[0])]
        if older:
            self._store.set_derived(self._bank, older)
        if self._deleted:
            self._store.delete(self._bank, sorted(self._deleted))
        # The new points were written with their derived fields as the batch left them:
        # their done-markers are all that is left to set, in one engine write.
        done = [i for i in new_ids if i in self._written]
        if done:
            self._store.mark_consolidated(self._bank, done)


class _OwnRows:
    """The dense vectors of a batch's own points as the rows of one matrix, in the order
    of `BatchView._written`, grown as points are written: a neighbour search scores
    them all against its query, once per event, and stacking them anew each time cost
    more than the product. The matrix is the one `np.stack` would make of them (the
    same rows, in the same order, of the same type), so every score is the same; a
    point dropped from the batch, or one whose vector is not a float32 row of the
    others' size, has it rebuilt that way."""

    def __init__(self) -> None:
        self._ids: list[uuid.UUID] = []
        self._index: dict[uuid.UUID, int] = {}
        self._rows = np.zeros((0, 0), dtype=np.float32)
        self._valid = False

    def invalidate(self) -> None:
        self._valid = False

    def put(self, point: StoredPoint) -> None:
        """`point` written (new, or again in its place)."""
        if not self._valid:
            return
        dense, rid = point.dense, point.record.id
        if dense.dtype != np.float32 or dense.shape != self._rows.shape[1:]:
            self._valid = False
            return
        at = self._index.get(rid)
        if at is None:
            at = len(self._ids)
            if at == len(self._rows):
                grown = np.zeros((max(64, 2 * at), self._rows.shape[1]), dtype=np.float32)
                grown[:at] = self._rows
                self._rows = grown
            self._ids.append(rid)
            self._index[rid] = at
        self._rows[at] = dense

    def scored(
        self, written: dict[uuid.UUID, StoredPoint], query: Vector
    ) -> tuple[list[uuid.UUID], Vector]:
        """The ids of the written points whose vectors have the query's shape, and their
        rows: the caller looks up only the points it keeps (a few at the threshold),
        not every point of the batch for every search."""
        if not self._valid:
            self._rebuild(written)
        if not self._valid or query.shape != self._rows.shape[1:]:
            own = [p for p in written.values() if p.dense.shape == query.shape]
            ids = [p.record.id for p in own]
            return ids, (np.stack([p.dense for p in own]) if own else self._rows[:0])
        return self._ids, self._rows[: len(self._ids)]

    def _rebuild(self, written: dict[uuid.UUID, StoredPoint]) -> None:
        points = list(written.values())
        first = points[0].dense if points else None
        if first is None or first.dtype != np.float32 or first.ndim != 1:
            return
        if any(p.dense.dtype != np.float32 or p.dense.shape != first.shape for p in points):
            return
        self._ids = [p.record.id for p in points]
        self._index = {rid: i for i, rid in enumerate(self._ids)}
        self._rows = np.stack([p.dense for p in points])
        self._valid = True


class _Scrolled:
    """A scroll of the store with what `_stored_for` compares it by: its plain fields
    (`_shape`), its any-of values as sets, and an index of its points by slot key."""

    def __init__(self, flt: Filter, points: list[StoredPoint]) -> None:
        self.filter = flt
        self.points = points
        self.shape = _shape(flt)
        self.any_of = (frozenset(flt.declared_supersedes_any), frozenset(flt.slot_keys_any))
        self._by_slot: dict[str, list[StoredPoint]] | None = None

    def among(self, flt: Filter) -> list[StoredPoint]:
        """The points that hold one of `flt`'s slot keys, through an index by slot key
        built on first use (a batch asks once per fact)."""
        index = self._by_slot
        if index is None:
            # Only the keys this scroll asked for: a later filter asks for some of them,
            # and a point holds many others (a word of each clause it says).
            asked = self.any_of[1]
            index = {}
            for p in self.points:
                for key in asked.intersection(p.record.slot_keys):
                    index.setdefault(key, []).append(p)
            self._by_slot = index
        # A scroll holds each point once, as one object: the object is the point's
        # identity here, and hashing it is cheaper than hashing its id.
        found: dict[int, StoredPoint] = {}
        for key in flt.slot_keys_any:
            for p in index.get(key, ()):
                found[id(p)] = p
        return list(found.values())


def _held(points: Iterator[StoredPoint]) -> list[StoredPoint]:
    """A scroll's points as a batch keeps them: without their keyword (and passage)
    vectors, which nothing reads from a scroll (`apply` fetches the point an observation
    takes its vectors from), so they are not even read (`dense_only`). A slot-key scroll
    of a large bank is thousands of points, and their sparse vectors about a tenth of
    what the batch holds."""
    return [replace(p, sparse=EMPTY_SPARSE) if p.sparse.indices else p for p in points]


EMPTY_SPARSE = SparseVector()


def _uuid_order(u: uuid.UUID) -> int:
    """The order of UUIDs (and of their strings), without `UUID.__lt__` per comparison."""
    return u.int


def _narrows(
    flt: Filter,
    known: Filter,
    any_of: tuple[frozenset[object], frozenset[object]] | None = None,
) -> bool:
    """Whether every point `flt` selects is among those `known` selected: both filters
    equal but for an any-of condition whose values in `flt` are a subset of `known`'s,
    and a `current_at` or `occurred_from` no earlier than `known`'s (a record current at
    some instant after the later one is so after the earlier one). Compared field by
    field, the any-of conditions first (most pairs differ there): a batch asks this of
    every prefetched scroll for each of its scrolls. `any_of`: `known`'s declared ids
    and slot keys as sets, when the caller keeps them."""
    if any_of is None:
        any_of = (frozenset(known.declared_supersedes_any), frozenset(known.slot_keys_any))
    for (name, other), have in zip(_ANY_OF_FIELDS, any_of, strict=True):
        wanted = getattr(flt, name)
        if wanted and have.issuperset(wanted):
            if getattr(flt, other) != getattr(known, other):
                return False
            break
    else:
        return False
    for name in ("current_at", "occurred_from"):
        have_at, want_at = getattr(known, name), getattr(flt, name)
        if have_at is not None and (want_at is None or want_at < have_at):
            return False
    return all(getattr(flt, name) == getattr(known, name) for name in _PLAIN_FIELDS)


def _shape(flt: Filter) -> tuple[object, ...]:
    """The fields `_narrows` requires equal: a scroll whose shape differs from a
    filter's cannot answer it."""
    return tuple(getattr(flt, name) for name in _PLAIN_FIELDS)


def _residual(flt: Filter, known: Filter) -> "Callable[[Record], bool] | None":
    """What a record `known` selected must also satisfy to match `flt`, for a `flt` that
    `_narrows` to `known` (or is `known`): its declared ids when `flt` asks for fewer,
    and a later `current_at` or `occurred_from` (slot keys: `_among` gave only points
    holding one of `flt`'s). None: every such record matches."""
    checks: list[Callable[[Record], bool]] = []
    if flt.declared_supersedes_any and flt.declared_supersedes_any != known.declared_supersedes_any:
        declared = frozenset(flt.declared_supersedes_any)
        checks.append(lambda r: not declared.isdisjoint(r.declared_supersedes))
    at = flt.current_at
    if at is not None and at != known.current_at:
        checks.append(lambda r: r.current_until is None or r.current_until >= at)
    since = flt.occurred_from
    if since is not None and since != known.occurred_from:
        checks.append(lambda r: r.occurred_at >= since)
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    return lambda r: all(check(r) for check in checks)


_ANY_OF_FIELDS = (
    ("declared_supersedes_any", "slot_keys_any"),
    ("slot_keys_any", "declared_supersedes_any"),
)
_PLAIN_FIELDS = tuple(
    f.name
    for f in fields(Filter)
    if f.name not in ("current_at", "occurred_from", "declared_supersedes_any", "slot_keys_any")
)


class TextVectors:
    """The batch's embedder for decisions: a text embedded once per batch, however many
    events compare against it (memories with a context are re-embedded on their text
    alone to decide; see neighbourhood.content_view)."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._known: dict[str, Vector] = {}

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._known))
        if missing:
            self._known.update(zip(missing, self._inner.embed(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._known[t] for t in texts])


class ConsolidationStore(Protocol):
    """What gathering and applying need of a store: the store itself, or a `BatchView`."""

    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]: ...

    def search_dense(
        self,
        vector: Vector | Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]: ...

    def scroll(
        self, flt: Filter, with_vectors: bool = False, dense_only: bool = False
    ) -> Iterator[StoredPoint]: ...

    def upsert(self, points: Sequence[StoredPoint]) -> None: ...

    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None: ...

    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None: ...
