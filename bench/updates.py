"""Knowledge updates: does current-state recall answer with the newest fact, and is the
answer the same whatever order (and however often) the events arrive?

Each scenario is its own bank. Events are delivered one per retain call (the
in-process publisher), like `sediment.retain.v1` tasks: first in the file's order,
then, in a fresh store, shuffled with 30% of them delivered twice (fixed seed).
"""

import json
import random
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console
from rich.progress import Progress

from bench.dataset import BENCH_NAMESPACE
from bench.record import UpdateFailure, UpdatesReport, machine, now_iso, versions
from contracts.base import AwareDatetime
from contracts.events import EventKind, RetainEvent
from contracts.recall import RecallRequest
from sediment.bootstrap import bootstrap
from sediment.settings import Settings

SEED = 20240601
DUPLICATE_SHARE = 0.3
TOP = 5


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UpdateEvent(_Model):
    text: str = Field(min_length=1)
    occurred_at: AwareDatetime
    kind: EventKind = "world"
    entities: list[str] = Field(default_factory=list)
    key: str | None = None
    tags: list[str] = Field(default_factory=list)


class UpdateQuery(_Model):
    query: str = Field(min_length=1)
    expect_top: list[str] = Field(min_length=1)
    expect_absent: list[str] = Field(default_factory=list)
    expect_current: list[str] = Field(default_factory=list)
    """Fragments of memories that no change replaced (a no-change control): each must be
    in the top 5, unmarked."""
    query_time: datetime | None = None


