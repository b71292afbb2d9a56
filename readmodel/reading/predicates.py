"""Stage 3, predicate: the verb group after the subject, read for its main verb, tense,
aspect, voice and polarity.

"is employed by" is the passive of "employ"; "was living" the past progressive of
"live"; "is my manager" the copula "be"; "started running" the start of "run"; "no
longer eats" and "hates" negative; "might try" modal (said as possible, not as so). A
clause with no verb after its subject is not read.
"""

from dataclasses import replace

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.statement import Aspect, Tense


def _tense_of(auxiliaries: list[str], form: str, future: bool) -> Tense:
    if future or any(a in g.FUTURE for a in auxiliaries):
        return "future"
    if auxiliaries:
        return "past" if auxiliaries[0] in g.PAST_AUXILIARIES else "present"
    return "past" if form in {"VBD", "VBN"} else "present"


def _aspect_of(auxiliaries: list[str], form: str) -> Aspect:
    if any(a in g.HAVE for a in auxiliaries) and form in {"VBN", "VBD"}:
        return "perfect"
    if any(a in g.BE for a in auxiliaries) and form == "VBG":
        return "progressive"
    return "simple"


def _month(word: str, auxiliaries: list[str]) -> bool:
    """ "May" after a form of "be" is the month ("the deadline is May 3"): no modal."""
    return word == "May" and bool(auxiliaries) and auxiliaries[-1] in g.BE


def read_predicate(draft: Draft) -> Draft:
    tokens, i = draft.tokens, draft.subject_end
    auxiliaries: list[str] = []
    used = set(draft.used)
    negative = future = habitual = False
    while i < len(tokens):
        word = tokens[i].low
        following = tokens[i + 1].low if i + 1 < len(tokens) else ""
        if word in g.AUXILIARIES and not _month(tokens[i].text, auxiliaries):
            auxiliaries.append(word)
        elif word in g.PASSIVE_GET and g.verb_form(following) in {"VBN", "VBD"}:
            auxiliaries.append("was" if word == "got" else "is")
        elif word in g.NEGATIONS:
            negative = True
            if following in {"longer", "more"}:
                used.add(i + 1)
                i += 1
        elif word in {"used", "going"} and following == "to":
            habitual, future = word == "used", word == "going"
            used.add(i + 1)
            i += 1
        elif word not in g.ADVERBS:
            break
        used.add(i)
        i += 1
    verb_at, form = i, ""
    if i < len(tokens) and g.can_be_verb(tokens[i].text):
        form = g.verb_form(tokens[i].low)
        after_be = bool(auxiliaries) and auxiliaries[-1] in g.BE
        if after_be and form not in {"VBN", "VBG", "VBD"}:
            form = ""
        if auxiliaries and auxiliaries[-1] in g.HAVE and form not in {"VBN", "VBD"}:
            form = ""
    if not form and not auxiliaries:
        return replace(draft, unread="no verb after the subject", used=frozenset(used))
    if form:
        predicate = g.verb_lemma(tokens[verb_at].low)
        used.add(verb_at)
    else:
        verb_at = i - 1
        predicate = g.verb_lemma(auxiliaries[-1])
        auxiliaries = auxiliaries[:-1]
        form = g.verb_form(tokens[verb_at].low) or "VBP"
    passive = form in {"VBN", "VBD"} and any(a in g.BE for a in auxiliaries)
    tense = "past" if habitual else _tense_of(auxiliaries, form, future)
    aspect: Aspect = "habitual" if habitual else _aspect_of(auxiliaries, form)
    nxt = verb_at + 1
    if predicate in g.STARTING | g.ENDING | g.CONTINUING and nxt < len(tokens):
        if tokens[nxt].low == "to" and nxt + 1 < len(tokens):
            nxt += 1
        if g.can_be_verb(tokens[nxt].text) and g.verb_form(tokens[nxt].low) in {"VBG", "VB", "VBP"}:
            aspect = "starting" if predicate in g.STARTING else "ending"
            if predicate in g.CONTINUING:
                aspect = "simple"
            used.update(range(verb_at, nxt + 1))
            predicate, verb_at = g.verb_lemma(tokens[nxt].low), nxt
    if predicate in g.NEGATIVE_AFFECT:
        negative = not negative
    return replace(
        draft,
        verb_at=verb_at,
        predicate=predicate,
        tense=tense,
        aspect=aspect,
        polarity="negative" if negative else "positive",
        passive=passive,
        modal=any(a in g.MODALS - g.FUTURE for a in auxiliaries),
        used=frozenset(used),
    )
