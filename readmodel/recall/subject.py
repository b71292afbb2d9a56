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
candidate is read as said of the asked subject, when the question asks about the
speaker ("my", "I": whose speaker a question means is not in its words), or for a
text the reader does not read as statements (a long turn). Read-time only, a pure
stage over the candidates in rank order; whose a fact is does not depend on when, so it
runs for the present, `as_of` and `history` alike.
"""

from collections.abc import Sequence

from readmodel.reading import read
from readmodel.reading.questions import asked_subject
from readmodel.recall.candidate import Candidate, replace
from readmodel.recall.order import sort_key

TOP = 10
STEP = 1e-6
SPEAKERS = frozenset({"i", "we", "you"})

Subject = tuple[str, ...]


def of_another(asked: Subject, said: Subject) -> bool:
    """`said` is someone or something the asked subject has ("olivia" > "brother"), or
    the asked thing of another owner ("tara" > "favorite sport" for "sam" > "favorite
    sport")."""
    if said == asked:
        return False
    if len(said) > len(asked) and said[: len(asked)] == asked:
        return True
    return len(asked) > 1 and said[1:] == asked[1:] and said[0] != asked[0]


def of_asked(asked: Subject, said: Subject) -> bool:
    """`said` is the asked subject, or its owner ("sam" for "sam" > "favorite sport")."""
    return said == asked[: len(said)]


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
    if asked is None or asked[0] in SPEAKERS:
        return list(ordered)
    head = list(ordered[:top])
    said = {c.id: said_of(c) for c in head}
    exact = [
        c
        for c in head
        if any(of_asked(asked, s) for s in said[c.id])
        or (len(asked) == 1 and asked[0] in names_of(c))
    ]
    others = {
        c.id
        for c in head
        if c not in exact and said[c.id] and all(of_another(asked, s) for s in said[c.id])
    }
    if not exact or not others:
        return list(ordered)
    floor = min(c.score for c in exact)
    moved = [replace(c, score=min(c.score, floor - STEP)) if c.id in others else c for c in head]
    return sorted(moved, key=sort_key) + list(ordered[top:])
