"""Contract validation gives a clear message for each kind of bad input; schemas are current."""

import math
import re
import sys
import unicodedata
import uuid
from datetime import UTC, datetime

import pydantic
import pytest

from contracts.base import (
    MARK_CATEGORIES,
    NOT_BLANK_PATTERN,
    bank_id_problem,
    control_character,
    is_blank,
)
from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from contracts.recall import RecallRequest
from sediment.schemas import SCHEMA_DIR, rendered

GOOD = {
    "event_id": str(uuid.uuid4()),
    "bank_id": "user-42",
    "text": "Alice moved to Seattle.",
    "occurred_at": "2024-05-01T09:00:00Z",
}


def error_of(**changes: object) -> str:
    with pytest.raises(pydantic.ValidationError) as info:
        RetainEvent.model_validate({**GOOD, **changes}, context={"max_text_bytes": 64})
    return str(info.value)


def test_good_event_defaults() -> None:
    event = RetainEvent.model_validate(GOOD)
    assert event.kind == "world" and event.importance == 0.5 and event.schema_version == 1


@pytest.mark.parametrize(
    ("changes", "field", "phrase"),
    [
        ({"occurred_at": "2024-05-01T09:00:00"}, "occurred_at", "has no timezone"),
        ({"mentioned_at": "2024-05-01T09:00:00"}, "mentioned_at", "has no timezone"),
        ({"importance": math.nan}, "importance", "finite"),
        ({"importance": 1.5}, "importance", "less than or equal to 1"),
        ({"text": "x" * 65}, "text", "the limit is 64"),
        ({"text": "   "}, "text", "blank"),
        ({"text": "\u200b"}, "text", "text is blank: it holds only whitespace or invisible"),
        ({"text": "\u200b"}, "text", "(U+200B)"),
        ({"text": " \u200c\u200d\u2060\ufeff\u00ad\u3000"}, "text", "text is blank"),
        ({"text": "\u2800\u3164\U000e0020"}, "text", "text is blank"),
        ({"text": "\u001e"}, "text", "control character U+001E at position 0"),
        ({"text": "ok\x00"}, "text", "control character U+0000 at position 2"),
        ({"context": "\x1b[31m"}, "context", "control character U+001B at position 0"),
        ({"tags": ["a\x07"]}, "tags.0", "control character U+0007 at position 1"),
        ({"importance": False}, "importance", "valid number"),
        ({"importance": "0.5"}, "importance", "valid number"),
        ({"occurred_at": 1714554000}, "occurred_at", "got a number"),
        ({"occurred_at": 1714554000.5}, "occurred_at", "Unix times are not accepted"),
        ({"occurred_at": "1714554000"}, "occurred_at", "is not RFC 3339"),
        ({"occurred_at": "2024-05-01"}, "occurred_at", "is not RFC 3339"),
        ({"occurred_at": "9999-12-31T23:00:00-05:00"}, "occurred_at", "years 0002 to 9998"),
        ({"schema_version": True}, "schema_version", "not true or false"),
        ({"bank_id": "bad bank/../x"}, "bank_id", "should match pattern"),
        ({"kind": "dream"}, "kind", "'world' or 'experience'"),
        ({"schema_version": 2}, "schema_version", "Input should be 1"),
        ({"colour": "red"}, "colour", "Extra inputs are not permitted"),
        ({"tags": ["t"] * 33}, "tags", "at most 32"),
        ({"event_id": "not-a-uuid"}, "event_id", "valid UUID"),
    ],
)
def test_bad_input_names_field_and_problem(
    changes: dict[str, object], field: str, phrase: str
) -> None:
    message = error_of(**changes)
    assert field in message
    assert phrase in message


@pytest.mark.parametrize(
    "changes",
    [
        {"importance": 1},
        {"importance": 0},
        {"occurred_at": "2024-05-01T11:00:00+02:00"},
        {"occurred_at": "2024-05-01t09:00:00.123456z"},
        {"occurred_at": datetime(2024, 5, 1, 9, tzinfo=UTC)},
        {"text": "tab\tnew line\ncarriage\rreturn"},
    ],
)
def test_strict_types_still_accept_what_json_means(changes: dict[str, object]) -> None:
    """Integers are numbers; RFC 3339 in either case; aware datetimes from Python."""
    RetainEvent.model_validate({**GOOD, **changes})


