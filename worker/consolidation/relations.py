"""The pairwise relation between two raw memories: pure, symmetric, state-free.

Convergence rests on this: whether two memories merge or one supersedes the other
depends only on the two memories (text, time, key, entities, vectors), never on
arrival order or on what the store holds at the time.

An implicit update needs two facts about the same subject and the same attribute, the
newer giving it another value (or retracting the older one's value): see
`worker/consolidation/updates.py`. Episodes have no attributes, so they accumulate.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from contracts.memory import Memory, Relation, derive_memory_id
from readmodel.reading import (
    another_occurrence,
    same_reading,
    same_statement,
    same_values,
    thing_update,
)
from readmodel.store import tagset_of
from worker.consolidation.features import of as text_features
from worker.consolidation.openupdates import OpenUpdate, open_update
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.statements import StatementFeatures
from worker.consolidation.updates import Update, implicit_update

OBSERVATION_NAMESPACE = uuid.UUID("a4d1f0e2-7b3c-5e19-9c2d-6f8e0a1b3c4d")


class LinkKind(Enum):
    MERGE = "merge"
    SUPERSEDE = "supersede"


@dataclass(frozen=True)
class Link:
    """`reason`: why the older memory was superseded, as shown when it is inspected."""

    kind: LinkKind
    older: uuid.UUID
    newer: uuid.UUID
    relation: Relation | None = None
    reason: str | None = None


def memory_id(bank_id: str, event_id: uuid.UUID) -> uuid.UUID:
    """A memory's id, from its bank and event id (`contracts.memory.derive_memory_id`)."""
    return derive_memory_id(bank_id, event_id)


def observation_id(bank_id: str, member_ids: list[uuid.UUID]) -> uuid.UUID:
    """Derived from the bank and the members' smallest id: the same for the same members
    in any order, and kept when a member joins with a larger id (all but one in n+1 of
    the joins, for ids drawn at random), so the other members' `observation_id` need
    not be rewritten each time an observation grows."""
    first = min(member_ids, key=lambda m: m.int)
    return uuid.uuid5(OBSERVATION_NAMESPACE, f"{bank_id}\x1f{first}")


def time_key(memory: Memory) -> tuple[datetime, uuid.UUID]:
    """Event time decides which memory is newer; the event id breaks exact ties."""
    return (memory.occurred_at, memory.event_id or memory.id)


def features(memory: Memory) -> StatementFeatures:
    """What the memory states: stored with it at ingest (`worker/consolidation/features.py`)."""
    return text_features(memory).statement


def _declares(newer: Memory, older: Memory) -> bool:
    if not newer.declared_supersedes:
        return False
    declared = set(newer.declared_supersedes)
    return older.id in declared or (older.event_id is not None and older.event_id in declared)


def _declared(victim: Memory, by: Memory, reason: str) -> Link:
    relation = Relation.INVALIDATED_BY if text_features(by).negation else Relation.EVOLVED_INTO
    return Link(LinkKind.SUPERSEDE, victim.id, by.id, relation, reason)


def relate(a: Memory, b: Memory, similarity: float, policy: ConsolidationPolicy) -> Link | None:
    """How `a` and `b` relate, or None when they are independent facts."""
    if _declares(b, a):
        return _declared(a, b, "declared by the newer event (supersedes)")
    if _declares(a, b):
        return _declared(b, a, "declared by the newer event (supersedes)")
    if tagset_of(a.tags) != tagset_of(b.tags) or a.kind != b.kind:
        return None
    # As `sorted((a, b), key=time_key)` orders them (stable: `a` first on a tie).
    older, newer = (b, a) if time_key(b) < time_key(a) else (a, b)
    if a.key is not None and b.key is not None:
        if a.key != b.key:
            return None
        if restates(older, newer, keyed=True):
            return Link(LinkKind.MERGE, older.id, newer.id)
        return _declared(older, newer, f"same key {a.key!r}, another value")
    close = similarity >= policy.search_threshold
    if (close or read_alike(older, newer)) and restates(
        older, newer, verbs_may_differ=similarity >= policy.merge_threshold
    ):
        return Link(LinkKind.MERGE, older.id, newer.id)
    update = _update(older, newer)
    if update is not None:
        return Link(LinkKind.SUPERSEDE, older.id, newer.id, update.relation, update.reason)
    return None


def _update(older: Memory, newer: Memory) -> Update | OpenUpdate | None:
    """By attribute (`updates.py`), else a known thing's date or status said anew
    (`readmodel.reading.thing_update`), else by frame and value (`openupdates.py`); a
    statement said of a short while ("this week") replaces, and is replaced by, nothing.
    A memory that says several things (`readmodel.reading.several_statements`) is not
    superseded whole by a newer value of one of them: its other statements stay current,
    and recall marks the replaced one when a question asks for it (query-time state).
    A happening on another day (`readmodel.reading.another_occurrence`) replaces nothing."""
    old, new = text_features(older), text_features(newer)
    if old.several:
        return None
    if another_occurrence(old.reading, new.reading):
        return None
    old_open, new_open = old.open, new.open
    if (old_open and old_open.one_off) or (new_open and new_open.one_off):
        return None
    by_attribute = implicit_update(old.statement, new.statement)
    if by_attribute is not None:
        return by_attribute
    thing = thing_update(old.reading, new.reading)
    if thing is not None:
        return Update(Relation.EVOLVED_INTO, thing)
    return open_update(old_open, new_open)


def restates(
    older: Memory, newer: Memory, keyed: bool = False, verbs_may_differ: bool = True
) -> bool:
    """The same statement (`readmodel.reading.same_statement`): the same subject, values,
    content words, polarity, tense and aspect, however worded; about the same people
    (when both name entities, they share one), and no negation on one side only.
    Similarity only proposes the pair: "Dan works at Initech" and "Dan's wife works at
    Initech" are close, and two facts; texts read alike merge however far apart
    (`read_alike`). Another main verb is another wording only for
    texts close enough (`verbs_may_differ`). Of one key (`keyed`), which names subject
    and attribute, the same values (`readmodel.reading.same_values`) restate."""
    if not shares_entity(older, newer):
        return False
    old, new = text_features(older), text_features(newer)
    if old.negation != new.negation:
        return False
    a, b = old.reading, new.reading
    if keyed and same_values(a, b):
        return True
    return same_statement(a, b, verbs_may_differ)


def read_alike(older: Memory, newer: Memory) -> bool:
    """Both read as statements, alike to the main verb (`readmodel.reading.same_reading`):
    a restatement however far apart the embedder puts the two texts ("Dinner is at 7 pm."
    / "Dinner is at seven in the evening."), which meet by their reading's key."""
    return same_reading(text_features(older).reading, text_features(newer).reading)


def shares_entity(a: Memory, b: Memory) -> bool:
    """True unless both name entities and none in common (case-insensitive)."""
    if not a.entities or not b.entities:
        return True
    return bool({e.casefold() for e in a.entities} & {e.casefold() for e in b.entities})
