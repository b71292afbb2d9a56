"""Gathering a new memory's neighbourhood from the store (reads only)."""

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache

from contracts.memory import Memory, Observation
from readmodel.embedders import Embedder
from readmodel.store import EMPTY_VECTOR, Filter, StoredPoint, tagset_of
from readmodel.text import TEXT_CACHE_SIZE
from worker.consolidation.batch import ConsolidationStore
from worker.consolidation.decide import Neighbourhood
from worker.consolidation.features import computed, decode, query_keys
from worker.consolidation.features import of as text_features
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import Link, features, memory_id
from worker.consolidation.statements import StatementFeatures
from worker.consolidation.updates import candidate_keys, older_keys

RAW_KINDS = ("world", "experience")


def _declared_ids(point: StoredPoint) -> list[uuid.UUID]:
    """A producer may name what it replaces by event id or by memory id; accept both."""
    out: list[uuid.UUID] = []
    for declared in point.record.declared_supersedes:
        out.extend((declared, memory_id(point.record.bank_id, declared)))
    return out


def neighbour_scope(m: Memory) -> Filter:
    """The memories `m`'s dense neighbour query searches: raw, with its tag set, and
    naming one of its entities or none. Dense neighbours are there for restatements
    (`relate`'s merge), and a memory restates only one that shares an entity when both
    name some (`shares_entity`); the other relations come from their own reads (same
    key, slot keys, declarations), so the entity condition leaves every link as it was
    and spares reading the payloads of close texts about other people."""
    return Filter(
        bank_id=m.bank_id,
        kinds=RAW_KINDS,
        tagset=tagset_of(m.tags),
        entities_shared=tuple(m.entities),
    )


def _candidates(
    store: ConsolidationStore, new: StoredPoint, policy: ConsolidationPolicy
) -> list[StoredPoint]:
    m = new.record
    scope = neighbour_scope(m)
    threshold = policy.search_threshold
    similar = store.search_dense(new.dense, scope, policy.neighbour_limit, threshold, True)
    found = {
        h.record.id: StoredPoint(h.record, h.dense if h.dense is not None else EMPTY_VECTOR)
        for h in similar
    }
    for same_slot in slot_filters(m.bank_id, features(m), m.occurred_at, memory_query_keys(m)):
        found.update({p.record.id: p for p in store.scroll(same_slot, with_vectors=True)})
    if m.key is not None:
        same_key = Filter(bank_id=m.bank_id, kinds=RAW_KINDS, tagset=scope.tagset, key=m.key)
        found.update({p.record.id: p for p in store.scroll(same_key, with_vectors=True)})
    declared = _declared_ids(new)
    if declared:
        found.update({p.record.id: p for p in store.fetch(m.bank_id, declared, True)})
    reverse_keys = (m.id, *((m.event_id,) if m.event_id else ()))
    reverse = Filter(bank_id=m.bank_id, kinds=RAW_KINDS, declared_supersedes_any=reverse_keys)
    found.update({p.record.id: p for p in store.scroll(reverse, with_vectors=True)})
    found.pop(m.id, None)
    return [p for p in found.values() if p.record.kind in RAW_KINDS]


def memory_query_keys(m: Memory) -> tuple[str, ...]:
    """The stored keys of the statements `m` may relate to besides its slots: by frame
    (`openkeys.open_query_keys`) and by reading (`features.query_keys`), from its stored
    features: once per stored value (a batch asks twice per event, to prefetch and to
    gather)."""
    if m.features is None:
        return query_keys(text_features(m))
    return _stored_query_keys(m.features, m.text, tuple(m.entities))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _stored_query_keys(stored: str, text: str, entities: tuple[str, ...]) -> tuple[str, ...]:
    """`memory_query_keys` of a memory whose stored features are `stored` (its text and
    entities read when they are of another format: `features.of`)."""
    return query_keys(decode(stored) or computed(text, entities))


