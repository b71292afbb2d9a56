"""Reading a payload's timestamps: `to_payload`'s own shape is parsed directly, anything
else goes through the models' validation, and the record read back is the same."""

import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, get_args

import pydantic
import pytest

from contracts.memory import Memory, Observation
from readmodel.stores.payload import TIME_FIELDS, from_payload, stored_time, to_payload

T = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)


def observation(micros: int) -> Observation:
    at = T.replace(microsecond=micros)
    return Observation(
        id=uuid.uuid4(),
        bank_id="b",
        text="Ana lives in Porto.",
        occurred_at=at,
        mentioned_at=at + timedelta(days=1),
        created_at=at + timedelta(days=2),
        last_accessed_at=at + timedelta(days=3),
        current_until=at + timedelta(days=4),
        expires_at=at + timedelta(days=5),
        source_memory_ids=[uuid.uuid4()],
        proof_count=1,
        first_occurred_at=at - timedelta(days=1),
        last_occurred_at=at,
    )


def test_every_timestamp_field_of_the_records_is_listed() -> None:
    def kinds(annotation: Any) -> set[Any]:
        return {annotation} | {k for a in get_args(annotation) for k in kinds(a)}

    def timestamps(model: type[pydantic.BaseModel]) -> set[str]:
        return {name for name, f in model.model_fields.items() if datetime in kinds(f.annotation)}

    assert timestamps(Memory) | timestamps(Observation) == set(TIME_FIELDS)


@pytest.mark.parametrize("micros", [0, 5, 123000])
def test_a_record_reads_back_equal_and_writes_the_same_payload(micros: int) -> None:
    record = observation(micros)
    payload = to_payload(record)
    assert all(isinstance(payload[f], str) for f in TIME_FIELDS)
    back = from_payload(payload)
    assert back == record
    assert to_payload(back) == payload
    assert back.model_dump_json() == record.model_dump_json()


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("2023-07-06T17:40:00Z", datetime(2023, 7, 6, 17, 40, tzinfo=UTC)),
        ("2023-07-06T17:40:00.000005Z", datetime(2023, 7, 6, 17, 40, 0, 5, tzinfo=UTC)),
    ],
)
def test_the_written_shape_is_parsed(value: str, parsed: datetime) -> None:
    got = stored_time(value)
    assert got == parsed and isinstance(got, datetime) and got.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "value",
    [
        "2023-07-06T17:40:00+02:00",
        "2023-07-06 17:40:00Z",
        "2023-07-06T17:40:00.1Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
        "2023-13-06T17:40:00Z",
        1_700_000_000,
        None,
    ],
)
def test_any_other_value_is_left_to_the_model(value: Any) -> None:
    assert stored_time(value) is value


def test_the_model_still_rejects_what_it_rejected() -> None:
    payload = to_payload(observation(0))
    for bad in ("2023-07-06 17:40:00Z", "0001-01-01T00:00:00Z", "2023-07-06T17:40:00"):
        with pytest.raises(pydantic.ValidationError):
            from_payload({**payload, "occurred_at": bad})
    offset = from_payload({**payload, "occurred_at": "2024-05-01T11:30:00+02:00"})
    assert offset.occurred_at == T
    assert offset.occurred_at.utcoffset() == timezone(timedelta(hours=2)).utcoffset(None)


def test_fields_at_their_default_are_not_written_but_read_back() -> None:
    """Only what is not a default goes to the engine, and what filters match is always
    there: `kind` (an observation's is its default), `state`, the schema version."""
    record = Observation(
        id=uuid.uuid4(),
        bank_id="b",
        text="Ana lives in Porto.",
        occurred_at=T,
        created_at=T,
        source_memory_ids=[uuid.uuid4()],
        proof_count=1,
        first_occurred_at=T,
        last_occurred_at=T,
    )
    payload = to_payload(record)
    assert set(payload) == {
        "schema_version", "kind", "state", "id", "bank_id", "text", "occurred_at",
        "created_at", "source_memory_ids", "proof_count", "first_occurred_at",
        "last_occurred_at", "tagset", "entity_keys", "occurred_ts", "text_stems", "text_tokens",
    }  # fmt: skip
    assert (payload["kind"], payload["state"], payload["schema_version"]) == (
        "observation",
        "current",
        1,
    )
    assert from_payload(payload) == record
    changed = record.model_copy(update={"importance": 0.0, "votes_up": 2, "tags": ["x"]})
    assert {"importance", "votes_up", "tags"} <= set(to_payload(changed))
    assert from_payload(to_payload(changed)) == changed
