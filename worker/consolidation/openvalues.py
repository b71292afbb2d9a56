"""Values a sentence names as over.

Endings are constructions, not attributes: "from X to", "instead of X", "used to ... X",
"stopped ... X", "X left", "with X gone", "no longer has a X", "no longer works at X",
"isn't X anymore", "doesn't drink X anymore", "traded X for", "replaced X with" (or
"as"), "separated from X", "took over from X", "prefers ... over X". Pure functions of
one sentence.
"""

import re
from dataclasses import dataclass

from worker.consolidation.openwords import (
    content,
    markers,
    tokens,
)

ENDED_BEFORE = re.compile(
    r"\b(?P<how>instead of|rather than|[,;] not|used to (?:be|have|[a-z]+)|"
    r"stopped(?: being| seeing| [a-z]+ing)?|gave up(?: on)?|no more|"
    r"quit(?: (?:my|his|her|their) job at)?|got rid of|sold|fired|"
    r"dropped(?! (?:off|by|in|out|back|down)\b| (?:the|my|his|her|their) (?:kids?|children|"
    r"son|daughter|phone|keys|ball)\b)|"
    r"cancell?ed(?: (?:my|his|her|their) membership at)?|(?:haven't|hasn't) [a-z]+|"
    r"(?:'m|am|'s|is|'re|are) off|"
    r"no longer(?: (?:has|have|is|are|[a-z]+s(?= (?:in|at|for|with|to|on|from|by|a|an|the)\b)))?|"
    r"(?:doesn't|don't) have|(?:split|broke) up with|(?:split|separated) from|"
    r"divorced(?! (?:the|a|an|my|his|her|their|our)\b)|"
    r"(?:(?:doesn't|don't) [a-z]+|isn't|is not|aren't|are not|'m not|am not)"
    r"(?=[^,;.!?:]* any ?more\b)|took over from|"
    r"(?:traded|swapped|exchanged)(?: in)?(?=[^,;.!?:]* for\b)|"
    r"replaced(?=[^,;.!?:]* (?:with|as (?:my|his|her|their|our|[a-z]+'s))\b)|"
    r"prefers? [^,;.!?:]+? over)"
    r"\s+(?P<x>[^,;.!?:]+)"
)
FROM_TO = re.compile(
    r"\b(?:switched|switching|moved|moving|changed|changing|went|upgraded|downgraded|"
    r"transferred|shifted)\b[^,;.!?:]{0,30}?\b(?P<how>from(?: being)?) (?P<x>[^,;.!?:]+?) to\b"
)
"""A change from one value to another: "switched from X to", not a range ("everything from
the food to the history")."""
ENDED_AFTER = re.compile(
    r"(?P<x>[^,;.!?:]+?)\s+(?P<how>got married and moved away|moved out|moved away|retired|"
    r"passed away|died(?! (?:down|out|off|of laughter)\b)|"
    r"is long gone|is gone|gone|is a thing of the past|is history|is over|"
    r"(?:left|quit)(?=\s*(?:$|[,;.]|\s(?:so|and)\b))|"
    r"(?:left|quit) (?:the (?:company|firm|team|practice|surgery|clinic|business|department|"
    r"country|area|city)(?! (?:chat|meeting|call|channel|group|thread|room|party|event|"
    r"building|office|lunch|dinner)\b)|(?:his|her|their) (?:job|post|practice))|resigned|"
    r"stepped down|"
    r"emigrated|moved abroad)"
)
ENDED_AFTER_WORDS = (
    "moved", "retired", "passed away", "died", "gone", "is a thing of the past",
    "is history", "is over", "left", "quit", "resigned", "stepped down", "emigrated",
)  # fmt: skip
"""A word each ending `ENDED_AFTER` reads holds: a sentence with none is not searched
(its open start makes the search try every word of the sentence as the value's first)."""
DECLARED = re.compile(
    r"\b(?P<how>(?:switched|changed|swapped) (?P<x>[a-z]{3,}s))\b(?! (?:with|for)\b)"
)
"""A change declared by its noun in the plural ("switched dentists", "changed gyms"): the
noun's value is over, whatever the new one is (`openupdates.ended_value` reads it only of
a clause "<s> 's N is _" of that noun)."""
PAIR_ENDED = re.compile(
    r"\b(?P<a>[a-z]+) and (?P<b>[a-z]+) (?:(?:split|broke) up|(?:got )?divorced|separated)\b"
    r"(?! (?:the|a|an|my|his|her|their|our)\b)"
)
"""A couple that broke up, split up, divorced or separated ("separated the recycling" is
something done, not a couple)."""
LEAD = frozenset("in at on to with the a an my his her their our being for of as".split())
STOP = frozenset(
    """to for and but so in on at now from since after instead last this anymore any these
    it 's is are was were has have with as""".split()
)
BOUNDARY = frozenset("with after since so and now that because while when".split())
ENDING_ONLY = re.compile(
    r"^(?:quit|got rid|sold|fired|cancel|dropped|no longer|doesn't|don't|isn't|is not|aren't|"
    r"are not|"
    r"'m off|am off|'s off|is off|'re off|are off|"
    r"'m not|am not|got married|moved out|passed away|died|"
    r"moved away|retired|is long gone|is gone|gone|is a thing|is history|is over|left|"
    r"resigned|stepped down|emigrated|moved abroad|"
    r"broke up|split up|split from|separated|divorced)"
)
"""Endings that give no new value: the older one is invalidated, not evolved."""
LEAVING = re.compile(
    r"^(?:moved out|moved away|retired|left|quit|resigned|stepped down|emigrated|moved abroad|"
    r"got married and moved away|(?:left|quit) the [a-z]+|(?:left|quit) (?:his|her|their) "
    r"[a-z]+)$"
)
"""Endings of a person's own that end what they were to others: "Oskar moved out" ends
"Pavel lives with Oskar", "Keith retired" ends "my manager is Keith"."""
LEFT_WHAT = re.compile(r"\s+(?P<what>of|from|as|for|into|to|in with|the|a|an|his|her|their)\b")
"""What a leaving says it left, when it is not the whole of it: "moved out of the spare
room", "retired from football", "stepped down as captain", "moved out for the summer"."""
UNDONE = re.compile(
    r"\b(?:but|then|though|until|before)\b[^.;!?]*\b(?:stay|stayed|staying|stays|back|"
    r"changed (?:his|her|their) mind|reconsidered|returned|came back|isn't true|wasn't true|"
    r"not true|still)\b|\b(?:just|only) (?:kidding|joking)\b|"
    r"\b(?:rejoined|rehired|re-hired|reinstated|came back|moved back|went back)\b"
)
"""A leaving taken back in the same sentence ("Keith resigned, but he changed his mind and
stayed", "Oskar moved out, then moved back in", "Keith quit, just kidding")."""


