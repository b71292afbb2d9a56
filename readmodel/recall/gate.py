"""Relevance gate: query-independent parts count fully only with topical evidence."""

from readmodel.recall.candidate import Candidate, replace
from readmodel.recall.fusion import DEFAULT_WEIGHTS, Weights, prior_part


def evidence(c: Candidate) -> float:
    return max(c.vector, min(1.0, c.keyword), c.exact)


def relevance_gate(
    candidates: list[Candidate], gate: float, w: Weights = DEFAULT_WEIGHTS
) -> list[Candidate]:
    """Below `gate`, importance and recency (and later feedback) are scaled by evidence/gate.
    A gate of 0 is off: scores are returned unchanged."""
    if gate <= 0:
        return candidates
    out = []
    for c in candidates:
        e = evidence(c)
        if e >= gate:
            out.append(c)
            continue
        factor = e / gate
        prior = prior_part(c, w)
        out.append(replace(c, gate=factor, score=c.score - prior + prior * factor))
    return out