@pytest.mark.parametrize("value", ["s3cr3t-value", "2024-13-45T99:00:00Z", 1714554000, True])
def test_a_bad_timestamp_is_named_without_repeating_the_value(value: object) -> None:
    """Errors name the field and what is wrong, never the value given."""
    given = [
        (RetainEvent, {**GOOD, "occurred_at": value}),
        (RecallRequest, {"query": "q", "as_of": value}),
    ]
    for model, data in given:
        with pytest.raises(pydantic.ValidationError) as info:
            model.model_validate(data)
        [error] = info.value.errors()
        assert error["loc"][-1] in ("occurred_at", "as_of")
        assert str(value) not in error["msg"], error["msg"]


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({"explain": 0}, "valid boolean"),
        ({"prefer_observations": "true"}, "valid boolean"),
        ({"limit": True}, "valid integer"),
        ({"limit": 2.5}, "valid integer"),
        ({"limit": "2"}, "valid integer"),
        ({"min_score": True}, "valid number"),
        ({"as_of": 0}, "Unix times are not accepted"),
        ({"start": "2024-05-01T09:00:00"}, "has no timezone"),
    ],
)
def test_recall_request_is_strict(changes: dict[str, object], phrase: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=phrase):
        RecallRequest.model_validate({"query": "q", **changes})


@pytest.mark.parametrize(
    ("changes", "field", "phrase"),
    [
        ({"query": "\u200b"}, "query", "query is blank"),
        ({"query": " \ufeff\u2060 "}, "query", "query is blank"),
        ({"query": "Alice\x00"}, "query", "query contains control character U+0000 at position 5"),
        ({"query": "a\x1bb"}, "query", "control character U+001B"),
        ({"session_key": "s\x00"}, "session_key", "session_key contains control character U+0000"),
        ({"tags": ["t\x00"]}, "tags.0", "control character U+0000"),
    ],
)
def test_recall_query_and_session_key_are_printable_and_not_blank(
    changes: dict[str, object], field: str, phrase: str
) -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        RecallRequest.model_validate({"query": "q", **changes})
    assert field in str(info.value) and phrase in str(info.value)


def test_a_query_with_invisible_characters_and_words_is_fine() -> None:
    assert RecallRequest(query="\u200bAlice\u00ad").query == "\u200bAlice\u00ad"


def test_feedback_session_key_is_printable() -> None:
    vote = {
        "event_id": str(uuid.uuid4()),
        "bank_id": "b",
        "memory_id": str(uuid.uuid4()),
        "vote": "up",
        "occurred_at": "2024-05-01T09:00:00Z",
        "session_key": "s\x00",
    }
    with pytest.raises(pydantic.ValidationError, match="session_key contains control character"):
        FeedbackEvent.model_validate(vote)


def test_the_schema_pattern_and_the_blank_check_agree_on_every_character() -> None:
    """The JSON Schema lists the invisible characters as of a Unicode version; the check
    asks Python's Unicode database. When Python's Unicode grows, this says to update
    `_FORMAT_CHARACTERS` in contracts/base.py. The schema lists only some of the marks
    (`SCHEMA_MARKS`): it is more lenient for a script's own, never stricter."""
    pattern = re.compile(NOT_BLANK_PATTERN)
    disagree = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if not 0xD800 <= code <= 0xDFFF
        and bool(pattern.fullmatch(chr(code)))
        != (not is_blank(chr(code)) and control_character(chr(code)) is None)
        and unicodedata.category(chr(code)) not in MARK_CATEGORIES
    ]
    assert disagree == []
    lenient = [
        code
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in MARK_CATEGORIES
        and not pattern.fullmatch(chr(code))
        and not is_blank(chr(code))
    ]
    assert lenient == []


