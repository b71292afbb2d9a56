"""Runs a retrieval benchmark: ingest through real consolidation, then every query
against Sediment and the three baselines in the same process, interleaved, so noise
on this machine falls on all of them alike."""

import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.progress import Progress

from bench.baselines import BM25_SETTINGS, RRF_K, BM25Baseline, DenseBaseline, Doc, rrf
from bench.dataset import BenchQuery, BenchSet
from bench.record import Figures, RetrievalReport, SystemFigures, machine, now_iso, versions
from bench.scoring import RankedItem, aggregate, item, ratio_to_best, recall_at_k, score_query
from contracts.events import RetainEvent
from contracts.memory import State
from contracts.memory import derive_memory_id as memory_id
from contracts.recall import RecallRequest, RecallResult
from readmodel.embedders import Embedder
from readmodel.reading import read, same_statement
from readmodel.recall.notes import fusion_note
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter, MemoryStore
from sediment.bootstrap import bootstrap
from sediment.retain import Publisher
from sediment.settings import Settings
from telemetry.metrics import Metrics

T = TypeVar("T")
SYSTEMS = ("sediment", "dense", "bm25", "rrf")
LIMIT = 20
BATCH = 64
QUERY_TIME = (
    "honoured for every system: Sediment gets it as as_of, the baselines see only "
    "memories with occurred_at <= query_time (BM25 indexes only those)"
)


@dataclass
class Outcomes:
    """Per system: each query's metric scores, latency, and what it returned."""

    scores: dict[str, dict[str, Figures]] = field(default_factory=dict)
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    returned: dict[str, list[RankedItem]] = field(default_factory=dict)
    observations: int = 0
    shown_recall: dict[str, float] = field(default_factory=dict)
    """Sediment's recall@10 per query when an observation covers only the sources whose
    statement its text holds (`held_labels`): what a reader of the results can see."""

    def add(
        self, system: str, query_id: str, items: list[RankedItem], gold: frozenset[str], ms: float
    ) -> None:
        self.scores.setdefault(system, {})[query_id] = score_query(items, gold)
        self.latency_ms.setdefault(system, {})[query_id] = ms
        self.returned.setdefault(system, []).extend(items)


def ingest(
    publisher: Publisher, events: Sequence[RetainEvent], progress: Progress, batch: int
) -> float:
    task = progress.add_task("ingest (consolidation)", total=len(events))
    start = time.perf_counter()
    for i in range(0, len(events), batch):
        chunk = events[i : i + batch]
        publisher.publish_retain(chunk)
        progress.advance(task, len(chunk))
    return time.perf_counter() - start


def store_counts(store: MemoryStore, banks: Sequence[str]) -> dict[str, int]:
    raw = ("world", "experience")
    return {
        "raw_memories": sum(store.count(Filter(b, kinds=raw)) for b in banks),
        "observations": sum(store.count(Filter(b, kinds=("observation",))) for b in banks),
        "superseded_raw": sum(
            store.count(Filter(b, kinds=raw, state=State.SUPERSEDED)) for b in banks
        ),
    }


def evidence_state(store: MemoryStore, bs: BenchSet) -> dict[str, int]:
    """How the gold turns fared in consolidation: superseded ones are replaced by their
    chain head in current-state recall; merged ones are shown as an observation."""
    records = {
        p.record.id: p.record
        for b in bs.banks
        for p in store.scroll(Filter(b, kinds=("world", "experience")))
    }
    by_label = {(r.bank_id, bs.labels[i]): r for i, r in records.items() if i in bs.labels}
    gold = [
        by_label[(q.bank_id, g)] for q in bs.queries for g in q.gold if (q.bank_id, g) in by_label
    ]
    return {
        "evidence_turns": len(gold),
        "evidence_superseded": sum(r.state is State.SUPERSEDED for r in gold),
        "evidence_in_observation": sum(r.observation_id is not None for r in gold),
    }


def result_labels(r: RecallResult, labels: dict[uuid.UUID, str]) -> set[str]:
    """An observation covers its sources' labels; a raw memory its own."""
    ids = [r.id, *r.source_memory_ids]
    return {labels[i] for i in ids if i in labels}


