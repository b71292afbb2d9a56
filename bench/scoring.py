"""Retrieval metrics over one ranked list: pure functions, no store, no clock.

A ranked item is what a system returned, reduced to the evidence labels it covers
(a raw memory covers its own label; an observation covers the labels of its
`source_memory_ids`) and its length in whitespace tokens.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

KS = (5, 10, 20)
BUDGETS = (200, 400)
QUALITY_METRICS = (
    *(f"recall@{k}" for k in KS),
    *(f"budget_recall@{b}" for b in BUDGETS),
    "mrr",
)
LATENCY_METRICS = ("latency_p50_ms", "latency_p95_ms")
METRICS = (*QUALITY_METRICS, *LATENCY_METRICS)


@dataclass(frozen=True)
class RankedItem:
    labels: frozenset[str]
    tokens: int


def item(labels: Iterable[str], text: str) -> RankedItem:
    return RankedItem(frozenset(labels), len(text.split()))


def covered(items: Sequence[RankedItem], gold: frozenset[str]) -> set[str]:
    found: set[str] = set()
    for it in items:
        found.update(it.labels & gold)
    return found


def recall_at_k(items: Sequence[RankedItem], gold: frozenset[str], k: int) -> float:
    """Share of the gold labels covered by the first `k` items."""
    if not gold:
        return 0.0
    return len(covered(items[:k], gold)) / len(gold)


def within_budget(items: Sequence[RankedItem], budget: int) -> list[RankedItem]:
    """Items in rank order while their running token count fits; the first that does not
    fit ends the list (a reader given a budget cannot skip ahead)."""
    kept: list[RankedItem] = []
    used = 0
    for it in items:
        if used + it.tokens > budget:
            break
        kept.append(it)
        used += it.tokens
    return kept


def budget_recall(items: Sequence[RankedItem], gold: frozenset[str], budget: int) -> float:
    kept = within_budget(items, budget)
    return recall_at_k(kept, gold, len(kept))


def reciprocal_rank(items: Sequence[RankedItem], gold: frozenset[str]) -> float:
    """1/rank of the first item covering any gold label; 0 when none does."""
    for rank, it in enumerate(items, start=1):
        if it.labels & gold:
            return 1.0 / rank
    return 0.0


def score_query(items: Sequence[RankedItem], gold: frozenset[str]) -> dict[str, float]:
    """Every quality metric of one query."""
    scores = {f"recall@{k}": recall_at_k(items, gold, k) for k in KS}
    scores.update({f"budget_recall@{b}": budget_recall(items, gold, b) for b in BUDGETS})
    scores["mrr"] = reciprocal_rank(items, gold)
    return scores


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile (numpy's default method); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * p / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def aggregate(
    per_query: Sequence[Mapping[str, float]], latencies_ms: Sequence[float]
) -> dict[str, float]:
    """Mean of each quality metric, p50/p95 of the latencies."""
    out = {
        m: (sum(q[m] for q in per_query) / len(per_query) if per_query else 0.0)
        for m in QUALITY_METRICS
    }
    out["latency_p50_ms"] = percentile(latencies_ms, 50)
    out["latency_p95_ms"] = percentile(latencies_ms, 95)
    return {k: round(v, 4) for k, v in out.items()}


def ratio_to_best(
    figures: Mapping[str, Mapping[str, float]], system: str = "sediment"
) -> dict[str, float | None]:
    """`system` over the best other system per metric: highest quality, lowest latency.

    Above 1 means better for quality metrics and slower for latency ones; None when
    the best baseline is 0.
    """
    ratios: dict[str, float | None] = {}
    others = [f for name, f in figures.items() if name != system]
    for metric in METRICS:
        values = [f[metric] for f in others]
        best = min(values) if metric in LATENCY_METRICS else max(values)
        ratios[metric] = round(figures[system][metric] / best, 3) if best else None
    return ratios
