"""Current state at query time: of two memories that answer a present question about the
same subject with different values, and that no supersession joins, the newer ranks first
and the older says `outdated_by` (the newer one's id).

Consolidation supersedes only what it can tell is one attribute's new value; a change it
could not read (an unfamiliar phrasing) leaves both states current. A question about the
present ("what does Maya drink", "who is my doctor") then wants the newer of the two
first. Read-time only: nothing stored changes, and `history`, `as_of` and questions about
the past are left as they are (the pipeline runs this stage only for the current state
without `as_of`; `present_question` leaves out questions about the past).

Two memories answer alike with different values when their texts are the same words but
for one short span (the value) and what they share holds a word of the question; or
when the question asks for a value of a type ("how many", "when", "what percentage")
and each memory answers it (`answers.answer`: its sentence that shares the question's
words names such a value) with values the newer one does not repeat: a long turn that
mentions the new count among other facts still answers; or when the newer says, in its
own words, that the subject changed, and answers the question about as well by meaning
(`changes.changed`: "I use Vim." then "I switched to VS Code."; it reads whom each is
said of itself). For the first two, they are about the same subject
when they share a named entity, or name none and have the same speaker. A pure stage
over the candidates in rank order.
"""

import re
import uuid
from collections.abc import Sequence
from difflib import SequenceMatcher

from readmodel.reading.questions import asked_subject
from readmodel.recall.answers import Answer, Question, answer, answering, question
from readmodel.recall.candidate import Candidate, people, replace
from readmodel.recall.changes import changed
from readmodel.recall.order import sort_key
from readmodel.recall.subject import said_of
from readmodel.text import STOPWORDS, stem

TOP = 10
OUTDATED_STEP = 1e-6
"""An outdated memory scores just under the lowest current memory of the first `TOP` that
answers the question (one that outdates another, or gives the asked type of value): the
newest values rank first, the values they replaced after them, still shown and marked."""
MAX_TOKENS = 40
MAX_VALUE = 5
WORD = re.compile(r"[a-z0-9]+(?:['.-][a-z0-9]+)*")
SPEAKER = re.compile(r"^\s*([A-Z][\w.-]*)\s*:")
PAST = re.compile(
    r"\b(?:did|was|were|had|used to|before|originally|previously|at first|formerly|"
    r"ago|back (?:in|then)|at the time|last (?:year|month|week|time)|in (?:19|20)\d\d|"
    r"history|changed|change|(?<!how )old|earlier|then)\b",
    re.I,
)
"""Words of a question about the past (or about the change itself), which keeps its order."""
AGGREGATE = re.compile(
    r"\b(?:in total|combined|altogether|in all|sum|across|each of|both|all (?:the|my))\b",
    re.I,
)
"""Words of a question that adds values up or lists them: every value is part of the answer."""


SPAN = re.compile(
    r"\bhow\s+(?:many|much|long)\b.*\b(?:between|since|until|till|passed|elapsed|from)\b", re.I
)
"""Words of a question asking for the span between two events, counted from their dates."""


LATEST = re.compile(
    r"\b(?:latest|most recent(?:ly)?|current(?:ly)?|now|these days|at the moment|so far|"
    r"up to date|newest|last (?:one|update))\b",
    re.I,
)
"""Words of a question asking for the latest value, whatever its tense ("what score did
Scott get on his most recent test")."""


def present_question(query: str) -> bool:
    """A question about the current value: one that asks for the latest, or is not about
    the past; and not one that adds up or lists several values, or asks for the span
    between two events (it wants both: "how many days passed between when I started
    the 30-day challenge and when I completed the 15-day one")."""
    if AGGREGATE.search(query) is not None or SPAN.search(query) is not None:
        return False
    return LATEST.search(query) is not None or PAST.search(query) is None


def words_of(text: str) -> list[str]:
    return WORD.findall(text.lower().replace("’", "'"))


def _speaker(text: str) -> str | None:
    found = SPEAKER.match(text)
    return found.group(1).lower() if found else None


def same_subject(a: Candidate, b: Candidate) -> bool:
    """They share a named entity; or, naming none, have the same speaker; or, with
    neither, the statement reader reads a clause of each with the same subject ("Emma",
    "my sister": not "my brother")."""
    ea, eb = people(a), people(b)
    if ea or eb:
        return bool(ea & eb)
    sa, sb = _speaker(a.record.text), _speaker(b.record.text)
    if sa is not None or sb is not None:
        return sa == sb
    return bool(said_of(a) & said_of(b))


