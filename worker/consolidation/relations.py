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
from readmodel.keywords import STOPWORDS, stem, tokens
from readmodel.recall.query import FUNCTION_WORDS
from readmodel.store import tagset_of
from worker.consolidation.policy import (
    CHANGE_PATTERN,
    ConsolidationPolicy,
    has_change_cue,
    has_negation_cue,
    has_strong_change_cue,
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
_SPEAKER = re.compile(r"^\s*([A-Z][\w.-]*)\s*:\s*")
_SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMrs)(?<!\bJr)[.;]+(?:\s+|$)")
_SUBJECT_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_SUBJECT_ENDS = frozenset(
    """is are was were be been am has have had will would can could shall should may might
    must do does did get gets got to in on at of for from with by as into about after before
    since until than that who which where when because so and but or then""".split()
)


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
            if low in STOPWORDS:
                continue
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
    if implicit_update(older, newer, similarity, negation_flip, policy):
        return _supersede(older, newer)
    return None


def implicit_update(
    older: Memory,
    newer: Memory,
    similarity: float,
    negation_flip: bool,
    policy: ConsolidationPolicy,
) -> bool:
    """An update nobody declared: precision first, because a wrong supersession hides a true
    memory from current-state recall. Both memories must be statements (short, declarative:
    conversational turns full of questions and exclamations are not facts about a slot), by
    the same speaker, about a shared subject, close in topic, and the newer one must signal
    the change (a change cue, or a negation flip between near-restatements)."""
    if similarity < policy.topic_threshold:
        return False
    near = (policy.topic_threshold + policy.merge_threshold) / 2
    signalled = has_change_cue(newer.text) or (negation_flip and similarity >= near)
    if not (signalled and is_statement(older.text, policy) and is_statement(newer.text, policy)):
        return False
    shared = shared_topic(older, newer)
    if shared is None:
        return False
    if shared:
        return True
    strong = has_strong_change_cue(newer.text) or negation_flip
    return strong and similarity >= policy.subject_threshold


def is_statement(text: str, policy: ConsolidationPolicy) -> bool:
    """Short and declarative: no question or exclamation, few sentences, few words."""
    body = _SPEAKER.sub("", text, count=1).strip()
    if "?" in body or "!" in body:
        return False
    sentences = [s for s in _SENTENCE_END.split(body) if s.strip()]
    return (
        len(sentences) <= policy.statement_max_sentences
        and len(body.split()) <= policy.statement_max_words
    )


def speaker(m: Memory) -> str | None:
    found = _SPEAKER.match(m.text)
    return found.group(1).lower() if found else None


def topic_words(text: str) -> set[str]:
    """Stemmed content words, without the speaker, stopwords, question words and change cues:
    what two statements must share to be about the same thing."""
    body = CHANGE_PATTERN.sub(" ", _SPEAKER.sub("", text, count=1))
    return {
        stem(t)
        for t in tokens(body)
        if len(t) >= 2 and t not in STOPWORDS and t not in FUNCTION_WORDS
    }


def shared_topic(a: Memory, b: Memory) -> set[str] | None:
    """None when `a` and `b` are about different subjects; else the topic words they share
    beyond their subject (empty when they share only the subject, as in "Alice lives in
    Boston" and "Alice moved to Seattle": then only embedding similarity can tell).

    Two speakers' statements are never updates of each other; producer-given entities must
    intersect; named subjects must agree ("Zoe started at Bloom" does not update "Zoe's
    sister Amy works at Petal")."""
    speaker_a, speaker_b = speaker(a), speaker(b)
    if speaker_a and speaker_b and speaker_a != speaker_b:
        return None
    if a.entities and b.entities and not (_lowered(a.entities) & _lowered(b.entities)):
        return None
    subject_a, subject_b = principal_subject(a.text), principal_subject(b.text)
    if subject_a and subject_b and subject_a != subject_b:
        return None
    shared = topic_words(a.text) & topic_words(b.text)
    subject_words = {stem(w) for w in _lowered([*a.entities, *b.entities])}
    subject_words |= {stem(s) for s in (subject_a, subject_b) if s}
    if not shared:
        return None
    return shared - subject_words


def principal_subject(text: str) -> str | None:
    """The last name before the verb of the first sentence: "Ethan" in "Olivia's brother
    Ethan lives in Vancouver", "Atlas" in "The Atlas deadline was pushed back". A crude
    reading of the subject, used only to rule out updates between different subjects."""
    body = _SPEAKER.sub("", text, count=1)
    first = _SENTENCE_END.split(body, maxsplit=1)[0]
    found: str | None = None
    for i, match in enumerate(_SUBJECT_WORD.finditer(first)):
        word = match.group(0)
        low = re.sub(r"['’]s$", "", word.lower())
        verb_like = i > 0 and word[0].islower() and len(low) > 3 and low.endswith(("ed", "s"))
        if low in _SUBJECT_ENDS or verb_like or has_change_cue(low):
            break
        if word[0].isupper() and low not in STOPWORDS:
            found = low
    return found


def _lowered(words: list[str]) -> set[str]:
    return {w.lower() for w in words}
