"""Stage 5, roles: a passive with its agent said ("is owned by the payments team") is
read with the agent as subject, as its active is ("the payments team owns ..."); what
the passive had as subject becomes what the verb acts on. What was done to a known thing
is the other way round: "the landlord raised the rent" is read as "the rent was raised
by the landlord", the thing as subject and its agent a content word.

Only a passive that names its agent is turned: "Dan is employed" has no other reading.
An act by an unnamed "they" ("they delayed the quarterly report until May 3") is said of
the thing by nobody named: "the quarterly report was delayed until May 3".
"""

from dataclasses import replace

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.statement import Value
from readmodel.reading.subjects import owner_of, read_subject


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


def _done(draft: Draft) -> bool:
    """Said as done (a past or a perfect): what was done to a known thing."""
    return draft.tense == "past" or draft.aspect == "perfect"


def _of_the_thing(draft: Draft) -> Draft:
    """A done act on a known thing (after "the" or a possessive) read as the thing's
    passive ("the board approved the budget" as "the budget was approved by the board").
    Its agent stays a content word of the clause (but an unnamed "they"), so that "we
    adopted the dog" and "they adopted the dog" are two facts."""
    tokens, at = draft.tokens, draft.verb_at + 1
    if not _done(draft) or draft.predicate in g.LIGHT_VERBS:
        return draft
    if at >= len(tokens) or tokens[at].low not in g.DEFINITE | frozenset(g.POSSESSIVES):
        return draft
    owner = g.POSSESSIVES.get(tokens[at].low)
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
        subject=(
            *((owner_of(owner, draft),) if owner else ()),
            g.name_text(" ".join(t.low for t in tokens[at + 1 : end])),
        ),
        named="owned" if owner else "definite",
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
    if draft.named == "definite" and _done(draft):
        return replace(
            draft,
            spans=spans,
            values=tuple(sorted(s[2] for s in spans)),
            used=draft.used | frozenset(agent_span),
            agent=() if agent.subject == ("they",) else _patient(agent)[1] or agent.subject,
        )
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
