"""Keyword hits cut at the depth the same way by every store.

Many memories can share a keyword score (a question's one rare term in texts of the
same length), and an engine returns some of the tied ones at its cut: which ones
differed between two stores holding the same points, so identical banks recalled
differently (docs/decisions.md). The adapters cut themselves instead: they read ids
and scores past the depth, without payloads, until the score at the cut is above the
last score read (or everything was read), order by score and then id, and read the
payloads of the hits kept.
"""

import uuid
from collections.abc import Callable, Sequence
from typing import Final

Scored = tuple[uuid.UUID, float]

FIRST_READ: Final = 2
"""The first read asks this many times the depth."""
MAX_READ: Final = 16
"""Reads stop at this many times the depth: a tie group larger than that (a term in
nearly every memory of a large bank) is cut by what was read."""


def first_read(limit: int) -> int:
    return FIRST_READ * limit


def ranked(scored: Sequence[Scored]) -> list[Scored]:
    """Best score first, then the smaller id (by its 128-bit value, as ids order)."""
    return sorted(scored, key=lambda s: (-s[1], s[0].int))


def top(
    first: Sequence[Scored], limit: int, read: Callable[[int], Sequence[Scored]]
) -> list[Scored]:
    """The `limit` best of an engine's answer, ties broken by id. `first` answered a read
    of `first_read(limit)`; `read(n)` asks the engine again for its best `n`. The answer
    is exact when the score at the cut is above the last score read: every point scoring
    that much was then among those read."""
    if limit <= 0:
        return []
    asked, found = first_read(limit), list(first)
    while True:
        order = ranked(found)
        complete = len(found) < asked or order[limit - 1][1] > order[-1][1]
        if complete or asked >= MAX_READ * limit:
            return order[:limit]
        asked *= 2
        found = list(read(asked))
