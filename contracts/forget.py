"""Forget events: what a data owner publishes to remove memories for good.

A forget travels on the same queue as retains and is as safe under redelivery and
reordering: it leaves a tombstone (memory id and event id, never text) for every
memory it removes, so a later, redelivered or replayed retain of the same event is
skipped instead of bringing the memory back.
"""

import uuid
from typing import Any, Literal

from pydantic import ConfigDict, Field, StrictBool, model_validator

from contracts.base import AwareDatetime, BankId, Frozen
from contracts.events import MAX_ENTITIES, MAX_TAGS, SCHEMA_VERSION, Label

MAX_FORGET_IDS = 1000

FILTER_CONDITIONS: dict[str, Any] = {
    "anyOf": [
        {"required": ["tags"], "properties": {"tags": {"type": "array", "minItems": 1}}},
        {"required": ["entities"], "properties": {"entities": {"type": "array", "minItems": 1}}},
        {"required": ["start"], "properties": {"start": {"type": "string"}}},
        {"required": ["end"], "properties": {"end": {"type": "string"}}},
        {"required": ["source_id"], "properties": {"source_id": {"type": "string"}}},
    ]
}
"""JSON Schema for "at least one condition", so the schema says what validation does."""
ONE_SELECTOR: dict[str, Any] = {
    "oneOf": [
        {"required": ["memory_ids"], "properties": {"memory_ids": {"minItems": 1}}},
        {"required": ["event_ids"], "properties": {"event_ids": {"minItems": 1}}},
        {"required": ["filter"], "properties": {"filter": {"type": "object"}}},
        {"required": ["all_memories"], "properties": {"all_memories": {"const": True}}},
    ]
}
"""JSON Schema for "exactly one selector"."""


class ForgetFilter(Frozen):
    """Memories matching every given condition: any of `tags`, any of `entities`,
    `occurred_at` within [start, end], `metadata.source_id` equal to `source_id`.
    At least one condition (the JSON Schema says so too)."""

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["tags"], "properties": {"tags": {"minItems": 1}}},
                {"required": ["entities"], "properties": {"entities": {"minItems": 1}}},
                {"required": ["start"], "properties": {"start": {"type": "string"}}},
                {"required": ["end"], "properties": {"end": {"type": "string"}}},
                {"required": ["source_id"], "properties": {"source_id": {"type": "string"}}},
            ]
        }
    )

    model_config = ConfigDict(json_schema_extra=FILTER_CONDITIONS)

    tags: list[Label] = Field(default_factory=list, max_length=MAX_TAGS)
    entities: list[Label] = Field(default_factory=list, max_length=MAX_ENTITIES)
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    source_id: Label | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> "ForgetFilter":
        given = (self.tags, self.entities, self.start, self.end, self.source_id)
        if not any(v not in (None, []) for v in given):
            raise ValueError(
                "a forget filter needs at least one of tags, entities, start, end, source_id"
            )
        return self


class ForgetEvent(Frozen):
    """Forget memories of one bank. Exactly one selector: `memory_ids` (a memory's id
    is `contracts.memory.derive_memory_id(bank_id, event_id)`, so a producer can forget
    what it has not yet seen stored), `event_ids` (the memories those retain events of
    this bank store; their tombstones keep the event ids, so an export imported into
    another bank forgets them there too), `filter`, or `all_memories` (the whole bank)."""

    model_config = ConfigDict(json_schema_extra=ONE_SELECTOR)

    schema_version: Literal[1] = SCHEMA_VERSION
    event_id: uuid.UUID
    bank_id: BankId
    memory_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORGET_IDS)
    event_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORGET_IDS)
    filter: ForgetFilter | None = None
    all_memories: StrictBool = False
    requested_at: AwareDatetime | None = None

    @model_validator(mode="after")
    def _one_selector(self) -> "ForgetEvent":
        chosen = sum(
            [
                bool(self.memory_ids),
                bool(self.event_ids),
                self.filter is not None,
                self.all_memories,
            ]
        )
        if chosen != 1:
            raise ValueError(
                "a forget needs exactly one selector: memory_ids, event_ids, filter, "
                "or all_memories=true"
            )
        return self


class Tombstone(Frozen):
    """What is left of a forgotten memory: its id and event id, no content."""

    schema_version: Literal[1] = SCHEMA_VERSION
    bank_id: BankId
    memory_id: uuid.UUID
    event_id: uuid.UUID | None = None
    forget_event_id: uuid.UUID | None = None


class ForgetRule(Frozen):
    """What a forget of a whole bank (`filter` None) or by filter leaves for retains
    still in flight: a retain of `bank_id` accepted at or before `accepted_at` that the
    filter selects is forgotten when it arrives. Ids and conditions only, no content."""

    schema_version: Literal[1] = SCHEMA_VERSION
    bank_id: BankId
    forget_event_id: uuid.UUID
    filter: ForgetFilter | None = None
    accepted_at: AwareDatetime
