"""Recall request and response as callers see them."""

import uuid
from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, field_validator, model_validator

from contracts.base import (
    NOT_BLANK_PATTERN,
    PRINTABLE_PATTERN,
    AwareDatetime,
    Frozen,
    Number,
    SchemaVersion,
    WholeNumber,
    require_not_blank,
    require_printable,
)
from contracts.events import SCHEMA_VERSION
from contracts.events import Label as Tag
from contracts.memory import MemoryKind, Relation, State

StateMode = Literal["current", "history"]
RecencyBias = Literal["off", "on", "auto"]
Label = Literal["keyword-only", "relevance_gated", "superseded", "instruction"]
MAX_LIMIT = 100
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT), WholeNumber]
MaxTokens = Annotated[int, Field(ge=1, le=100_000), WholeNumber]
MAX_WAIT_FOR = 1000
MAX_WAIT_S = 60.0


class RecallRequest(Frozen):
    """What to look for. `prefer_observations` defaults to true for users; internal
    callers (consolidation's neighbour search) pass false. `recency_bias` None means
    the deployment's default (`SEDIMENT_RECALL_RECENCY_BIAS`). `all` None keeps every
    result, as in-process callers (benchmarks) want; the user-facing surfaces set it
    before recalling (`sediment.recall_defaults.surface_default`)."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    query: str = Field(
        min_length=1,
        max_length=4096,
        description=(
            "What to look for: not blank (not only whitespace and invisible characters); "
            "no control characters but tab, newline and carriage return."
        ),
        json_schema_extra={"pattern": NOT_BLANK_PATTERN},
    )
    limit: Limit = 10
    kinds: list[MemoryKind] = Field(default_factory=list, max_length=3)
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    tags_match: Literal["any", "all"] = "any"
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    history: StrictBool = Field(
        default=False,
        description="Every state, superseded ones too, not only the current one.",
    )
    state_mode: StateMode | None = Field(
        default=None,
        deprecated=True,
        description=(
            'Deprecated spelling of `history` ("history" is history: true); accepted for '
            "one release, answered with a Deprecation header."
        ),
    )
    as_of: AwareDatetime | None = None
    prefer_observations: StrictBool = True
    recency_bias: RecencyBias | None = None
    max_tokens: MaxTokens | None = None
    min_score: Number = Field(
        default=0.0,
        ge=0.0,
        le=10.0,
        description=(
            "Leave out results scored below this; above 0, it stands in for the evidence "
            "rule (`all`) at the surfaces."
        ),
    )
    all: StrictBool | None = Field(
        default=None,
        description=(
            "Results without topical evidence too: those that share no word with the query, "
            "match none of its dates and are below the semantic floor in meaning. The CLI, "
            "HTTP and MCP leave them out unless `all` is true or `min_score` is above 0; "
            "false leaves them out, unset (in process) keeps them."
        ),
    )
    session_key: str | None = Field(
        default=None,
        max_length=256,
        description="Groups the recalls of one conversation; no control characters.",
        json_schema_extra={"pattern": PRINTABLE_PATTERN},
    )
    explain: StrictBool = False
    full_text: StrictBool = Field(
        default=False,
        description=(
            "The whole text of every result. By default a long memory (several "
            "passages) returns only the passage that matched, with `snippet` saying "
            "where it lies in the whole."
        ),
    )
    wait_for: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=MAX_WAIT_FOR,
        description=(
            "Event ids (as retain answered them) to wait for: the recall runs once they are "
            "consolidated, or after `wait_timeout_s`, whichever comes first; `pending` "
            "then says what is still outstanding."
        ),
    )
    wait_timeout_s: Number = Field(default=5.0, ge=0.0, le=MAX_WAIT_S)

    @model_validator(mode="before")
    @classmethod
    def _history_from_state_mode(cls, data: Any) -> Any:
        """The deprecated `state_mode` sets `history`; both given must agree."""
        if not isinstance(data, dict) or data.get("state_mode") is None:
            return data
        wanted = data["state_mode"] == "history"
        if "history" in data and data["history"] is not wanted:
            raise ValueError(
                "state_mode and history disagree: send history only (state_mode is deprecated)"
            )
        return {**data, "history": wanted}

    @field_validator("query")
    @classmethod
    def _query_says_something(cls, value: str) -> str:
        return require_not_blank(require_printable(value, "query"), "query")

    @field_validator("session_key")
    @classmethod
    def _session_key_printable(cls, value: str | None) -> str | None:
        """The key names a Redis key (the session's last recall): no NUL nor any other
        control character in it."""
        return value if value is None else require_printable(value, "session_key")


class Components(Frozen):
    """Evidence behind a score, each in 0..1 except the signed feedback bias.

    `vector` is the cosine; `vector_calibrated` is the same cosine measured against this
    query's other dense hits (how far above their mean, in standard deviations, a third
    of the way to 1 per deviation), the form the fusion weighs.

    `score_from` is set on a chain head shown in place of a superseded state when the
    score and these components are that state's (the query did not find the head, or
    found it with less evidence): they describe the older text, not this one.
    """

    vector: float = 0.0
    vector_calibrated: float = 0.0
    keyword: float = 0.0
    exact: float = 0.0
    date: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    feedback: float = 0.0
    fused: float = 0.0
    decay: float = 1.0
    recency_bias: float = 0.0
    rerank: float | None = None
    score_from: uuid.UUID | None = None


class Span(Frozen):
    """Character offsets into a memory's whole text: `text[start:end]`."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class RecallResult(Frozen):
    """`text` is what the result returns: the memory's text, or for a long memory
    (unless the request asks `full_text`) only the passage that answers the query, with
    `snippet` giving its span in the whole text (empty when `text` is the whole).
    `state_replaces`: the superseded state this current one was shown for;
    `outdated_by`: a newer memory of the same subject that answers a question about the
    present with another value, where no supersession joins them (decided when recalling;
    nothing stored changed)."""

    id: uuid.UUID
    kind: MemoryKind
    text: str
    snippet: list[Span] = Field(default_factory=list)
    occurred_at: AwareDatetime
    score: float
    state: State
    superseded_by: uuid.UUID | None = None
    relation: Relation | None = None
    state_replaces: uuid.UUID | None = None
    outdated_by: uuid.UUID | None = None
    source_memory_ids: list[uuid.UUID] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)
    labels: list[Label] = Field(default_factory=list)
    components: Components | None = None


