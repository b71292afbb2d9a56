"""What a question asks for, and what a memory answers it with, read by the statement
reader (`readmodel.reading`): the question names the attribute, so no list of
attributes is needed.

A question asks for a value of a type its question words name ("how many": a number or
quantity; "when", "what date", "by when": a date or a time; "what time": a time; "what
percentage": a quantity), about what its content words name ("test coverage", "Zotero
library"). A memory answers it in the sentence that shares most of those words and
names a value of that type: long turns hold many facts, and only that sentence is read.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from readmodel.reading.draft import Draft
from readmodel.reading.frames import content_terms
from readmodel.reading.grammar import AUXILIARIES, can_be_noun, first_change_word
from readmodel.reading.statement import Value, ValueType
from readmodel.reading.values import UNIT_NAMES, read_values
from readmodel.reading.words import clauses, normalise, tokens
from readmodel.text import TEXT_CACHE_SIZE, stem

_ASKS: tuple[tuple[re.Pattern[str], frozenset[ValueType]], ...] = (
    (re.compile(r"\bwhat\s+time\b|\bat\s+what\s+time\b", re.I), frozenset({"time"})),
    (
        re.compile(
            r"\bhow\s+(?:many|much|long|often|old)\b|^\W*(?:what|which)\b.*\b(?:number|"
            r"percentage|percent|amount|count|total|quota|rate|rating|score|price|cost|average|"
            r"size|budget|salary|fee|rent|wage|income|balance)\b",
            re.I,
        ),
        frozenset({"number", "quantity"}),
    ),
    (
        re.compile(r"\bwhen\b|\b(?:what|which)\s+(?:date|day)\b|\bdeadline\b|\bdue\b", re.I),
        frozenset({"date", "time"}),
    ),
)
_QUESTION_WORDS = frozenset(
    """what which when where who whom whose why how many much long often old current
    currently now""".split()
)
_TYPE_WORDS = frozenset("time date day".split())
"""Words that only say which type of value is asked when they are part of the question
words ("what time", "which day"): they name no attribute."""
MAX_SENTENCES = 60
"""Sentences of one memory read for an answer: a long turn is read in full up to this."""


@dataclass(frozen=True)
class Question:
    """`types`: the value types that answer it; `about`: the content terms naming what it
    asks about."""

    types: frozenset[ValueType]
    about: frozenset[str]
    counted: str | None = None
    """What "how many" counts, by its stem ("problems": `problem`): a number counts it
    when that follows it ("12 conditional probability problems"), a quantity when it is
    its unit ("how many hours": "4 hours"); None when the question counts nothing named."""
    phrase: frozenset[str] = frozenset()
    """The terms of the other words of the phrase that names what is counted: the kind
    of problems ("classification" in "how many classification problems"), what hours
    are of ("sleep" in "how many hours of sleep")."""

    @property
    def needed(self) -> int:
        """Terms a sentence must share with the question to answer it: two when it names
        two or more (a pronoun is no term: every turn of a user says "my")."""
        return max(min(2, len(self.about)), -(-len(self.about) // 2))

    @property
    def needed_by_a_change(self) -> int:
        """Terms a sentence that says a change must share: a new value said in passing
        ("the new sprint deadline of April 5") names fewer of the question's words than
        the statement it replaces, and says that it replaces one."""
        return min(2, len(self.about))


_PERIODS: Final = {"daili": "day", "annual": "year"}
"""Stems of the two words of a period that the stemmer leaves apart from the period's
own ("daily", "annually"; "weekly", "monthly", "hourly" already stem to theirs): "the
daily call quota" asks what "1000 calls/day" says."""


def _term(term: str) -> str:
    return _PERIODS.get(term, term)


def _terms(sentence: str) -> frozenset[str]:
    found = tokens(sentence)
    return frozenset(
        _term(t)
        for i, tok in enumerate(found)
        for t in content_terms(tok.low, found[i - 1].low if i else "")
    )


@lru_cache(maxsize=1024)
def question(query: str) -> Question | None:
    """What `query` asks for, or None when its words name no type of value. Words of
    measure ("percentage", "count", "quota") name a number whatever they measure."""
    found = next(((m, t) for pattern, t in _ASKS if (m := pattern.search(query))), None)
    if found is None:
        return None
    match, types = found
    asking = {w.lower() for w in match.group(0).split()} & _TYPE_WORDS
    words = [
        t.low
        for t in tokens(normalise(query))
        if t.low not in _QUESTION_WORDS and t.low not in asking
    ]
    about = frozenset(
        _term(term) for w in words for term in content_terms(w) if not term.startswith("~")
    )
    counted, phrase = _counted(query)
    return Question(types, about, counted, phrase) if about else None


_HOW_MANY = re.compile(
    r"\bhow\s+many\s+((?:[\w'-]+\s+){0,4}?)([\w'-]+)\s+(?:"
    + "|".join(sorted(AUXILIARIES))
    + r")\b",
    re.I,
)
COUNTED_WINDOW = 3
"""Words after a number that may name what it counts ("12 conditional probability
problems")."""


def _counted(query: str) -> tuple[str | None, frozenset[str]]:
    """The stem of the noun "how many" counts: the last word before the verb that follows
    it ("how many conditional probability problems have I ..."), or None; and the terms
    of the phrase's other words."""
    found = _HOW_MANY.search(query)
    if found is None:
        return None, frozenset()
    words = [*found.group(1).lower().split(), found.group(2).lower()]
    head = words[words.index("of") - 1] if "of" in words[1:] else words[-1]
    if head in AUXILIARIES or not can_be_noun(head):
        return None, frozenset()
    rest = [w for w in words if w not in (head, "of")]
    return counted_stem(head), frozenset(_term(t) for w in rest for t in content_terms(w))


