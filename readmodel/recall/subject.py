"""The asked subject first: of the first candidates of a question about someone named,
the statements said of someone else the question's subject has ("Olivia's brother
lives in Vancouver" for "Where does Olivia live?"), or of the same thing of another
owner ("Tara's favourite sport" for "What is Sam's favourite sport?"), rank under the
lowest statement said of the asked subject itself (or of its owner: "Sam plays padel
now" answers what Sam's favourite sport is; or of someone or something that acts on
it: "Dan is employed by Initech", read as "Initech employs Dan", answers where Dan
works).

Both sides are read by the statement reader (`readmodel.reading`): the question by
`asked_subject`, each candidate by its clauses' subjects. Nothing moves when no
candidate is read as said of the asked subject, or for a text the reader does not read
as statements (a long turn). A question about the speaker ("Am I married?") meets the
statements that say "I" with no speaker named ("I am single."; not "My sister got
married in May."): the reader reads a memory that names its speaker ("Ana: I ...") as
said of that speaker, never of the asker. Read-time only, a pure
stage over the candidates in rank order; whose a fact is does not depend on when, so it
runs for the present, `as_of` and `history` alike.
"""

import re
from collections.abc import Sequence

from readmodel.reading import read
from readmodel.reading.questions import asked_subject
from readmodel.recall.candidate import Candidate, replace
from readmodel.recall.order import sort_key
from readmodel.text import stem

TOP = 10
STEP = 1e-6
WORD = re.compile(r"[a-z0-9]+")

Subject = tuple[str, ...]


def as_speaker(subject: Subject) -> Subject:
    """ "We" said by the speaker holds the speaker: "we bought a house in York" is said of
    where I live, "our landlord" of mine."""
    return ("i", *subject[1:]) if subject[:1] == ("we",) else subject


def of_another(asked: Subject, said: Subject, named: frozenset[str] = frozenset()) -> bool:
    """`said` is someone or something the asked subject has ("olivia" > "brother"), or
    the asked thing of another owner ("tara" > "favorite sport" for "sam" > "favorite
    sport"); not a thing of the asked subject the question names (`named`: its stems)."""
    if said == asked or named_thing(asked, said, named):
        return False
    if len(said) > len(asked) and said[: len(asked)] == asked:
        return True
    return len(asked) > 1 and said[1:] == asked[1:] and said[0] != asked[0]


def of_asked(asked: Subject, said: Subject, named: frozenset[str] = frozenset()) -> bool:
    """`said` is the asked subject, or its owner ("sam" for "sam" > "favorite sport"),
    or a thing of the asked subject that the question names ("i" > "bank" for "Which
    bank do I use?": the question asks for it)."""
    return said == asked[: len(said)] or named_thing(asked, said, named)


def question_stems(query: str) -> frozenset[str]:
    """The stems of the question's words, which name the asked subject's things."""
    return frozenset(stem(w) for w in WORD.findall(query.lower()))


def named_thing(asked: Subject, said: Subject, named: frozenset[str]) -> bool:
    """`said` is the asked subject's own thing, every word of which the question says."""
    rest = said[len(asked) :]
    return (
        bool(rest)
        and said[: len(asked)] == asked
        and all(stem(w) in named for part in rest for w in part.split())
    )


def said_of(c: Candidate) -> frozenset[Subject]:
    """The subjects of the candidate's clauses, as the statement reader reads them (none
    for a text it does not read as statements)."""
    return frozenset(clause.subject for clause in read(c.record.text, c.record.entities).clauses)


def names_of(c: Candidate) -> frozenset[str]:
    """The people and names the candidate's clauses have as values: whom a verb acts on
    ("Initech employs Dan", the reader's reading of "Dan is employed by Initech")."""
    return frozenset(
        value.text
        for clause in read(c.record.text, c.record.entities).clauses
        for value in clause.values
        if value.type in {"person", "name"}
    )


def asked_subject_first(
    ordered: Sequence[Candidate], query: str, top: int = TOP
) -> list[Candidate]:
    """`ordered`: candidates best first. Only the first `top` move, among themselves."""
    asked = asked_subject(query)
    if asked is None:
        return list(ordered)
    head = list(ordered[:top])
    named = question_stems(query)
    said = {c.id: said_of(c) for c in head}
    exact = [
        c
        for c in head
        if any(of_asked(asked, s, named) for s in said[c.id])
        or (len(asked) == 1 and asked[0] in names_of(c))
    ]
    others = {
        c.id
        for c in head
        if c not in exact and said[c.id] and all(of_another(asked, s, named) for s in said[c.id])
    }
    if not exact or not others:
        return list(ordered)
    floor = min(c.score for c in exact)
    moved = [replace(c, score=min(c.score, floor - STEP)) if c.id in others else c for c in head]
    return sorted(moved, key=sort_key) + list(ordered[top:])
