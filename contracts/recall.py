"""Recall request and response as callers see them."""

import uuid
from typing import Literal

from pydantic import Field

from contracts.base import AwareDatetime, Frozen
from contracts.events import SCHEMA_VERSION
from contracts.memory import MemoryKind, Relation, State

StateMode = Literal["current", "history"]
MAX_LIMIT = 100


class RecallRequest(Frozen):
    """What to look for. `prefer_observations` defaults to true for users;
    internal callers (consolidation) pass false."""

    schema_version: Literal[1] = SCHEMA_VERSION
    query: str = Field(min_length=1, max_length=4096)
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    kinds: list[MemoryKind] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    tags_match: Literal["any", "all"] = "any"
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    state_mode: StateMode = "current"
    prefer_observations: bool = True


class RecallResult(Frozen):
    id: uuid.UUID
    kind: MemoryKind
    text: str
    occurred_at: AwareDatetime
    score: float
    state: State
    superseded_by: uuid.UUID | None = None
    relation: Relation | None = None
    state_replaces: uuid.UUID | None = None
    source_memory_ids: list[uuid.UUID] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)


class RecallResponse(Frozen):
    schema_version: Literal[1] = SCHEMA_VERSION
    bank_id: str
    query: str
    results: list[RecallResult]
    dropped_by_prefer_observations: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)
