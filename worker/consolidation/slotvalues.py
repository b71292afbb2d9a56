"""Values of attributes: how they are cut out of a phrase and when two of them are the same.

A value is kept as short lowercase text. Two values are the same when the words of one are
contained in the other ("Roosevelt High" and "Roosevelt High School", "the Civic" and
"a 2015 Honda Civic"), unless they differ by a rank ("senior designer", "designer").
"""

import re
from functools import lru_cache

from readmodel.text import stem

WORD = re.compile(r"[^\W_][\w'’.@+-]*", re.UNICODE)
ARTICLES = frozenset("a an the my our his her their your its this that these those".split())
FILLER = frozenset(
    """a an the my our his her their your its of in on at to for and with by from is are was
    were be been it s one""".split()
)
RANKS = frozenset(
    """junior senior lead head chief principal staff assistant associate deputy vice
    executive trainee intern regional""".split()
)
TAIL_WORDS = frozenset(
    """now today these days lately nowadays again instead anymore too also still already
    recently since last this next for with because after before during until when while
    who which that where but so and or though although than every each near close""".split()
)
MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
COLOURS = frozenset(
    """red orange yellow green blue purple violet pink black white grey gray brown teal
    turquoise navy beige gold silver crimson""".split()
)
_MONTH = "|".join(MONTHS)
_DAY = "|".join(WEEKDAYS)
DATE = re.compile(
    rf"\b(?:(?:{_DAY})s?,?\s+)?(?:(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})(?:,?\s+\d{{4}})?"
    rf"|the\s+\d{{1,2}}(?:st|nd|rd|th)(?:\s+of\s+(?:{_MONTH}))?"
    rf"|(?:{_DAY})s?|(?:next|this)\s+(?:week|month|{_DAY})|tomorrow)\b",
    re.I,
)
TIME = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\bnoon\b", re.I
)
PHONE = re.compile(r"(?<![\w-])\+?\(?\d[\d ().-]{5,}\d(?![\w-])")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}\b")
"""An address whose domain ends in a name of letters: "bootstrap@5.3.0", a package at
a version, is not one."""
TEMPERATURE = re.compile(r"\b\d{1,2}(?:\.\d)?\s*(?:degrees|°\s*[cf]?|deg)\b", re.I)
AMOUNT = re.compile(r"[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:mg|ml|g|kg|dollars|euros|pounds)\b", re.I)
NUMBER = re.compile(r"\b\d[\d,.]*\b")


def words(text: str) -> list[str]:
    return [w.strip(".,;:!?'’").replace("’", "'") for w in WORD.findall(text)]


@lru_cache(maxsize=65536)
def value_terms(value: str) -> frozenset[str]:
    """The words that identify a value: lowercase, stemmed, without articles and filler."""
    out = set()
    for w in words(value.lower()):
        w = w[:-2] if w.endswith("'s") else w
        if sum(c.isdigit() for c in w) >= 5:
            w = re.sub(r"\D", "", w)
        if w and w not in FILLER:
            out.add(stem(w) if w.isalpha() else w)
    return frozenset(out)


def same_value(a: str, b: str) -> bool:
    """Equal, or one names the other more fully; a rank word on one side only differs."""
    ta, tb = value_terms(a), value_terms(b)
    if not ta or not tb:
        return a.strip().lower() == b.strip().lower()
    if not (ta <= tb or tb <= ta):
        return False
    return not ((ta ^ tb) & {stem(r) for r in RANKS})


def ended_terms(value: str, attribute: str) -> frozenset[str]:
    """The words of a stated value that a retraction must name to end it (`ends`): the
    value's, and for tastes the attribute's."""
    tv = value_terms(value)
    if attribute.startswith("taste:"):
        tv |= value_terms(attribute[6:])
    return tv


def ends(ended: str, value: str, attribute: str) -> bool:
    """Whether "no longer / quit / sold X" with X = `ended` retracts a fact with this value:
    most of X's words are in the value (or in the attribute, for tastes and plans)."""
    te = value_terms(ended)
    if not te:
        return False
    shared = te & ended_terms(value, attribute)
    return bool(shared) and 2 * len(shared) >= len(te)


def cut_value(phrase: str, max_words: int = 6) -> str:
    """The value at the start of `phrase`: up to a clause boundary or a trailing modifier."""
    out: list[str] = []
    for raw in phrase.split():
        w = raw.strip(',;:!?()"')
        if not w:
            break
        low = w.lower().rstrip(".")
        if out and (low in TAIL_WORDS or low in ("in", "on", "at", "to", "from", "as", "by")):
            break
        out.append(w)
        if raw[-1:] in ",;:!?" or (raw.endswith(".") and not _abbreviation(raw)):
            break
        if len(out) >= max_words:
            break
    return " ".join(out).strip(" .")


def _abbreviation(word: str) -> bool:
    return word.lower().rstrip(".") in {"st", "dr", "mr", "ms", "mrs", "co", "inc", "ltd", "jr"}


def proper_value(phrase: str, max_words: int = 6) -> str:
    """A capitalised name at the start of `phrase` ("St. Mary's Hospital", "Petal & Co.",
    "Rio de Janeiro"): empty when the phrase does not start with one."""
    out: list[str] = []
    for raw in phrase.split():
        w = raw.strip(',;:!?()"')
        if not w:
            break
        capital = w[0].isupper() or w[0].isdigit() or w in ("&", "de", "del", "da", "of", "la")
        if not capital:
            break
        out.append(w)
        if raw[-1:] in ",;:!?" or (raw.endswith(".") and not _abbreviation(raw)):
            break
        if len(out) >= max_words:
            break
    while out and out[-1] in ("&", "de", "del", "da", "of", "la"):
        out.pop()
    return " ".join(out).strip(" .")


def is_valuey(value: str) -> bool:
    """A value worth a slot of an unknown attribute: a name, a number, a date, a colour."""
    if not value:
        return False
    if any(c.isdigit() for c in value) or EMAIL.search(value):
        return True
    first = value.split()[0]
    if first[0].isupper() and first.lower() not in ARTICLES:
        return True
    return any(w.lower() in COLOURS or w.lower() in WEEKDAYS for w in words(value))


def temporal(phrase: str) -> str:
    """The date and time named at the start of `phrase` ("Thursday, March 14 at 10am")."""
    head = phrase[:60]
    spans = [m for m in (*DATE.finditer(head), *TIME.finditer(head)) if m.start() < 40]
    if not spans:
        return ""
    return " ".join(m.group(0) for m in sorted(spans, key=lambda m: m.start()))
