"""Reading JSON-lines retain events as users write them."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pydantic

from contracts.events import RetainEvent, derive_event_id


@dataclass(frozen=True)
class BadLine:
    line_no: int
    raw: str
    error: str


def complete(item: dict[str, object], default_bank: str | None) -> dict[str, object]:
    """Fill what a line may omit: `bank_id` (from --bank) and `event_id` (derived)."""
    out = dict(item)
    if "bank_id" not in out and default_bank is not None:
        out["bank_id"] = default_bank
    if "event_id" not in out:
        out["event_id"] = str(
            derive_event_id(
                str(out.get("bank_id", "")),
                str(out.get("text", "")),
                str(out.get("occurred_at", "")),
            )
        )
    return out


def read_events(
    path: Path, default_bank: str | None, max_text_bytes: int
) -> Iterator[RetainEvent | BadLine]:
    with path.open(encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
                if not isinstance(item, dict):
                    raise ValueError("each line must be a JSON object")
                yield RetainEvent.model_validate(
                    complete(item, default_bank), context={"max_text_bytes": max_text_bytes}
                )
            except (ValueError, pydantic.ValidationError) as exc:
                yield BadLine(line_no, raw.rstrip("\n"), str(exc))
