"""Candidate fetch: dense top-N and keyword top-N, bank filter always."""

from collections.abc import Sequence

from readmodel.recall.candidate import Candidate
from readmodel.store import Filter, Hit, MemoryStore, SparseVector


def _cosine01(score: float) -> float:
    return min(1.0, max(0.0, (score + 1.0) / 2.0))


def merge_hits(dense: Sequence[Hit], keyword: Sequence[Hit]) -> list[Candidate]:
    """One candidate per id with both evidences; keyword scores normalised by the best one."""
    top_kw = max((h.score for h in keyword), default=0.0)
    found: dict[object, Candidate] = {}
    for rank, h in enumerate(dense, 1):
        found[h.record.id] = Candidate(h.record, vector=_cosine01(h.score), vector_rank=rank)
    for rank, h in enumerate(keyword, 1):
        kw = min(1.0, h.score / top_kw) if top_kw > 0 else 0.0
        prior = found.get(h.record.id)
        if prior is None:
            found[h.record.id] = Candidate(h.record, keyword=kw, keyword_rank=rank)
        else:
            found[h.record.id] = Candidate(prior.record, prior.vector, kw, prior.vector_rank, rank)
    return list(found.values())


def fetch_candidates(
    store: MemoryStore,
    dense: Sequence[float],
    sparse: SparseVector,
    flt: Filter,
    depth: int,
) -> list[Candidate]:
    dense_hits = store.search_dense(dense, flt, depth)
    keyword_hits = store.search_keyword(sparse, flt, depth) if sparse.indices else []
    return merge_hits(dense_hits, keyword_hits)
