"""Stage 6, frame: what is said of the subject, with subject and values masked, and the
content words that carry it; then the change cue and whether it is an episode or a state.

A pronoun or possessive outside the subject is content ("Alice is *my* manager" is not
"Alice is *your* manager"), and so is a preposition that contrasts ("near", "before",
"without"); the light ones ("at", "in", "by", "for") are not, so "works at" and "is
employed by" frame one fact.
"""

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.statement import Kind
from readmodel.text import stem

CONTRASTIVE = g.CONTRASTIVE
_OBJECT_PRONOUNS = {
    "me": "i",
    "us": "we",
    "him": "he",
    "them": "they",
    "you": "you",
    "her": "she",
    "myself": "i",
    "yourself": "you",
    "himself": "he",
    "herself": "she",
}


def content_terms(word: str, before: str = "") -> list[str]:
    """The content terms of a word, each with the role a contrasting preposition before
    it gives ("to:munich"); a hyphenated word is its parts ("rate-limited")."""
    role = f"{before}:" if before in g.ROLES else ""
    out = []
    for part in word.split("-") if "-" in word else [word]:
        term = content_word(part)
        if term is not None:
            out.append(role + term)
    return out


def content_word(word: str) -> str | None:
    """The content term a word outside the subject and values stands for, or None."""
    if word in g.POSSESSIVES:
        return f"~{g.POSSESSIVES[word]}"
    if word in _OBJECT_PRONOUNS:
        return f"~{_OBJECT_PRONOUNS[word]}"
    if word in CONTRASTIVE:
        return word
    if word in g.FUNCTION_WORDS or not word[:1].isalnum():
        return None
    return stem(word)


def read_frame(draft: Draft) -> tuple[str, frozenset[str]]:
    """The frame text and the content stems of a read clause."""
    starts = {start: (end, value) for start, end, value in draft.spans}
    masked: list[str] = []
    content: set[str] = set()
    i = 0
    while i < len(draft.tokens):
        low = draft.tokens[i].low
        if i < draft.subject_end:
            if not masked or masked[-1] != "<subject>":
                masked.append("<subject>")
            if i not in draft.used:
                content.update(content_terms(low))
        elif i in starts:
            end, value = starts[i]
            masked.append(f"<{value.type}>")
            i = end
            continue
        else:
            masked.append(low)
            if i not in draft.used:
                before = draft.tokens[i - 1].low if i > 0 else ""
                content.update(content_terms(low, before))
        i += 1
    content.update(t for w in draft.patient for t in content_terms(w))
    content.update(f"by:{w}" for w in draft.agent)
    return " ".join(masked), frozenset(content)


def change_cue(draft: Draft) -> str | None:
    """The first word after the subject that says a change (`grammar.first_change_word`):
    a word of the subject names what the clause is about ("the office move is delayed")."""
    return g.first_change_word([t.low for t in draft.tokens[draft.subject_end :]])


def kind_of(draft: Draft) -> Kind:
    """An episode is something that happened (a past, simple, non-copular clause); the
    rest are states."""
    if draft.tense == "past" and draft.aspect == "simple" and draft.predicate not in {"be", "have"}:
        return "episode"
    return "state"
