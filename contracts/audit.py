"""Audit entries: who changed a bank's data, when, how, and which ids; never content.

One entry per accepted request that changes data (a retain batch, a forget, an import
batch, a vote) and per expiry sweep of a bank. Ids are capped at `MAX_AUDIT_IDS` per
entry; `counts` has the totals.
"""

import uuid
from typing import Literal

from pydantic import Field

from contracts.base import AwareDatetime, BankId, Frozen
from contracts.events import SCHEMA_VERSION

MAX_AUDIT_IDS = 100
AuditAction = Literal["retain", "forget", "import", "expire", "feedback", "export"]


class AuditEntry(Frozen):
    """`actor`: the API key's name, `token` for SEDIMENT_API_TOKEN, `local` for an API
    without credentials, `cli`, `mcp`, or `worker` (the expiry sweep). `event_ids`: the
    events accepted (retain, forget, feedback); `memory_ids`: the memories a forget or
    an expiry names, or a vote is about. `id` is the entry's id in the stream."""

    schema_version: Literal[1] = SCHEMA_VERSION
    id: str | None = None
    at: AwareDatetime
    bank_id: BankId
    actor: str = Field(min_length=1, max_length=128)
    action: AuditAction
    event_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_AUDIT_IDS)
    memory_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_AUDIT_IDS)
    counts: dict[str, int] = Field(default_factory=dict)
    request_id: str | None = Field(default=None, max_length=64)