def held_labels(
    r: RecallResult,
    labels: dict[uuid.UUID, str],
    texts: dict[uuid.UUID, tuple[str, tuple[str, ...]]],
) -> set[str]:
    """An observation covers the labels of the sources whose reading its text holds
    (`readmodel.reading.same_statement`), a raw memory its own: the evidence a reader of
    the result can see, where `result_labels` credits every source."""
    shown = read(r.text, r.entities)
    held = [
        i
        for i in r.source_memory_ids
        if i in texts and same_statement(shown, read(*texts[i]), verbs_may_differ=True)
    ]
    return {labels[i] for i in [r.id, *held] if i in labels}


def result_labels_raw(memory: uuid.UUID, labels: dict[uuid.UUID, str]) -> set[str]:
    return {labels[memory]} if memory in labels else set()


def _timed(call: Callable[[], T], metrics: Metrics | None = None) -> tuple[T, float]:
    """The call's wall time; with `metrics`, the store-call metrics it writes are held
    in a batch sent after the clock stops, as the served recall (`Recaller`) hands its
    batch to a background send: a caller never waits for it."""
    with metrics.batch() if metrics is not None else nullcontext():
        start = time.perf_counter()
        value = call()
        ms = (time.perf_counter() - start) * 1000
    return value, ms


