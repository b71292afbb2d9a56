"""Retain items as events: what `retain` takes, checked as the HTTP API checks it."""

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import pydantic

from contracts.events import RetainEvent, derive_event_id, with_expiry
from sediment.mcp_tools.errors import bad_fields, invalid
from sediment.mcp_tools.models import MemoryItem


def to_events(
    bank_id: str, items: Sequence[MemoryItem], max_text_bytes: int, now: datetime
) -> list[RetainEvent]:
    """Every item as a `RetainEvent` of the bank, or one error naming every bad field.
    The event id is derived as the HTTP API derives it, so one item sent through
    either is one event."""
    from sediment.retain import repeat_problem, repeats

    events: list[RetainEvent] = []
    errors: list[str] = []
    ids: list[uuid.UUID | None] = []
    for i, item in enumerate(items):
        when = item.occurred_at or now
        fields = item.model_dump(exclude_unset=True)
        data = {**with_expiry(fields, now), "bank_id": bank_id, "occurred_at": when}
        if item.event_id is None:
            iso = when.astimezone(UTC).isoformat()
            data["event_id"] = derive_event_id(bank_id, item.text, iso)
        try:
            events.append(
                RetainEvent.model_validate(data, context={"max_text_bytes": max_text_bytes})
            )
            ids.append(events[-1].event_id)
        except pydantic.ValidationError as exc:
            ids.append(None)
            errors += bad_fields(exc, f"items.{i}.")
    for later, first in repeats(ids).items():
        event_id = ids[later]
        assert event_id is not None
        derived = items[later].event_id is None
        errors.append(f"items.{later}.event_id: {repeat_problem(event_id, first, derived)}")
    if errors:
        raise invalid("retain", errors)
    return events
