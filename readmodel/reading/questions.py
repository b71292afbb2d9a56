"""Who a question asks about, read by the subject stage: "Where does Olivia live?" asks
about ("olivia",), "What is Sam's favourite sport?" about ("sam", "favourite sport").

A question puts its question word and an auxiliary before its subject (a yes-no
question only the auxiliary: "Am I married?", "Does Dan work at Initech?"); what follows the
auxiliary is read as a clause's subject (with "is" after it when the auxiliary is a form
of "be", whose subject ends the question). After "do", "can" and the like the subject is
followed by its bare verb ("does Zoe work"), which is no part of it.
"""

from functools import lru_cache

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.subjects import read_subject
from readmodel.reading.words import normalise, tokens

QUESTION_WORDS = frozenset("what which who whom whose where when why how".split())
MAX_BEFORE_AUXILIARY = 4
"""Words of the question phrase ("how many hours", "which editor") before its auxiliary."""


@lru_cache(maxsize=1024)
def asked_subject(query: str) -> tuple[str, ...] | None:
    """The subject `query` asks about, or None for a text that is no question of this
    shape or whose subject cannot be read."""
    found = tokens(normalise(query).strip().rstrip("?").strip())
    if not found:
        return None
    if found[0].low in g.AUXILIARIES:
        first = 0  # a yes-no question: "Am I married?", "Does Dan work at Initech?"
    elif found[0].low in QUESTION_WORDS:
        first = 1
    else:
        return None
    for i in range(first, min(len(found), MAX_BEFORE_AUXILIARY + 1)):
        aux = found[i].low
        if aux not in g.AUXILIARIES:
            continue
        rest = " ".join(t.text for t in found[i + 1 :])
        if not rest:
            return None
        draft = read_subject(Draft(tokens(f"{rest} is" if aux in g.BE else rest)))
        if draft.unread is not None or not draft.subject:
            return None
        return _without_verb(draft.subject) if aux not in g.BE else draft.subject
    return None


def _without_verb(subject: tuple[str, ...]) -> tuple[str, ...]:
    """ "zoe work" -> "zoe": the bare verb after the subject of "does Zoe work"."""
    *owners, last = subject
    words = last.split()
    if len(words) > 1 and g.can_be_verb(words[-1]):
        return (*owners, " ".join(words[:-1]))
    return subject
