"""Prefer observations: a returned observation stands in for the raw memories it was built from.

"Returned" is only known once the final order is settled, so this stage runs as the
window is filled (`order.fill_window`), after every score adjustment and the reranker
and before truncation: an observation ranked below the shown window never hides a
memory inside it, and the slots its members free are backfilled from further down.
"""

import uuid

from contracts.memory import Observation
from readmodel.recall.candidate import Candidate


def members(c: Candidate) -> frozenset[uuid.UUID]:
    """The raw memories `c` stands in for (exact ids); none unless it is an observation."""
    r = c.record
    return frozenset(r.source_memory_ids) if isinstance(r, Observation) else frozenset()


def take(shown: list[Candidate], c: Candidate) -> tuple[list[Candidate], int]:
    """The window after taking `c` into it: when `c` is an observation, its members
    already shown leave the window. Returns the window and how many left."""
    covered = members(c)
    kept = [s for s in shown if s.id not in covered]
    return [*kept, c], len(shown) - len(kept)
