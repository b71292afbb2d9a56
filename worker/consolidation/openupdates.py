"""Whether a newer statement replaces an older one, by frame and value, with no attribute list.

Three kinds of evidence, each about one subject (`openframes.py` reads the statements):

* the frame: two clauses of the same subject that say the same words but for one short
  span, the value ("my dentist is Dr. Hale" / "my new dentist is Dr. Ortiz"). With no
  change word in the newer one, the frame must be a possessive noun ("my N is _", which
  holds one value at a time) or a present state whose verb does not accumulate objects;
* a value named as ended: the newer statement says the older one's value is over
  ("from X to", "instead of X", "used to ... X", "X left", "sold my X", "no longer has a
  X"), and the older one states X of the same subject;
* a thing's date or status: two short statements about one definite thing ("the vendor
  audit") with different dates, or a status and a later statement about it.

Clauses of plans, pasts, questions, one-offs or additions take no part (`MARKERS`).
Pure, decided on the two stored readings alone, and every pair it relates meets by key:
one's `open_query_keys` holds a stored key (`open_keys`) of the other, whichever arrives
first, so the candidates read by key are exact.
"""

from dataclasses import dataclass
from difflib import SequenceMatcher

from contracts.memory import Relation
from readmodel.text import STOPWORDS
from worker.consolidation.openframes import Clause, OpenReading
from worker.consolidation.openvalues import SHORT
from worker.consolidation.openwords import CUES, SUBJECT, content

MAX_VALUE = 5


@dataclass(frozen=True)
class OpenUpdate:
    relation: Relation
    reason: str


def explain(subject: str, frame: str, old: str, new: str, cue: str | None) -> str:
    """What `sediment inspect` shows: subject, frame, old value -> new value, cue."""
    return f"{subject}: frame {frame!r}, {old!r} -> {new!r} (cue: {cue or 'none'})"


def open_update(o: OpenReading | None, n: OpenReading | None) -> OpenUpdate | None:
    """Why the statement read as `n` replaces the one read as `o` (older), or None."""
    if o is None or n is None or o.one_off or n.one_off:
        return None
    return thing_change(o, n) or ended_value(o, n) or frame_change(o, n)


def _contains(words: tuple[str, ...], span: tuple[str, ...]) -> bool:
    k = len(span)
    return any(words[i : i + k] == span for i in range(len(words) - k + 1))


