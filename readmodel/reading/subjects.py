"""Stage 2, subject: who or what the clause is about, as a chain from owner to thing.

"Dan's wife" is ("dan", "wife"), "my neighbour's cat" ("i", "neighbour", "cat"), "the
auth service" ("auth service",) (its modifiers are part of who it is),
"user42" ("user42",), "José García" ("josé garcía",). A subject ends where its verb
group starts (an auxiliary, a negation, an adverb, or a word that can be a verb after
the head noun). "he"/"she"/"they" stand for the producer's one entity when it names one;
"I" for the speaker a "Name:" prefix names.
"""

from dataclasses import replace

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.statement import Named
from readmodel.reading.values import NUMBER_WORDS
from readmodel.reading.words import Token

_MAX_SUBJECT_WORDS = 5


def owner_of(word: str, draft: Draft) -> str:
    """Who a pronoun or possessive stands for: the speaker for "I", the producer's one
    entity for "he", "she", "they", "it"."""
    if word == "i" and draft.speaker:
        return draft.speaker
    if word in {"he", "she", "they", "it"} and len(draft.entities) == 1:
        return g.name_text(draft.entities[0])
    return word


def _ends_phrase(tokens: tuple[Token, ...], i: int, taken: int) -> bool:
    """Whether token `i` ends the noun phrase of `taken` words so far."""
    word = tokens[i].low
    if word in g.AUXILIARIES or word in g.NEGATIONS or word in g.ADVERBS or word == "'s":
        return True
    if word in g.FUNCTION_WORDS or not word[:1].isalnum():
        return True
    if taken == 0:
        return False
    following = tokens[i + 1].low if i + 1 < len(tokens) else ""
    if following in g.BE | g.HAVE | g.MODALS:
        return False
    if tokens[i].capitalised and tokens[i - 1].capitalised and not g.only_verb(word):
        return False
    if not g.can_be_verb(word):
        return False
    following = tokens[i + 1].text if i + 1 < len(tokens) else ""
    compound = g.can_be_noun(word) and g.verb_form(word) in {"VB", "VBP", "VBG"}
    if compound and (not following or g.can_be_verb(following)):
        return False
    after_modifier = g.verb_form(tokens[i - 1].low) == "VBG" and g.can_be_noun(word)
    modifier = (
        g.verb_form(word) == "VBG"
        and g.can_be_noun(word)
        and g.can_be_noun(following)
        and following.lower() not in g.FUNCTION_WORDS
    )
    return not (after_modifier or modifier)


def _phrase(tokens: tuple[Token, ...], i: int) -> tuple[list[str], int]:
    """The words of the noun phrase from `i`, and the index after it."""
    words: list[str] = []
    while (
        i < len(tokens)
        and len(words) < _MAX_SUBJECT_WORDS
        and not _ends_phrase(tokens, i, len(words))
    ):
        words.append(tokens[i].low)
        i += 1
    return words, i


def read_subject(draft: Draft) -> Draft:
    tokens = draft.tokens
    if not tokens:
        return replace(draft, unread="no words")
    first = tokens[0].low
    chain: list[str] = []
    used: set[int] = set()
    named: Named = ""
    i = 0
    if first in g.SUBJECT_PRONOUNS:
        chain.append(owner_of(g.SUBJECT_PRONOUNS[first], draft))
        used.add(0)
        i = 1
    else:
        if first in g.POSSESSIVES:
            chain.append(owner_of(g.POSSESSIVES[first], draft))
            used.add(0)
            i, named = 1, "owned"
        elif first in g.DETERMINERS:
            used.add(0)
            i, named = 1, "definite" if first in g.DEFINITE else ""
        while True:
            start = i
            words, i = _phrase(tokens, i)
            if not words:
                break
            phrase = " ".join(words)
            chain.append(g.name_text(phrase) if _is_name(tokens, start, i) else phrase)
            used.update(range(start, i))
            if i < len(tokens) and tokens[i].low == "'s":
                used.add(i)
                i += 1
                continue
            break
        owner = _of_owner(draft, i)
        if owner is not None and len(chain) == 1 and named != "owned" and _a_noun(chain[0]):
            chain = [*owner.subject, *chain]
            named = owner.named or named
            used.update(range(i, i + owner.subject_end))
            i += owner.subject_end
    if not chain or (len(chain) == 1 and first in g.POSSESSIVES):
        return replace(draft, unread="no subject")
    return replace(draft, subject=tuple(chain), subject_end=i, used=draft.used | used, named=named)


_OWNED_BY = frozenset({"of", "for"})


def _a_noun(phrase: str) -> bool:
    """A phrase whose head is no number: "two of our chickens" are chickens."""
    head = phrase.split()[-1]
    return head not in NUMBER_WORDS and not any(c.isdigit() for c in head)


def _of_owner(draft: Draft, i: int) -> Draft | None:
    """ "The status of the CRM rollout", "the manager of my team", "the deadline for
    Gannet": the owner after "of" or "for", read as a subject of its own (its length
    counting the preposition), so that the chain is the one "the CRM rollout's status"
    gives."""
    tokens = draft.tokens
    if i + 1 >= len(tokens) or tokens[i].low not in _OWNED_BY:
        return None
    after = tokens[i + 1]
    if after.low not in g.DEFINITE | frozenset(g.POSSESSIVES) and not after.capitalised:
        return None
    owner = read_subject(Draft(tokens[i + 1 :], draft.speaker, draft.entities))
    if owner.unread is not None or owner.subject_end >= len(tokens) - i - 1:
        return None
    return replace(owner, subject_end=owner.subject_end + 1)


def _is_name(tokens: tuple[Token, ...], start: int, end: int) -> bool:
    """A phrase of names ("José García", "user42"): kept whole, not cut to its head."""
    span = tokens[start:end]
    return all(t.capitalised or any(c.isdigit() for c in t.text) for t in span) or (
        len(span) == 1 and not g.lemmas(span[0].low)
    )