class Systems:
    """Sediment's recall and the baselines over the same store, one query at a time."""

    def __init__(
        self,
        pipeline: RecallPipeline,
        store: MemoryStore,
        embedder: Embedder,
        bs: BenchSet,
        metrics: Metrics | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.metrics = metrics
        self.labels = bs.labels
        self.texts = {
            memory_id(e.bank_id, e.event_id): (e.text, tuple(e.entities)) for e in bs.events
        }
        self.dense = DenseBaseline(store, embedder)
        self.bm25 = BM25Baseline(store, bs.banks)

    def _docs(self, docs: list[Doc]) -> list[RankedItem]:
        return [item(result_labels_raw(d.id, self.labels), d.text) for d in docs]

    def run(self, q: BenchQuery, out: Outcomes) -> None:
        request = RecallRequest(
            query=q.query, limit=LIMIT, prefer_observations=True, as_of=q.query_time
        )
        response, ms = _timed(lambda: self.pipeline.recall(q.bank_id, request), self.metrics)
        out.observations += sum(1 for r in response.results if r.kind == "observation")
        items = [item(result_labels(r, self.labels), r.text) for r in response.results]
        out.add("sediment", q.id, items, q.gold, ms)
        shown = [item(held_labels(r, self.labels, self.texts), r.text) for r in response.results]
        out.shown_recall[q.id] = recall_at_k(shown, q.gold, 10)
        until = q.query_time
        dense, dense_ms = _timed(
            lambda: self.dense.search(q.bank_id, q.query, LIMIT, until), self.metrics
        )
        out.add("dense", q.id, self._docs(dense), q.gold, dense_ms)
        bm25, bm25_ms = _timed(lambda: self.bm25.search(q.bank_id, q.query, LIMIT, until))
        out.add("bm25", q.id, self._docs(bm25), q.gold, bm25_ms)
        fused, fuse_ms = _timed(lambda: rrf([dense, bm25], LIMIT))
        out.add("rrf", q.id, self._docs(fused), q.gold, dense_ms + bm25_ms + fuse_ms)


def figures(out: Outcomes, system: str, queries: Sequence[BenchQuery]) -> Figures:
    return aggregate(
        [out.scores[system][q.id] for q in queries],
        [out.latency_ms[system][q.id] for q in queries],
    )


def categories(bs: BenchSet) -> list[str]:
    present = {q.category for q in bs.queries}
    ordered = [c for c in bs.category_order if c in present]
    return ordered + sorted(present - set(ordered))


def summarize(bs: BenchSet, out: Outcomes) -> tuple[dict[str, SystemFigures], dict[str, Figures]]:
    systems: dict[str, SystemFigures] = {}
    adversarial: dict[str, Figures] = {}
    for name in SYSTEMS:
        systems[name] = {
            "overall": figures(out, name, bs.queries),
            "by_category": {
                c: figures(out, name, [q for q in bs.queries if q.category == c])
                for c in categories(bs)
            },
        }
        if bs.adversarial:
            adversarial[name] = figures(out, name, bs.adversarial)
    return systems, adversarial


def ratios(systems: dict[str, SystemFigures]) -> dict[str, dict[str, float | None]]:
    found = {"overall": ratio_to_best({n: s["overall"] for n, s in systems.items()})}
    for c in systems["sediment"]["by_category"]:
        found[c] = ratio_to_best({n: s["by_category"][c] for n, s in systems.items()})
    return found


def diagnostics(out: Outcomes, answered: int) -> dict[str, Figures]:
    found: dict[str, Figures] = {}
    for name, items in out.returned.items():
        found[name] = {
            "mean_results": round(len(items) / max(answered, 1), 2),
            "mean_result_tokens": round(sum(i.tokens for i in items) / max(len(items), 1), 2),
        }
    found["sediment"]["observation_share"] = round(
        out.observations / max(len(out.returned.get("sediment", [])), 1), 4
    )
    if out.shown_recall:
        found["sediment"]["shown_recall@10"] = round(
            sum(out.shown_recall.values()) / len(out.shown_recall), 4
        )
    return found


def run_retrieval(
    bs: BenchSet, benchmark: str, settings: Settings, progress_console: Console
) -> RetrievalReport:
    """A fresh embedded store in a temporary directory, removed afterwards."""
    wall: Figures = {}
    with tempfile.TemporaryDirectory(prefix="sediment-bench-") as tmp:
        rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": Path(tmp)}))
        try:
            with Progress(console=progress_console, transient=False) as progress:
                wall["ingest"] = round(ingest(rt.publisher, bs.events, progress, BATCH), 2)
                counts = {**bs.counts, "events": len(bs.events), **store_counts(rt.store, bs.banks)}
                counts.update(evidence_state(rt.store, bs))
                start = time.perf_counter()
                systems_ = Systems(rt.recall_pipeline, rt.store, rt.embedder, bs, rt.metrics)
                wall["bm25_index"] = round(time.perf_counter() - start, 2)
                rt_weights = rt.recall_pipeline.fusion_weights
                out = Outcomes()
                everything = [*bs.queries, *bs.adversarial]
                if everything:
                    systems_.run(everything[0], Outcomes())  # warm-up, not counted
                task = progress.add_task("queries (4 systems)", total=len(everything))
                start = time.perf_counter()
                for q in everything:
                    systems_.run(q, out)
                    progress.advance(task)
                wall["queries"] = round(time.perf_counter() - start, 2)
                for q in bs.adversarial:
                    out.shown_recall.pop(q.id, None)
        finally:
            rt.close()
    systems, adversarial = summarize(bs, out)
    counts.update({"queries": len(bs.queries), "adversarial": len(bs.adversarial)})
    counts.update(
        {f"queries_{c}": sum(q.category == c for q in bs.queries) for c in categories(bs)}
    )
    return {
        "benchmark": benchmark,
        "dataset": bs.name,
        "machine": machine(),
        "versions": versions(),
        "settings": {
            "mode": "embedded",
            "embedder": settings.embedder,
            "merge_threshold": settings.merge_threshold,
            "fusion": fusion_note(rt_weights),
            "recall_depth": settings.recall_depth,
            "exact_bonus": settings.recall_exact_bonus,
            "date_weight": settings.recall_date_weight,
            "length_prior": f"({settings.recall_length_ref_tokens} / tokens) ^ "
            f"{settings.recall_length_weight:g} above {settings.recall_length_ref_tokens} tokens",
            "recency_bias": f"{settings.recall_recency_bias}, weight "
            f"{settings.recall_temporal_weight:g}",
            "session_affinity": f"{settings.recall_session_weight:g} x score of the best "
            f"{settings.recall_session_anchors}, "
            f"within {settings.recall_session_window_minutes:g} min",
            "speaker_match": f"x {1 + settings.recall_speaker_weight:g} when the question "
            "names the speaker",
            **bs.mapping,
            "neighbour_limit": settings.neighbour_limit,
            "ingest_batch": BATCH,
            "limit": LIMIT,
            "prefer_observations": True,
            "rrf_k": RRF_K,
            **{f"bm25_{k}": v for k, v in BM25_SETTINGS.items()},
            "latency": "wall time of one call, in-process, after one warm-up query; the "
            "store-call metrics of Sediment and of the dense baseline sent after the clock "
            "stops, as the served recall sends them in the background",
            "query_time": QUERY_TIME,
        },
        "date": now_iso(),
        "systems": systems,
        "adversarial": adversarial,
        "ratios": ratios(systems),
        "counts": counts,
        "diagnostics": diagnostics(out, len(bs.queries) + len(bs.adversarial)),
        "wall_time_s": wall,
    }
