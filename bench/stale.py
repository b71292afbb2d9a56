"""Stale values on a retrieval dataset: for each knowledge update, does current-state
recall rank the new value above the replaced one, and mark the replaced one it returns?

The dataset is in the generic retrieval format (BENCHMARKS.md section 2); a sidecar names,
per knowledge-update query, the turns with the new value (`gold_ids`) and those with the
value it replaced (`stale_ids`). The banks are built exactly as `sediment-bench retrieval`
builds them (same events, same batches, a fresh embedded store in a temporary directory).

Each query is asked twice, limit 10, prefer-observations on:
- `as_of`: as the retrieval bench asks it, with the query's `query_time` as `as_of`, so
  these figures sit beside its recall@10;
- `present`: the default current-state recall, without `as_of` (a query time after every
  memory of the bank admits the same memories; only what a recall without `as_of` does
  for the present, such as `outdated_by`, differs).
"""

import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console
from rich.progress import Progress

from bench.dataset import SOURCE_ID, BenchQuery, BenchSet
from bench.record import Figures, StaleReport, machine, now_iso, versions
from bench.runner import BATCH, ingest, result_labels
from bench.stale_score import (
    MARK_TOP,
    TOP,
    Mark,
    QueryOutcome,
    Shown,
    score_query,
    summarize,
)
from contracts.memory import State
from contracts.recall import RecallRequest, RecallResult
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter, MemoryStore
from sediment.bootstrap import bootstrap
from sediment.settings import Settings

