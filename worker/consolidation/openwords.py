"""The words the open reading knows: of time and mood, of change, and how text is split.

No attribute and no value is named here: these are the words that make a clause not a
current fact (a plan, a past, a negation, a one-off, an addition), the change words that
count as evidence, and the qualifiers that say nothing about the value ("my new dentist").
"""

import re
from functools import lru_cache

from readmodel.text import STOPWORDS, TEXT_CACHE_SIZE

MAX_TOKENS = 40
SUBJECT = "<s>"
WORD = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*|'[a-z]+|\?")
NOISE = frozenset(
    """now just currently nowadays actually still new lately recently officially finally
    honestly apparently""".split()
)
"""Words that qualify a statement without changing what it says ("my new dentist")."""
CUES = re.compile(
    r"\b(?:now|nowadays|these days|new|switched|switches|moved|moves|changed|changes|"
    r"anymore|any more|no longer|instead|rather than|as of|update|updated|became|"
    r"pushed back|postponed|delayed|extended|rescheduled|brought forward|took over|"
    r"replaced|from now on|cancell?ed|scrapped|called off|shelved|paused|resumed)\b"
)
ALSO = r"also|too|as well|in addition"
"""Words that say a value is one more, beside the older."""
MARKERS: dict[str, re.Pattern[str]] = {
    "negated": re.compile(r"\b(?:not|never|nobody|neither|nor|no)\b|n't\b"),
    "hypothetical": re.compile(
        r"\b(?:might|(?<!since )(?<!in )(?<!until )(?<!till )(?<!by )(?<!from )(?<!to )(?<!of )"
        r"(?<!early )(?<!mid )(?<!late )(?<!this )(?<!next )may(?! \d)(?!\s*[.,;!?]|$)|"
        r"could|would|should|if|maybe|perhaps|thinking|considering|"
        r"planning|hopes?|hoping|wants?|wish|almost|nearly|supposed|someday|whether|rumou?rs?|"
        r"next|tempted|looking at|test-drove|going to)\b"
    ),
    "past": re.compile(
        r"\b(?:ago|used to|former|formerly|previously|back in|before that|as a (?:student|kid)|"
        r"in (?:college|high school|school)|childhood|grew up|last (?:year|spring|summer|"
        r"autumn|fall|winter|month)|(?:was|were|had)(?! (?:extended|moved|pushed|postponed|"
        r"rescheduled|cancelled|changed|replaced|delayed|brought)))\b"
    ),
    "temporary": re.compile(
        r"\b(?:(?<!as of )today|tonight|this week|this weekend|for the weekend|for (?:a|one) week|"
        r"borrowed|covering|tried|trying|just this once|for a conference|visiting|trip|"
        r"holiday|vacation)\b"
    ),
    "additive": re.compile(rf"\b(?:{ALSO}|second|another|on top of)\b"),
}
"""A clause with any of these is not a current value of its subject: it neither replaces
nor is replaced by comparing frames."""
PRESUPPOSED = re.compile(r"^(?:since|now that|as(?! of\b)|because|given that)\b,?\s*", re.I)


def tokens(text: str) -> list[str]:
    return WORD.findall(text.lower().replace("’", "'").replace("'s ", " 's "))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def markers(text: str) -> frozenset[str]:
    """Which of `MARKERS` the text has: asked of each clause and again of its sentence by
    several readings, so remembered per text."""
    low = text.lower().replace("’", "'")
    return frozenset(name for name, pattern in MARKERS.items() if pattern.search(low))


def content(words: tuple[str, ...] | list[str]) -> list[str]:
    return [w for w in words if w not in STOPWORDS and w not in NOISE and w[0] not in "'<?"]


def cue_of(sentence: str) -> str | None:
    found = CUES.search(sentence.lower())
    return found.group(0) if found else None


def verb_stem(word: str) -> str:
    """A verb's form without its ending, so that its forms meet: "running", "runs", "run"
    -> "run"; "lives", "living", "live" -> "liv"."""
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
            word = word[:-1]
    elif word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif (len(word) > 3 and word.endswith("es") and word[-3] in "sxz") or word.endswith(
        ("ches", "shes")
    ):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word