class StageTrace(Frozen):
    """One stage as `explain` reports it: what it did to the candidate list."""

    stage: str
    ms: float
    candidates: int
    note: str = ""


class RecallResponse(Frozen):
    """`timings` holds each stage's time in milliseconds. `timings_ms` is the same map
    under the name used before `timings`: a response read with either name fills both,
    and it is no longer sent (`wire`); it goes with the next schema version."""

    schema_version: Literal[1] = SCHEMA_VERSION
    bank_id: str
    query: str
    results: list[RecallResult]
    dropped_by_prefer_observations: int = 0
    recency_bias: Literal["on", "off"] = "off"
    low_confidence: bool = False
    without_evidence: int = Field(
        default=0,
        ge=0,
        description=(
            "Of the results `all: true` would show, how many this answer left out for want "
            "of topical evidence (`all` false)."
        ),
    )
    direct_answer: uuid.UUID | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    timings_ms: dict[str, float] = Field(
        default_factory=dict, json_schema_extra={"deprecated": True}
    )
    explain: list[StageTrace] | None = None
    pending: int = Field(
        default=0,
        ge=0,
        description=(
            "Events accepted for the bank and not yet consolidated when the recall ran: "
            "0 means the results reflect every write accepted so far."
        ),
    )
    pending_events: list[uuid.UUID] = Field(
        default_factory=list,
        description="Of the request's `wait_for`, the events still not consolidated.",
    )

    def wire(self, indent: int | None = None) -> str:
        """The response as the HTTP API and `sediment recall --json` send it: no
        nulls (an absent field is its default) and `timings` alone (a reader of the
        model still finds `timings_ms`, filled from `timings`)."""
        return self.model_dump_json(indent=indent, exclude_none=True, exclude={"timings_ms"})

    @model_validator(mode="before")
    @classmethod
    def _same_timings(cls, data: Any) -> Any:
        """Either name fills the other, so old and new producers build the same response."""
        if isinstance(data, dict):
            timings = data.get("timings") or data.get("timings_ms")
            if timings is not None:
                data = {**data, "timings": timings, "timings_ms": timings}
        return data
