"""The pairwise relation between two raw memories: pure, symmetric, state-free.

Convergence rests on this: whether two memories merge or one supersedes the other
depends only on the two memories (text, time, key, entities, vectors), never on
arrival order or on what the store holds at the time.

An implicit update needs two facts about the same subject and the same attribute, the
newer giving it another value (or retracting the older one's value): see
`worker/consolidation/updates.py`. Episodes have no attributes, so they accumulate.
"""

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from functools import lru_cache

from contracts.memory import Memory, Relation
from readmodel.store import tagset_of
from readmodel.text import STOPWORDS, TEXT_CACHE_SIZE
from worker.consolidation.policy import ConsolidationPolicy, has_negation_cue
from worker.consolidation.statements import StatementFeatures, statement_features
from worker.consolidation.updates import implicit_update

MEMORY_NAMESPACE = uuid.UUID("0b5e3c1a-96c4-5d5e-8f4e-3d9a1c7e2b10")
OBSERVATION_NAMESPACE = uuid.UUID("a4d1f0e2-7b3c-5e19-9c2d-6f8e0a1b3c4d")

_VALUE_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve twenty thirty
    hundred thousand million first second third red orange yellow green blue purple pink
    black white grey gray brown monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december
    morning afternoon evening night""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


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


def memory_id(event_id: uuid.UUID) -> uuid.UUID:
    return uuid.uuid5(MEMORY_NAMESPACE, str(event_id))


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
    """Computed from the text and entities alone (cached), so equal for every caller."""
    return statement_features(memory.text, memory.entities)


def value_words(text: str) -> set[str]:
    """Words naming a value: numbers, names (capitalised, not sentence-initial), colours, days."""
    return set(_value_words(text))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _value_words(text: str) -> frozenset[str]:
    found: set[str] = set()
    for sentence in re.split(r"[.!?]\s+", text):
        for i, word in enumerate(_WORD.findall(sentence)):
            low = word.lower()
            if low in STOPWORDS:
                continue
            if (
                any(c.isdigit() for c in word)
                or low in _VALUE_WORDS
                or (i > 0 and word[0].isupper())
            ):
                found.add(low)
    return frozenset(found)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _words(text: str) -> frozenset[str]:
    """The words of `text`, lowercased (a text is compared with many others)."""
    return frozenset(w.lower() for w in _WORD.findall(text))


def values_conflict(a: str, b: str) -> bool:
    """True when each text names a value the other does not mention: Boston vs Seattle.

    One-sided extra values are a refinement ("Boston" then "Boston, near the river"),
    not a contradiction.
    """
    return bool(_value_words(a) - _words(b)) and bool(_value_words(b) - _words(a))


def shares_value(a: str, b: str) -> bool:
    """True when a value named by one text is mentioned by the other."""
    return bool(_value_words(a) & _words(b)) or bool(_value_words(b) & _words(a))


def _declares(newer: Memory, older: Memory) -> bool:
    declared = set(newer.declared_supersedes)
    return older.id in declared or (older.event_id is not None and older.event_id in declared)


def _declared(victim: Memory, by: Memory, reason: str) -> Link:
    relation = Relation.INVALIDATED_BY if has_negation_cue(by.text) else Relation.EVOLVED_INTO
    return Link(LinkKind.SUPERSEDE, victim.id, by.id, relation, reason)


def relate(a: Memory, b: Memory, similarity: float, policy: ConsolidationPolicy) -> Link | None:
    """How `a` and `b` relate, or None when they are independent facts."""
    if _declares(b, a):
        return _declared(a, b, "declared by the newer event (supersedes)")
    if _declares(a, b):
        return _declared(b, a, "declared by the newer event (supersedes)")
    if tagset_of(a.tags) != tagset_of(b.tags) or a.kind != b.kind:
        return None
    older, newer = sorted((a, b), key=time_key)
    if a.key is not None and b.key is not None:
        if a.key != b.key:
            return None
        agree = similarity >= policy.merge_threshold or shares_value(older.text, newer.text)
        if agree and restates(older, newer):
            return Link(LinkKind.MERGE, older.id, newer.id)
        return _declared(older, newer, f"same key {a.key!r}, another value")
    update = implicit_update(features(older), features(newer))
    if update is not None:
        return Link(LinkKind.SUPERSEDE, older.id, newer.id, update.relation, update.reason)
    if similarity >= policy.merge_threshold and restates(older, newer):
        return Link(LinkKind.MERGE, older.id, newer.id)
    return None


def restates(older: Memory, newer: Memory) -> bool:
    """About the same people (when both name entities, they share one), no value named by
    one side only on both sides, and no negation on one side only. "Ana felt calm after a
    walk" and "Ben felt calm after a walk" are two episodes, however close their texts."""
    if not shares_entity(older, newer):
        return False
    negation_flip = has_negation_cue(older.text) != has_negation_cue(newer.text)
    return not negation_flip and not values_conflict(older.text, newer.text)


def shares_entity(a: Memory, b: Memory) -> bool:
    """True unless both name entities and none in common (case-insensitive)."""
    if not a.entities or not b.entities:
        return True
    return bool({e.casefold() for e in a.entities} & {e.casefold() for e in b.entities})
