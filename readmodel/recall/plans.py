"""States before plans: for a question about the present, a statement of the asked
subject that says only what is planned, wanted or possible ("I might try eating fish
next year", "I'm going to move to Berlin") ranks under the lowest one that says what is
so ("I'm a vegetarian"). A plan is not the current state. Nor is a past happening that
says no change ("We looked at a house in York over the weekend" for "Where do I live?",
under "I'm renting a flat in Leeds"), when the question asks in the present: what
happened once answers a question about the past, and a happening that changes the
state ("I moved to York") is read as a change, and ranked by `outdated.py`. A happening
that names a word of the question no statement of what is so names answers it, and
stays ("We adopted a second dog, a beagle named Pepper" for "Do we have a beagle?").
"We" is said of the speaker too.

Both sides are read by the statement reader: the question for its subject
(`asked_subject`), each of the first candidates for its clauses' subjects, modality and
tense. Nothing moves for a question about plans itself ("What am I planning to do?",
"Where will I live?"), for a text not read as statements (a long turn), or when no
candidate says what is so of the asked subject. Read-time only, for current-state recall
without `as_of` (the pipeline runs it beside `outdated.py`), a pure stage over the
candidates in rank order.
"""

import re
from collections.abc import Sequence

from readmodel.reading import read
from readmodel.reading.questions import asked_subject
from readmodel.reading.statement import Clause
from readmodel.recall.candidate import Candidate, replace, text_stats
from readmodel.recall.order import sort_key
from readmodel.recall.outdated import present_question
from readmodel.recall.subject import Subject, as_speaker, of_asked, question_stems
from readmodel.text import STOPWORDS

TOP = 10
STEP = 1e-6
ABOUT_PLANS = re.compile(
    r"\b(?:will|shall|going to|plan|plans|planned|planning|intend|intends|intending|might|"
    r"may|could|would|should|want|wants|wish|hope|hopes|next|upcoming|future|soon|later|"
    r"thinking of|considering)\b",
    re.I,
)
"""Words of a question that asks about what is planned or possible: plans answer it."""


def _not_so(clause: Clause, now: bool) -> bool:
    """Planned or possible; or, for a question asked in the present (`now`), a past
    happening that says no change."""
    if clause.modal or clause.tense == "future":
        return True
    return now and clause.kind == "episode" and clause.tense == "past" and clause.change is None


def _mine(asked: Subject, said: Subject, named: frozenset[str]) -> bool:
    """Said of the asked subject (`of_asked`), "we" counting as the speaker."""
    return of_asked(as_speaker(asked), as_speaker(said), named)


def states_before_plans(
    ordered: Sequence[Candidate], query: str, top: int = TOP
) -> list[Candidate]:
    """`ordered`: candidates best first. Only the first `top` move, among themselves."""
    asked = asked_subject(query)
    if asked is None or ABOUT_PLANS.search(query) is not None:
        return list(ordered)
    now = present_question(query)
    head = list(ordered[:top])
    clauses = {c.id: read(c.record.text, c.record.entities).clauses for c in head}
    named = question_stems(query)
    mine = {c.id: [k for k in clauses[c.id] if _mine(asked, k.subject, named)] for c in head}
    states = {c.id: c.score for c in head if any(not _not_so(k, now) for k in mine[c.id])}
    if not states:
        return list(ordered)
    words = named - STOPWORDS
    said = set().union(*(text_stats(c).stems for c in head if c.id in states)) & words
    plans = {
        c.id
        for c in head
        if mine[c.id]
        and c.id not in states
        and all(_not_so(k, now) for k in clauses[c.id])
        and (
            any(k.modal or k.tense == "future" for k in clauses[c.id])
            or not (text_stats(c).stems & words) - said
        )
    }
    if not plans:
        return list(ordered)
    floor = min(states.values())
    moved = [replace(c, score=min(c.score, floor - STEP)) if c.id in plans else c for c in head]
    return sorted(moved, key=sort_key) + list(ordered[top:])