def counted_stem(word: str) -> str:
    """A counted noun's term: a unit by its normal name ("hours": `minute`), any other
    word by its stem."""
    unit = UNIT_NAMES.get(word)
    return unit[0] if unit is not None else stem(word)


Sentence = tuple[frozenset[str], tuple[tuple[str, str, frozenset[str], bool], ...], bool, str]
"""A sentence's content terms; its values, each with type, text, what it counts (the
stems of the words right after it, or a quantity's unit) and whether it is joined to the
next word as an adjective (`_JOINED`); whether it says a change; and its text."""


ANY: Final = "*"
"""What a value said as the new level of a change counts: whatever the sentence is about
("the number of mentees has increased to 7")."""
_RISEN = frozenset(
    """increased decreased rose risen grew grown dropped fell fallen climbed jumped went gone
    raised lowered cut bumped""".split()
)
_ABOUT = frozenset("about around roughly nearly over under".split())


def _counts(draft: Draft, start: int, end: int, value: Value) -> frozenset[str]:
    """What a value counts: a quantity its unit; a number the words right after it, or
    anything when it is what an amount rose or fell to (`ROSE_OR_FELL`)."""
    if value.type == "quantity":
        return frozenset({value.text.rsplit(" ", 1)[-1]})
    lows = [t.low for t in draft.tokens]
    before = start - 1
    if before >= 0 and lows[before] in _ABOUT:
        before -= 1
    if before >= 1 and lows[before] == "to" and _RISEN & set(lows[max(0, before - 3) : before]):
        return frozenset({ANY})
    return frozenset(counted_stem(low) for low in lows[end : end + COUNTED_WINDOW])


_JOINED = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)-[a-z]", re.I)
"""A number joined to the word after it, which it makes an adjective ("a 500-word
literature review section", "a 3-day trip"): what it counts is of what follows."""


ROSE_OR_FELL = re.compile(
    r"\b(?:increased|decreased|rose|risen|grew|grown|dropped|fell|fallen|climbed|jumped|"
    r"went (?:up|down)|gone (?:up|down)|raised|lowered|cut|bumped(?: up)?)\s+(?:\w+\s+)?to\s+"
    r"(?:about |around |roughly |nearly |over |under )?[$£€]?\d",
    re.I,
)
"""An amount said by what it rose or fell to ("has increased to 7", "went up to $950"): a
sentence that says a change, as a change word does."""


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _sentences(text: str) -> tuple[Sentence, ...]:
    out = []
    for sentence in clauses(normalise(text))[:MAX_SENTENCES]:
        found = tokens(sentence)
        draft = read_values(Draft(found))
        joined = {m.group(1).replace(",", "") for m in _JOINED.finditer(sentence)}
        values = tuple(
            (v.type, v.text, _counts(draft, start, end, v), v.text in joined)
            for start, end, v in draft.spans
        )
        change = first_change_word([t.low for t in found]) is not None
        change = change or bool(ROSE_OR_FELL.search(sentence))
        out.append((_terms(sentence), values, change, sentence))
    return tuple(out)


@dataclass(frozen=True)
class Answer:
    """The sentence of a memory that answers a question: the question's terms it shares,
    the values of the asked types it gives, and whether they count what the question
    counts (`Question.counted`; False when it counts nothing named)."""

    shared: frozenset[str]
    values: frozenset[str]
    counts: bool
    sentence: str = ""


def answering(asked: Question, text: str, newer: bool = False) -> Answer | None:
    """The sentence of `text` that answers `asked` (`answer`), or None when none does: of
    those sharing enough of its terms and giving a value of an asked type, one whose
    values count the asked thing first, then the one sharing the most terms. Its values
    are those counting the asked thing when some do. Read as the `newer` of two, a
    sentence that says a change, or that counts the very thing asked ("I secured 5
    interviews" for "how many interviews have I secured for producer roles"; the kind
    the question names too: "12 problems" are not "classification problems"), answers
    with fewer terms (`Question.needed_by_a_change`): a new count said in passing names
    fewer of the question's words than the statement it replaces."""
    best: Answer | None = None
    for terms, values, change, sentence in _sentences(text):
        shared = terms & asked.about
        typed = [(v, counts, joined) for t, v, counts, joined in values if t in asked.types]
        counting = frozenset(
            v for v, counts, _ in typed if asked.counted in counts or ANY in counts
        )
        direct = any(v in counting and not joined for v, _, joined in typed)
        short = newer and (change or (direct and asked.phrase <= terms))
        if len(shared) < (asked.needed_by_a_change if short else asked.needed) or not typed:
            continue
        found = Answer(
            shared, counting or frozenset(v for v, _, _ in typed), bool(counting), sentence
        )
        if best is None or (found.counts, len(shared)) > (best.counts, len(best.shared)):
            best = found
    return best


def answer(asked: Question, text: str, newer: bool = False) -> frozenset[str] | None:
    """The values of the asked types that `text` gives in the sentence sharing the most
    terms with the question (at least `asked.needed`), or None when none answers. Read
    as the `newer` of two, a sentence that says a change answers with fewer terms
    (`Question.needed_by_a_change`)."""
    found = answering(asked, text, newer)
    return found.values if found else None
