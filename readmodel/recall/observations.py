"""Prefer observations: a returned observation stands in for the raw memories it was built from."""

import uuid

from contracts.memory import Observation
from readmodel.recall.candidate import Candidate


def prefer_observations(candidates: list[Candidate]) -> tuple[list[Candidate], int]:
    """Drop raw memories listed in a present observation's `source_memory_ids` (exact ids).

    Runs before truncation, so the slots they free are backfilled by the next candidates.
    Returns the kept candidates and how many were dropped.
    """
    covered: set[uuid.UUID] = set()
    for c in candidates:
        if isinstance(c.record, Observation):
            covered.update(c.record.source_memory_ids)
    kept = [c for c in candidates if c.id not in covered]
    return kept, len(candidates) - len(kept)
