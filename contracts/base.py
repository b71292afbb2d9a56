"""Shared model configuration and field types.

Input types are strict where JSON has a type of its own, so the HTTP API (JSON) and
the Celery path (Python objects from JSON) accept the same things:

* a number is a JSON number: a whole one where an integer is meant (`WholeNumber`: 3 or
  3.0, as JSON Schema has it), any where a float is (`Number`); never `true`/`false`
  nor a string;
* a flag is `true` or `false` (`StrictBool`), never 0/1 nor "true";
* a timestamp is an RFC 3339 string with a zone (`2024-05-01T09:00:00Z`,
  `2024-05-01T11:00:00+02:00`), or an aware `datetime` from Python callers; never a
  number (Unix seconds are ambiguous: seconds or milliseconds, which zone) nor a
  date alone or a time without a zone; the error says what is wrong, never repeating
  the value given (a caller may have pasted anything into the field);
* text carries no control characters other than tab, newline and carriage return,
  and no unpaired surrogates (they cannot be stored as UTF-8); the message names the
  character and where it is;
* a text that must say something is not blank: it has a character that shows, not
  only whitespace and invisible ones (zero-width space, joiners, word joiner, byte
  order mark, soft hyphen, other format characters, blank-looking fillers, the object
  replacement character U+FFFC) and combining marks or variation selectors with no
  character to combine with.
"""

import re
import unicodedata
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    WithJsonSchema,
)

BANK_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,128}$"
_YEAR = r"(000[2-9]|00[1-9]\d|0[1-9]\d{2}|[1-8]\d{3}|9[0-8]\d{2}|99[0-8]\d|999[0-8])"
"""0002 to 9998: in years 1 and 9999 a time may leave the range of dates once in UTC."""
_DATE = _YEAR + r"-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
_TIME = r"([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?"
_ZONE = r"([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"
RFC3339_PATTERN = f"^{_DATE}[Tt]{_TIME}{_ZONE}$"
_TIMESTAMP = re.compile(f"^{_DATE}[Tt]{_TIME}(?P<zone>{_ZONE})?$")
"""The same with the zone optional, so a missing zone gets a message of its own."""
_CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_CONTROL = re.compile(f"[{_CONTROLS}\ud800-\udfff]")
PRINTABLE_PATTERN = f"^[^{_CONTROLS}]*$"
"""What the JSON Schema says of text fields: no control characters..."""
_FORMAT_CHARACTERS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
"""Unicode's format characters (category Cf, as of Unicode 14): they show nothing."""
BLANK_LOOKING = "\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\ufffc"
"""Letters and marks that render as nothing or as a blank (the combining grapheme
joiner, Hangul fillers, Khmer inherent vowels, the blank Braille pattern), and the
object replacement character (a placeholder for an object the text does not hold)."""
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
MARK_CATEGORIES = frozenset({"Mn", "Mc", "Me"})
"""Combining marks, variation selectors among them: each modifies the character before
it and shows nothing of its own, so a text of marks alone says nothing."""
SCHEMA_MARKS = (
    "\u0300-\u036f\u1ab0-\u1ace\u1dc0-\u1dff\u20d0-\u20f0\ufe00-\ufe0f\ufe20-\ufe2f"
    "\U000e0100-\U000e01ef"
)
"""The marks the JSON Schema lists: the blocks of combining marks that belong to no
script, and the variation selectors (as of Unicode 14). `is_blank` counts every mark
(some 2,400 code points in 300 ranges, too long a pattern to send with every schema);
the schema is that much more lenient for the marks of a script."""
_INVISIBLE = _FORMAT_CHARACTERS + BLANK_LOOKING + SCHEMA_MARKS
NOT_BLANK_PATTERN = f"^[^{_CONTROLS}]*[^\\s{_CONTROLS}{_INVISIBLE}][^{_CONTROLS}]*$"
"""...and, for an event's text and a recall's query, one character at least that shows:
neither whitespace, nor invisible, nor a combining mark or variation selector (`is_blank`
says the same with Unicode's categories, and of every mark)."""
TIMESTAMP_EXAMPLE = "2024-05-01T09:00:00Z"


