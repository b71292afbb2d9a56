"""Stage 4, values: what the clause names besides its subject, typed and in a normal form.

Times ("6 pm" and "18:00" are "18:00"), dates ("March 3" and "3 March" are "03-03"; a
weekday; a year), quantities (a number with a unit or a currency sign), numbers ("two"
and "2" are "2"), and names: capitalised words not opening the clause, or words with
digits ("user7", "v2"), typed by the word before them (a title: a person; "in", "to",
"from", "near": a place; "at", "for", "by": an organisation).
"""

import re
from dataclasses import replace

from readmodel.reading import grammar as g
from readmodel.reading.draft import Draft
from readmodel.reading.statement import Value, ValueType
from readmodel.reading.words import Token

MONTHS = {
    m: i + 1
    for i, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        )
    )
    for m in names.split()
}
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
RELATIVE_DAYS = frozenset("today tomorrow yesterday tonight".split())
NUMBER_WORDS = (
    {
        w: i
        for i, w in enumerate(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
        )
    }
    | {
        w: i + 1
        for i, w in enumerate(
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
            "twentieth".split()
        )
    }
    | {
        "thirty": 30,
        "forty": 40,
        "fifty": 50,
        "sixty": 60,
        "seventy": 70,
        "eighty": 80,
        "ninety": 90,
        "hundred": 100,
        "thousand": 1000,
        "dozen": 12,
    }
)
UNITS = frozenset(
    """kg kgs kilo kilos kilograms kilogram g grams lb lbs pounds km kms kilometres kilometers
    mile miles m metres meters cm mm ft feet foot inch inches l litres liters ml % percent
    hours hour hrs h minutes minute mins min seconds secs s days day weeks week months month
    years year gb mb tb kb ghz mhz mph kph calories kcal steps dollars euros usd eur gbp
    degrees""".split()
)
CURRENCY = frozenset("$ € £".split())
CURRENCY_WORDS = {
    "dollars": "$",
    "dollar": "$",
    "usd": "$",
    "bucks": "$",
    "euros": "€",
    "euro": "€",
    "eur": "€",
    "gbp": "£",
}
DAY_PARTS = {"morning": 0, "afternoon": 12, "evening": 12, "night": 12}
TITLES = frozenset("dr dr. mr mr. mrs mrs. ms ms. prof prof. doctor professor".split())
_PLACE_CUES = frozenset("in to from near into around".split())
_ORGANISATION_CUES = frozenset("at for by".split())
_CLOCK = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*([ap])?\.?m?\.?$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)?$")
_DECIMAL = re.compile(r"^(\d+)\.(\d+)$")


def _number(word: str) -> int | None:
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    found = _ORDINAL.match(word.replace(",", ""))
    return int(found.group(1)) if found else None


def _figure(word: str) -> str | None:
    """A number in its normal form, a decimal one too ("5.5", "12.50" is "12.5", "2.0" is
    "2"): "5.5 hours" and "$12.50" are values as "6 hours" and "$12" are."""
    number = _number(word)
    if number is not None:
        return str(number)
    found = _DECIMAL.match(word.replace(",", ""))
    if found is None:
        return None
    fraction = found.group(2).rstrip("0")
    whole = str(int(found.group(1)))
    return f"{whole}.{fraction}" if fraction else whole


def _amount(tokens: tuple[Token, ...], i: int) -> str | None:
    return _figure(tokens[i].low) if i < len(tokens) else None


ONE = frozenset("a an".split())
RATE_WORDS = frozenset("once twice thrice times per every each".split())
"""Words before "a"/"an" that make it a rate ("twice a day", "3 times a week"), not one;
so does a quantity right before it ("1200 dollars a month", "$5 a week")."""
WHOLE = frozenset("full whole entire extra additional".split())
"""The adjectives of extent that an article's quantity takes ("a full day", "an extra
hour"); other adjectives make it a description ("a long day", "a good year")."""


def _unit_after(tokens: tuple[Token, ...], i: int, article: bool = False) -> tuple[str, int] | None:
    """The unit at `i`, or after one modifier there ("two full days", "3 more hours"; after
    an article only one of `WHOLE`), with the tokens up to and including it; None when
    there is none."""
    if i < len(tokens) and tokens[i].low in UNITS:
        return tokens[i].low, 1
    if i + 1 >= len(tokens) or tokens[i + 1].low not in UNITS:
        return None
    modifier = tokens[i].low
    return (
        (tokens[i + 1].low, 2)
        if (modifier in WHOLE if article else g.is_modifier(modifier))
        else None
    )


