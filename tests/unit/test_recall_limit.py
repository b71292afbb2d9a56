"""A recall's order does not depend on its limit: the first k results of a recall with
limit k are the first k of one with a larger limit, though the larger limit searches
deeper (`max(depth, 3 x limit)` hits per list) and so brings more candidates. Evidence
is measured against the candidates of the first `depth` ranks alone (`in_pool`)."""

import random
import uuid
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.recall import RecallRequest
from readmodel.recall.candidate import Candidate, in_pool, replace
from readmodel.recall.evidence import pooled
from readmodel.recall.order import sort_key
from readmodel.recall.pipeline import RecallPipeline
from tests.helpers import ingested, memory

WORDS = """harbour lantern orchard violin glacier pepper canyon ledger falcon meadow copper
tunnel saddle walnut beacon quarry thistle marble comet willow anchor bramble cinder
velvet summit""".split()
Bias = Literal["off", "on"]
QUERIES = ["harbour lantern orchard", "glacier pepper falcon meadow", "copper tunnel"]


def texts(n: int) -> list[str]:
    """`n` sentences of 6 to 14 words drawn from a small vocabulary: many share words
    with every query, in different measure."""
    rng = random.Random(7)
    return [
        f"Note {i}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> RecallPipeline:
    store, embedder = ingested(tmp_path_factory.mktemp("limit"), texts(220))
    return RecallPipeline(store, embedder)


def ids(pipeline: RecallPipeline, query: str, limit: int, bias: Bias) -> list[object]:
    request = RecallRequest(query=query, limit=limit, prefer_observations=False, recency_bias=bias)
    return [r.id for r in pipeline.recall("b1", request).results]


@pytest.mark.parametrize("bias", ["off", "on"])
@pytest.mark.parametrize("query", QUERIES)
def test_the_first_results_are_the_same_whatever_the_limit(
    pipeline: RecallPipeline, query: str, bias: Bias
) -> None:
    deep = ids(pipeline, query, 60, bias)  # searches 180 deep per list; depth is 60
    assert len(deep) == 60
    for limit in (1, 5, 10, 20, 30):
        assert ids(pipeline, query, limit, bias) == deep[:limit], limit


def test_the_pool_is_the_first_ranks_of_either_list_and_what_every_recall_fetches() -> None:
    m = memory("a")
    assert in_pool(Candidate(m, vector_rank=60, keyword_rank=None), 60)
    assert in_pool(Candidate(m, vector_rank=150, keyword_rank=3), 60)
    assert not in_pool(Candidate(m, vector_rank=61, keyword_rank=120), 60)
    assert in_pool(Candidate(m), 60)  # a standing instruction, fetched at any limit


def test_evidence_beyond_the_pool_is_dropped_and_a_deep_candidate_ranks_after_it() -> None:
    both = Candidate(memory("a"), vector=0.9, vector_rank=70, keyword=0.8, keyword_rank=5)
    deep = Candidate(memory("b"), vector=0.95, vector_rank=61, keyword=1.0, keyword_rank=61)
    [kept, beyond] = pooled([both, deep], 60)
    assert (kept.vector, kept.vector_rank, kept.keyword, kept.keyword_rank) == (0.0, None, 0.8, 5)
    assert not kept.deep and beyond.deep
    assert beyond.vector == 0.95  # its own evidence stays; it ranks after the pool
    low = replace(kept, score=0.1)
    high = replace(beyond, score=0.9)
    assert sorted([high, low], key=sort_key) == [low, high]


@given(st.lists(st.uuids(), min_size=2, max_size=20, unique=True))
def test_exact_ties_break_by_id_in_the_order_of_its_text(ids: list[uuid.UUID]) -> None:
    """Candidates equal in all but id order as their ids' text does (the order results
    had when ties broke on `str(id)`)."""
    base = memory("same text")
    tied = [Candidate(base.model_copy(update={"id": i}), vector=0.5) for i in ids]
    assert [c.id for c in sorted(tied, key=sort_key)] == sorted(ids, key=str)
