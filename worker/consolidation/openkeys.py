"""The keys a statement read by frame is stored and found under (`openupdates.py`).

Every pair `open_update` relates meets by key: one's `open_query_keys` holds a stored key
(`open_keys`) of the other, whichever arrives first, so the candidates read by key are
exact. Keys are by role and narrow: a key every statement of a subject shares would make
each statement read all the others.
"""

from worker.consolidation.openframes import Clause, OpenReading
from worker.consolidation.openroles import role_stems
from worker.consolidation.openwords import content, verb_stem


def open_keys(r: OpenReading | None) -> list[str]:
    """The keys a statement is stored under, so that `open_update` can relate it to one
    that arrives later (`open_query_keys` are what that one reads by):

    * `subject|~head:w`: the first content word of each plain clause, a verb by its
      stem ("lives", "living" -> `liv`, so "<s> 'm living in _" meets it). A frame change
      keeps every word before its value, and its frame has a content word there (the
      noun of "<s> 's N is _", or the predicate), so both clauses share their first one;
    * `subject|~said:w`: every content word of each plain clause, which a later
      statement may name as over;
    * `subject|~ended:w`: the content words of each value the statement names as over;
    * `thing:words`: each definite thing it is about.

    Keying by head and by role, not by every word, keeps what a statement reads to the
    statements it could relate to: one keyed by every word found every other statement
    of its subject that shared a common word, and compared frames with each of them."""
    if r is None or (not r.clauses and not r.things):
        return []
    keys = _heads(r) | _tails(r) | _roles(r) | _things(r) | _said(r, "said") | _ended(r, "ended")
    return sorted(keys)


def open_query_keys(r: OpenReading | None) -> list[str]:
    """The stored keys (`open_keys`) of every statement this one may relate to, in either
    order of arrival: the same heads and things, the values it names as over among what
    others said, and what it says among the values others named as over."""
    if r is None or (not r.clauses and not r.things):
        return []
    keys = _heads(r) | _tails(r) | _roles(r) | _things(r) | _said(r, "ended") | _ended(r, "said")
    return sorted(keys)


def _plain(r: OpenReading) -> list[Clause]:
    return [c for c in r.clauses if not c.markers]


def _heads(r: OpenReading) -> set[str]:
    return {
        f"{c.subject}|~head:{verb_stem(said[0])}"
        for c in _plain(r)
        if (said := content(list(c.words)))
    }


def _tails(r: OpenReading) -> set[str]:
    """The word after the subject and the last content word: a frame whose value is not
    at its end ("<s> is on the _ shift") keeps both."""
    return {
        f"{c.subject}|~tail:{c.words[1]}:{said[-1]}"
        for c in _plain(r)
        if len(c.words) > 1 and len(said := content(list(c.words))) > 1
    }


def _roles(r: OpenReading) -> set[str]:
    return {f"{subject}|~role:{s}" for subject, s in role_stems(r)}


def _said(r: OpenReading, role: str) -> set[str]:
    return {f"{c.subject}|~{role}:{w}" for c in _plain(r) for w in content(list(c.words))}


def _ended(r: OpenReading, role: str) -> set[str]:
    spans = [content(list(e.span)) for e in r.endings if e.asserted]
    return {f"{s}|~{role}:{w}" for s in r.subjects for span in spans for w in span}


def _things(r: OpenReading) -> set[str]:
    return {"thing:" + " ".join(t.thing) for t in r.things}
