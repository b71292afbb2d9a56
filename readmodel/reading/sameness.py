"""When two statements say the same fact: decided on their readings, never on closeness.

Two read statements are one fact when every clause of one has a clause of the other with
the same subject, values, content words, polarity, tense, aspect and voice-independent
roles: only the main verb may differ ("works at" / "is employed by"), and only for texts
that similarity already proposed as neighbours. A statement that cannot be read is the
same as another only when both have the same content words.
"""

from readmodel.reading.statement import Clause, Reading

ClauseKey = tuple[object, ...]


def clause_key(clause: Clause) -> ClauseKey:
    """What must be equal for two clauses to state one fact: all but the main verb."""
    return (
        clause.subject,
        tuple(clause.values),
        tuple(sorted(clause.content)),
        clause.polarity,
        clause.tense,
        clause.aspect,
    )


def merge_key(reading: Reading) -> tuple[object, ...]:
    """Equal for statements that state the same fact (`same_statement`): the sorted keys
    of a read statement's clauses, or the content words of one that is not read."""
    if reading.readable:
        return ("read", tuple(sorted(map(repr, map(clause_key, reading.clauses)))))
    return ("words", tuple(sorted(reading.words)))


def same_statement(a: Reading, b: Reading) -> bool:
    return merge_key(a) == merge_key(b)


def same_values(a: Reading, b: Reading) -> bool:
    """For two statements of one producer's key (the key names subject and attribute):
    the same values, with the same polarity. Unread ones compare as `same_statement`."""
    if not a.readable or not b.readable:
        return same_statement(a, b)
    values_a = {v for c in a.clauses for v in c.values}
    values_b = {v for c in b.clauses for v in c.values}
    polarity_a = {c.polarity for c in a.clauses}
    polarity_b = {c.polarity for c in b.clauses}
    return bool(values_a) and values_a == values_b and polarity_a == polarity_b


def why_not_same(a: Reading, b: Reading) -> str | None:
    """In words, the first thing the two readings differ in; None when they agree."""
    if not a.readable or not b.readable:
        if a.words == b.words:
            return None
        return "not read as statements, and their content words differ"
    if len(a.clauses) != len(b.clauses):
        return "they say a different number of things"
    names = ("subject", "values", "content words", "polarity", "tense", "aspect")
    for x, y in zip(
        sorted(a.clauses, key=lambda c: repr(clause_key(c))),
        sorted(b.clauses, key=lambda c: repr(clause_key(c))),
        strict=True,
    ):
        for name, left, right in zip(names, clause_key(x), clause_key(y), strict=True):
            if left != right:
                return f"another {name}: {left!r} / {right!r}"
    return None