def another_value(a: Sequence[str], b: Sequence[str], asked: set[str]) -> bool:
    """The same words (`words_of` the older and the newer text) but one short span each,
    and the shared words hold a word of the question besides its subject's name
    (`asked`)."""
    if not a or not b or max(len(a), len(b)) > MAX_TOKENS:
        return False
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = changed[0]
    if max(i2 - i1, j2 - j1) > MAX_VALUE:
        return False
    if not [w for w in a[i1:i2] if w not in STOPWORDS] or not [
        w for w in b[j1:j2] if w not in STOPWORDS
    ]:
        return False
    shared = {stem(w.removesuffix("'s")) for w in [*a[:i1], *a[i2:]] if w not in STOPWORDS}
    return bool(shared & asked)


def _names(a: Candidate, b: Candidate) -> set[str]:
    """The words naming whom the two are about: entities, speakers, and the owners of
    their read subjects; a question's words besides these must be among what both say."""
    named = {*a.record.entities, *b.record.entities}
    found = {_speaker(a.record.text), _speaker(b.record.text)} - {None}
    owners = {s[0] for c in (a, b) for s in said_of(c)}
    return {stem(w) for e in named | owners for w in words_of(e)} | {stem(w) for w in found if w}


def answers_differ(asked: Question | None, old: Candidate, new: Candidate) -> bool:
    """Both answer the asked type of value, and the newer gives one the older does not, of
    the older's kind (`value_kind`: "99.9 %" and "7 days" do not replace a quota of
    1,200); an older one that counts what the question counts ("12 conditional probability
    problems") is replaced only by a count of it, not by any number said near the
    question's words ("a sum of 7 with two dice")."""
    return _differing(asked, old, new) is not None


def _differing(
    asked: Question | None, old: Candidate, new: Candidate
) -> tuple[Answer, Answer] | None:
    """The older's and the newer's answers when they differ as `answers_differ` says."""
    if asked is None:
        return None
    said, now = answering(asked, old.record.text), answering(asked, new.record.text, newer=True)
    if said is None or now is None or said.values <= now.values:
        return None
    if said.counts and not now.counts:
        return None
    kind = max(map(value_kind, said.values))
    if not any(value_kind(v) == kind for v in now.values - said.values):
        return None
    return (said, now) if len(said.shared & now.shared) >= asked.needed_by_a_change else None


LATER_VALUES = 3
"""Values of the asked type a memory found by the probe may give in its answering
sentence: more is a table, a code block or a list, not a statement of a new value."""


def answers_anew(asked: Question | None, old: Candidate, new: Candidate) -> bool:
    """For a memory found outside the pool by what `old` answers
    (`readmodel.recall.successors`): `answers_differ`, and the newer sentence either
    counts the very thing asked ("I secured 5 interviews") or says all the question's
    words the older one says ("daily quota", "homework completion rate": not "chore
    compliance rate"), with a few values. Stricter than within the pool: what the probe
    finds was chosen for reading like the older one, not for answering the question."""
    found = _differing(asked, old, new)
    if found is None:
        return False
    said, now = found
    if len(now.values) > LATER_VALUES:
        return False
    return now.counts or said.shared <= now.shared


def value_kind(value: str) -> tuple[int, str]:
    """How specific a value's kind is, and the kind: a sum of money ("$1300") or a share
    ("65 %") over a measure in a unit ("240 minute": its unit) over a bare number. A new
    value replaces an old one of its kind: a budget of $1,300 is not replaced by "13"."""
    if value[:1] in "$£€":
        return (3, value[:1])
    if value.endswith("%"):
        return (3, "%")
    if " " in value:
        return (2, value.rsplit(" ", 1)[-1])
    return (1, "")


def _joined(a: Candidate, b: Candidate) -> bool:
    return a.record.superseded_by == b.id or b.record.superseded_by == a.id