@pytest.mark.parametrize(
    "text",
    [
        "\ufe0f",
        "\ufe00\ufe0e\ufe0f",
        "\U000e0100\U000e01ef",
        "\u0301\u0308",
        "\u0903",
        "\u20dd",
        "\ufffc",
        " \ufffc\u200b\ufe0f ",
    ],
)
def test_marks_alone_and_the_object_replacement_are_blank(text: str) -> None:
    """A variation selector, a combining mark or U+FFFC shows nothing on its own: a text
    or query of them only is refused as blank, naming the characters."""
    for model, field, data in (
        (RetainEvent, "text", {**GOOD, "text": text}),
        (RecallRequest, "query", {"query": text}),
    ):
        with pytest.raises(pydantic.ValidationError) as info:
            model.model_validate(data)
        message = str(info.value)
        assert f"{field} is blank" in message and "shows only on a character" in message
        assert f"U+{ord(text.strip()[0]):04X}" in message


def test_marks_on_a_character_are_fine() -> None:
    assert RecallRequest(query="e\u0301\ufe0f").query == "e\u0301\ufe0f"
    assert RetainEvent.model_validate({**GOOD, "text": "\u2764\ufe0f Ana"}).text


def test_feedback_timestamps_are_strict() -> None:
    vote = {
        "event_id": str(uuid.uuid4()),
        "bank_id": "b",
        "memory_id": str(uuid.uuid4()),
        "vote": "up",
        "occurred_at": 1714554000,
    }
    with pytest.raises(pydantic.ValidationError, match="Unix times"):
        FeedbackEvent.model_validate(vote)


def test_events_are_frozen() -> None:
    event = RetainEvent.model_validate(GOOD)
    with pytest.raises(pydantic.ValidationError):
        event.text = "changed"  # type: ignore[misc]


def test_labels_are_canonical() -> None:
    event = RetainEvent.model_validate({**GOOD, "tags": ["b", "a", "b"], "entities": ["Zed", "Al"]})
    assert event.tags == ["a", "b"] and event.entities == ["Al", "Zed"]


def test_schema_files_match_models() -> None:
    """Regenerate with `python -m sediment.schemas` when a contract changes."""
    expected = rendered()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.json")}
    assert on_disk == expected


@pytest.mark.parametrize(
    "when",
    [
        "0002-01-01T00:00:00Z",
        "9989-12-31T00:00:00Z",
        "9990-01-01T00:00:00Z",
        "9998-12-31T23:59:59-05:00",
    ],
)
def test_every_year_the_message_names_is_accepted(when: str) -> None:
    """The message says years 0002 to 9998: every one of them is taken."""
    assert RetainEvent.model_validate({**GOOD, "occurred_at": when}).occurred_at.year in (
        2,
        9989,
        9990,
        9998,
    )
    assert RecallRequest.model_validate({"query": "q", "as_of": when}).as_of is not None


@pytest.mark.parametrize("when", ["0001-12-31T00:00:00Z", "9999-01-01T00:00:00Z"])
def test_years_outside_the_range_are_refused_naming_it(when: str) -> None:
    assert "years 0002 to 9998" in error_of(occurred_at=when)


@pytest.mark.parametrize("bank", [".", "..", ":", "...", ".:."])
def test_a_bank_of_dots_and_colons_only_is_refused(bank: str) -> None:
    """'.', '..' and ':' name nothing (and read as paths): refused with what to do."""
    with pytest.raises(pydantic.ValidationError) as info:
        RetainEvent.model_validate({**GOOD, "bank_id": bank})
    message = str(info.value)
    assert (
        "bank_id" in message and f"{bank!r} is not a bank id: it is only dots and colons" in message
    )
    assert "needs a letter, a digit, '_' or '-'" in message
    assert "input_value" not in bank_id_problem(bank)  # type: ignore[operator]


@pytest.mark.parametrize("bank", ["a", "team.a", "user:42", "-", "_", "a..b", ".a"])
def test_a_bank_with_a_letter_digit_underscore_or_dash_is_fine(bank: str) -> None:
    assert RetainEvent.model_validate({**GOOD, "bank_id": bank}).bank_id == bank
    assert bank_id_problem(bank) is None
