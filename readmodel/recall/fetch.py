"""Candidate fetch: dense top-N and keyword top-N, bank filter always. A question about
the present searches the current states at that depth and the superseded ones only for
the few that match best (`fetch_current`)."""

import uuid
from collections.abc import Sequence
from dataclasses import replace as replace_filter

from contracts.memory import State
from readmodel.recall.candidate import Candidate, best_evidence, replace
from readmodel.store import Filter, Hit, MemoryStore, SparseVector, Vector


def merge_hits(dense: Sequence[Hit], keyword: Sequence[Hit]) -> list[Candidate]:
    """One candidate per id with both evidences. Cosine is clamped to 0..1; keyword scores
    are normalised by the best score this query reached (engines do not expose per-term
    IDF, so the theoretical maximum is unknown) and clamped to 1."""
    top_kw = max((h.score for h in keyword), default=0.0)
    found: dict[uuid.UUID, Candidate] = {}
    for rank, h in enumerate(dense, 1):
        found[h.record.id] = Candidate(
            h.record, vector=min(1.0, max(0.0, h.score)), vector_rank=rank, stats=h.stats
        )
    for rank, h in enumerate(keyword, 1):
        kw = min(1.0, h.score / top_kw) if top_kw > 0 else 0.0
        prior = found.get(h.record.id)
        found[h.record.id] = (
            Candidate(h.record, keyword=kw, keyword_rank=rank, stats=h.stats)
            if prior is None
            else replace(prior, keyword=kw, keyword_rank=rank)
        )
    return list(found.values())


def merge_candidates(lists: Sequence[list[Candidate]]) -> list[Candidate]:
    """Union over queries (the original and its expansions): best evidence per id."""
    merged: dict[uuid.UUID, Candidate] = {}
    for candidates in lists:
        for c in candidates:
            prior = merged.get(c.id)
            merged[c.id] = c if prior is None else best_evidence(prior, c)
    return list(merged.values())


def fetch_candidates(
    store: MemoryStore, dense: Vector, sparse: SparseVector, flt: Filter, depth: int
) -> list[Candidate]:
    dense_hits, keyword_hits = store.search_hybrid(dense, sparse, flt, depth)
    return merge_hits(dense_hits, keyword_hits)


def _by_score(*lists: Sequence[Hit]) -> list[Hit]:
    """Hits of several searches of one query as one search would rank them (scores of
    one engine and one query compare; equal scores keep the order given)."""
    return sorted((h for hits in lists for h in hits), key=lambda h: -h.score)


def fetch_current(
    store: MemoryStore,
    dense: Vector,
    sparse: SparseVector,
    flt: Filter,
    depth: int,
    superseded_depth: int,
) -> list[Candidate]:
    """Candidates for the current state: the current states to `depth`, dense and
    keyword, and the `superseded_depth` superseded states whose words match best,
    ranked with them as one keyword search would rank them. However many states a
    value went through, its head is fetched on its own merit (the old states cannot
    fill the pool), and a question naming an old value ("Alice Boston") still finds
    the current one through it (`readmodel.recall.state`). Old states are searched by
    their words alone: an old state reads like its head but for the value, so what
    the dense half would find of it, it finds of the head. The current search reads
    only current states, so it costs what it costs in a bank holding one state per
    value, and the superseded search costs its few keyword hits."""
    dense_hits, keyword_hits = store.search_hybrid(
        dense, sparse, replace_filter(flt, state=State.CURRENT), depth
    )
    older: list[Hit] = []
    if superseded_depth > 0 and sparse.indices:
        superseded = replace_filter(flt, state=State.SUPERSEDED)
        older = store.search_keyword(sparse, superseded, superseded_depth)
    return merge_hits(dense_hits, _by_score(keyword_hits, older))
