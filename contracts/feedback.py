"""Feedback events: votes and "not useful" marks on recalled memories."""

import uuid
from typing import Literal

from pydantic import Field, field_validator

from contracts.base import (
    PRINTABLE_PATTERN,
    AwareDatetime,
    BankId,
    Frozen,
    SchemaVersion,
    require_printable,
)
from contracts.events import SCHEMA_VERSION

Vote = Literal["up", "down", "not_useful"]


class FeedbackEvent(Frozen):
    """One vote on one memory. `event_id` is the idempotency key: a vote counts once."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    event_id: uuid.UUID
    bank_id: BankId
    memory_id: uuid.UUID
    vote: Vote
    occurred_at: AwareDatetime
    session_key: str | None = Field(
        default=None, max_length=256, json_schema_extra={"pattern": PRINTABLE_PATTERN}
    )

    @field_validator("session_key")
    @classmethod
    def _session_key_printable(cls, value: str | None) -> str | None:
        return value if value is None else require_printable(value, "session_key")
