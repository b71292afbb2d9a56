"""Benchmark metrics: pure functions, table-driven."""

import uuid
from datetime import UTC, datetime

import pytest

from bench.baselines import Doc, rrf
from bench.locomo import clean_evidence
from bench.runner import result_labels
from bench.scoring import (
    RankedItem,
    budget_recall,
    item,
    percentile,
    ratio_to_best,
    recall_at_k,
    reciprocal_rank,
    score_query,
    within_budget,
)
from contracts.memory import State
from contracts.recall import RecallResult


def ranked(*labels: str, tokens: int = 10) -> list[RankedItem]:
    """One item per argument; "a+b" is an item covering a and b (an observation)."""
    return [RankedItem(frozenset(x.split("+")) - {""}, tokens) for x in labels]


G = frozenset


@pytest.mark.parametrize(
    ("items", "gold", "k", "expected"),
    [
        (ranked("a", "b", "c"), G({"a"}), 1, 1.0),
        (ranked("x", "a"), G({"a"}), 1, 0.0),
        (ranked("x", "a"), G({"a"}), 2, 1.0),
        (ranked("a", "x", "b"), G({"a", "b"}), 2, 0.5),
        (ranked("a", "x", "b"), G({"a", "b"}), 3, 1.0),
        (ranked("x+a+b"), G({"a", "b"}), 1, 1.0),  # an observation covers its sources
        (ranked("a", "a+c"), G({"a", "b"}), 20, 0.5),  # covered twice counts once
        (ranked(), G({"a"}), 5, 0.0),
        (ranked("a"), G(), 5, 0.0),
    ],
)
def test_recall_at_k(
    items: list[RankedItem], gold: frozenset[str], k: int, expected: float
) -> None:
    assert recall_at_k(items, gold, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("tokens", "budget", "kept"),
    [
        ([100, 100, 100], 200, 2),
        ([100, 101, 10], 200, 1),  # the first item that does not fit ends the list
        ([250, 10], 200, 0),  # a huge first result costs everything
        ([50, 50, 50, 50], 200, 4),
        ([], 200, 0),
    ],
)
def test_within_budget_stops_at_first_overflow(tokens: list[int], budget: int, kept: int) -> None:
    items = [RankedItem(G({str(i)}), t) for i, t in enumerate(tokens)]
    assert len(within_budget(items, budget)) == kept


def test_budget_recall_cuts_at_budget() -> None:
    items = [RankedItem(G({"a"}), 150), RankedItem(G({"b"}), 100), RankedItem(G({"c"}), 10)]
    gold = G({"a", "b"})
    assert budget_recall(items, gold, 200) == 0.5
    assert budget_recall(items, gold, 400) == 1.0
    big_observation = [RankedItem(G({"a", "b"}), 500)]
    assert budget_recall(big_observation, gold, 400) == 0.0
    assert recall_at_k(big_observation, gold, 5) == 1.0


@pytest.mark.parametrize(
    ("labels", "gold", "expected"),
    [
        (("a", "b"), G({"a"}), 1.0),
        (("x", "y", "a"), G({"a"}), 1 / 3),
        (("x", "b+a"), G({"a"}), 0.5),
        (("x", "y"), G({"a"}), 0.0),
        ((), G({"a"}), 0.0),
    ],
)
def test_reciprocal_rank(labels: tuple[str, ...], gold: frozenset[str], expected: float) -> None:
    assert reciprocal_rank(ranked(*labels), gold) == pytest.approx(expected)


def test_item_counts_whitespace_tokens() -> None:
    assert item({"a"}, "Caroline:  went to\tthe group\n").tokens == 5


def test_score_query_has_every_quality_metric() -> None:
    scores = score_query(ranked("a"), G({"a"}))
    assert set(scores) == {
        "recall@5",
        "recall@10",
        "recall@20",
        "budget_recall@200",
        "budget_recall@400",
        "mrr",
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ["D1:3"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D30:05"], ["D30:5"]),
        (["D"], []),
        (["D:11:26"], []),
        (["D1:3", "D1:03", "D2:1"], ["D1:3", "D2:1"]),
        (["D4:4 D4:6", "D:11:26", "D5:1,D5:2"], ["D4:4", "D4:6", "D5:1", "D5:2"]),
        ([], []),
    ],
)
def test_clean_evidence(raw: list[str], expected: list[str]) -> None:
    assert clean_evidence(raw) == expected


def test_result_labels_observation_covers_sources() -> None:
    a, b, c, obs = (uuid.uuid4() for _ in range(4))
    labels = {a: "D1:1", b: "D1:2", c: "D2:1"}
    at = datetime(2023, 1, 1, tzinfo=UTC)
    observation = RecallResult(
        id=obs,
        kind="observation",
        text="t",
        occurred_at=at,
        score=1.0,
        state=State.CURRENT,
        source_memory_ids=[a, b],
    )
    raw = RecallResult(id=c, kind="world", text="t", occurred_at=at, score=1.0, state=State.CURRENT)
    assert result_labels(observation, labels) == {"D1:1", "D1:2"}
    assert result_labels(raw, labels) == {"D2:1"}


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [([], 50, 0.0), ([3.0], 95, 3.0), ([1.0, 2.0, 3.0, 4.0], 50, 2.5), ([0, 10], 95, 9.5)],
)
def test_percentile(values: list[float], p: float, expected: float) -> None:
    assert percentile(values, p) == pytest.approx(expected)


def test_ratio_to_best_uses_max_quality_and_min_latency() -> None:
    base = {
        "recall@5": 0.5,
        "recall@10": 0.5,
        "recall@20": 0.5,
        "budget_recall@200": 0.5,
        "budget_recall@400": 0.5,
        "mrr": 0.5,
        "latency_p50_ms": 2.0,
        "latency_p95_ms": 4.0,
    }
    figures = {
        "sediment": {**base, "recall@10": 0.6, "latency_p50_ms": 4.0},
        "dense": {**base, "recall@10": 0.3, "latency_p50_ms": 1.0},
        "bm25": {**base, "recall@10": 0.4, "mrr": 0.0, "latency_p50_ms": 8.0},
    }
    ratios = ratio_to_best(figures)
    assert ratios["recall@10"] == pytest.approx(1.5)
    assert ratios["latency_p50_ms"] == pytest.approx(4.0)
    assert ratios["mrr"] == pytest.approx(1.0)


def test_rrf_fuses_by_reciprocal_rank() -> None:
    a, b, c = (Doc(uuid.UUID(int=i), str(i)) for i in (1, 2, 3))
    fused = rrf([[a, b], [b, c]], limit=3)
    assert [d.id for d in fused] == [b.id, a.id, c.id]
    assert rrf([[a, b], [b, c]], limit=1) == [b]
    assert rrf([[], []], limit=5) == []
