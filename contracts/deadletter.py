"""What the worker keeps of an event it could not process."""

from typing import Literal

from pydantic import Field, StrictBool, StrictInt

from contracts.base import AwareDatetime, Frozen
from contracts.events import SCHEMA_VERSION


class DeadLetter(Frozen):
    """A poison event with the reason. `payload` is the raw message exactly as received,
    or, when it was larger than the deployment's cap (SEDIMENT_DLQ_MAX_PAYLOAD_BYTES),
    its first bytes only: then `truncated` is true and the whole payload is known only
    by its size and hash, and cannot be replayed from here."""

    schema_version: Literal[1] = SCHEMA_VERSION
    id: str = ""
    task: str
    payload: str
    error_class: str
    message: str
    attempts: StrictInt = Field(ge=1)
    first_seen: AwareDatetime
    last_seen: AwareDatetime
    payload_bytes: StrictInt | None = Field(
        default=None, ge=0, description="size of the whole payload in bytes of UTF-8"
    )
    payload_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the whole payload"
    )
    truncated: StrictBool = False