def _one(tokens: tuple[Token, ...], i: int) -> tuple[str, int] | None:
    """A quantity of one said with an article ("a full day off", "an hour"), or a half
    ("half an hour": 0.5 hour), with the tokens it takes; not a rate ("twice a day",
    "$5 a month")."""
    low = tokens[i].low
    half = low == "half" and i + 1 < len(tokens) and tokens[i + 1].low in ONE
    if not half and low not in ONE:
        return None
    before = tokens[i - 1].low if i > 0 else ""
    if before in RATE_WORDS or before in UNITS or before in CURRENCY_WORDS:
        return None
    if _figure(before) is not None or (i > 1 and tokens[i - 2].low in CURRENCY):
        return None
    start = i + 2 if half else i + 1
    unit = _unit_after(tokens, start, article=True)
    if unit is None or unit[0] in _NOT_ALONE:
        return None
    return _quantity("0.5" if half else "1", unit[0]), start - i + unit[1]


_NOT_ALONE = frozenset("s h m g l min % percent".split())
"""Units that are only units after a figure ("a m", "a %")."""


UNIT_NAMES = {
    **dict.fromkeys("hours hour hrs hr h".split(), ("minute", 60)),
    **dict.fromkeys("minutes minute mins min".split(), ("minute", 1)),
    **dict.fromkeys("seconds second secs sec s".split(), ("second", 1)),
    **dict.fromkeys("kg kgs kilo kilos kilograms kilogram".split(), ("kg", 1)),
    **dict.fromkeys("lb lbs pounds".split(), ("lb", 1)),
    **dict.fromkeys("km kms kilometres kilometers".split(), ("km", 1)),
    **dict.fromkeys("m metres meters".split(), ("m", 1)),
    **dict.fromkeys("% percent".split(), ("%", 1)),
}
"""Units in one name each, and durations under an hour in minutes: "half an hour", "30
minutes" and "30 mins" are one quantity, as "2 hours" and "120 minutes" are."""


def _quantity(figure: str, unit: str) -> str:
    """A figure and a unit in their normal form ("1.5 hours": "90 minute")."""
    name, factor = UNIT_NAMES.get(unit, (unit.rstrip("s") or unit, 1))
    if factor != 1:
        value = float(figure) * factor
        figure = str(int(value)) if value.is_integer() else str(value)
    return f"{figure} {name}"


def _clock(tokens: tuple[Token, ...], i: int) -> tuple[str, int] | None:
    """A time at token `i` ("18:00", "6 pm", "6:30pm", "noon"), and the tokens it took."""
    word = tokens[i].low
    if word in {"noon", "midday"}:
        return "12:00", 1
    if word == "midnight":
        return "00:00", 1
    following = tokens[i + 1].low.replace(".", "") if i + 1 < len(tokens) else ""
    taken = 1
    if following in {"am", "pm"}:
        word, taken = re.sub(r"^(\d{1,2})\.(\d{2})$", r"\1:\2", word) + following[0], 2
    part = [t.low for t in tokens[i + 1 : i + 4]]
    hour = _number(word)
    in_part = len(part) == 3 and part[:2] == ["in", "the"] and part[2] in DAY_PARTS
    if hour is not None and 1 <= hour <= 12 and in_part:
        return f"{(hour % 12) + DAY_PARTS[part[2]]:02d}:00", 4
    found = _CLOCK.match(word.replace(" ", ""))
    if found is None or (found.group(2) is None and found.group(3) is None):
        return None
    hour, minute = int(found.group(1)), int(found.group(2) or 0)
    if found.group(3) == "p" and hour < 12:
        hour += 12
    if found.group(3) == "a" and hour == 12:
        hour = 0
    if hour > 24 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}", taken


_ORDINAL_SUFFIX = re.compile(r"\d(?:st|nd|rd|th)$")
"""A day of the month said alone: "the 14th", "on the 1st" (not "the third", a rank, nor
"the 3rd floor")."""