def _left_how(m: re.Match[str], sentence: str) -> str:
    """The ending's words, with what a leaving left when it is not the whole of it, or
    "but" when the sentence takes it back (so that neither is read as one who left)."""
    how = m.group("how")
    if not LEAVING.match(how):
        return how
    rest = sentence[m.end() :]
    what = LEFT_WHAT.match(rest)
    if what:
        return f"{how} {what.group('what')}"
    return f"{how} but" if UNDONE.search(rest) else how


MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
DATE = re.compile(
    rf"\b(?:(?:{MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{MONTHS})|"
    r"\d{4}-\d{2}-\d{2}|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)


@dataclass(frozen=True)
class Ending:
    """`span`: the value named as over; `how`: the words that say so; `after`: the new
    value named after it, or "(ended)"; `asserted`: its sentence is neither a plan nor a
    negation (beyond the ending's own "doesn't have")."""

    span: tuple[str, ...]
    how: str
    after: str
    asserted: bool

    @property
    def ends_only(self) -> bool:
        return bool(ENDING_ONLY.match(self.how))


def _span(words: list[str], from_end: bool = False) -> tuple[str, ...]:
    """The value words of a span that follows (or precedes) an ending construction; one
    that precedes is what a possessive names ("Oskar's sister moved out": the sister)."""
    if from_end:
        cut = max((i for i, w in enumerate(words) if w in BOUNDARY or w == "'s"), default=-1)
        words = words[cut + 1 :]
    while words and words[0] in LEAD:
        words = words[1:]
    out: list[str] = []
    for w in words:
        if w in STOP or len(out) == 4:
            break
        out.append(w)
    return tuple(out)


def _after(sentence: str, how: str) -> str:
    """The words naming the new value, where the sentence gives one after its ending."""
    rest = sentence[sentence.find(how) :]
    found = re.search(r"\b(?:to|for|now|it's|is)\s+([^,;.!?]+)", rest)
    return found.group(1).strip() if found else "(ended)"


def _asserted(sentence: str) -> bool:
    found = markers(sentence) & {"hypothetical", "negated"}
    own = re.search(
        r"(?:doesn't|don't) have|(?:haven't|hasn't) [a-z]+|[,;] not |no longer|no more|any ?more\b",
        sentence,
    )
    return not (found - ({"negated"} if own else set()))


TITLE = re.compile(r"\b(dr|mr|mrs|ms|mx|prof|st|jr)\.(?=\s)")
"""A title's period ("dr. hale") ends no value: the constructions stop at a sentence mark."""


VERB_ENDED = re.compile(r"^(?:doesn't|don't) (?P<verb>[a-z]{3,})$")


def _verb_ended(how: str) -> tuple[str, ...]:
    """ "I don't smoke anymore": with no object, what is over is the verb itself."""
    found = VERB_ENDED.match(how)
    return (found.group("verb"),) if found and found.group("verb") not in STOP else ()


def endings(sentence: str) -> list[Ending]:
    """The values a (lowercased) sentence names as over."""
    sentence = TITLE.sub(r"\1", sentence)
    before = [*ENDED_BEFORE.finditer(sentence), *FROM_TO.finditer(sentence)]
    found = [
        (_span(tokens(m.group("x"))) or _verb_ended(m.group("how")), m.group("how")) for m in before
    ]
    if any(word in sentence for word in ENDED_AFTER_WORDS):
        found += [
            (_span(tokens(m.group("x")), from_end=True), _left_how(m, sentence))
            for m in ENDED_AFTER.finditer(sentence)
        ]
    found += [((singular(m.group("x")),), m.group("how")) for m in DECLARED.finditer(sentence)]
    for m in PAIR_ENDED.finditer(sentence):
        found += [((m.group("a"),), "broke up"), ((m.group("b"),), "broke up")]
    asserted = _asserted(sentence)
    return [
        Ending(x, how, _after(sentence, how), asserted)
        for x, how in found
        if [w for w in content(list(x)) if w not in VAGUE] and not _idiom(x, how, sentence)
    ]


def singular(noun: str) -> str:
    """ "dentists" -> "dentist", "companies" -> "company", "classes" -> "class"."""
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("sses", "shes", "ches", "xes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


def declared(how: str) -> bool:
    """The ending is a change declared by its noun ("switched dentists")."""
    return DECLARED.fullmatch(how) is not None


VAGUE = frozenset(
    """time times lot bit way day days thing things stuff one around here there back away
    out much more while long little yet ago""".split()
)
"""Words that name no value ("used to hike a lot", "haven't been around")."""


def _idiom(span: tuple[str, ...], how: str, sentence: str) -> bool:
    """ "from time to time", "from place to place": the same words on both sides of "to"
    (not only the same first word: "from dr hale to dr ortiz" is a change)."""
    said = re.escape(" ".join(span))
    pattern = rf"\bfrom (?:being )?{said} to {said}\b"
    return how.startswith("from") and re.search(pattern, sentence) is not None
