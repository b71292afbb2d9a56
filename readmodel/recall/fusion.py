"""Fusion of the dense and keyword evidence into one score."""

from dataclasses import replace

from readmodel.recall.candidate import Candidate

RRF_K = 60


def rrf(candidates: list[Candidate], k: int = RRF_K) -> list[Candidate]:
    """Reciprocal rank fusion, rescaled so a candidate first in both lists scores 1.0."""
    best = 2.0 / (k + 1)
    out = []
    for c in candidates:
        raw = sum(1.0 / (k + r) for r in (c.vector_rank, c.keyword_rank) if r is not None)
        out.append(replace(c, score=raw / best))
    return out
