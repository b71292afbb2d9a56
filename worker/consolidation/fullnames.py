"""Who a first name is: the person a statement names in full.

The attribute and frame readers (`statements.py`, `openframes.py`) key a person by first
name, so that "Pia" said later meets what was said of her. Two people of one first name
were then one subject: "Pia Kesini moved to Seattle" superseded "Pia Halsen lives in
Lyon", and every statement about one Pia was compared with every other Pia's. So where
the statement (or its producer's entities) names the person in full, the readings' key
is the full name ("pia halsen", "pia halsen>son" for her son), and the surname is no
word of the frame ("<s> lives in _", not "<s> halsen lives in _").

A first name said alone, with no entity naming it in full, stays the first name: it may
be anyone of that name, so it neither supersedes nor is superseded by a statement of
someone named in full (precision first: a missed update leaves both values current).
"""

import re
from dataclasses import replace
from functools import lru_cache

from readmodel.text import TEXT_CACHE_SIZE
from worker.consolidation.openframes import Clause, OpenReading
from worker.consolidation.openwords import SUBJECT
from worker.consolidation.statements import StatementFeatures
from worker.consolidation.subjects import CAPITAL_STOP

FullNames = tuple[tuple[str, tuple[str, ...]], ...]
"""First name -> the rest of the full name, lower case, one entry per first name."""

_NAME_WORD = r"[A-ZÀ-ÖØ-Þ][\w'’-]*"
_IN_FULL = re.compile(rf"(?<![\w'’-])({_NAME_WORD})\s+({_NAME_WORD})(?![\w'’-])")


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def full_names(text: str, entities: tuple[str, ...]) -> FullNames:
    """The people `text` names in full: the producer's entities of two or more words,
    and a capitalised first name followed by a capitalised word in the text ("José
    García", not "Sunday Lunch" or "Dr Lee", whose first word is no name). A first name
    written with two different surnames names nobody in particular and is left out."""
    found: dict[str, set[tuple[str, ...]]] = {}
    written = [e.split() for e in entities]
    written += [list(m.groups()) for m in _IN_FULL.finditer(text)]
    for words in written:
        parts = [w.lower().removesuffix("'s").removesuffix("’s") for w in words]
        if len(parts) < 2 or any(p in CAPITAL_STOP for p in parts):
            continue
        if not all(p.replace("-", "").replace("'", "").isalpha() for p in parts):
            continue
        found.setdefault(parts[0], set()).add(tuple(parts[1:]))
    return tuple(
        sorted((first, next(iter(rests))) for first, rests in found.items() if len(rests) == 1)
    )


def qualified_statement(st: StatementFeatures, names: FullNames) -> StatementFeatures:
    """`st` with each slot's subject keyed by the full name its first name stands for."""
    if not names or not st.slots:
        return st
    table = dict(names)
    slots = tuple(replace(s, subject=_key(s.subject, table)) for s in st.slots)
    return replace(st, slots=slots)


def qualified_reading(r: OpenReading | None, names: FullNames) -> OpenReading | None:
    """`r` with each clause's subject keyed by its full name, and the surname that
    follows the subject no word of the clause; its subjects likewise."""
    if r is None or not names:
        return r
    table = dict(names)
    clauses = tuple(_clause(c, table) for c in r.clauses)
    subjects = tuple(sorted({_key(s, table) for s in r.subjects}))
    return replace(r, clauses=clauses, subjects=subjects)


def _key(subject: str, table: dict[str, tuple[str, ...]]) -> str:
    """ "pia" -> "pia halsen"; an owner's relative "pia>son" -> "pia halsen>son", and
    "halsen>husband" ("Pia Halsen's husband", owned by the last word) the same way."""
    owner, sep, rest = subject.partition(">")
    surname = table.get(owner)
    if surname:
        return f"{owner} {' '.join(surname)}{sep}{rest}"
    if sep:
        firsts = [f for f, s in table.items() if s[-1] == owner]
        if len(firsts) == 1:
            return f"{firsts[0]} {' '.join(table[firsts[0]])}{sep}{rest}"
    return subject


def _clause(c: Clause, table: dict[str, tuple[str, ...]]) -> Clause:
    key = _key(c.subject, table)
    if key == c.subject:
        return c
    surname = table.get(c.subject.partition(">")[0], ())
    words = c.words
    if words[:1] == (SUBJECT,) and words[1 : 1 + len(surname)] == surname:
        words = (SUBJECT, *words[1 + len(surname) :])
    named = tuple(w for w in c.named if w not in surname)
    return replace(c, subject=key, words=words, named=named)