def slot_filters(
    bank_id: str, facts: StatementFeatures, at: datetime, opened: tuple[str, ...] = ()
) -> list[Filter]:
    """The memories a fact stated at `at` may relate to by slot key: under its
    `older_keys` and its frame and reading keys (`opened`), those current at `at` or later (a
    memory superseded before then can take no other superseder from it); under its other
    candidate keys, those that occurred at `at` or later (nothing older can relate to it
    there)."""
    keys = tuple(sorted({*candidate_keys(facts), *opened}))
    older = tuple(sorted({*older_keys(facts), *opened}))
    newer_only = tuple(k for k in keys if k not in older)
    out = []
    if older:
        out.append(Filter(bank_id=bank_id, kinds=RAW_KINDS, slot_keys_any=older, current_at=at))
    if newer_only:
        out.append(
            Filter(bank_id=bank_id, kinds=RAW_KINDS, slot_keys_any=newer_only, occurred_from=at)
        )
    return out


def _fetch_missing(
    store: ConsolidationStore,
    bank_id: str,
    known: dict[uuid.UUID, StoredPoint],
    ids: Iterable[uuid.UUID],
) -> None:
    missing = sorted({i for i in ids if i not in known})
    if missing:
        # Records alone: a plan reads no vector of a memory that is no neighbour (in a
        # batch, one held from its reads without vectors is not read again).
        known.update({p.record.id: p for p in store.fetch(bank_id, missing)})


def candidates(
    store: ConsolidationStore, new: StoredPoint, policy: ConsolidationPolicy
) -> Neighbourhood:
    """The memories `new` may relate to, and nothing else yet (see `complete`)."""
    neighbours = _candidates(store, new, policy)
    return Neighbourhood(new, tuple(neighbours), {p.record.id: p for p in neighbours}, {})


def complete(
    store: ConsolidationStore, hood: Neighbourhood, links: Sequence[Link] | None = None
) -> Neighbourhood:
    """What a plan over `links` touches besides the neighbours: the observations of the
    neighbours a link names, all their members, and the current superseders of those
    (all neighbours when `links` is None). A neighbour no link names is left as it is,
    so nothing about it needs reading, and it is left out of `known` (unless it is a
    member or superseder read here): the plan would leave it unchanged, and deciding
    over every neighbour made each event's cost grow with the neighbours it found."""
    bank, new_id = hood.new.record.bank_id, hood.new.record.id
    if links is None:
        involved = list(hood.neighbours)
        known = dict(hood.known)
    else:
        named = {i for lk in links for i in (lk.older, lk.newer)} - {new_id}
        involved = [p for p in hood.neighbours if p.record.id in named]
        known = {p.record.id: p for p in involved}
    obs_ids = sorted({o for p in involved if (o := p.record.observation_id) is not None})
    observations: dict[uuid.UUID, Observation] = {}
    for point in store.fetch(bank, obs_ids):
        if isinstance(point.record, Observation):
            observations[point.record.id] = point.record
    members = [m for o in observations.values() for m in o.source_memory_ids]
    _fetch_missing(store, bank, known, members)
    reach = {p.record.id for p in involved} | set(members)
    superseders = [
        s for k, p in known.items() if k in reach and (s := p.record.superseded_by) is not None
    ]
    _fetch_missing(store, bank, known, superseders)
    known.pop(new_id, None)
    return Neighbourhood(hood.new, hood.neighbours, known, observations)


def gather(
    store: ConsolidationStore, new: StoredPoint, policy: ConsolidationPolicy
) -> Neighbourhood:
    """Neighbours, the observations they belong to with all members, and current superseders."""
    return complete(store, candidates(store, new, policy))


def content_view(hood: Neighbourhood, embedder: Embedder) -> Neighbourhood:
    """The neighbourhood with vectors of the texts alone. Stored vectors of memories that
    carry a context embed the context too (that is what makes them findable); whether two
    memories say the same thing, or one updates the other, is a question about their texts."""
    points = [hood.new, *hood.known.values()]
    with_context = [p for p in points if p.record.context]
    if not with_context:
        return hood
    vectors = embedder.embed([p.record.text for p in with_context])
    plain = {
        p.record.id: StoredPoint(p.record, v, p.sparse)
        for p, v in zip(with_context, vectors, strict=True)
    }

    def swap(p: StoredPoint) -> StoredPoint:
        return plain.get(p.record.id, p)

    return Neighbourhood(
        swap(hood.new),
        tuple(swap(p) for p in hood.neighbours),
        {k: swap(p) for k, p in hood.known.items()},
        hood.observations,
    )
