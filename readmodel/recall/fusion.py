"""Fusion of the evidence into one score.

Two fusions are implemented; `weighted` is the default because it keeps how far apart
two candidates are and can use the exact-match strength, which rank fusion over two
lists cannot. The LoCoMo A/B between the two (`sediment bench locomo`) is still to be
run on a read model whose current-state resolution does not hide evidence turns;
until then this choice is a design argument, not a measurement.
"""

from dataclasses import dataclass, replace

from readmodel.recall.candidate import Candidate

RRF_K = 60


@dataclass(frozen=True)
class Weights:
    vector: float = 0.55
    keyword: float = 0.2
    exact: float = 0.25
    importance: float = 0.02
    recency: float = 0.0


DEFAULT_WEIGHTS = Weights()


def weighted(candidates: list[Candidate], w: Weights = DEFAULT_WEIGHTS) -> list[Candidate]:
    """Relevance (vector, keyword, exact) plus small query-independent parts."""
    out = []
    for c in candidates:
        relevance = w.vector * c.vector + w.keyword * min(1.0, c.keyword) + w.exact * c.exact
        prior = w.importance * c.importance + w.recency * c.recency
        out.append(replace(c, fused=relevance + prior, score=relevance + prior))
    return out


def rrf(candidates: list[Candidate], k: int = RRF_K) -> list[Candidate]:
    """Reciprocal rank fusion, rescaled so a candidate first in both lists scores 1.0."""
    best = 2.0 / (k + 1)
    out = []
    for c in candidates:
        raw = sum(1.0 / (k + r) for r in (c.vector_rank, c.keyword_rank) if r is not None)
        out.append(replace(c, fused=raw / best, score=raw / best))
    return out


def prior_part(c: Candidate, w: Weights = DEFAULT_WEIGHTS) -> float:
    return w.importance * c.importance + w.recency * c.recency
