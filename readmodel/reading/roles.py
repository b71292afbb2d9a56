"""Stage 5, roles: a passive with its agent said ("is owned by the payments team") is
read with the agent as subject, as its active is ("the payments team owns ..."); what
the passive had as subject becomes what the verb acts on.

Only a passive that names its agent is turned: "Dan is employed" has no other reading.
The converse: an active whose subject is an unnamed "they" and whose object is a known
thing ("they delayed the quarterly report until May 3") is read as its passive ("the
quarterly report was delayed until May 3"): what is said is of the thing, by nobody named;
so is an act of "we", or of anyone that moved a thing to a date, with its agent kept.
"""

from dataclasses import replace

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.statement import Value
from readmodel.reading.subjects import read_subject


def _patient(draft: Draft) -> tuple[tuple[Value, ...], tuple[str, ...]]:
    """The passive's subject as what the verb acts on: a name is a name value, anything
    else the words of its chain (an owner as "~i")."""
    chain = draft.subject
    if len(chain) == 1 and draft.tokens[0].capitalised and draft.tokens[0].low not in g.DETERMINERS:
        return (Value("name", chain[0]),), ()
    words = []
    for part in chain:
        if part in g.SUBJECT_PRONOUNS.values():
            words.append(f"~{part}")
        else:
            words.extend(part.split())
    return (), tuple(words)


_MAX_THING_WORDS = 4


def _of_the_thing(draft: Draft) -> Draft:
    """An act on a known thing read as the thing's passive: by an unnamed "they" or "we",
    or by anyone when it moved the thing to a date ("the client moved the review to June
    9"). An agent other than "they" stays a content word of the clause, so that "we
    adopted the dog" and "they adopted the dog" are two facts."""
    tokens, at = draft.tokens, draft.verb_at + 1
    if draft.tense != "past" and draft.aspect != "perfect":
        return draft
    unnamed = draft.subject in {("they",), ("we",)}
    moved = any(v.type == "date" and v.role in g.MOVED_TO for v in draft.values)
    if not unnamed and not moved:
        return draft
    if at >= len(tokens) or tokens[at].low not in g.DEFINITE:
        return draft
    end = at + 1
    while end < len(tokens) and end - at <= _MAX_THING_WORDS:
        low = tokens[end].low
        if low in g.FUNCTION_WORDS or low in g.PARTICLES or not low[:1].isalnum():
            break
        end += 1
    if end == at + 1:
        return draft
    span = set(range(at, end))
    spans = tuple(s for s in draft.spans if s[0] not in span)
    return replace(
        draft,
        subject=(g.name_text(" ".join(t.low for t in tokens[at + 1 : end])),),
        named="definite",
        spans=spans,
        values=tuple(sorted(s[2] for s in spans)),
        used=draft.used | frozenset(span),
        passive=True,
        agent=() if draft.subject == ("they",) else _patient(draft)[1] or draft.subject,
    )


def read_roles(draft: Draft) -> Draft:
    if not draft.passive:
        return _of_the_thing(draft)
    tokens = draft.tokens
    by = next((i for i in range(draft.verb_at + 1, len(tokens)) if tokens[i].low == "by"), None)
    if by is None or by + 1 >= len(tokens):
        return draft
    agent = read_subject(Draft(tokens[by + 1 :], draft.speaker, draft.entities))
    if agent.unread is not None:
        return draft
    end = by + 1 + agent.subject_end
    agent_span = set(range(by, end))
    spans = tuple(s for s in draft.spans if s[0] not in agent_span)
    values, words = _patient(draft)
    spans = (*spans, *((-1, -1, v) for v in values))
    return replace(
        draft,
        subject=agent.subject,
        spans=spans,
        values=tuple(sorted(s[2] for s in spans)),
        patient=words,
        used=draft.used | frozenset(agent_span),
        passive=False,
    )
