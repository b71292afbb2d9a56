"""Reading a stored payload converts it without validating it again; the result is the
record validation gives, field by field and type by type."""

import json
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pydantic
import pytest

from contracts.memory import Memory, Observation, Relation, State
from readmodel.store import Record
from readmodel.stores.payload import INDEX_ONLY_FIELDS, from_payload, to_payload

T = datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)


def full_memory() -> Memory:
    return Memory(
        id=uuid.uuid4(),
        bank_id="b",
        kind="experience",
        text="Ana lives in Porto.",
        context="Where does Ana live?",
        occurred_at=T,
        mentioned_at=T.astimezone(timezone(timedelta(hours=-5))),
        created_at=T,
        last_accessed_at=T + timedelta(days=1),
        entities=["Ana"],
        tags=["x", "y"],
        key="ana.city",
        importance=1.0,
        metadata={"source": "chat"},
        event_id=uuid.uuid4(),
        declared_supersedes=[uuid.uuid4(), uuid.uuid4()],
        slot_keys=["ana|residence", "ana|"],
        state=State.SUPERSEDED,
        superseded_by=uuid.uuid4(),
        relation=Relation.EVOLVED_INTO,
        supersession_reason="ana: residence 'porto' -> 'lyon'",
        current_until=T + timedelta(days=3),
        observation_id=uuid.uuid4(),
        consolidated=True,
        votes_up=2,
        votes_down=1,
        not_useful=1,
        expires_at=T + timedelta(days=30),
    )


def full_observation() -> Observation:
    m = full_memory()
    return Observation(
        **(m.model_dump() | {"kind": "observation"}),
        source_memory_ids=[uuid.uuid4(), uuid.uuid4()],
        proof_count=2,
        first_occurred_at=T - timedelta(days=2),
        last_occurred_at=T,
        version=2,
    )


def bare_memory() -> Memory:
    return Memory(id=uuid.uuid4(), bank_id="b", kind="world", text="t", occurred_at=T, created_at=T)


def stored(record: Record) -> dict[str, object]:
    """As an engine hands it back: JSON, with the keys set to null dropped."""
    payload = json.loads(json.dumps(to_payload(record)))
    return {k: v for k, v in payload.items() if v is not None}


@pytest.mark.parametrize("make", [full_memory, full_observation, bare_memory])
def test_a_read_payload_is_the_validated_record(make) -> None:  # type: ignore[no-untyped-def]
    record = make()
    payload = stored(record)
    validated = type(record).model_validate(
        {k: v for k, v in payload.items() if k not in INDEX_ONLY_FIELDS}
    )
    read = from_payload(payload)
    assert type(read) is type(record)
    assert read == validated == record
    for name in type(record).model_fields:
        assert type(getattr(read, name)) is type(getattr(validated, name)), name
    assert read.model_dump(mode="json") == validated.model_dump(mode="json")


def test_a_payload_with_an_unknown_field_is_refused() -> None:
    payload = stored(bare_memory()) | {"surprise": 1}
    with pytest.raises(pydantic.ValidationError):
        from_payload(payload)
