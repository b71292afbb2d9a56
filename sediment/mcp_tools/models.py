"""What the MCP tools take and return beyond the contracts they pass through.

`MemoryItem` is a retain event as an agent writes it: no `bank_id` (the tool's `bank`
argument), `event_id` optional and `occurred_at` optional (default: now). Each item is
validated again as a `contracts.events.RetainEvent`, so the contract stays the one
source of the rules; the descriptions here are what the model reads.
"""

import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.base import AwareDatetime, Number
from contracts.events import (
    MAX_ENTITIES,
    MAX_METADATA_ITEMS,
    MAX_METADATA_VALUE_CHARS,
    MAX_SUPERSEDES,
    MAX_TAGS,
    MAX_TTL_S,
    ONE_EXPIRY_ONLY,
    EventKind,
    Label,
)


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MemoryItem(Model):
    """One fact to remember."""

    model_config = ConfigDict(json_schema_extra={"not": ONE_EXPIRY_ONLY})

    text: str = Field(min_length=1, description="the fact, in one or a few sentences")
    occurred_at: AwareDatetime | None = Field(
        default=None,
        description=(
            "when it happened or became true (default: now); of two states of one thing, "
            "the later is the current one"
        ),
    )
    key: Label | None = Field(
        default=None,
        description="a slot such as 'alice.city': a later memory of the same key replaces it",
    )
    kind: EventKind = Field(
        default="world", description="world: a fact; experience: something the agent did"
    )
    context: str | None = Field(
        default=None,
        description="what situates the text (the question it answers): searched, not shown",
    )
    entities: list[Label] = Field(
        default_factory=list, max_length=MAX_ENTITIES, description="names the fact is about"
    )
    tags: list[Label] = Field(
        default_factory=list, max_length=MAX_TAGS, description="labels to filter recall by"
    )
    importance: Number = Field(default=0.5, ge=0.0, le=1.0, description="0..1")
    supersedes: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=MAX_SUPERSEDES,
        description="ids of memories this one replaces or retracts",
    )
    metadata: dict[Label, Annotated[str, Field(max_length=MAX_METADATA_VALUE_CHARS)]] = Field(
        default_factory=dict, max_length=MAX_METADATA_ITEMS, description="string pairs, kept"
    )
    mentioned_at: AwareDatetime | None = Field(
        default=None, description="when it was said, if not when it happened"
    )
    event_id: uuid.UUID | None = Field(
        default=None,
        description="idempotency key; default: derived from bank, text and occurred_at",
    )
    ttl_s: Number | None = Field(
        default=None,
        gt=0,
        le=MAX_TTL_S,
        description="forget it after so many seconds; or expires_at",
    )
    expires_at: AwareDatetime | None = Field(
        default=None,
        description="when to forget it",
    )

    @model_validator(mode="after")
    def _one_expiry(self) -> "MemoryItem":
        if self.ttl_s is not None and self.expires_at is not None:
            raise ValueError("give ttl_s or expires_at, not both")
        return self


class Retained(Model):
    """`consolidated`: recall sees the items now, and `outcomes` says what became of
    each (stored, merged into an observation, what it superseded); `queued`: once a
    worker is done (recall's `wait_for` takes the `event_ids`)."""

    bank: str
    event_ids: list[uuid.UUID]
    status: Literal["consolidated", "queued"]
    outcomes: list[str] | None = None


class Voted(Model):
    bank: str
    event_id: uuid.UUID
    status: Literal["counted", "queued"]


class Forgot(Model):
    """`forgotten` counts the memories removed when the forget ran here; None when queued."""

    bank: str
    event_id: uuid.UUID
    status: Literal["forgotten", "queued"]
    forgotten: int | None = None


class BankStats(Model):
    """The bank's records now, and its activity over the last `minutes`."""

    bank: str
    memories: int = Field(description="raw memories (world and experience)")
    observations: int = Field(description="consolidated observations")
    superseded: int = Field(description="records replaced by a newer state")
    minutes: int
    retained: int = Field(description="events stored in the window")
    recalls: int = Field(description="recalls in the window")


class Banks(Model):
    banks: list[str]
    default_bank: str | None = None
