"""Value readers: from the words after a trigger ("lives in ...") to the value they name,
or "" when the words do not name a value of that kind ("moved to the front row" names
no place to live)."""

from collections.abc import Callable

from worker.consolidation import lexicon as lx
from worker.consolidation.slotvalues import (
    ARTICLES,
    EMAIL,
    PHONE,
    TEMPERATURE,
    cut_value,
    proper_value,
    temporal,
    words,
)

Reader = Callable[[str], str]
TITLE_ENDS = frozenset("at for in with since now and after these on who but".split())
NOT_ORGANISATIONS = frozenset(
    """home night nights weekends weekend the moment present least last first once times
    school""".split()
)


def proper(rest: str) -> str:
    return proper_value(rest)


def person(rest: str) -> str:
    name = proper_value(rest, max_words=3)
    first = name.split(" ", 1)[0] if name else ""
    if not first or first.lower() in ("the", "a", "an", "dr.", "dr"):
        return name if first.lower().startswith("dr") else ""
    return name


def organisation(rest: str) -> str:
    """A name ("Acme", "St. Mary's Hospital"), or a common noun after an article
    ("a bakery downtown"), but not a time ("at night") or a place in general ("at home")."""
    name = proper_value(rest)
    if name and name.split()[0].lower() not in ARTICLES:
        return name
    ws = rest.split()
    if not ws or ws[0].lower() not in ("a", "an", "the"):
        return ""
    value = cut_value(" ".join(ws[1:]), max_words=3)
    return "" if not value or value.split()[0].lower() in NOT_ORGANISATIONS else value


def phrase(rest: str) -> str:
    return cut_value(rest)


def clause(rest: str) -> str:
    """Everything up to the end of the clause: plans and retractions keep their words."""
    out = []
    for w in rest.split():
        out.append(w)
        if w[-1:] in ",;:!?" or (w.endswith(".") and len(w) > 3):
            break
        if len(out) >= 10:
            break
    return " ".join(out).strip(" ,;:.!?")


ENDED_STOPS = frozenset(
    "and but because so since after when while now anymore again these instead or for".split()
)


def ended(rest: str) -> str:
    """What a retraction names: up to a conjunction or "anymore" ("running the Chicago
    marathon", "make it to the Napa wedding")."""
    out = []
    for w in rest.split():
        if w.lower().strip(",;:.!?") in ENDED_STOPS or w.lower() == "any":
            break
        out.append(w)
        if w[-1:] in ",;:!?" or (w.endswith(".") and len(w) > 3) or len(out) >= 8:
            break
    return " ".join(out).strip(" ,;:.!?")


def title(rest: str) -> str:
    """A job title: words up to a preposition, ending in a job word ("head of analytics");
    none when it is a judgement of how the subject does a thing ("a hard worker", "a
    great teacher")."""
    ws = [w.strip(",;:!?.") for w in rest.split()[:8]]
    if ws and ws[0].lower() in ("a", "an", "the"):
        ws = ws[1:]
    out: list[str] = []
    for w in ws:
        if w.lower() in TITLE_ENDS:
            break
        out.append(w)
    if len(out) > 2 and out[0].lower() == "head" and out[1].lower() == "of":
        return " ".join(out[:4])
    while out and out[-1].lower() not in lx.JOB_NOUNS:
        out.pop()
    if out and out[0].lower() in lx.JUDGEMENTS:
        return ""
    return " ".join(out) if out else ""


def school(rest: str) -> str:
    name = proper_value(rest)
    return name if any(w.lower() in lx.SCHOOL_WORDS for w in words(name)) else ""


def vehicle(rest: str) -> str:
    """A car named by make or model; trailing plain words are dropped ("Volvo washed")."""
    ws = rest.split()
    if ws and ws[0].lower() in ("a", "an", "the", "my", "his", "her", "our", "their"):
        ws = ws[1:]
    out = cut_value(" ".join(ws), max_words=5).split()
    while out and not (out[-1][:1].isupper() or out[-1][:1].isdigit()):
        out.pop()
    return " ".join(out)


def diet(rest: str) -> str:
    first = rest.split(" ", 1)[0].strip(",;:.!?").lower() if rest.strip() else ""
    if first in lx.DIETS:
        return first
    return "omnivore" if rest.lower().startswith(("meat", "everything")) else ""


def commute(rest: str) -> str:
    """A way of getting about, one name for its words ("cycles", "biking", "bike" are
    "bike"; "drives" is "car"): empty for a word that names none ("by chance")."""
    word = rest.split(" ", 1)[0].strip(",;:.!?").lower() if rest.strip() else ""
    return lx.COMMUTE_MODES.get(word, "")


def shift(rest: str) -> str:
    """A shift, one name for its words ("nights", "the night shift" are "night")."""
    ws = rest.lower().split()
    first = ws[0].strip(",;:.!?") if ws else ""
    return lx.SHIFTS.get(first, "")


def date(rest: str) -> str:
    return temporal(rest)


def token(rest: str) -> str:
    first = rest.split(" ", 1)[0] if rest.strip() else ""
    return first.rstrip(".,;:!?") if len(first) > 3 else ""


def phone(rest: str) -> str:
    found = PHONE.search(rest[:40])
    return found.group(0) if found else ""


def email(rest: str) -> str:
    found = EMAIL.search(rest[:60])
    return found.group(0).rstrip(".") if found else ""


def temperature(rest: str) -> str:
    found = TEMPERATURE.search(rest[:30])
    return found.group(0) if found else ""
