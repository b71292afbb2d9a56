"""Keyword hits cut at the depth the same way by every store.

Many memories can share a keyword score (a question's one rare term in texts of the
same length), and an engine returns some of the tied ones at its cut: which ones
differed between two stores holding the same points, so identical banks recalled
differently (docs/decisions/0036). The adapters cut themselves instead: they read ids
and scores of twice the depth, without payloads, order them by score and then id, keep
the depth, and read the payloads of the hits kept.

The cut is exact (the smallest ids of the tied group) whenever the score at the cut is
above the last score read. A tie group that reaches past twice the depth is cut among
what the engine returned: reading on until it ends cost a fifth of recall's time at
100,000 memories, where half the scale workload's questions have such a group.
"""

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from readmodel.store import Hit, Record, StoredPoint, TextStats

Scored = tuple[uuid.UUID, float]

READ_FACTOR: Final = 2
"""The keyword half reads ids and scores of this many times the depth."""


def first_read(limit: int) -> int:
    return READ_FACTOR * limit


def top(read: Sequence[Scored], limit: int) -> list[Scored]:
    """The `limit` best of an engine's answer to a read of `first_read(limit)`: best
    score first, then the smaller id (by its 128-bit value, as ids order)."""
    return sorted(read, key=lambda s: (-s[1], s[0].int))[: max(0, limit)]


def kept_hits(
    read: Sequence[Scored],
    limit: int,
    known: Mapping[uuid.UUID, Hit],
    fetch: Callable[[list[uuid.UUID]], Sequence[StoredPoint]],
) -> list[Hit]:
    """The `top` of `read` as hits: records and their text stats from `known` (what the
    dense half brought), the others read with `fetch` (by id, in the bank)."""
    chosen = top(read, limit)
    missing = [i for i, _ in chosen if i not in known]
    found: dict[uuid.UUID, tuple[Record, TextStats | None]] = {
        i: (h.record, h.stats) for i, h in known.items()
    }
    found.update((p.record.id, (p.record, p.stats)) for p in fetch(missing))
    return [Hit(found[i][0], s, None, found[i][1]) for i, s in chosen if i in found]