def ended_value(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    """The newer statement names the older one's value as over, for one of its subjects
    (a value the older statement itself names as over is no value of it)."""
    said_ended = {e.span for e in o.endings}
    for e in n.endings:
        if not e.asserted or e.span in said_ended:
            continue
        for c in o.clauses:
            if c.subject in n.subjects and not c.markers and _contains(c.words, e.span):
                relation = Relation.INVALIDATED_BY if e.ends_only else Relation.EVOLVED_INTO
                new = "(ended)" if e.ends_only else e.after
                frame = _masked_frame(c.words, e.span)
                return OpenUpdate(relation, explain(c.subject, frame, " ".join(e.span), new, e.how))
    return None


def _masked_frame(words: tuple[str, ...], span: tuple[str, ...]) -> str:
    k = len(span)
    at = next(i for i in range(len(words) - k + 1) if words[i : i + k] == span)
    return " ".join((*words[:at], "_", *words[at + k :]))


def frame_change(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    for nc in n.clauses:
        for oc in o.clauses:
            found = _frame(oc, nc)
            if found is not None:
                return found
    return None


def _frame(o: Clause, n: Clause) -> OpenUpdate | None:
    """One subject, the same words but one short span each side, neither a plan nor a past."""
    if o.subject != n.subject or o.markers or n.markers or not _one_span_apart(o.words, n.words):
        return None
    if head(o) is None or head(o) != head(n):
        return None
    ops = [op for op in SequenceMatcher(None, o.words, n.words, False).get_opcodes()]
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = changed[0]
    old, new = o.words[i1:i2], n.words[j1:j2]
    if max(len(old), len(new)) > MAX_VALUE or SUBJECT in old + new:
        return None
    if not content(list(old)) or not content(list(new)) or not _same_kind(old, new):
        return None
    if _names(old, o) != _names(new, n) or _past(old) or _past(new):
        return None
    frame = (*o.words[:i1], "_", *o.words[i2:])
    if SUBJECT not in frame[: frame.index("_")]:
        return None
    if not _possessive_noun(frame) and not _predicate(frame):
        return None
    if n.cue is None and not _possessive_noun(frame) and not _stative(frame, old, new):
        return None
    if n.cue is None and not _possessive_noun(frame) and not (_names(old, o) and _names(new, n)):
        return None
    why = explain(n.subject, " ".join(frame), " ".join(old), " ".join(new), n.cue)
    return OpenUpdate(Relation.EVOLVED_INTO, why)


def head(c: Clause) -> str | None:
    """The clause's first content word that is not written as a name: what its frame says
    of the subject ("dentist", "drink", "works"), before any value. Two clauses compared
    by frame share it (`_frame` requires that), so it keys them (`open_keys`); a name
    would not do (a surname after a first name is said of everything about its person)."""
    return next((w for w in content(list(c.words)) if w not in c.named), None)


def _one_span_apart(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether `a` and `b` can differ by one span of at most `MAX_VALUE` words a side: the
    words they share at the start and at the end leave no more than that between. A
    test of word equality at both ends, before the alignment `_frame` makes (most pairs
    of one subject fail it, and the alignment is the dearer part)."""
    longest = max(len(a), len(b))
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start + end >= longest - MAX_VALUE


def _names(span: tuple[str, ...], c: Clause) -> bool:
    """The span holds a name or a number: with no change word, only such values (a city,
    a company, a person, a date) are read as replacing one another."""
    return bool(set(span) & set(c.named))


def _predicate(frame: tuple[str, ...]) -> bool:
    """The frame says something of its own before the value: a content word that is not
    a change word ("<s> switched to _" says only that something changed), and no verb in
    a past form ("<s> replaced the old _" is something done, not a state)."""
    before = frame[: frame.index("_")]
    said = [w for w in content(list(before)) if not CUES.fullmatch(w) and w not in MANNER]
    return any(not w.endswith("ly") for w in said) and not _past(before)


MANNER = frozenset(
    """really so very pretty super totally quite always never also even sure too kinda
    definitely""".split()
)
"""Words of degree or manner, which are no predicate of their own ("I really _")."""


def _past(words: tuple[str, ...] | list[str]) -> bool:
    """A past form not after a copula ("is employed by" is a state)."""
    return any(
        (w.endswith("ed") or w in IRREGULAR_PAST) and (i == 0 or words[i - 1] not in COPULAS)
        for i, w in enumerate(words)
        if w not in STOPWORDS
    )


COPULAS = frozenset({"is", "are", "am", "'s", "'m", "'re", "be", "been"})


def _same_kind(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """Two values of one kind: both with an article or neither ("a Honda" is not "red"),
    and led by the same preposition if by any ("in Lisbon" is not "alone"). With
    `_names` equal on both sides ("Tom" is not "busy") and no verb form in either
    ("Tom" is not "based in Oslo")."""
    if (old[0] in ARTICLES) != (new[0] in ARTICLES):
        return False
    a = [w for w in old if w not in ARTICLES]
    b = [w for w in new if w not in ARTICLES]
    lead_a, lead_b = a[0] in STOPWORDS, b[0] in STOPWORDS
    return not (lead_a or lead_b) or a[0] == b[0]


ARTICLES = frozenset({"a", "an", "the"})


def _stative(frame: tuple[str, ...], old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """With no change word, a short value of a present state: no word of the frame is a
    past form, and its verb is not one whose objects accumulate ("I love X")."""
    if max(len(old), len(new)) > 3:
        return False
    said = [w for w in frame if w != "_"]
    return not _past(said) and not ACCUMULATING & set(said)


IRREGULAR_PAST = frozenset(
    """went got made took saw met ran came gave bought brought thought told said felt left
    found kept held sat stood wrote read heard lost won began drove flew ate drank""".split()
)
ACCUMULATING = frozenset(
    """like likes love loves enjoy enjoys hate hates miss misses visit visits know knows
    meet meets see sees watch watches read reads want wants need needs have has own owns
    play plays speak speaks collect collects follow follows""".split()
)
"""Verbs whose objects add up rather than replace one another; with no change word,
"I love X" and "I love Y" are two things loved, "Bob plays chess" and "Bob plays golf"
two games played."""


def _possessive_noun(frame: tuple[str, ...]) -> bool:
    """ "<s> 's N is _": a noun of the subject that holds one value at a time (a title or
    article may stand between: "is dr _")."""
    cut = frame.index("_")
    before = frame[:cut]
    copulas = [i for i, w in enumerate(before) if w in ("is", "are")]
    if not copulas or cut - copulas[-1] > 2 or "'s" not in before:
        return False
    before = before[: copulas[-1] + 1]
    noun = before[before.index("'s") + 1 : -1]
    return (
        before[before.index("'s") - 1] == SUBJECT
        and 0 < len(noun) <= 3
        and len(content(list(noun))) == len(noun)
    )


def thing_change(o: OpenReading, n: OpenReading) -> OpenUpdate | None:
    """A definite thing's date moved, or its status said again differently."""
    for old in o.things:
        for new in n.things:
            if old.thing != new.thing:
                continue
            name = "the " + " ".join(old.thing)
            if len(old.dates) == 1 and len(new.dates) == 1 and old.dates != new.dates:
                why = explain(name, f"{name} ... _", old.dates[0], new.dates[0], new.cue)
                return OpenUpdate(Relation.EVOLVED_INTO, why)
            if old.dates or new.dates or not old.status or new.length > SHORT:
                continue
            if set(old.status) <= set(new.said) or not new.said:
                continue
            if len(old.thing) >= 2 or new.cue:
                said = " ".join(new.said)
                why = explain(name, f"{name} is _", " ".join(old.status), said, new.cue)
                return OpenUpdate(Relation.EVOLVED_INTO, why)
    return None


def open_keys(r: OpenReading | None) -> list[str]:
    """The keys a statement is stored under, so that `open_update` can relate it to one
    that arrives later (`open_query_keys` are what that one reads by):

    * `subject|~head:w`: each plain clause's `head`, which a frame change keeps;
    * `subject|~said:w`: every content word of each plain clause, which a later
      statement may name as over;
    * `subject|~ended:w`: the content words of each value the statement names as over;
    * `thing:words|date`, `|status`, `|said`: a definite thing with one date, with a
      status, or said of shortly (`thing_change` relates a date to a date and a status to
      a later short statement).

    Keying by role, not by every word, keeps what a statement reads to the statements
    it could relate to: keyed by every content word, each statement found every other
    one of its subject that shared a common word, and compared frames with each."""
    if r is None or (not r.clauses and not r.things):
        return []
    keys = _heads(r) | _things(r, "status", "said") | _said(r, "said") | _ended(r, "ended")
    return sorted(keys)


def open_query_keys(r: OpenReading | None) -> list[str]:
    """The stored keys (`open_keys`) of every statement this one may relate to, in either
    order of arrival: the same heads and dated things, its ended values among what others
    said (and the reverse), a status among what others said of the thing shortly (and
    the reverse)."""
    if r is None or (not r.clauses and not r.things):
        return []
    keys = _heads(r) | _things(r, "said", "status") | _said(r, "ended") | _ended(r, "said")
    return sorted(keys)


def _plain(r: OpenReading) -> list[Clause]:
    return [c for c in r.clauses if not c.markers]


def _heads(r: OpenReading) -> set[str]:
    return {f"{c.subject}|~head:{h}" for c in _plain(r) if (h := head(c)) is not None}


def _said(r: OpenReading, role: str) -> set[str]:
    return {f"{c.subject}|~{role}:{w}" for c in _plain(r) for w in content(list(c.words))}


def _ended(r: OpenReading, role: str) -> set[str]:
    spans = [content(list(e.span)) for e in r.endings if e.asserted]
    return {f"{s}|~{role}:{w}" for s in r.subjects for span in spans for w in span}


def _things(r: OpenReading, status: str, said: str) -> set[str]:
    """Keys of the roles `thing_change` gives a thing's statements: `status` names the
    role of one that gives a status (the older of a pair), `said` of one short enough to
    say it again (the newer)."""
    out = set()
    for t in r.things:
        name = "thing:" + " ".join(t.thing)
        if len(t.dates) == 1:
            out.add(f"{name}|date")
        if t.dates:
            continue
        if t.status:
            out.add(f"{name}|{status}")
        if t.length <= SHORT and t.said and (len(t.thing) >= 2 or t.cue):
            out.add(f"{name}|{said}")
    return out
