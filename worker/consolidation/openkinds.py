"""Kinds of value: what a change said by its new value alone replaces.

"Pavel has switched to netball" names no frame: only that something of Pavel's is now
netball. What it replaces is the one value of Pavel's of the same kind, a sport ("Pavel
plays volleyball on weekends"). A kind is known here by its members, words of the world
(languages, sports, drinks, phones, ways of getting about), not by how a statement about
them is phrased: the frame they sit in may be any ("is learning _", "'s class is _",
"practises _ on Tuesdays").

The members are single words or short phrases, matched whole on the token sequence
`openwords.tokens` gives ("e-scooter", "iphone").
"""

import re
from functools import lru_cache
from typing import Final

from worker.consolidation import lexicon as lx
from worker.consolidation.openframes import AUXILIARIES as AUX
from worker.consolidation.openframes import CLAUSE_CACHE_SIZE, Clause
from worker.consolidation.openwords import SUBJECT

KINDS: Final[dict[str, frozenset[str]]] = {
    "language": lx.LANGUAGES,
    "sport": frozenset(
        """tennis squash badminton pickleball padel football soccer rugby cricket baseball
        basketball volleyball netball handball hockey golf swimming cycling running
        climbing bouldering rowing kayaking surfing skiing snowboarding skating boxing
        judo karate taekwondo fencing archery yoga pilates crossfit triathlon polo
        lacrosse softball frisbee bowling darts snooker pool croquet curling""".split()
    )
    | {"water polo", "table tennis", "ultimate frisbee", "five-a-side football", "ping pong"},
    "drink": frozenset(
        """coffee tea espresso americano americanos latte lattes cappuccino cappuccinos
        cortado cortados macchiato mocha mochas matcha chai rooibos decaf cocoa
        kombucha""".split()
    )
    | {
        "flat white",
        "flat whites",
        "cold brew",
        "green tea",
        "black tea",
        "mint tea",
        "herbal tea",
        "black coffee",
        "iced coffee",
        "hot chocolate",
        "oat milk lattes",
        "iced mochas",
        "decaf americanos",
    },
    "phone": frozenset(
        """iphone pixel galaxy oneplus fairphone moto motorola nokia xperia xiaomi huawei
        blackberry""".split()
    ),
    "transport": frozenset(
        """bike bicycle train bus car tram ferry subway metro tube e-scooter scooter
        motorbike motorcycle moped""".split()
    ),
}
LONGEST: Final = 3
"""The most words a member has."""


ADVERBS = frozenset("only mostly mainly usually just generally always normally".split())
HOLDING: Final[dict[str, frozenset[str]]] = {
    "language": frozenset(
        """learn learns learning study studies studying practise practises practising practice
        practices practicing take takes taking do does doing""".split()
    ),
    "sport": frozenset(
        """play plays playing do does doing into practise practises practising practice
        practices practicing train trains training""".split()
    ),
    "drink": frozenset(
        """drink drinks drinking have has having order orders ordering get gets getting on
        into""".split()
    ),
    "phone": frozenset("use uses using have has got own owns carry carries on".split()),
    "transport": frozenset(
        "take takes taking ride rides riding catch catches catching get gets getting use uses "
        "using".split()
    ),
}
"""The verbs that say a value of the kind is the subject's current one: "<s> does judo"
and "<s> is into fencing now" say one sport; "<s> speaks Spanish" and "<s> is learning
Japanese" are not one language."""
LEADS = frozenset("a an the in at on to with for by from".split())
SWITCH = re.compile(r"^(?:switched|swapped|changed|moved|gone|went)$")
TAKEN_UP = frozenset({"took", "taken", "picked"})


def _at(words: tuple[str, ...], start: int) -> tuple[str, tuple[str, ...]] | None:
    """The member starting at `start` (after leading articles and one preposition, and
    with one qualifying word: "oat lattes") with the names or numbers that follow it
    ("galaxy s22"), and its kind."""
    while start < len(words) and words[start] in LEADS:
        start += 1
    for first in (start, start + 1):
        if first > start and (first >= len(words) or words[start] not in MODIFIERS):
            break
        for k in range(min(LONGEST, len(words) - first), 0, -1):
            span = words[first : first + k]
            kind = next((n for n, members in KINDS.items() if " ".join(span) in members), None)
            if kind is not None:
                end = first + k
                while end < len(words) and any(ch.isdigit() for ch in words[end]):
                    end += 1
                return kind, words[start:end]
    return None


MODIFIERS = frozenset("oat soy almond skim skimmed iced decaf hot cold double single".split())
"""Words that qualify a member without making another ("oat lattes" is lattes)."""


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def object_kind(c: Clause) -> tuple[str, tuple[str, ...]] | None:
    """The kind and span of the clause's object when it is a member: right after its
    verb ("<s> plays volleyball on weekends", "<s> is learning korean", "<s> takes an
    e-scooter to work") or after "is" of a noun of the subject ("<s> 's usual drink is
    mint tea"). A member elsewhere ("<s> meets friends for coffee") says no value."""
    w = c.words
    if len(w) < 3 or w[0] != SUBJECT or c.markers:
        return None
    if w[1] == "'s":
        cut = next((i for i in range(2, min(len(w), 6)) if w[i] in ("is", "are")), None)
        return _at(w, cut + 1) if cut is not None else None
    i = 1
    while i < len(w) and w[i] in AUX | ADVERBS:
        i += 1
    if i >= len(w) or SWITCH.match(w[i]):
        return None
    return _at(w, i + 1)


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def held(c: Clause) -> tuple[str, tuple[str, ...]] | None:
    """ "<s> is into fencing", "<s> only drinks tea": the clause's object is a member and
    its verb one that says it is the subject's current value of that kind (`HOLDING`), or
    the value of a noun of the subject's ("<s> 's phone is an iphone 12")."""
    found = object_kind(c)
    if found is None or c.words[1] == "'s":
        return found
    at = c.words.index(found[1][0])
    before = c.words[1:at]
    after = c.words[at + len(found[1]) : at + len(found[1]) + 1]
    return found if set(before) & HOLDING[found[0]] or set(after) & FANS else None


FANS = frozenset("drinker drinkers person people fan fans lover lovers addict player".split())
"""A member said as what the subject is a lover of: "<s> 'm a coffee drinker", "a tea
person"."""


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def switched_to(c: Clause) -> tuple[str, tuple[str, ...]] | None:
    """ "<s> (has) switched to netball", "<s> 's taken up padel (instead)": a change named
    by its new value alone, a member, and nothing else said, with a change word; its kind
    and span."""
    w = c.words
    if len(w) < 4 or w[0] != SUBJECT or c.markers or c.cue is None:
        return None
    i = 1
    while i < len(w) and w[i] in AUX:
        i += 1
    if i + 1 >= len(w) or (
        (w[i + 1] != "to" or not SWITCH.match(w[i])) and (w[i + 1] != "up" or w[i] not in TAKEN_UP)
    ):
        return None
    found = _at(w, i + 2)
    if found is None:
        return None
    start = len(w) - len(found[1])
    return found if w[start:] == found[1] else None
