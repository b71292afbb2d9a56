"""The read model's records: raw memories, observations and supersession edges."""

import uuid
from enum import StrEnum
from typing import Literal

from pydantic import Field

from contracts.base import AwareDatetime, BankId, Frozen
from contracts.events import SCHEMA_VERSION

MemoryKind = Literal["world", "experience", "observation"]

MEMORY_NAMESPACE = uuid.UUID("0b5e3c1a-96c4-5d5e-8f4e-3d9a1c7e2b10")


def derive_memory_id(bank_id: str, event_id: uuid.UUID) -> uuid.UUID:
    """The id of the memory a retain event stores: uuid5 of its bank and event id, so
    two banks that use the same event id (two tenants' idempotency keys) hold two
    memories, and a producer can name a memory before it is stored."""
    return uuid.uuid5(MEMORY_NAMESPACE, f"{bank_id}\x1f{event_id}")


class State(StrEnum):
    CURRENT = "current"
    SUPERSEDED = "superseded"


class Relation(StrEnum):
    """How the newer memory replaced the older one."""

    EVOLVED_INTO = "EVOLVED_INTO"
    INVALIDATED_BY = "INVALIDATED_BY"


class Memory(Frozen):
    """A raw fact as stored: one per retain event, id = `derive_memory_id(bank_id, event_id)`.

    `declared_supersedes` keeps what the producer said this replaces; `superseded_by`,
    `relation` and `supersession_reason` (why: subject, attribute, old value -> new
    value) are derived by consolidation; `observation_id` names the observation this
    memory belongs to, if any; `consolidated` is the done-marker. `slot_keys` index the
    facts the text states (`subject|attribute`, computed once at ingest): consolidation
    compares a new fact only with memories that share one; `features` holds the text
    features consolidation decides on (computed once at ingest, compact JSON, internal
    to consolidation: worker/consolidation/features.py). `expires_at`: from then on
    recall skips it and the expiry sweep forgets it (an observation's is its members'
    earliest). `current_until` (derived with `superseded_by`): the later of this
    memory's own event time and its superseder's; a memory with one is the current
    state at no instant after it, so consolidation need not compare a newer fact with it.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    id: uuid.UUID
    bank_id: BankId
    kind: MemoryKind
    text: str
    context: str | None = None
    occurred_at: AwareDatetime
    mentioned_at: AwareDatetime | None = None
    created_at: AwareDatetime
    last_accessed_at: AwareDatetime | None = None
    entities: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    key: str | None = None
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    metadata: dict[str, str] = Field(default_factory=dict)
    event_id: uuid.UUID | None = None
    declared_supersedes: list[uuid.UUID] = Field(default_factory=list)
    slot_keys: list[str] = Field(default_factory=list)
    features: str | None = None
    state: State = State.CURRENT
    superseded_by: uuid.UUID | None = None
    relation: Relation | None = None
    supersession_reason: str | None = None
    current_until: AwareDatetime | None = None
    observation_id: uuid.UUID | None = None
    consolidated: bool = False
    votes_up: int = Field(default=0, ge=0)
    votes_down: int = Field(default=0, ge=0)
    not_useful: int = Field(default=0, ge=0)
    expires_at: AwareDatetime | None = None


class Observation(Memory):
    """A consolidated fact built from restatements, with exact provenance."""

    kind: MemoryKind = "observation"
    source_memory_ids: list[uuid.UUID] = Field(min_length=1)
    proof_count: int = Field(ge=1)
    first_occurred_at: AwareDatetime
    last_occurred_at: AwareDatetime
    version: int = Field(default=1, ge=1)


class SupersessionEdge(Frozen):
    """`older --relation--> newer`: newer is the later state of, or retracts, older."""

    schema_version: Literal[1] = SCHEMA_VERSION
    bank_id: BankId
    older_id: uuid.UUID
    newer_id: uuid.UUID
    relation: Relation
