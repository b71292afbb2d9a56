"""The pairwise relation between two raw memories: pure, symmetric, state-free.

Convergence rests on this: whether two memories merge or one supersedes the other
depends only on the two memories (text, time, key, entities, vectors), never on
arrival order or on what the store holds at the time.
"""

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from contracts.memory import Memory, Relation
from readmodel.keywords import STOPWORDS
from readmodel.store import tagset_of
from worker.consolidation.policy import (
    ConsolidationPolicy,
    has_change_cue,
    has_negation_cue,
)

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
_FIRST_PERSON = re.compile(r"(?<![\w'])(?:i|i'm|i've|my|me|mine|we|our|us)(?![\w'])", re.I)
_SPEAKER = re.compile(r"^\s*([A-Z][\w.-]*)\s*:")


class LinkKind(Enum):
    MERGE = "merge"
    SUPERSEDE = "supersede"


@dataclass(frozen=True)
class Link:
    kind: LinkKind
    older: uuid.UUID
    newer: uuid.UUID
    relation: Relation | None = None


def memory_id(event_id: uuid.UUID) -> uuid.UUID:
    return uuid.uuid5(MEMORY_NAMESPACE, str(event_id))


def observation_id(bank_id: str, member_ids: list[uuid.UUID]) -> uuid.UUID:
    joined = ",".join(sorted(str(m) for m in member_ids))
    return uuid.uuid5(OBSERVATION_NAMESPACE, f"{bank_id}\x1f{joined}")


def time_key(memory: Memory) -> tuple[datetime, str]:
    """Event time decides which memory is newer; the event id breaks exact ties."""
    return (memory.occurred_at, str(memory.event_id or memory.id))


def value_words(text: str) -> set[str]:
    """Words naming a value: numbers, names (capitalised, not sentence-initial), colours, days."""
    found: set[str] = set()
    for sentence in re.split(r"[.!?]\s+", text):
        for i, word in enumerate(_WORD.findall(sentence)):
            low = word.lower()
            if (
                any(c.isdigit() for c in word)
                or low in _VALUE_WORDS
                or (i > 0 and word[0].isupper())
            ):
                found.add(low)
    return found


def values_conflict(a: str, b: str) -> bool:
    """True when each text names a value the other does not mention: Boston vs Seattle.

    One-sided extra values are a refinement ("Boston" then "Boston, near the river"),
    not a contradiction.
    """
    words_a = {w.lower() for w in _WORD.findall(a)}
    words_b = {w.lower() for w in _WORD.findall(b)}
    return bool(value_words(a) - words_b) and bool(value_words(b) - words_a)


def shares_value(a: str, b: str) -> bool:
    """True when a value named by one text is mentioned by the other."""
    words_a = {w.lower() for w in _WORD.findall(a)}
    words_b = {w.lower() for w in _WORD.findall(b)}
    return bool(value_words(a) & words_b) or bool(value_words(b) & words_a)


def _declares(newer: Memory, older: Memory) -> bool:
    declared = set(newer.declared_supersedes)
    return older.id in declared or (older.event_id is not None and older.event_id in declared)


def _supersede(victim: Memory, by: Memory) -> Link:
    relation = Relation.INVALIDATED_BY if has_negation_cue(by.text) else Relation.EVOLVED_INTO
    return Link(LinkKind.SUPERSEDE, victim.id, by.id, relation)


def relate(a: Memory, b: Memory, similarity: float, policy: ConsolidationPolicy) -> Link | None:
    """How `a` and `b` relate, or None when they are independent facts."""
    if _declares(b, a):
        return _supersede(a, b)
    if _declares(a, b):
        return _supersede(b, a)
    if tagset_of(a.tags) != tagset_of(b.tags) or a.kind != b.kind:
        return None
    older, newer = sorted((a, b), key=time_key)
    negation_flip = has_negation_cue(older.text) != has_negation_cue(newer.text)
    conflict = values_conflict(older.text, newer.text)
    restates = similarity >= policy.merge_threshold and not conflict and not negation_flip
    if a.key is not None and b.key is not None:
        if a.key != b.key:
            return None
        agree = similarity >= policy.merge_threshold or shares_value(older.text, newer.text)
        same_value = agree and not conflict and not negation_flip
        return Link(LinkKind.MERGE, older.id, newer.id) if same_value else _supersede(older, newer)
    if restates:
        return Link(LinkKind.MERGE, older.id, newer.id)
    near = (policy.topic_threshold + policy.merge_threshold) / 2
    cued = has_change_cue(newer.text) and similarity >= policy.topic_threshold
    negated = negation_flip and similarity >= near
    if (cued or negated) and same_subject(a, b):
        return _supersede(older, newer)
    return None


def subjects(m: Memory) -> set[str]:
    """Who or what a memory is about: the producer's entities, else its capitalised names,
    plus its speaker ("Name: I ...") or the writer when it speaks in the first person."""
    if m.entities:
        return {e.lower() for e in m.entities}
    found = {w.lower() for w in _WORD.findall(m.text) if w[0].isupper()}
    found -= STOPWORDS
    if _FIRST_PERSON.search(m.text):
        speaker = _SPEAKER.match(m.text)
        found.add(speaker.group(1).lower() if speaker else "\x00self")
    return found


def same_subject(a: Memory, b: Memory) -> bool:
    """An implicit update needs a shared subject: without one, two cued statements are
    just two facts (in a conversation, two speakers' turns are not updates of each other)."""
    return bool(subjects(a) & subjects(b))
