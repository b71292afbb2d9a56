"""Slots found by the kind of value a sentence names rather than by its verb: a phone
number, an email address, a temperature, a password, an alarm time, a deadline, the date
of an event, "X's <noun> is <value>", "every Saturday". Each rule returns
(subject, attribute, value, tier) tuples; `None` subjects are dropped by the caller."""

import re
from collections.abc import Iterator

from worker.consolidation import lexicon as lx
from worker.consolidation.frames import POSS, Tier
from worker.consolidation.slotvalues import (
    DATE,
    EMAIL,
    MONTHS,
    PHONE,
    TEMPERATURE,
    TIME,
    WEEKDAYS,
    cut_value,
    is_valuey,
    proper_value,
)
from worker.consolidation.subjects import (
    CAPITAL_STOP,
    THIRD_PRONOUNS,
    Context,
    clause_subject,
    local_subject,
    name_key,
    owner_key,
)

Found = tuple[str | None, str, str, Tier]
MONTH_WORDS = frozenset(MONTHS)
SLOT, GENERIC = Tier.SLOT, Tier.GENERIC

_I = re.I
PHONE_NOUN = re.compile(r"\b(?:number|phone|mobile|cell|reach|reached|call|text|sim)\b", _I)
PHONE_OWNER = re.compile(
    POSS + r"\s+(?:new\s+|mobile\s+|phone\s+|cell\s+|home\s+)*"
    r"(?:number|phone|mobile|cell)\b",
    _I,
)
PHONE_QUALIFIER = re.compile(r"\b(landline|extension|fax|office|desk)\b", _I)
REACH = re.compile(r"\b(?:reach|call|text|ring)\s+(?P<who>me|us|him|her|(?-i:[A-Z])\w+)", _I)
EMAIL_OWNER = re.compile(
    POSS + r"\s+(?:new\s+)?(?P<q>work\s+|personal\s+|school\s+)?"
    r"(?:e-?mail|address)",
    _I,
)
WRITE_TO = re.compile(
    r"\b(?:write|email|mail)\s+(?:to\s+)?(?P<who>me|us|(?-i:[A-Z])\w+)\s+at\b", _I
)
DEVICE = re.compile(
    r"(?:\bthe\s+|\b(?:my|our|his|her)\s+)?(?P<thing>(?:[\w-]+\s+)?(?:thermostat|heating|heater|"
    r"boiler|radiator|fridge|freezer|oven|aircon|air\s+conditioning))\b",
    _I,
)
PASSWORD_VALUE = re.compile(
    r"password(?:\s+for\s+[\w\s-]+?)?\s*(?:is\s+now|is\s+still|is|:|was\s+changed\s+to|"
    r"changed\s+to|to)\s+(?P<val>\S+)|\buse\s+(?P<val2>\S+)",
    _I,
)
PASSWORD_THING = re.compile(
    r"(?:password\s+for|log\s+in\s+to|login\s+for)\s+(?:the\s+)?(?P<a>[\w\s-]+?)(?:\s+is|\s+was|"
    r"\s+use|:|,|\s+to\b)|(?:\bthe\s+)?(?P<b>[\w-]+(?:\s+[\w-]+)?)(?:'s|’s)?\s+password",
    _I,
)
ALARM_OWNER = re.compile(POSS + r"\s+alarm\b", _I)
WAKE = re.compile(r"\b(?:wakes?|gets?|getting|waking)\s+up\s+at\s+", _I)
DEADLINE_WORD = re.compile(
    r"\b(?:due|deadline|new\s+date|hand\s+in|has\s+to\s+be\s+in|have\s+to\s+be\s+in|extension|extended|"
    r"ships?|launch|release|deliver|slipped|postponed|pushed\s+back|brought\s+forward|"
    r"rescheduled)\b",
    _I,
)
DUE_THING = "|".join(sorted(lx.DUE_THINGS, key=len, reverse=True))
PERSONAL_DUE = re.compile(
    POSS + r"\s+(?P<thing>(?:[\w-]+\s+){0,2}?(?:" + DUE_THING + r"))\b"
    r"|\bthe\s+(?P<thing2>" + DUE_THING + r")\s+deadline\s+for\s+(?P<owner2>me|us|(?-i:[A-Z])\w+)",
    _I,
)
PROJECT_AFTER = re.compile(
    r"\b(?:deadline|date|due\s+date|release|launch)\s+for\s+(?:the\s+)?(?P<thing>(?-i:[A-Z])[\w-]+)"
)
PROJECT = re.compile(
    r"(?:\b(?:deadline|date|release|launch)\s+for\s+(?:the\s+)?|\bdeliver\s+|"
    r"\b(?:moved|pushed|postponed|rescheduled)\s+the\s+)?(?P<thing>(?-i:[A-Z])[\w-]+)(?:'s|’s)?"
    r"(?=\s+(?:project\s+)?(?:launch|release|deadline|due|is\s+(?:now\s+|still\s+)?due|ships|"
    r"slipped|got|was|has\s+been|by|:|is\s+led)\b|\s*:)",
)
EVENT_HEAD = re.compile(
    r"\b(?P<head>" + "|".join(sorted(lx.EVENT_NOUNS, key=len, reverse=True)) + r")\b"
    r"(?:\s+(?:to|with|in|at|for)\s+(?P<q>(?:Dr\.?\s+)?(?-i:[A-Z])[\w]*(?:\s+(?-i:[A-Z])\w*)?))?",
    _I,
)
COPULA = re.compile(
    POSS + r"\s+(?P<attr>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:is\s+now|is\s+still|is|are|was\s+changed"
    r"\s+to|changed\s+to|:)\s+(?:now\s+|still\s+|actually\s+)?(?:on\s+|at\s+|in\s+)?",
    _I,
)
IT_IS = re.compile(r"\bit(?:'s|’s|\s+is)\s+(?:actually\s+|really\s+|now\s+)?(?:on\s+|at\s+)?", _I)
DOSE = re.compile(
    r"\btakes?\s+(?P<val>\d[\d.,]*\s*(?:mg|ml|mcg|g|units?|pills?|tablets?))"
    r"\s+of\s+(?P<attr>[\w-]+)",
    _I,
)
RAISED = re.compile(
    r"\b(?:raised|increased|lowered|reduced|cut|bumped|upped|decreased|changed|set)\s+"
    r"(?:the\s+)?(?:" + POSS + r"\s+)?(?P<attr>[\w-]+)\s+(?:up\s+|down\s+)?to\s+",
    _I,
)
PLACE = re.compile(
    r"\b(?:is|are|was\s+moved|moved|moves)\s+(?:to\s+|in\s+|at\s+)"
    r"(?P<val>(?:conference\s+)?(?:room|hall|floor|level|building|gate|platform)\s+\w+)",
    _I,
)
HABIT = re.compile(
    r"\b(?P<verb>[a-z]+)\s+(?P<prep>on|at|in)\s+(?P<val>(?:level|floor|platform|"
    r"gate|desk|lane|bay|spot|table|seat)\s+\d+)",
    _I,
)
ROUTINE = re.compile(
    r"\b(?:every|on|each)\s+(?P<day>(?:" + "|".join(WEEKDAYS) + r")s?|weekends?)\b", _I
)


