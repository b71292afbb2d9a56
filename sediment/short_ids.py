"""Memory ids as people and agents read them: the first six hex digits (what recall
prints), or in full. No store here, so the HTTP client can use it without the read
model's imports; sediment/memory_ids.py resolves a short id in a bank."""

import uuid
from typing import Final

SHORT: Final = 6


def short(memory_id: uuid.UUID) -> str:
    return str(memory_id)[:SHORT]


def parse_full(text: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(text)
    except ValueError:
        return None