def outdate_older(
    ordered: Sequence[Candidate],
    query: str,
    top: int = TOP,
    later: Sequence[Candidate] = (),
) -> list[Candidate]:
    """`ordered`: candidates best first. Among the first `top`, each memory that a newer
    one answers with another value takes `outdated_by` (the newest such), each newer one
    takes the best score of those it outdates (and their place in the pool: a newer
    value found by a deeper search stands where the value it replaced stood), and the
    outdated ones score just under the lowest current memory that answers the question,
    so every current value ranks above every replaced one; the answer is in order again
    (only the first `top` move, and only among themselves). Each of them is read into
    words once, and only these few: the stage's cost does not grow with the bank or with
    the candidates below `top`. (A newer value from below the first `top` is not lifted
    by its rank: read deeper, turns that share a few of the question's words with
    another number rise over the answer.) `later`: newer memories looked up by what the
    first `top` answer (`readmodel.recall.successors`); one joins the first `top` only
    when it gives the asked value of the same subject anew (`answers_anew`) to one of
    them, and the rest are left out."""
    if not present_question(query):
        return list(ordered)
    asked = {stem(w.removesuffix("'s")) for w in words_of(query) if w not in STOPWORDS}
    typed = question(query)
    head = list(ordered[:top])
    words = {c.id: words_of(c.record.text) for c in [*head, *later]}
    best_cosine = max(c.vector for c in head) if head else 0.0
    subject = asked_subject(query)
    asked_stems = frozenset(asked)
    outdates: dict[uuid.UUID, list[Candidate]] = {}
    for old in head:
        for new in head:
            if (
                new.record.occurred_at > old.record.occurred_at
                and not _joined(old, new)
                and (
                    (
                        same_subject(old, new)
                        and (
                            another_value(words[old.id], words[new.id], asked - _names(old, new))
                            or answers_differ(typed, old, new)
                        )
                    )
                    or changed(old, new, best_cosine, asked_stems, subject)
                )
            ):
                outdates.setdefault(old.id, []).append(new)
        for new in later:
            if (
                new.record.occurred_at > old.record.occurred_at
                and same_subject(old, new)
                and answers_anew(typed, old, new)
            ):
                outdates.setdefault(old.id, []).append(new)
    if not outdates:
        return answers_first(head, typed, query, frozenset()) + list(ordered[top:])
    newest = {
        old_id: max(news, key=lambda c: (c.record.occurred_at, c.id.int))
        for old_id, news in outdates.items()
    }
    outdaters = {new.id for news in outdates.values() for new in news}
    joined = {c.id: c for c in later if c.id in outdaters}
    head += list(joined.values())
    best = {c.id: c.score for c in head}
    deep = {c.id: c.deep for c in head}
    for old_id, news in outdates.items():
        for new in news:
            best[new.id] = max(best[new.id], best[old_id])
            deep[new.id] = deep[new.id] and deep[old_id]
    answering = [
        c
        for c in head
        if c.id not in newest
        and (c.id in outdaters or (typed is not None and answer(typed, c.record.text) is not None))
    ]
    floor = min(best[c.id] for c in answering)
    for old_id in newest:
        best[old_id] = min(best[old_id], floor - OUTDATED_STEP)
    out = [
        replace(
            c,
            score=best[c.id],
            outdated_by=newest[c.id].id if c.id in newest else None,
            deep=deep[c.id],
        )
        for c in head
    ]
    out = answers_first(sorted(out, key=sort_key), typed, query, frozenset(outdaters))
    return out + [c for c in ordered[top:] if c.id not in joined]


def answers_first(
    head: list[Candidate], typed: Question | None, query: str, outdaters: frozenset[uuid.UUID]
) -> list[Candidate]:
    """For a question asking a type of value, the current memories of the head that give
    one (`answers.answer`, or that outdate another) rank above those that give none, each
    group in its order: "my current job as a senior engineer at Saint Pierre" names no
    salary, "my recent raise to $80,000 as a senior engineer at Saint Pierre" does. Not
    for a span between two events ("how many days between A and B"): it is counted from
    their dates, which no memory gives as a number. Those that give none score just
    under the lowest that gives one, in their order, as outdated ones do."""
    if typed is None or SPAN.search(query) is not None:
        return head
    gives = [
        c
        for c in head
        if c.outdated_by is None and (c.id in outdaters or answer(typed, c.record.text) is not None)
    ]
    if not gives:
        return head
    floor = min(c.score for c in gives)
    given = {c.id for c in gives}
    rest = [c for c in head if c.id not in given]
    lowered = [
        replace(c, score=min(c.score, floor - OUTDATED_STEP * (i + 1))) for i, c in enumerate(rest)
    ]
    return sorted([*gives, *lowered], key=sort_key)
