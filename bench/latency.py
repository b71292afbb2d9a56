"""The arithmetic of the speed and scale benchmarks, kept pure so it can be tested:
percentiles of timings, the median of several runs, ratios to a same-run floor.

A run's figures are a flat `dict[str, float]`; runs are combined figure by figure,
so a report's numbers are medians of runs, never a mix of one run's p50 with
another's p95.
"""

import math
import os
import statistics
from collections.abc import Sequence

Figures = dict[str, float]
PERCENTILES = (50, 95, 99)


def percentile(samples: Sequence[float], q: float) -> float:
    """The `q`-th percentile by linear interpolation between closest ranks (numpy's
    default), so p50 of an even count is the mean of the middle two."""
    if not samples:
        raise ValueError("no samples")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is not within 0..100")
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency_figures(samples_s: Sequence[float], prefix: str = "") -> Figures:
    """p50/p95/p99 in milliseconds, rounded to microseconds."""
    return {f"{prefix}p{q}_ms": round(percentile(samples_s, q) * 1000, 3) for q in PERCENTILES}


def ratio(value: float, floor: float) -> float | None:
    """How many times the floor a figure is; None when the floor is not positive."""
    return round(value / floor, 3) if floor > 0 else None


def median_runs(runs: Sequence[Figures]) -> Figures:
    """Each figure's median over the runs that have it."""
    keys = dict.fromkeys(k for run in runs for k in run)
    return {k: round(statistics.median(r[k] for r in runs if k in r), 3) for k in keys}


def floor_of(runs: Sequence[Figures]) -> Figures:
    """Each figure's minimum over the runs: the best the machine did."""
    keys = dict.fromkeys(k for run in runs for k in run)
    return {k: round(min(r[k] for r in runs if k in r), 3) for k in keys}


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, as the run saw them."""
    return [round(x, 2) for x in os.getloadavg()]
