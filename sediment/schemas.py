"""JSON Schema files of the contracts, for producers in any language."""

import json
from pathlib import Path

from pydantic import BaseModel

from contracts import (
    AuditEntry,
    DeadLetter,
    FeedbackEvent,
    ForgetEvent,
    Memory,
    Observation,
    RecallRequest,
    RecallResponse,
    RetainEvent,
    SupersessionEdge,
    Tombstone,
)

MODELS: tuple[type[BaseModel], ...] = (
    RetainEvent,
    Memory,
    Observation,
    SupersessionEdge,
    DeadLetter,
    FeedbackEvent,
    ForgetEvent,
    Tombstone,
    RecallRequest,
    RecallResponse,
    AuditEntry,
)
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "contracts" / "schema"


def rendered() -> dict[str, str]:
    """File name to file content, exactly as written."""
    return {
        f"{m.__name__}.json": json.dumps(m.model_json_schema(), indent=2, sort_keys=True) + "\n"
        for m in MODELS
    }


def write(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in rendered().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


if __name__ == "__main__":
    for p in write():
        print(p)
