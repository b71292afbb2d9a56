"""Stale values at query time, scored over one ranked list: pure functions, no store.

A knowledge update names the turns that hold the new value (gold) and those that hold the
value it replaced (stale). A current-state recall should rank the new value above the old
one, and should mark an old value it still returns near the top (`superseded`, or
`outdated_by` set). A result covers the labels of what it stands for (a raw memory its own,
an observation its sources'), so one result can hold a gold and a stale turn at one rank.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

TOP = 10
"""Ranks looked at: gold in the top 10, order within the top 10."""
MARK_TOP = 5
"""Stale turns this high up must be marked."""

Mark = Literal["superseded", "outdated"]


@dataclass(frozen=True)
class Shown:
    """One returned result: the labels it covers and how it was marked, if at all."""

    labels: frozenset[str]
    mark: Mark | None = None


class StaleHit(TypedDict):
    id: str
    rank: int
    mark: str | None


class QueryOutcome(TypedDict):
    """One query: the ranks (1-based, top 10) of its gold and stale turns, and the verdicts."""

    query_id: str
    gold_ranks: dict[str, int | None]
    stale: list[StaleHit]
    stale_absent: list[str]
    gold_in_top10: bool
    updated_above_stale: bool
    stale_in_top5: int
    stale_in_top5_marked: int


class StaleSummary(TypedDict):
    queries: int
    gold_in_top10: int
    updated_above_stale: int
    updated_above_stale_rate: float
    queries_stale_in_top5: int
    stale_in_top5_marked: int
    stale_in_top5_marked_rate: float | None
    stale_turns_in_top5_marked: int
    stale_turns_in_top5_unmarked: int


def first_ranks(
    shown: Sequence[Shown], wanted: frozenset[str]
) -> dict[str, tuple[int, Mark | None]]:
    """Each wanted label's first rank in the top `TOP` (1-based) and that result's mark."""
    found: dict[str, tuple[int, Mark | None]] = {}
    for rank, result in enumerate(shown[:TOP], start=1):
        for label in sorted(result.labels & wanted):
            found.setdefault(label, (rank, result.mark))
    return found


def score_query(
    query_id: str, shown: Sequence[Shown], gold: frozenset[str], stale: frozenset[str]
) -> QueryOutcome:
    """`updated_above_stale`: a gold turn is in the top 10 and every gold turn there ranks
    strictly above every stale turn there (a stale turn outside the top 10 is below all of
    them; one result holding both is not above). `stale_in_top5_marked`: how many of the
    stale turns in the top 5 came with a mark."""
    gold_at = first_ranks(shown, gold)
    stale_at = first_ranks(shown, stale)
    worst_gold = max((r for r, _ in gold_at.values()), default=None)
    best_stale = min((r for r, _ in stale_at.values()), default=TOP + 1)
    top5 = [(label, mark) for label, (rank, mark) in stale_at.items() if rank <= MARK_TOP]
    return {
        "query_id": query_id,
        "gold_ranks": {g: gold_at[g][0] if g in gold_at else None for g in sorted(gold)},
        "stale": [
            {"id": s, "rank": rank, "mark": mark}
            for s, (rank, mark) in sorted(stale_at.items(), key=lambda p: p[1][0])
        ],
        "stale_absent": sorted(stale - set(stale_at)),
        "gold_in_top10": bool(gold_at),
        "updated_above_stale": worst_gold is not None and worst_gold < best_stale,
        "stale_in_top5": len(top5),
        "stale_in_top5_marked": sum(1 for _, mark in top5 if mark is not None),
    }


def _rate(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


def summarize(outcomes: Sequence[QueryOutcome]) -> StaleSummary:
    """Counts and rates over the queries: a query with stale turns in the top 5 counts as
    marked only when every one of them is."""
    with_top5 = [o for o in outcomes if o["stale_in_top5"]]
    all_marked = sum(1 for o in with_top5 if o["stale_in_top5_marked"] == o["stale_in_top5"])
    marked = sum(o["stale_in_top5_marked"] for o in outcomes)
    above = sum(o["updated_above_stale"] for o in outcomes)
    return {
        "queries": len(outcomes),
        "gold_in_top10": sum(o["gold_in_top10"] for o in outcomes),
        "updated_above_stale": above,
        "updated_above_stale_rate": _rate(above, len(outcomes)) or 0.0,
        "queries_stale_in_top5": len(with_top5),
        "stale_in_top5_marked": all_marked,
        "stale_in_top5_marked_rate": _rate(all_marked, len(with_top5)),
        "stale_turns_in_top5_marked": marked,
        "stale_turns_in_top5_unmarked": sum(o["stale_in_top5"] for o in outcomes) - marked,
    }
