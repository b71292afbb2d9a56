"""When two statements say the same fact: decided on their readings, never on closeness.

Two read statements are one fact when every clause of one has a clause of the other with
the same subject, values (each in its role), content words, polarity, tense and aspect.
The main verb must be the same too, unless the caller says the two texts are close
enough that another verb is another wording (`verbs_may_differ`: "works at" / "works
for", "fixed" / "repaired"). A name is compared as its words, whatever its case ("the
repo uses python 3.12"). A statement that cannot be read is the same as another only
when both have the same content words.
"""

import hashlib

from readmodel.reading.frames import content_terms
from readmodel.reading.statement import Clause, Reading

ClauseKey = tuple[object, ...]
NAMES = frozenset({"person", "place", "organisation", "name"})
WHEN = frozenset({"date", "time"})


def clause_key(clause: Clause) -> ClauseKey:
    """What must be equal for two clauses to state one fact, but the main verb."""
    typed = tuple(v for v in clause.values if v.type not in NAMES)
    named = {
        t
        for v in clause.values
        if v.type in NAMES
        for word in v.text.split()
        for t in content_terms(word, v.role)
    }
    return (
        clause.subject,
        typed,
        tuple(sorted(clause.content | named)),
        clause.polarity,
        clause.tense,
        clause.aspect,
    )


def _keys(reading: Reading, verbs: bool) -> tuple[str, ...]:
    return tuple(
        sorted(repr((*clause_key(c), c.predicate if verbs else "")) for c in reading.clauses)
    )


def merge_key(reading: Reading, verbs: bool = True) -> tuple[object, ...]:
    """The sorted keys of a read statement's clauses (with their main verbs unless
    `verbs` is false), or the content words of one that is not read. Two read
    statements are the same when their keys are equal (`same_statement`)."""
    if reading.readable:
        return ("read", _keys(reading, verbs))
    return ("words", tuple(sorted(reading.words)))


def reading_key(reading: Reading) -> str | None:
    """A stored key that statements read alike share (`merge_key` with their main verbs),
    so that two of them meet however far apart an embedder puts their texts ("Dinner is
    at 7 pm." / "Dinner is at seven in the evening."); None for a statement not read."""
    if not reading.readable:
        return None
    digest = hashlib.blake2b(repr(merge_key(reading)).encode(), digest_size=12)
    return f"~read:{digest.hexdigest()}"


def same_reading(a: Reading, b: Reading) -> bool:
    """Both read, and read alike to the main verb: one fact, whatever their closeness."""
    return a.readable and b.readable and merge_key(a) == merge_key(b)


def same_statement(a: Reading, b: Reading, verbs_may_differ: bool = False) -> bool:
    """One fact: equal clause keys when both are read, else the same content words."""
    if not a.readable or not b.readable:
        return a.words == b.words
    verbs = not verbs_may_differ
    return merge_key(a, verbs) == merge_key(b, verbs)


def same_values(a: Reading, b: Reading) -> bool:
    """For two statements of one producer's key (the key names subject and attribute):
    the same values, with the same polarity. Unread ones compare as `same_statement`."""
    if not a.readable or not b.readable:
        return same_statement(a, b)
    values_a = {(v.type in NAMES, v.text) for c in a.clauses for v in c.values}
    values_b = {(v.type in NAMES, v.text) for c in b.clauses for v in c.values}
    polarity_a = {c.polarity for c in a.clauses}
    polarity_b = {c.polarity for c in b.clauses}
    return bool(values_a) and values_a == values_b and polarity_a == polarity_b


def why_not_same(a: Reading, b: Reading, verbs_may_differ: bool = True) -> str | None:
    """In words, the first thing the two readings differ in; None when they agree."""
    if not a.readable or not b.readable:
        if a.words == b.words:
            return None
        return "not read as statements, and their content words differ"
    if len(a.clauses) != len(b.clauses):
        return "they say a different number of things"
    names = ("subject", "values", "content words", "polarity", "tense", "aspect", "verb")
    for x, y in zip(
        sorted(a.clauses, key=lambda c: repr(clause_key(c))),
        sorted(b.clauses, key=lambda c: repr(clause_key(c))),
        strict=True,
    ):
        left_key = (*clause_key(x), "" if verbs_may_differ else x.predicate)
        right_key = (*clause_key(y), "" if verbs_may_differ else y.predicate)
        for name, left, right in zip(names, left_key, right_key, strict=True):
            if left != right:
                return f"another {name}: {left!r} / {right!r}"
    return None


def another_occurrence(a: Reading, b: Reading) -> bool:
    """Two happenings of one kind on other days: both read, every clause an episode (a
    past, simple clause) that says no change, clause by clause the same subject, frame
    and values but their dates and times, and at least one date or time another ("we paid
    the rent on March 1" / "on April 1", "the backup ran on Monday" / "on Thursday").
    The later one replaces nothing: both happened. A change said as such ("the
    appointment got moved to March 10") is no other occurrence."""
    if not a.readable or not b.readable or len(a.clauses) != len(b.clauses):
        return False
    if any(c.kind != "episode" or c.change is not None for c in (*a.clauses, *b.clauses)):
        return False

    def key(c: Clause) -> tuple[object, ...]:
        rest = tuple(sorted(v for v in c.values if v.type not in WHEN))
        return (c.subject, c.frame, rest, c.polarity)

    def when(r: Reading) -> tuple[tuple[object, ...], ...]:
        return tuple(
            sorted(
                (key(c), tuple(sorted(v for v in c.values if v.type in WHEN))) for c in r.clauses
            )
        )

    pairs_a, pairs_b = when(a), when(b)
    if [k for k, _ in pairs_a] != [k for k, _ in pairs_b]:
        return False
    return any(x != y and x and y for (_, x), (_, y) in zip(pairs_a, pairs_b, strict=True))
