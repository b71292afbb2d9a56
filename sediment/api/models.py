"""HTTP request and response bodies that are not contracts of their own.

A retain item is `contracts.events.RetainItem`: a `RetainEvent` without `bank_id` (the
bank is the URL's) and with `event_id` optional; it is validated again as a
`RetainEvent` before publishing, so the contract stays the one source of the rules.
"""

import uuid
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from contracts.base import PRINTABLE_PATTERN, AwareDatetime, require_printable
from contracts.events import RetainItem
from contracts.feedback import Vote
from contracts.memory import Memory, MemoryKind, Observation, Relation, State

MAX_ITEMS = 1000


def _printable_session_key(value: str) -> str:
    return require_printable(value, "session_key")


SessionKey = Annotated[
    str,
    Field(min_length=1, max_length=256, json_schema_extra={"pattern": PRINTABLE_PATTERN}),
    AfterValidator(_printable_session_key),
]
"""Names a Redis key (the session's last recall): no NUL nor other control characters."""


class Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RetainBody(Body):
    items: list[RetainItem] = Field(min_length=1, max_length=MAX_ITEMS)


class Outcome(Body):
    """What became of one retained event, once consolidated: the memory it stored, the
    observation it was merged into, the states it superseded, or the newer state that
    had superseded it already (it arrived late). `said` puts it in words."""

    event_id: uuid.UUID
    memory_id: uuid.UUID
    stored: bool = True
    observation_id: uuid.UUID | None = None
    supersedes: list[uuid.UUID] = Field(default_factory=list)
    superseded_by: uuid.UUID | None = None
    said: str = ""


class RetainAccepted(Body):
    """`status`: `consolidated` when the events were consolidated before the answer
    (`outcomes` says what became of each), `queued` when a worker will do it (recall's
    `wait_for` takes the `event_ids` to read them once it has)."""

    event_ids: list[uuid.UUID]
    status: Literal["consolidated", "queued"] = "queued"
    outcomes: list[Outcome] | None = None


class BankStatus(Body):
    """How far the bank's read model has caught up. `consolidated_through` is the
    watermark: every event accepted before it is consolidated (now, when nothing is
    pending); `pending` counts the accepted events not consolidated yet, the oldest
    accepted at `oldest_pending_at`."""

    bank_id: str
    pending: int
    consolidated_through: AwareDatetime
    oldest_pending_at: AwareDatetime | None = None
    memories: int
    observations: int


class FeedbackBody(Body):
    """A vote on one memory of the URL's bank. Send `event_id` to make retries safe;
    without it, each request is a new vote."""

    memory_id: uuid.UUID
    vote: Vote
    session_key: SessionKey | None = None
    event_id: uuid.UUID | None = None


class FeedbackAccepted(Body):
    event_id: uuid.UUID


class ForgetAccepted(Body):
    """`forgotten`: how many memories went, when the forget ran before the answer
    (embedded); null when it is queued for a worker."""

    event_id: uuid.UUID
    queued: bool
    forgotten: int | None = None


class MarkBody(Body):
    """`useful_ids`: the results of the session's last recall that helped; every other
    result of that recall is marked not useful. An empty list marks nothing."""

    session_key: SessionKey
    useful_ids: list[uuid.UUID] = Field(default_factory=list, max_length=100)


class MarkAccepted(Body):
    useful: int
    marked_not_useful: int
    event_ids: list[uuid.UUID]


class RecordSummary(Body):
    id: uuid.UUID
    kind: MemoryKind
    text: str
    occurred_at: AwareDatetime
    state: State
    superseded_by: uuid.UUID | None = None
    relation: Relation | None = None
    supersession_reason: str | None = Field(
        default=None,
        description="Why it was superseded: the subject, the attribute and old -> new value.",
    )


class Edges(Body):
    """`superseded_by`/`relation`: what replaced this record; `supersedes`: what it replaced."""

    superseded_by: uuid.UUID | None = None
    relation: Relation | None = None
    supersedes: list[RecordSummary] = Field(default_factory=list)


class MemoryView(Body):
    """A record with its provenance (an observation's source memories), its edges and
    its history: the newer states reached by following `superseded_by`, oldest first."""

    memory: Observation | Memory
    sources: list[RecordSummary] = Field(default_factory=list)
    edges: Edges
    history: list[RecordSummary] = Field(default_factory=list)


Status = Literal["ok", "failed"]


class Health(Body):
    store: Status
    redis: Status
    broker: Status


class ErrorDetail(Body):
    field: str
    problem: str


class ErrorBody(Body):
    """Every error: `error` is a stable code; `message` or `detail` says what to fix."""

    error: str
    message: str | None = None
    detail: list[ErrorDetail] | None = None
