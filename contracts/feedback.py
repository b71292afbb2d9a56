"""Feedback events: votes and "not useful" marks on recalled memories."""

import uuid
from typing import Literal

from pydantic import Field

from contracts.base import AwareDatetime, BankId, Frozen, SchemaVersion
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
    session_key: str | None = Field(default=None, max_length=256)
