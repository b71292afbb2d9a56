"""Shared model configuration and field types."""

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

BANK_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,128}$"


class Frozen(BaseModel):
    """Every contract is immutable and rejects unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _require_timezone(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(
            "timestamp has no timezone; send ISO 8601 with an offset, e.g. 2024-05-01T09:00:00Z"
        )
    return value


AwareDatetime = Annotated[datetime, AfterValidator(_require_timezone)]
BankId = Annotated[str, Field(pattern=BANK_ID_PATTERN, description="bank identifier")]
