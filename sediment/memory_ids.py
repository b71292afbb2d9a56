"""A memory named by the short id the CLI prints (its first hex digits) or in full.

Recall and inspect print the first six hex digits of an id; every command that takes
a memory id takes that prefix back. A prefix names one memory of the bank or is
refused: none found, or several (listed, so the caller can give more digits).
"""

import re
import uuid
from typing import Final

from readmodel.store import Filter, MemoryStore
from sediment.short_ids import parse_full, short

__all__ = ["MemoryIdError", "parse_full", "resolve", "short"]

MIN_PREFIX: Final = 4
MAX_LISTED: Final = 5
_HEX = re.compile(r"^[0-9a-f]+$")


class MemoryIdError(ValueError):
    """A memory id the bank cannot resolve. `problem` says what is wrong without
    repeating text that is not an id (MCP errors never echo a value)."""

    def __init__(self, message: str, problem: str | None = None, status: int = 404) -> None:
        super().__init__(message)
        self.problem = problem or message
        self.status = status
        """As HTTP says it: 422 not an id, 404 no such memory, 409 several."""


def resolve(store: MemoryStore, bank_id: str, text: str) -> uuid.UUID:
    """The memory of `bank_id` that `text` names: a full id as given, or the one id
    starting with the prefix; `MemoryIdError` otherwise."""
    full = parse_full(text)
    if full is not None:
        return full
    digits = text.strip().lower().replace("-", "")
    if len(digits) < MIN_PREFIX or not _HEX.match(digits):
        hint = (
            f"give the id recall prints (at least {MIN_PREFIX} hex digits, e.g. 335057) "
            "or the full id"
        )
        raise MemoryIdError(
            f"{text!r} is not a memory id: {hint}", f"is not a memory id: {hint}", status=422
        )
    found = [
        p.record.id for p in store.scroll(Filter(bank_id)) if p.record.id.hex.startswith(digits)
    ]
    if not found:
        raise MemoryIdError(f"no memory of bank {bank_id} has an id starting with {text!r}")
    if len(found) > 1:
        listed = ", ".join(str(i) for i in sorted(found, key=str)[:MAX_LISTED])
        more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
        raise MemoryIdError(
            f"{text!r} names {len(found)} memories of bank {bank_id} ({listed}{more}): "
            "give more digits",
            status=409,
        )
    return found[0]