def _date(tokens: tuple[Token, ...], i: int) -> tuple[str, int] | None:
    word = tokens[i].low
    iso = _ISO_DATE.match(word)
    if iso:
        return word, 1
    if word in WEEKDAYS or word in RELATIVE_DAYS:
        return word, 1
    nxt = [t.low for t in tokens[i + 1 : i + 4]]
    if word in MONTHS and (word != "may" or tokens[i].capitalised):
        month = MONTHS[word]
        day = _number(nxt[0]) if nxt else None
        if day is not None and 1 <= day <= 31:
            year = _number(nxt[1]) if len(nxt) > 1 else None
            if year is not None and 1000 <= year <= 2999:
                return f"{year}-{month:02d}-{day:02d}", 3
            return f"{month:02d}-{day:02d}", 2
        year = day
        if year is not None and 1000 <= year <= 2999:
            return f"{year}-{month:02d}", 2
        return f"{month:02d}", 1
    day = _number(word)
    if day is not None and 1 <= day <= 31 and nxt and nxt[0] == "of":
        nxt = nxt[1:]
        i += 1
    if day is not None and 1 <= day <= 31 and nxt and nxt[0] in MONTHS and nxt[0] != "may":
        return f"{MONTHS[nxt[0]]:02d}-{day:02d}", 2 + (tokens[i].low == "of")
    if day is not None and 1 <= day <= 31 and nxt and nxt[0] == "may":
        return f"05-{day:02d}", 2
    if day is not None and 1 <= day <= 31 and i > 0 and tokens[i - 1].low == "the":
        alone = not nxt or nxt[0] in g.FUNCTION_WORDS or not nxt[0][:1].isalnum()
        if _ORDINAL_SUFFIX.search(word) and alone:
            return f"day {day}", 1
    return None


def _name_type(tokens: tuple[Token, ...], i: int) -> ValueType:
    before = tokens[i - 1].low if i > 0 else ""
    if before in TITLES:
        return "person"
    if before in _PLACE_CUES:
        return "place"
    if before in _ORGANISATION_CUES:
        return "organisation"
    return "name"


def _is_name_word(token: Token) -> bool:
    if token.low in {"i"} or not token.text[:1].isalnum():
        return False
    return (token.capitalised and not token.start) or (
        any(c.isdigit() for c in token.text) and any(c.isalpha() for c in token.text)
    )


def read_values(draft: Draft) -> Draft:
    tokens, used = draft.tokens, set(draft.used)
    spans: list[tuple[int, int, Value]] = []
    i = draft.subject_end
    while i < len(tokens):
        if i in used:
            i += 1
            continue
        token = tokens[i]
        found: tuple[ValueType, str, int] | None = None
        clock = _clock(tokens, i)
        date = None if clock else _date(tokens, i)
        number = _figure(token.low)
        if clock:
            found = ("time", clock[0], clock[1])
        elif date:
            found = ("date", date[0], date[1])
        elif token.low in CURRENCY and (amount := _amount(tokens, i + 1)) is not None:
            found = ("quantity", f"{token.low}{amount}", 2)
        elif number is not None:
            following = tokens[i + 1].low if i + 1 < len(tokens) else ""
            unit = _unit_after(tokens, i + 1)
            if following in CURRENCY_WORDS:
                found = ("quantity", f"{CURRENCY_WORDS[following]}{number}", 2)
            elif unit is not None:
                found = ("quantity", _quantity(number, unit[0]), 1 + unit[1])
            else:
                found = ("number", number, 1)
        elif (one := _one(tokens, i)) is not None:
            found = ("quantity", one[0], one[1])
        elif _is_name_word(token):
            end = i + 1
            while end < len(tokens) and _is_name_word(tokens[end]) and end not in used:
                end += 1
            text = g.name_text(" ".join(t.low for t in tokens[i:end]))
            kind_of = "person" if tokens[i].low in g.TITLES else _name_type(tokens, i)
            found = (kind_of, text, end - i)
        if found is None:
            i += 1
            continue
        kind, text, taken = found
        role = tokens[i - 1].low if i > 0 and tokens[i - 1].low in g.ROLES else ""
        spans.append((i, i + taken, Value(kind, text, role)))
        used.update(range(i, i + taken))
        i += taken
    values = tuple(sorted(span[2] for span in spans))
    return replace(draft, values=values, spans=tuple(spans), used=frozenset(used))
