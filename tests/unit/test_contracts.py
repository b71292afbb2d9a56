"""Contract validation gives a clear message for each kind of bad input; schemas are current."""

import math
import uuid

import pydantic
import pytest

from contracts.events import RetainEvent
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
