"""Deterministic order and truncation."""

from readmodel.recall.candidate import Candidate


def sort_key(c: Candidate) -> tuple[float, float, str]:
    """Score, then newest first, then id: exact ties never depend on arrival order."""
    return (-c.score, -c.record.occurred_at.timestamp(), str(c.id))


def rank(candidates: list[Candidate], limit: int) -> list[Candidate]:
    return sorted(candidates, key=sort_key)[:limit]
