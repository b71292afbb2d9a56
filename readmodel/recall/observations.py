"""Prefer observations: a returned observation stands in for the raw memories it was built from.

"Returned" is only known once the final order is settled, so this stage runs as the
window is filled (`order.fill_window`), after every score adjustment and the reranker
and before truncation: an observation ranked below the shown window never hides a
memory inside it, and the slots its members free are backfilled from further down.
An observation stands in for a member only when it holds the member's reading
(`readmodel.reading.same_statement`): a store merged by an older rule never hides a
different fact behind it.
"""

import uuid

from contracts.memory import Observation
from readmodel.reading import read, same_statement
from readmodel.recall.candidate import Candidate


def members(c: Candidate) -> frozenset[uuid.UUID]:
    """The raw memories `c` stands in for (exact ids); none unless it is an observation."""
    r = c.record
    return frozenset(r.source_memory_ids) if isinstance(r, Observation) else frozenset()


def holds(observation: Candidate, member: Candidate) -> bool:
    """Whether `observation` stands in for `member`: one of its sources, read as the
    same statement."""
    if member.id not in members(observation):
        return False
    o, m = observation.record, member.record
    return same_statement(read(o.text, o.entities), read(m.text, m.entities))


def take(shown: list[Candidate], c: Candidate) -> tuple[list[Candidate], int]:
    """The window after taking `c` into it: when `c` is an observation, its members
    already shown that it holds leave the window. Returns the window and how many left."""
    if not members(c):
        return [*shown, c], 0
    kept = [s for s in shown if not holds(c, s)]
    return [*kept, c], len(shown) - len(kept)