def phones(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    if not PHONE_NOUN.search(sentence):
        return
    for m in PHONE.finditer(sentence):
        owner = PHONE_OWNER.search(sentence)
        reach = REACH.search(sentence)
        if owner:
            subject = owner_key(owner.group("owner"), ctx)
        elif reach:
            who = reach.group("who")
            subject = owner_key("my" if who.lower() in ("me", "us") else who, ctx)
            if who.lower() in ("him", "her"):
                subject = ctx.antecedent
        else:
            subject = local_subject(sentence, m.start(), ctx)[0] or primary
        qualifier = PHONE_QUALIFIER.search(sentence)
        attribute = f"phone:{qualifier.group(1).lower()}" if qualifier else "phone"
        yield subject, attribute, re.sub(r"[^\d+]", "", m.group(0)), SLOT


def emails(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    for m in EMAIL.finditer(sentence):
        owner = EMAIL_OWNER.search(sentence)
        write = WRITE_TO.search(sentence)
        if owner:
            subject = owner_key(owner.group("owner"), ctx)
            qualifier = (owner.group("q") or "").strip().lower()
        elif write:
            who = write.group("who")
            subject = owner_key("my" if who.lower() in ("me", "us") else who, ctx)
            qualifier = ""
        else:
            subject = local_subject(sentence, m.start(), ctx)[0] or primary
            qualifier = ""
        yield subject, f"email:{qualifier}" if qualifier else "email", m.group(0).lower(), SLOT


def _thing(words: str) -> str:
    out = [w for w in words.lower().split() if w not in ("the", "a", "an", "my", "our")]
    return " ".join(w[:-2] if w.endswith(("'s", "’s")) else w for w in out)


def settings(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    temperature = TEMPERATURE.search(sentence)
    device = DEVICE.search(sentence) if temperature else None
    if temperature and device:
        yield _thing(device.group("thing")), "setting:temperature", temperature.group(0), SLOT
    if "password" in sentence.lower():
        value, thing = PASSWORD_VALUE.search(sentence), PASSWORD_THING.search(sentence)
        raw = (value.group("val") or value.group("val2")) if value else None
        if raw and thing and len(raw.rstrip(".,;")) > 3:
            yield (
                _thing(thing.group("a") or thing.group("b")),
                "setting:password",
                raw.rstrip(".,;"),
                SLOT,
            )
    time = TIME.search(sentence)
    if time and "alarm" in sentence.lower():
        owner = ALARM_OWNER.search(sentence)
        subject = owner_key(owner.group("owner"), ctx) if owner else primary
        yield subject, "setting:alarm", time.group(0).lower(), SLOT
    elif time and (wake := WAKE.search(sentence)):
        yield (
            local_subject(sentence, wake.start(), ctx)[0],
            "setting:alarm",
            time.group(0).lower(),
            SLOT,
        )


def _date_after(sentence: str, start: int) -> str:
    """The date named after `start`; after "to" or "until" when there is one (the new one)."""
    rest = sentence[start:]
    target = re.search(r"\b(?:to|until|till)\s+(?=\S)", rest)
    pieces = rest[target.end() :] if target and DATE.search(rest[target.end() :]) else rest
    found = sorted([*DATE.finditer(pieces), *TIME.finditer(pieces)], key=lambda m: m.start())
    if not found:
        return ""
    first = found[0].start()
    return " ".join(m.group(0) for m in found if m.start() - first < 40)


def deadlines(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    word = DEADLINE_WORD.search(sentence)
    if not word or not DATE.search(sentence):
        return
    value = _date_after(sentence, min(word.start(), _first_verb(sentence)))
    personal = PERSONAL_DUE.search(sentence)
    if personal:
        owner_word = personal.group("owner") or personal.group("owner2")
        owner = ctx.me if owner_word.lower() in ("me", "us") else owner_key(owner_word, ctx)
        thing = " ".join((personal.group("thing") or personal.group("thing2")).lower().split())
        if value:
            yield owner, f"deadline:{thing}", value, SLOT
        return
    for m in (*PROJECT_AFTER.finditer(sentence), *PROJECT.finditer(sentence)):
        name = m.group("thing")
        if name_key(name) in CAPITAL_STOP or name_key(name) in ctx.entities:
            continue
        if value:
            yield name_key(name), "deadline", value, SLOT
        return


def _first_verb(sentence: str) -> int:
    m = re.search(r"\b(?:is|was|has|moved|got|ships|slipped|due|deliver|hand)\b", sentence, _I)
    return m.start() if m else 0


def events(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    """The date, time or room of a named event: its subject is the event ("my Tokyo
    flight", "the weekly team sync")."""
    m = EVENT_HEAD.search(sentence)
    if not m:
        return
    key = _event_key(sentence, m, ctx)
    if DATE.search(sentence) or TIME.search(sentence):
        value = _date_after(sentence, m.end())
        if value:
            yield key, "schedule", value, GENERIC
    place = PLACE.search(sentence, m.end())
    if place:
        yield key, "place", place.group("val").lower(), SLOT


EVENT_STOP = frozenset(
    """the a an this that my our his her their its to on at in of with for and or from by
    is was moved rebooked rescheduled weekly daily monthly next new usual regular""".split()
)


def _event_key(sentence: str, m: re.Match[str], ctx: Context) -> str:
    """event:<head>|<owner>|<qualifiers>: words right before the head noun (up to a
    determiner or possessive, which gives the owner) and a name after it ("to Tokyo")."""
    before = sentence[: m.start()].split()
    quals: set[str] = set()
    owner = ""
    for word in reversed(before[-3:]):
        low = word.lower().strip(",;:")
        if low in ("my", "our", "his", "her", "their") or low.endswith(("'s", "s'")):
            owner = owner_key(low if not low.endswith("s'") else low[:-1], ctx) or ""
            if (
                owner in ("", ctx.antecedent)
                and low.endswith(("'s", "s'"))
                and not is_person(low, ctx)
            ):
                quals.add(low.rstrip("'s").rstrip("'"))
                owner = ""
            break
        if low in EVENT_STOP or low.endswith("ed") or not low.isalpha():
            break
        quals.add(low)
    for word in (m.group("q") or "").split():
        low = word.lower().strip(".")
        if low not in WEEKDAYS and low not in MONTH_WORDS and low != "dr":
            quals.add(low)
    return f"event:{m.group('head').lower()}|{owner.split('>')[0]}|{' '.join(sorted(quals))}"


def is_person(word: str, ctx: Context) -> bool:
    return name_key(word) in ctx.entities or name_key(word) == ctx.antecedent


def places(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    for m in HABIT.finditer(sentence):
        if m.group("verb").lower() in ("is", "are", "was", "moved", "moves"):
            continue
        subject = local_subject(sentence, m.start(), ctx)[0]
        noun = m.group("val").split()[0].lower()
        attribute = f"habit:{m.group('verb').lower()} {m.group('prep').lower()} {noun}"
        yield subject, attribute, m.group("val").lower(), GENERIC


def copulas(sentence: str, body: str, ctx: Context) -> Iterator[Found]:
    """ "Ana's GP is Dr. Lee", "Victor's rent is $1,800": a noun of someone's, one value."""
    for m in COPULA.finditer(sentence):
        attr = " ".join(m.group("attr").lower().split())
        attr = re.sub(r"\s+(?:these\s+days|now|today)$", "", attr)
        attr = re.sub(r"^(?:new|current)\s+(?=\S)", "", attr)
        last = attr.split()[-1]
        if last in lx.NOT_ATTRIBUTES or last in lx.EVENT_NOUNS or "favourite" in attr:
            continue
        if "favorite" in attr or "preferred" in attr or attr.startswith("go-to"):
            continue
        rest = sentence[m.end() :]
        value = proper_value(rest) or cut_value(rest)
        if not is_valuey(value):
            continue
        attribute = lx.ATTRIBUTE_NOUNS.get(attr, attr)
        yield owner_key(m.group("owner"), ctx), attribute, value, SLOT
    for it in IT_IS.finditer(sentence):
        before = list(
            re.finditer(POSS + r"\s+(?P<attr>[\w-]+)", body[: body.find(sentence) + it.start()], _I)
        )
        value = proper_value(sentence[it.end() :]) or cut_value(sentence[it.end() :])
        if before and is_valuey(value):
            owner, attr = before[-1].group("owner"), before[-1].group("attr").lower()
            if attr not in lx.NOT_ATTRIBUTES:
                yield owner_key(owner, ctx), lx.ATTRIBUTE_NOUNS.get(attr, attr), value, SLOT


def amounts(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    for m in DOSE.finditer(sentence):
        yield (
            local_subject(sentence, m.start(), ctx)[0],
            m.group("attr").lower(),
            m.group("val").lower(),
            SLOT,
        )
    for m in RAISED.finditer(sentence):
        value = proper_value(sentence[m.end() :]) or cut_value(sentence[m.end() :])
        attr = m.group("attr").lower()
        if not is_valuey(value) or attr in lx.NOT_ATTRIBUTES or attr in lx.DEVICE_NOUNS:
            continue
        if m.group("owner"):
            subject = owner_key(m.group("owner"), ctx)
        else:
            subject = local_subject(sentence, m.start(), ctx)[0]
        owner = subject.split(">")[0] if subject else None
        yield owner, lx.ATTRIBUTE_NOUNS.get(attr, attr), value, SLOT


REPORTED = re.compile(
    r"^(?:says|said|tells|told|mentioned|texted|messaged|wrote|emailed)(?:\s+(?:me|us))?"
    r"(?:\s+that)?\s+",
    _I,
)
"""A subject's report of a routine ("Ana told me she plays padel on Sundays"): the
routine is the reported words, and it is the subject's only when said of itself (a
pronoun), not of another person named after it ("Ana told me Tom plays ...")."""


def routines(sentence: str, ctx: Context, primary: str | None) -> Iterator[Found]:
    """ "I go climbing every Saturday", "Lena gives guitar lessons on weekends"."""
    for m in ROUTINE.finditer(sentence):
        before = sentence[: m.start()]
        subject = clause_subject(before, ctx)
        verb_phrase = re.split(r"\band\b|;|,", before)[-1]
        words = [w for w in verb_phrase.split() if w.lower() not in ("now", "still", "also")]
        words = [w for w in words if name_key(w) != subject and w.lower() not in ("i", "we")]
        reported = REPORTED.match(" ".join(words))
        if reported:
            words = " ".join(words)[reported.end() :].split()
            if words and words[0][:1].isupper():
                continue
            words = words[1:] if words and words[0].lower() in THIRD_PRONOUNS else words
        if not words or words[0].lower().endswith("ed") or EVENT_HEAD.search(verb_phrase):
            continue
        day = m.group("day").lower().rstrip("s")
        yield subject, f"routine:{day}", " ".join(words).lower(), GENERIC
