"""The keys a statement read by frame is stored and found under (`openupdates.py`).

Every pair `open_update` relates meets by key: one's `open_query_keys` holds a stored key
(`open_keys`) of the other, whichever arrives first, so the candidates read by key are
exact. Keys are by role and narrow: a key every statement of a subject shares would make
each statement read all the others.
"""

from functools import lru_cache

from worker.consolidation.openframes import CLAUSE_CACHE_SIZE, Clause, OpenReading
from worker.consolidation.openkinds import object_kind, switched_to
from worker.consolidation.openroles import role_stems
from worker.consolidation.openvalues import LEAVING
from worker.consolidation.openwords import SUBJECT, content, verb_stem

MAX_VALUE = 5
"""The longest value, in words, a frame change reads on either side."""


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def head(c: Clause) -> str | None:
    """The clause's first content word that is not written as a name: what its frame says
    of the subject ("dentist", "drink", "works"), before any value. Two clauses compared
    by frame share it (`openupdates._frame` requires that), so it keys them
    (`open_keys`); a name would not do (a surname after a first name is said of
    everything about its person). The noun of "<s> 's N ..." is its head however it is
    written ("my GP is Dr. Lee")."""
    if c.words[:2] == (SUBJECT, "'s") and content(list(c.words[2:3])):
        return c.words[2]
    return next((w for w in content(list(c.words)) if w not in c.named), None)


def same_tail(o: Clause, n: Clause) -> bool:
    """The word after the subject and the last content word are one: a frame whose value
    comes before its predicate ("<s> is on the _ shift"), so its head is the value."""
    a, b = content(list(o.words)), content(list(n.words))
    return len(o.words) > 1 and o.words[1:2] == n.words[1:2] and a[-1:] == b[-1:] != []


def one_span_apart(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether `a` and `b` can differ by one span of at most `MAX_VALUE` words a side: the
    words they share at the start and at the end leave no more than that between. A
    test of word equality at both ends, before the alignment `openupdates._frame` makes
    (most pairs of one subject fail it, and the alignment is the dearer part)."""
    la, lb = len(a), len(b)
    shorter, longest = (la, lb) if la < lb else (lb, la)
    if shorter < longest - MAX_VALUE:
        # The shared words are at most the shorter one's.
        return False
    start = 0
    while start < shorter and a[start] == b[start]:
        start += 1
    end, rest = 0, shorter - start
    while end < rest and a[-1 - end] == b[-1 - end]:
        end += 1
    return start + end >= longest - MAX_VALUE


def open_keys(r: OpenReading | None) -> list[str]:
    """The keys a statement is stored under, so that `open_update` can relate it to one
    that arrives later (`open_query_keys` are what that one reads by):

    * `subject|~head:w`: each plain clause's `head`, which a frame change keeps, a verb
      by its stem ("lives", "living" -> `liv`, so "<s> 'm living in _" meets it);
    * `subject|~said:w`: every content word of each plain clause, which a later
      statement may name as over;
    * `subject|~ended:w`: the content words of each value the statement names as over;

    * `subject|~tail:v:w`, `subject|~role:stem`, `subject|~kind:k`, `~named:w`,
      `~died:w`: see `_tails`, `_roles`, `_kinds`, `_named` and `_died`.

    Keying by role, not by every word, keeps what a statement reads to the statements
    it could relate to: keyed by every content word, each statement found every other
    one of its subject that shared a common word, and compared frames with each."""
    if r is None or (not r.clauses and not r.endings):
        return []
    keys = _heads(r) | _tails(r) | _roles(r) | _kinds(r)
    keys |= _said(r, "said") | _ended(r, "ended") | _named(r, "named") | _died(r, "died")
    return sorted(keys)


def open_query_keys(r: OpenReading | None) -> list[str]:
    """The stored keys (`open_keys`) of every statement this one may relate to, in either
    order of arrival: the same heads, tails and roles, its ended values among what
    others said (and the reverse)."""
    if r is None or (not r.clauses and not r.endings):
        return []
    keys = _heads(r) | _tails(r) | _roles(r) | _kinds(r)
    keys |= _said(r, "ended") | _ended(r, "said") | _named(r, "died") | _died(r, "named")
    return sorted(keys)


def _plain(r: OpenReading) -> list[Clause]:
    return [c for c in r.clauses if not c.markers]


def _heads(r: OpenReading) -> set[str]:
    return {f"{c.subject}|~head:{verb_stem(h)}" for c in _plain(r) if (h := head(c)) is not None}


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


def _kinds(r: OpenReading) -> set[str]:
    """The kind of a value said as a clause's object or switched to (`openkinds.py`):
    "<s> switched to netball" meets "<s> plays volleyball on weekends" by `sport`."""
    return {
        f"{c.subject}|~kind:{found[0]}"
        for c in _plain(r)
        if (found := object_kind(c) or switched_to(c)) is not None
    }


def _named(r: OpenReading, role: str) -> set[str]:
    """`~named:w` for each name a plain clause holds, which a death ends whoever's
    statement it was (`openupdates._died`: "Miso passed away" / "I have a cat named
    Miso"); `role` "died" queries the deaths of them."""
    return {f"~{role}:{w}" for c in _plain(r) for w in c.named}


def _died(r: OpenReading, role: str) -> set[str]:
    """`~died:w` for each name a statement says died or left (`openvalues.LEAVING`); `role`
    "named" queries the statements that hold it."""
    return {
        f"~{role}:{w}"
        for e in r.endings
        if e.asserted and (e.how in ("passed away", "died") or LEAVING.match(e.how))
        for w in e.span
    }


def _said(r: OpenReading, role: str) -> set[str]:
    return {f"{c.subject}|~{role}:{w}" for c in _plain(r) for w in content(list(c.words))}


def _ended(r: OpenReading, role: str) -> set[str]:
    spans = [content(list(e.span)) for e in r.endings if e.asserted]
    return {f"{s}|~{role}:{w}" for s in r.subjects for span in spans for w in span}
