"""Fusion of the evidence into one score.

Two fusions are implemented; `weighted` is the default. Measured on LoCoMo dev
(`sediment-bench locomo`, categories 1-4, recall@10, one ingest per row):

| read model, weights (vector/keyword/exact)       | weighted | rank fusion |
| ------------------------------------------------ | -------: | ----------: |
| turns alone, 0.55/0.2/0.25                        |    0.597 |       0.600 |
| turns alone, 0.3/0.4/0.3                          |    0.630 |             |
| one turn of context, 0.3/0.4/0.3                  |    0.683 |             |
| two turns of context and dates, 0.3/0.4/0.3       |    0.734 |             |
| two turns of context and dates, 0.25/0.45/0.3     |    0.737 |             |

Rank fusion throws away how far apart two candidates are and cannot use the
exact-match strength; the weighted sum can. Keyword evidence earns more weight than the
dense vector of a small static embedder, the more so once the keyword vector also
holds a memory's context.

The dense half enters as the cosine calibrated against the query's own hits
(`evidence.calibrated_cosines`), which lifted all three dev sets over the raw cosine at
the same weight (LoCoMo 0.7695 -> 0.7718, RealMem 0.4888 -> 0.5029, BEAM 0.4574 ->
0.4862, static); a stronger embedder earns a larger dense weight, fit per embedder
family fold by fold (docs/decisions/0046).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from readmodel.recall.candidate import Candidate, replace

RRF_K = 60


@dataclass(frozen=True)
class Weights:
    """`vector` weighs the raw cosine, `calibrated` the cosine measured against the
    query's other dense hits (`evidence.calibrated_cosines`)."""

    vector: float = 0.0
    calibrated: float = 0.25
    keyword: float = 0.45
    exact: float = 0.3
    importance: float = 0.02
    recency: float = 0.0


DEFAULT_WEIGHTS = Weights()
"""The static embedder's weights, and any embedder's without weights of its own."""

EMBEDDER_WEIGHTS: Final[Mapping[str, Weights]] = {
    "minilm": Weights(vector=0.15, calibrated=0.6),
}
"""Weights fit for an embedder, by the family its name starts with (`minilm-384`): a
stronger embedder's dense signal earns more (docs/decisions/0046)."""


def weights_for(embedder_name: str) -> Weights:
    family = embedder_name.split("-", 1)[0]
    return EMBEDDER_WEIGHTS.get(family, DEFAULT_WEIGHTS)


def weighted(candidates: list[Candidate], w: Weights = DEFAULT_WEIGHTS) -> list[Candidate]:
    """Relevance (vector, keyword, exact) plus small query-independent parts."""
    out = []
    for c in candidates:
        relevance = (
            w.vector * c.vector
            + w.calibrated * c.vector_calibrated
            + w.keyword * min(1.0, c.keyword)
            + w.exact * c.exact
        )
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
