"""What a benchmark run writes: the JSON shapes, and the machine and versions it ran on."""

import json
import os
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import NotRequired, TypedDict

from bench.stale_score import QueryOutcome, StaleSummary

Figures = dict[str, float]
Setting = str | int | float | bool | None
PACKAGES = (
    "sediment-memory",
    "qdrant-edge-py",
    "qdrant-client",
    "model2vec",
    "bm25s",
    "numpy",
    "pydantic",
)
SERVICE_PACKAGES = ("celery", "redis", "fastapi", "uvicorn")
"""Also recorded by the speed and scale benchmarks, which run the services."""


class SystemFigures(TypedDict):
    overall: Figures
    by_category: dict[str, Figures]


class RetrievalReport(TypedDict):
    """`sediment-bench locomo|retrieval --json`: systems are sediment, dense, bm25, rrf."""

    benchmark: str
    dataset: str
    machine: dict[str, str | int]
    versions: dict[str, str]
    settings: dict[str, Setting]
    date: str
    systems: dict[str, SystemFigures]
    adversarial: dict[str, Figures]
    ratios: dict[str, dict[str, float | None]]
    counts: dict[str, int]
    diagnostics: dict[str, Figures]
    wall_time_s: Figures


class StaleReport(TypedDict):
    """`sediment-bench stale --json`: per mode (`as_of`, `present`), the summary and one
    row per knowledge update."""

    benchmark: str
    dataset: str
    machine: dict[str, str | int]
    versions: dict[str, str]
    settings: dict[str, Setting]
    date: str
    counts: dict[str, int]
    summary: dict[str, StaleSummary]
    queries: dict[str, list[QueryOutcome]]
    wall_time_s: Figures


class UpdateFailure(TypedDict):
    scenario: str
    query: str
    run: str
    top1: str
    top1_ok: bool
    expected: list[str]
    superseded_in_top5: list[str]
    current_lost: NotRequired[list[str]]


class UpdatesReport(TypedDict):
    """`sediment-bench updates --json`."""

    benchmark: str
    dataset: str
    top1_current: float
    superseded_free_top5: float
    shuffled_top1_current: float
    shuffled_superseded_free_top5: float
    kept_current: NotRequired[float]
    shuffled_kept_current: NotRequired[float]
    queries_with_current: NotRequired[int]
    identical_after_shuffle: bool
    shuffle_mismatches: list[str]
    queries: int
    queries_with_absent: int
    scenarios: int
    machine: dict[str, str | int]
    versions: dict[str, str]
    settings: dict[str, Setting]
    date: str
    failures: list[UpdateFailure]
    wall_time_s: Figures


class SupersessionFigures(TypedDict):
    """Shares are None when their denominator is zero."""

    precision: float | None
    recall: float | None
    false_supersession_rate: float | None
    should_supersede: int
    superseded: int
    found: int
    wrong_superseder: int
    missed: int
    false: int
    should_stay: int


class SupersessionSplit(TypedDict):
    dataset: str
    banks: int
    statements: int
    overall: SupersessionFigures
    by_attribute: dict[str, SupersessionFigures]
    by_role: dict[str, SupersessionFigures]
    by_family: dict[str, SupersessionFigures]
    cueless_updates: SupersessionFigures
    held_out_phrasings: SupersessionFigures


class SupersessionError(TypedDict):
    split: str
    verdict: str
    statement: str
    text: str
    attribute: str | None
    role: str
    superseded_by: str | None
    superseder_text: str | None
    expected: str | None
    reason: str | None


class SupersessionReport(TypedDict):
    """`sediment-bench supersession --json`."""

    benchmark: str
    rule: str
    splits: dict[str, SupersessionSplit]
    errors: list[SupersessionError]
    machine: dict[str, str | int]
    versions: dict[str, str]
    settings: dict[str, Setting]
    date: str
    wall_time_s: Figures


class DistinctFigures(TypedDict):
    """Distinct-fact pairs: a false merge put both facts in one observation; a statement
    is hidden when its query (limit 10, observations preferred) returned neither its raw
    memory nor an observation with its exact text. Rates are None with no pairs."""

    pairs: int
    false_merges: int
    false_merge_rate: float | None
    statements: int
    hidden: int
    hidden_rate: float | None
    hidden_first: int
    hidden_second: int
    superseded: int


class RestatementFigures(TypedDict):
    """Restatements: merged when one observation has both memories as sources."""

    pairs: int
    merged: int
    merge_rate: float | None
    superseded: int


class MergeKindFigures(TypedDict):
    distinct: DistinctFigures
    restatement: RestatementFigures


class MergeMode(TypedDict):
    """One delivery: figures overall and per family (a family holds one kind of pair)."""

    delivery: str
    overall: MergeKindFigures
    distinct_by_family: dict[str, DistinctFigures]
    restatement_by_family: dict[str, RestatementFigures]


class MergeError(TypedDict):
    mode: str
    pair: str
    kind: str
    family: str
    verdict: str
    first: str
    second: str
    observation: str | None


class MergesReport(TypedDict):
    """`sediment-bench merges --json`: modes are in_order and shuffled_duplicated."""

    benchmark: str
    dataset: str
    split: str
    pairs: dict[str, int]
    modes: dict[str, MergeMode]
    errors: list[MergeError]
    machine: dict[str, str | int]
    versions: dict[str, str]
    settings: dict[str, Setting]
    date: str
    wall_time_s: Figures


class ScaleCase(TypedDict):
    """One configuration (a size, a mode): every run's figures and their medians."""

    name: str
    params: dict[str, Setting]
    runs: list[Figures]
    median: Figures


class ScaleReport(TypedDict):
    """`sediment-bench ingest|scale|lag|memory --json`: speed, cost and scale."""

    benchmark: str
    machine: dict[str, str | int]
    versions: dict[str, str]
    settings: dict[str, Setting]
    date: str
    load_average: dict[str, list[float]]
    notes: list[str]
    cases: list[ScaleCase]
    wall_time_s: Figures


def machine() -> dict[str, str | int]:
    return {
        "cpu_count": os.cpu_count() or 0,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
    }


def versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_json(
    path: Path,
    report: RetrievalReport
    | UpdatesReport
    | SupersessionReport
    | ScaleReport
    | MergesReport
    | StaleReport,
) -> None:
    """Written to a temporary file first: an interrupted run leaves the old results intact."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    tmp.replace(path)
