"""The cosine calibrated against the query's own dense hits, and the weights fit per
embedder: what lets a sharper dense signal weigh more whichever model produced it."""

from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.candidate import Candidate
from readmodel.recall.evidence import CALIBRATION_SPREAD, calibrated_cosines
from readmodel.recall.fusion import DEFAULT_WEIGHTS, EMBEDDER_WEIGHTS, Weights, weights_for
from readmodel.recall.pipeline import RecallPipeline
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import event, memory
from worker.consolidation.consolidator import Consolidator, consolidate


def dense(*cosines: float) -> list[Candidate]:
    return [
        Candidate(memory(f"m{i}", 0), vector=c, vector_rank=i + 1) for i, c in enumerate(cosines)
    ]


def test_a_hit_that_stands_out_scores_high_and_the_crowd_scores_nothing() -> None:
    """One outlier among n hits stands sqrt(n - 1) deviations above their mean: 4 of
    17, past the spread of 3."""
    found = calibrated_cosines(dense(0.9, *[0.5] * 16))
    assert found[0] == 1.0
    assert found[1:] == [0.0] * 16


def test_the_value_is_standard_deviations_above_the_mean_over_the_spread() -> None:
    cosines = (0.2, 0.4, 0.6)  # mean 0.4, population deviation sqrt(0.08 / 3)
    deviation = (0.08 / 3) ** 0.5
    found = calibrated_cosines(dense(*cosines))
    assert found == pytest.approx([0.0, 0.0, 0.2 / deviation / CALIBRATION_SPREAD])


def test_any_embedder_scale_gives_the_same_calibration() -> None:
    """Two models that order the hits alike, one with cosines crowded near 0.5 and one
    spread over the range, give the same calibrated values."""
    spread = (0.91, 0.62, 0.55, 0.40, 0.33, 0.30, 0.12)
    crowded = tuple(0.45 + c / 10 for c in spread)
    assert calibrated_cosines(dense(*crowded)) == pytest.approx(calibrated_cosines(dense(*spread)))


def test_a_candidate_the_dense_search_did_not_return_has_none() -> None:
    only_keyword = Candidate(memory("kw", 0), keyword=1.0, keyword_rank=1)
    found = calibrated_cosines([*dense(0.9, 0.4, 0.3), only_keyword])
    assert found[-1] == 0.0 and found[0] > 0


def test_too_few_hits_to_measure_against_keep_their_cosine() -> None:
    assert calibrated_cosines(dense(0.7, 0.2)) == [0.7, 0.2]


def test_hits_that_are_all_alike_carry_no_dense_evidence() -> None:
    assert calibrated_cosines(dense(0.5, 0.5, 0.5, 0.5)) == [0.0] * 4


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("minilm-384", EMBEDDER_WEIGHTS["minilm"]),
        ("static-minilm-l6-v2-m2v-256", DEFAULT_WEIGHTS),
        ("hash-256", DEFAULT_WEIGHTS),
        ("somebody-elses-model", DEFAULT_WEIGHTS),
    ],
)
def test_weights_follow_the_embedder_family(name: str, expected: Weights) -> None:
    assert weights_for(name) == expected


def test_a_stronger_embedder_gets_more_dense_weight() -> None:
    minilm = EMBEDDER_WEIGHTS["minilm"]
    assert minilm.vector + minilm.calibrated > DEFAULT_WEIGHTS.vector + DEFAULT_WEIGHTS.calibrated


def test_recall_explains_the_calibrated_cosine_and_uses_the_weights_given(
    tmp_path: Path,
) -> None:
    store = EdgeStore(tmp_path)
    embedder = HashEmbedder(64)
    store.ensure_schema(embedder.dimension)
    texts = ["the red kite flies", "a red kite", "green tea", "cold rain", "warm bread"]
    consolidate(
        [event(t, i) for i, t in enumerate(texts)], Consolidator(store, embedder, NoLocks())
    )
    pipeline = RecallPipeline(store, embedder)
    assert pipeline.fusion_weights == DEFAULT_WEIGHTS
    request = RecallRequest(query="red kite", limit=4, explain=True)
    response = pipeline.recall("b1", request)
    top = response.results[0].components
    assert top is not None and 0 < top.vector_calibrated <= 1
    fuse = next(s for s in response.explain or [] if s.stage == "fuse")
    assert "calibrated vector 0.25" in fuse.note
    dense_only = Weights(vector=0.0, calibrated=1.0, keyword=0.0, exact=0.0, importance=0.0)
    again = RecallPipeline(store, embedder, weights=dense_only).recall("b1", request)
    for r in again.results:
        assert r.components is not None
        assert r.components.fused == pytest.approx(r.components.vector_calibrated, abs=1e-6)