CATEGORY = "knowledge_update"
MODES = ("as_of", "present")
MODE_NOTES = {
    "as_of": "query_time passed as as_of, as the retrieval bench asks",
    "present": "no as_of: the default current-state recall",
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StaleEntry(_Model):
    stale_ids: list[str] = Field(default_factory=list)
    gold_ids: list[str] = Field(min_length=1)


class StaleFile(_Model):
    source: str = ""
    note: str = ""
    queries: dict[str, StaleEntry]


@dataclass(frozen=True)
class StaleQuery:
    query: BenchQuery
    gold: frozenset[str]
    stale: frozenset[str]


def load_stale(path: Path, bs: BenchSet) -> tuple[list[StaleQuery], dict[str, int]]:
    """The sidecar's queries that name stale turns, checked against the dataset: every id
    must be a knowledge-update query of the dataset, every turn a memory of its bank."""
    data = StaleFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    by_id = {q.id: q for q in bs.queries}
    known = {(e.bank_id, str(e.metadata[SOURCE_ID])) for e in bs.events}
    chosen: list[StaleQuery] = []
    for qid, entry in data.queries.items():
        q = by_id.get(qid)
        if q is None:
            raise ValueError(f"{path}: query {qid!r} is not a query of the dataset")
        if q.category != CATEGORY:
            raise ValueError(f"{path}: query {qid!r} is {q.category!r}, not {CATEGORY!r}")
        for turn in (*entry.stale_ids, *entry.gold_ids):
            if (q.bank_id, turn) not in known:
                raise ValueError(f"{path}: query {qid!r} names {turn!r}, not in {q.bank_id}")
        overlap = set(entry.stale_ids) & set(entry.gold_ids)
        if overlap:
            raise ValueError(f"{path}: query {qid!r} has {sorted(overlap)} as stale and gold")
        if entry.stale_ids:
            chosen.append(StaleQuery(q, frozenset(entry.gold_ids), frozenset(entry.stale_ids)))
    counts = {
        "knowledge_update_queries": sum(q.category == CATEGORY for q in bs.queries),
        "in_sidecar": len(data.queries),
        "with_stale_turns": len(chosen),
        "stale_turns": sum(len(s.stale) for s in chosen),
        "gold_turns": sum(len(s.gold) for s in chosen),
    }
    return chosen, counts


def mark_of(result: RecallResult) -> Mark | None:
    if result.state is State.SUPERSEDED:
        return "superseded"
    return "outdated" if result.outdated_by is not None else None


def request_for(q: BenchQuery, mode: str) -> RecallRequest:
    as_of = q.query_time if mode == "as_of" else None
    return RecallRequest(query=q.query, limit=TOP, prefer_observations=True, as_of=as_of)


def ask(pipeline: RecallPipeline, bs: BenchSet, sq: StaleQuery, mode: str) -> QueryOutcome:
    response = pipeline.recall(sq.query.bank_id, request_for(sq.query, mode))
    shown = [Shown(frozenset(result_labels(r, bs.labels)), mark_of(r)) for r in response.results]
    return score_query(sq.query.id, shown, sq.gold, sq.stale)


def gold_marks(pipeline: RecallPipeline, bs: BenchSet, chosen: list[StaleQuery]) -> dict[str, int]:
    """Precision of the marks: every query of the dataset (all abilities), asked for the
    present, counting the results in the top 10 that hold one of its gold turns, and those
    of them marked `outdated_by` (a knowledge update's stale turns are left out: they are
    meant to be marked). A gold turn marked outdated is a current answer shown as replaced."""
    stale = {s.query.id: s.stale for s in chosen}
    shown = marked = 0
    for q in bs.queries:
        response = pipeline.recall(q.bank_id, request_for(q, "present"))
        for r in response.results:
            labels = set(result_labels(r, bs.labels))
            if labels & q.gold and not labels & stale.get(q.id, frozenset()):
                shown += 1
                marked += r.outdated_by is not None
    return {"gold_results_shown_present": shown, "gold_results_marked_outdated": marked}


def stored_state(store: MemoryStore, bs: BenchSet, chosen: list[StaleQuery]) -> dict[str, int]:
    """How consolidation left the stale and gold turns: superseded, or in an observation."""
    banks = sorted({s.query.bank_id for s in chosen})
    by_label = {
        (p.record.bank_id, bs.labels[p.record.id]): p.record
        for b in banks
        for p in store.scroll(Filter(b, kinds=("world", "experience")))
        if p.record.id in bs.labels
    }
    found: dict[str, int] = {}
    for role in ("stale", "gold"):
        records = [
            by_label[(s.query.bank_id, t)]
            for s in chosen
            for t in (s.stale if role == "stale" else s.gold)
            if (s.query.bank_id, t) in by_label
        ]
        found[f"{role}_stored_superseded"] = sum(r.state is State.SUPERSEDED for r in records)
        found[f"{role}_in_observation"] = sum(r.observation_id is not None for r in records)
    return found


def run_stale(
    bs: BenchSet,
    chosen: list[StaleQuery],
    counts: dict[str, int],
    settings: Settings,
    progress_console: Console,
) -> StaleReport:
    """Ingest every bank of the dataset into a fresh embedded store, then ask each chosen
    query in both modes."""
    wall: Figures = {}
    outcomes: dict[str, list[QueryOutcome]] = {m: [] for m in MODES}
    with tempfile.TemporaryDirectory(prefix="sediment-bench-stale-") as tmp:
        rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": Path(tmp)}))
        try:
            with Progress(console=progress_console, transient=False) as progress:
                wall["ingest"] = round(ingest(rt.publisher, bs.events, progress, BATCH), 2)
                counts = {**counts, "events": len(bs.events), **stored_state(rt.store, bs, chosen)}
                start = time.perf_counter()
                for sq in chosen:
                    for mode in MODES:
                        outcomes[mode].append(ask(rt.recall_pipeline, bs, sq, mode))
                counts = {**counts, **gold_marks(rt.recall_pipeline, bs, chosen)}
                wall["queries"] = round(time.perf_counter() - start, 2)
        finally:
            rt.close()
    return {
        "benchmark": "stale",
        "dataset": bs.name,
        "machine": machine(),
        "versions": versions(),
        "settings": {
            "mode": "embedded",
            "embedder": settings.embedder,
            "ingest_batch": BATCH,
            "limit": TOP,
            "marked_within": MARK_TOP,
            "prefer_observations": True,
            **{f"mode_{m}": MODE_NOTES[m] for m in MODES},
            "marked": "state superseded, or outdated_by set",
            "updated_above_stale": "a gold turn in the top 10, every gold turn there above "
            "every stale turn (a stale turn outside the top 10 is below)",
        },
        "date": now_iso(),
        "counts": counts,
        "summary": {m: summarize(outcomes[m]) for m in MODES},
        "queries": outcomes,
        "wall_time_s": wall,
    }