class Frozen(BaseModel):
    """Every contract is immutable and rejects unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _rfc3339_only(value: object) -> object:
    if isinstance(value, datetime):
        return value
    if isinstance(value, bool | int | float):
        raise ValueError(
            f"timestamp must be an RFC 3339 string with a zone, e.g. {TIMESTAMP_EXAMPLE}; "
            "got a number (Unix times are not accepted)"
        )
    if not isinstance(value, str):
        raise ValueError(
            f"timestamp must be an RFC 3339 string with a zone, e.g. {TIMESTAMP_EXAMPLE}"
        )
    match = _TIMESTAMP.fullmatch(value)
    if match is None:
        raise ValueError(
            "timestamp is not RFC 3339: send date, time and zone, "
            f"e.g. {TIMESTAMP_EXAMPLE} (years 0002 to 9998, no leap second)"
        )
    if match.group("zone") is None:
        raise ValueError(
            f"timestamp has no timezone; send ISO 8601 with an offset, e.g. {TIMESTAMP_EXAMPLE}"
        )
    return value


def _require_timezone(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(
            f"timestamp has no timezone; send ISO 8601 with an offset, e.g. {TIMESTAMP_EXAMPLE}"
        )
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise ValueError("timestamp is out of range once converted to UTC") from None
    return value


AwareDatetime = Annotated[
    datetime,
    BeforeValidator(_rfc3339_only),
    AfterValidator(_require_timezone),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": RFC3339_PATTERN,
            "description": f"RFC 3339 date and time with a zone, e.g. {TIMESTAMP_EXAMPLE}",
        }
    ),
]


def bank_id_problem(value: str) -> str | None:
    """Why `value` is not a bank id, or None. Beyond the pattern (1 to 128 letters,
    digits, '_', '.', ':', '-'), a name of dots and colons only ('.', '..', ':') is
    refused: it names nothing, and '.' and '..' read as paths in URLs and files."""
    if not re.fullmatch(BANK_ID_PATTERN, value):
        return f"{value[:64]!r} is not a bank id: 1 to 128 letters, digits, '_', '.', ':' or '-'"
    if not value.strip(".:"):
        return (
            f"{value!r} is not a bank id: it is only dots and colons; a bank id needs a "
            "letter, a digit, '_' or '-' ('.' and '..' read as paths)"
        )
    return None


def is_bank_id(value: object) -> bool:
    return isinstance(value, str) and bank_id_problem(value) is None


def require_bank_id(value: str) -> str:
    """`value`, or a ValueError saying why it is not a bank id."""
    problem = bank_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def require_bank_id_or_none(value: str | None) -> str | None:
    return None if value is None else require_bank_id(value)


BankId = Annotated[
    str,
    Field(pattern=BANK_ID_PATTERN, description="bank identifier"),
    AfterValidator(require_bank_id),
]
Number = Annotated[float, Strict()]
"""A JSON number, integer or not; never a boolean or a numeric string."""


def _not_flag_or_text(value: object) -> object:
    if isinstance(value, bool | str | bytes):
        raise ValueError("Input should be a valid integer, not true/false or a string")
    return value


WholeNumber = BeforeValidator(_not_flag_or_text)
"""For `Annotated[int, Field(ge=.., le=..), WholeNumber]`: JSON Schema's integer, 3 or
3.0, never 3.5, true or "3". The bounds go first, or the schema shows them as `ge`/`le`."""


def _not_a_flag(value: object) -> object:
    """`true` is not the version 1 (Literal would take it); 1.0 is, as in JSON Schema."""
    if isinstance(value, bool):
        raise ValueError("schema_version must be the number 1, not true or false")
    return 1 if isinstance(value, float) and value == 1 else value


SchemaVersion = Annotated[Literal[1], BeforeValidator(_not_a_flag)]


def control_character(text: str) -> str | None:
    """Why `text` cannot be stored as it is (a control character or an unpaired
    surrogate, named with its position), or None."""
    found = _CONTROL.search(text)
    if found is None:
        return None
    code = ord(found.group())
    what = "an unpaired surrogate" if 0xD800 <= code <= 0xDFFF else "control character"
    return f"contains {what} U+{code:04X} at position {found.start()}"


def require_printable(value: str, what: str = "text") -> str:
    """`value`, or a ValueError that names the offending character and its position."""
    problem = control_character(value)
    if problem is not None:
        raise ValueError(f"{what} {problem}; remove it (tab, newline and carriage return are fine)")
    return value


def is_blank(text: str) -> bool:
    """True when no character of `text` shows: each is whitespace, a control or format
    character (Unicode categories Cc, Cf, Zs, Zl, Zp), a combining mark or variation
    selector with nothing to combine with (Mn, Mc, Me), or one of `BLANK_LOOKING`. A
    text of zero-width spaces passes `str.strip` yet says nothing."""
    return all(
        c.isspace()
        or c in BLANK_LOOKING
        or unicodedata.category(c) in INVISIBLE_CATEGORIES
        or unicodedata.category(c) in MARK_CATEGORIES
        for c in text
    )


def require_not_blank(value: str, what: str = "text") -> str:
    """`value`, or a ValueError naming the field and the invisible characters it holds."""
    if not is_blank(value):
        return value
    hidden = sorted({f"U+{ord(c):04X}" for c in value if not c.isspace()})
    named = f" ({', '.join(hidden[:4])})" if hidden else ""
    raise ValueError(
        f"{what} is blank: it holds only whitespace or invisible characters{named} (a "
        "combining mark or variation selector shows only on a character before it); "
        "send text with something that shows"
    )


Printable = Annotated[
    str, AfterValidator(require_printable), Field(json_schema_extra={"pattern": PRINTABLE_PATTERN})
]
"""Text without control characters (tab, newline, carriage return allowed)."""
