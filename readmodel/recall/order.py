"""Deterministic order, floor and truncation."""

from readmodel.recall.candidate import Candidate


def sort_key(c: Candidate) -> tuple[float, float, str]:
    """Score, then newest first, then id: exact ties never depend on arrival order."""
    return (-c.score, -c.record.occurred_at.timestamp(), str(c.id))


def rank(candidates: list[Candidate], limit: int) -> list[Candidate]:
    return sorted(candidates, key=sort_key)[:limit]


def floor_and_truncate(
    ordered: list[Candidate], limit: int, min_score: float, max_tokens: int | None
) -> list[Candidate]:
    """Drop scores below `min_score`, keep `limit`, and stop before the whitespace-token
    budget would be exceeded."""
    out: list[Candidate] = []
    used = 0
    for c in ordered:
        if c.score < min_score or len(out) >= limit:
            break
        size = len(c.record.text.split())
        if max_tokens is not None and used + size > max_tokens:
            break
        out.append(c)
        used += size
    return out
