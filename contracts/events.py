"""Retain events: what producers publish."""

import math
import uuid
from datetime import datetime, timedelta
from typing import Annotated, Any, Final, Literal

from pydantic import (
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.config import JsonDict

from contracts.base import (
    NOT_BLANK_PATTERN,
    PRINTABLE_PATTERN,
    AwareDatetime,
    BankId,
    Frozen,
    Number,
    Printable,
    SchemaVersion,
    is_blank,
    require_not_blank,
    require_printable,
)

SCHEMA_VERSION: Final = 1
DEFAULT_MAX_TEXT_BYTES = 16 * 1024
MAX_TAGS = 32
MAX_ENTITIES = 64
MAX_LABEL_CHARS = 128
MAX_SUPERSEDES = 32
MAX_METADATA_ITEMS = 32
MAX_METADATA_VALUE_CHARS = 1024
MAX_TTL_S = 100 * 365 * 86_400
EVENT_NAMESPACE = uuid.UUID("6f2b6a47-4f4c-5a0e-9a3e-5ed1e1e7c0de")

EventKind = Literal["world", "experience"]
Label = Annotated[Printable, Field(min_length=1, max_length=MAX_LABEL_CHARS)]


def _names_and_values(schema: dict[str, Any]) -> None:
    """A map's key rule as `propertyNames` and its value rule for every key: pydantic
    writes a key pattern as `patternProperties`, which leaves other keys unconstrained."""
    for value_schema in schema.pop("patternProperties", {}).values():
        schema["additionalProperties"] = value_schema
        schema.setdefault("propertyNames", {})["pattern"] = PRINTABLE_PATTERN


TtlSeconds = Annotated[
    Number,
    Field(
        gt=0,
        le=MAX_TTL_S,
        description=(
            "Seconds from when the request is accepted until the memory expires; the "
            "accepted event carries the instant as `expires_at`. Give `ttl_s` or "
            "`expires_at`, not both."
        ),
    ),
]
EXPIRES_AT_DESCRIPTION = (
    "When the memory expires (RFC 3339 with a zone): from that instant recall no longer "
    "returns it, and the expiry sweep forgets it as `forget` would (tombstone, derived "
    "state recomputed). An instant already past is accepted: the memory is never shown."
)
_TTL: Final = TypeAdapter(TtlSeconds)
ONE_EXPIRY_ONLY: Final[JsonDict] = {
    "required": ["ttl_s", "expires_at"],
    "properties": {"ttl_s": {"type": "number"}, "expires_at": {"type": "string"}},
}
"""Both `ttl_s` and `expires_at` given (not null), which an item may not be (JSON Schema)."""


def with_expiry(data: dict[str, Any], now: datetime) -> dict[str, Any]:
    """`data` (a retain item as a dict) with its `ttl_s` replaced by `expires_at` = now +
    ttl: an event carries the instant, so a redelivery or a replay expires when the
    original would have. A ValueError when both are given or the ttl is invalid."""
    if data.get("ttl_s") is None:
        return {k: v for k, v in data.items() if k != "ttl_s"}
    if data.get("expires_at") is not None:
        raise ValueError("give ttl_s or expires_at, not both")
    ttl = _TTL.validate_python(data["ttl_s"])
    out = {k: v for k, v in data.items() if k != "ttl_s"}
    out["expires_at"] = now + timedelta(seconds=ttl)
    return out


def derive_event_id(bank_id: str, text: str, occurred_at: str) -> uuid.UUID:
    """Deterministic id for producers that send none: the same line twice is one event."""
    return uuid.uuid5(EVENT_NAMESPACE, f"{bank_id}\x1f{occurred_at}\x1f{text}")


class RetainFields(Frozen):
    """What a producer says about one fact. `RetainEvent` adds its bank and id;
    `RetainItem` is what the HTTP API and MCP take, in a bank named elsewhere."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    kind: EventKind = "world"
    text: str = Field(
        min_length=1,
        description=(
            "The fact, not blank (not only whitespace and invisible characters such as "
            "U+200B); no control characters but tab, newline and carriage return; at most "
            "SEDIMENT_MAX_TEXT_BYTES bytes of UTF-8 (16 KiB by default)."
        ),
        json_schema_extra={"pattern": NOT_BLANK_PATTERN},
    )
    context: str | None = Field(
        default=None,
        description=(
            "What situates the text, e.g. the turn before it in a conversation: indexed "
            "with the memory (dense and keyword vectors) so a reply can be found by what it "
            "answers, but never shown as the memory's text and never used to decide merges "
            "or updates. Counts towards the same size cap as the text."
        ),
        json_schema_extra={"pattern": PRINTABLE_PATTERN},
    )
    occurred_at: AwareDatetime
    mentioned_at: AwareDatetime | None = None
    entities: list[Label] = Field(default_factory=list, max_length=MAX_ENTITIES)
    tags: list[Label] = Field(default_factory=list, max_length=MAX_TAGS)
    key: Label | None = None
    supersedes: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_SUPERSEDES)
    importance: Number = Field(default=0.5, ge=0.0, le=1.0)
    metadata: dict[Label, Annotated[Printable, Field(max_length=MAX_METADATA_VALUE_CHARS)]] = Field(
        default_factory=dict, max_length=MAX_METADATA_ITEMS, json_schema_extra=_names_and_values
    )
    expires_at: AwareDatetime | None = Field(default=None, description=EXPIRES_AT_DESCRIPTION)


class RetainItem(RetainFields):
    """One fact to remember in a bank the request names (URL or tool argument);
    `event_id` defaults to one derived from bank, text and `occurred_at`, so resending
    the same item is one event. Validated again as a `RetainEvent` before it is retained."""

    model_config = ConfigDict(json_schema_extra={"not": ONE_EXPIRY_ONLY})

    event_id: uuid.UUID | None = None
    ttl_s: TtlSeconds | None = None

    @model_validator(mode="after")
    def _one_expiry(self) -> "RetainItem":
        if self.ttl_s is not None and self.expires_at is not None:
            raise ValueError("give ttl_s or expires_at, not both")
        return self


class RetainEvent(RetainFields):
    """One fact to remember. `event_id` is the idempotency key.

    The text cap comes from settings through the validation context
    (`{"max_text_bytes": n}`); without one the default of 16 KiB applies.
    """

    event_id: uuid.UUID
    bank_id: BankId

    @field_validator("text")
    @classmethod
    def _text_fits(cls, value: str, info: ValidationInfo) -> str:
        require_printable(value, "text")
        require_not_blank(value, "text")
        context = info.context if isinstance(info.context, dict) else {}
        cap = int(context.get("max_text_bytes", DEFAULT_MAX_TEXT_BYTES))
        size = len(value.encode("utf-8"))
        if size > cap:
            raise ValueError(f"text is {size} bytes; the limit is {cap} (SEDIMENT_MAX_TEXT_BYTES)")
        return value

    @field_validator("context")
    @classmethod
    def _context_fits(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:
            require_printable(value, "context")
        if value is None or is_blank(value):
            return None
        context = info.context if isinstance(info.context, dict) else {}
        cap = int(context.get("max_text_bytes", DEFAULT_MAX_TEXT_BYTES))
        size = len(value.encode("utf-8"))
        if size > cap:
            raise ValueError(
                f"context is {size} bytes; the limit is {cap} (SEDIMENT_MAX_TEXT_BYTES)"
            )
        return value

    def indexed_text(self) -> str:
        """What the vectors are computed from: the context, then the text."""
        return f"{self.context}\n{self.text}" if self.context else self.text

    @field_validator("importance", mode="before")
    @classmethod
    def _finite(cls, value: object) -> object:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("importance must be a finite number between 0 and 1")
        return value

    @model_validator(mode="after")
    def _canonical_labels(self) -> "RetainEvent":
        object.__setattr__(self, "tags", sorted(set(self.tags)))
        object.__setattr__(self, "entities", sorted(set(self.entities)))
        object.__setattr__(self, "supersedes", sorted(set(self.supersedes), key=str))
        return self
