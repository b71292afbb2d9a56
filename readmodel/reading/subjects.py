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
from readmodel.reading.words import Token

_MAX_SUBJECT_WORDS = 5


def _owner(word: str, draft: Draft) -> str:
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
    i = 0
    if first in g.SUBJECT_PRONOUNS:
        chain.append(_owner(g.SUBJECT_PRONOUNS[first], draft))
        used.add(0)
        i = 1
    else:
        if first in g.POSSESSIVES:
            chain.append(_owner(g.POSSESSIVES[first], draft))
            used.add(0)
            i = 1
        elif first in g.DETERMINERS:
            used.add(0)
            i = 1
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
    if not chain or (len(chain) == 1 and first in g.POSSESSIVES):
        return replace(draft, unread="no subject")
    return replace(draft, subject=tuple(chain), subject_end=i, used=draft.used | used)


def _is_name(tokens: tuple[Token, ...], start: int, end: int) -> bool:
    """A phrase of names ("José García", "user42"): kept whole, not cut to its head."""
    span = tokens[start:end]
    return all(t.capitalised or any(c.isdigit() for c in t.text) for t in span) or (
        len(span) == 1 and not g.lemmas(span[0].low)
    )
