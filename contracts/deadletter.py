"""What the worker keeps of an event it could not process."""

from typing import Literal

from pydantic import Field

from contracts.base import AwareDatetime, Frozen
from contracts.events import SCHEMA_VERSION


class DeadLetter(Frozen):
    """A poison event with the reason; `payload` is the raw message exactly as received."""

    schema_version: Literal[1] = SCHEMA_VERSION
    id: str = ""
    task: str
    payload: str
    error_class: str
    message: str
    attempts: int = Field(ge=1)
    first_seen: AwareDatetime
    last_seen: AwareDatetime