class Scenario(_Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    description: str = ""
    events: list[UpdateEvent] = Field(min_length=1)
    queries: list[UpdateQuery] = Field(min_length=1)


class UpdatesFile(_Model):
    name: str = "updates"
    note: str = ""
    scenarios: list[Scenario] = Field(min_length=1)


def default_path() -> Path:
    return Path(str(resources.files("bench").joinpath("data/updates_dev.json")))


def load_updates(path: Path) -> UpdatesFile:
    data = UpdatesFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    ids = [s.id for s in data.scenarios]
    if len(ids) != len(set(ids)):
        raise ValueError(f"scenario ids repeat in {path}")
    return data


def bank_of(scenario: Scenario) -> str:
    return f"upd-{scenario.id}"


def scenario_events(scenario: Scenario) -> list[RetainEvent]:
    bank = bank_of(scenario)
    return [
        RetainEvent(
            event_id=uuid.uuid5(BENCH_NAMESPACE, f"updates\x1f{scenario.id}\x1f{i}"),
            bank_id=bank,
            kind=e.kind,
            text=e.text,
            occurred_at=e.occurred_at,
            entities=e.entities,
            key=e.key,
            tags=e.tags,
        )
        for i, e in enumerate(scenario.events)
    ]


def shuffled_with_duplicates(
    events: Sequence[RetainEvent], rng: random.Random
) -> list[RetainEvent]:
    """Another arrival order, with round(30%) of the events delivered a second time."""
    again = rng.sample(list(events), k=round(len(events) * DUPLICATE_SHARE))
    arrival = [*events, *again]
    rng.shuffle(arrival)
    return arrival


@dataclass(frozen=True)
class Verdict:
    top1_ok: bool
    superseded_found: list[str]
    current_lost: list[str]
    top_ids: tuple[uuid.UUID, ...]
    top1_text: str


def judge(
    texts: Sequence[str],
    ids: Sequence[uuid.UUID],
    q: UpdateQuery,
    marked: Sequence[bool] = (),
) -> Verdict:
    """Top 1 must contain an expected fragment; no superseded fragment in the top 5 left
    unmarked: a result marked as replaced (`superseded_by` or `outdated_by`, `marked`
    parallel to `texts`) tells the reader it is no longer current, and is clean; every
    `expect_current` fragment in the top 5, unmarked."""
    top = [t.lower() for t in texts[:TOP]]
    unmarked = [t for i, t in enumerate(top) if not (i < len(marked) and marked[i])]
    top1_ok = bool(top) and any(f.lower() in top[0] for f in q.expect_top)
    found = [f for f in q.expect_absent if any(f.lower() in t for t in unmarked)]
    lost = [f for f in q.expect_current if not any(f.lower() in t for t in unmarked)]
    return Verdict(top1_ok, found, lost, tuple(ids[:TOP]), texts[0] if texts else "")


def run_once(
    data: UpdatesFile, settings: Settings, shuffle: bool, progress: Progress
) -> dict[tuple[str, int], Verdict]:
    """One fresh embedded store; every scenario retained, then every query asked."""
    rng = random.Random(SEED)
    verdicts: dict[tuple[str, int], Verdict] = {}
    label = "shuffled + 30% duplicates" if shuffle else "file order"
    task = progress.add_task(f"updates ({label})", total=len(data.scenarios))
    with tempfile.TemporaryDirectory(prefix="sediment-bench-updates-") as tmp:
        rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": Path(tmp)}))
        try:
            for scenario in data.scenarios:
                events = scenario_events(scenario)
                for event in shuffled_with_duplicates(events, rng) if shuffle else events:
                    rt.publisher.publish_retain([event])
                for i, q in enumerate(scenario.queries):
                    request = RecallRequest(query=q.query, limit=TOP, prefer_observations=True)
                    results = rt.recall_pipeline.recall(bank_of(scenario), request).results
                    verdicts[(scenario.id, i)] = judge(
                        [r.text for r in results],
                        [r.id for r in results],
                        q,
                        [r.superseded_by is not None or r.outdated_by is not None for r in results],
                    )
                progress.advance(task)
        finally:
            rt.close()
    return verdicts


def _share(passed: int, total: int) -> float:
    return round(passed / total, 4) if total else 1.0


def failures(
    data: UpdatesFile, verdicts: dict[tuple[str, int], Verdict], run: str
) -> list[UpdateFailure]:
    found: list[UpdateFailure] = []
    for s in data.scenarios:
        for i, q in enumerate(s.queries):
            v = verdicts[(s.id, i)]
            if not v.top1_ok or v.superseded_found or v.current_lost:
                found.append(
                    {
                        "scenario": s.id,
                        "query": q.query,
                        "run": run,
                        "top1": v.top1_text,
                        "top1_ok": v.top1_ok,
                        "expected": list(q.expect_top),
                        "superseded_in_top5": v.superseded_found,
                        "current_lost": v.current_lost,
                    }
                )
    return found


def run_updates(
    data: UpdatesFile, dataset: str, settings: Settings, progress_console: Console
) -> UpdatesReport:
    wall: dict[str, float] = {}
    with Progress(console=progress_console) as progress:
        start = time.perf_counter()
        ordered = run_once(data, settings, shuffle=False, progress=progress)
        wall["file_order"] = round(time.perf_counter() - start, 2)
        start = time.perf_counter()
        shuffled = run_once(data, settings, shuffle=True, progress=progress)
        wall["shuffled"] = round(time.perf_counter() - start, 2)
    keys = list(ordered)
    with_absent = [
        (s.id, i) for s in data.scenarios for i, q in enumerate(s.queries) if q.expect_absent
    ]
    controls = [
        (s.id, i) for s in data.scenarios for i, q in enumerate(s.queries) if q.expect_current
    ]
    mismatched = [
        f"{s}/{i}" for s, i in keys if ordered[(s, i)].top_ids != shuffled[(s, i)].top_ids
    ]
    return {
        "benchmark": "updates",
        "dataset": dataset,
        "top1_current": _share(sum(ordered[k].top1_ok for k in keys), len(keys)),
        "superseded_free_top5": _share(
            sum(not ordered[k].superseded_found for k in with_absent), len(with_absent)
        ),
        "shuffled_top1_current": _share(sum(shuffled[k].top1_ok for k in keys), len(keys)),
        "shuffled_superseded_free_top5": _share(
            sum(not shuffled[k].superseded_found for k in with_absent), len(with_absent)
        ),
        "kept_current": _share(sum(not ordered[k].current_lost for k in controls), len(controls)),
        "shuffled_kept_current": _share(
            sum(not shuffled[k].current_lost for k in controls), len(controls)
        ),
        "queries_with_current": len(controls),
        "identical_after_shuffle": not mismatched,
        "shuffle_mismatches": mismatched,
        "queries": len(keys),
        "queries_with_absent": len(with_absent),
        "scenarios": len(data.scenarios),
        "machine": machine(),
        "versions": versions(),
        "settings": {
            "embedder": settings.embedder,
            "merge_threshold": settings.merge_threshold,
            "seed": SEED,
            "duplicate_share": DUPLICATE_SHARE,
            "delivery": "one event per consolidate call",
            "limit": TOP,
        },
        "date": now_iso(),
        "failures": failures(data, ordered, "file-order") + failures(data, shuffled, "shuffled"),
        "wall_time_s": wall,
    }
