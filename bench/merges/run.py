"""Drives a real embedded store: every pair of a split in a bank of its own, the two
statements retained (the second an hour and a day later in event time), then each
bank read back and each distinct statement's query asked.

Delivery goes through the in-process publisher, which consolidates before it returns
(the inline form of `sediment.retain.v1` tasks): once a round is published, its events
are consolidated, and the run checks every raw memory carries the done-marker. A round
holds one event of every pair (many banks, one batch per `ROUND_BATCH` events), so no
bank ever sees its two statements in one batch. Two deliveries, each in a fresh store:

* `in_order`: the first statement, then the second;
* `shuffled_duplicated`: the second first, then the first, then both again (each
  delivered twice).
"""

import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from bench.dataset import BENCH_NAMESPACE
from bench.merges.data import Pair, Statement
from bench.merges.score import Held, Hit, Seen, Verdict, errors, judge, mode_figures
from bench.record import MergeError, MergeMode, MergesReport, machine, now_iso, versions
from contracts.events import RetainEvent
from contracts.memory import Observation, derive_memory_id
from contracts.recall import RecallRequest
from readmodel.store import Filter
from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from worker.consolidation.layout import LAYOUT

LIMIT = 10
ROUND_BATCH = 64
BASE_TIME = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
SECOND_AFTER = timedelta(days=1, hours=1)
Side = Literal["first", "second"]
DELIVERIES: dict[str, tuple[Side, ...]] = {
    "in_order": ("first", "second"),
    "shuffled_duplicated": ("second", "first", "second", "first"),
}
DELIVERY_NOTES = {
    "in_order": "first statement, then the second",
    "shuffled_duplicated": "second statement first, then the first, then both again",
}


CODE_DIRS = ("contracts", "readmodel", "worker", "sediment")
"""The code a run measures: the benchmark's own changes do not change its figures."""


def code_version() -> str:
    """The store layout and the last commit that changed the measured code, e.g.
    `layout 12, commit 16cf774` (`commit unknown` outside a git checkout)."""
    try:
        found = subprocess.run(
            ["git", "log", "-1", "--format=%h", "--", *CODE_DIRS],
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        found = ""
    return f"layout {LAYOUT}, commit {found or 'unknown'}"


class NotConsolidatedError(RuntimeError):
    """A bank still held raw memories without the done-marker after its rounds."""


def bank_id(pair: Pair) -> str:
    return f"mrg-{pair.id}"


def event_id(pair: Pair, side: Side) -> uuid.UUID:
    return uuid.uuid5(BENCH_NAMESPACE, f"merges\x1f{pair.id}\x1f{side}")


def memory_of(pair: Pair, side: Side) -> uuid.UUID:
    return derive_memory_id(bank_id(pair), event_id(pair, side))


def event(pair: Pair, index: int, side: Side) -> RetainEvent:
    """What a producer sends: the text, the event time and the people it names."""
    statement: Statement = pair.a if side == "first" else pair.b
    at = BASE_TIME + timedelta(minutes=17 * index)
    return RetainEvent(
        event_id=event_id(pair, side),
        bank_id=bank_id(pair),
        text=statement.text,
        occurred_at=at if side == "first" else at + SECOND_AFTER,
        entities=statement.entities,
    )


def deliver(rt: Runtime, pairs: Sequence[Pair], rounds: Sequence[Side]) -> None:
    for side in rounds:
        events = [event(p, i, side) for i, p in enumerate(pairs)]
        for start in range(0, len(events), ROUND_BATCH):
            rt.publisher.publish_retain(events[start : start + ROUND_BATCH])


def _hits(rt: Runtime, pair: Pair, query: str | None) -> tuple[Hit, ...]:
    if query is None:
        return ()
    request = RecallRequest(query=query, limit=LIMIT, prefer_observations=True)
    results = rt.recall_pipeline.recall(bank_id(pair), request).results
    return tuple(Hit(r.id, r.kind, r.text) for r in results)


def seen(rt: Runtime, pair: Pair) -> Seen:
    held: list[Held] = []
    superseded: set[uuid.UUID] = set()
    pending: list[uuid.UUID] = []
    for point in rt.store.scroll(Filter(bank_id(pair))):
        r = point.record
        if isinstance(r, Observation):
            held.append(Held(r.text, frozenset(r.source_memory_ids)))
            continue
        if r.superseded_by is not None:
            superseded.add(r.id)
        if not r.consolidated:
            pending.append(r.id)
    if pending:
        raise NotConsolidatedError(f"bank {bank_id(pair)}: {len(pending)} raw memories pending")
    checked = pair.kind == "distinct"
    return Seen(
        first=memory_of(pair, "first"),
        second=memory_of(pair, "second"),
        observations=tuple(held),
        superseded=frozenset(superseded),
        hits_first=_hits(rt, pair, pair.a.query) if checked else (),
        hits_second=_hits(rt, pair, pair.b.query) if checked else (),
    )


def run_delivery(
    pairs: Sequence[Pair],
    settings: Settings,
    rounds: Sequence[Side],
    advance: Callable[[int], None] = lambda _: None,
) -> list[Verdict]:
    """One fresh embedded store: every pair delivered in `rounds`, then judged."""
    with tempfile.TemporaryDirectory(prefix="sediment-bench-merges-") as tmp:
        rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": Path(tmp)}))
        try:
            deliver(rt, pairs, rounds)
            advance(len(pairs))
            verdicts = []
            for pair in pairs:
                verdicts.append(judge(pair, seen(rt, pair)))
                advance(1)
            return verdicts
        finally:
            rt.close()


def timed(
    pairs: Sequence[Pair], settings: Settings, mode: str, advance: Callable[[int], None]
) -> tuple[list[Verdict], float]:
    start = time.perf_counter()
    verdicts = run_delivery(pairs, settings, DELIVERIES[mode], advance)
    return verdicts, round(time.perf_counter() - start, 2)


def run_merges(
    pairs: Sequence[Pair],
    dataset: str,
    split: str,
    settings: Settings,
    advance: Callable[[int], None] = lambda _: None,
) -> MergesReport:
    """Both deliveries of `pairs`; `advance` hears of progress (2 steps per pair and
    delivery)."""
    modes: dict[str, MergeMode] = {}
    found: list[MergeError] = []
    wall: dict[str, float] = {}
    for mode in DELIVERIES:
        verdicts, wall[mode] = timed(pairs, settings, mode, advance)
        modes[mode] = mode_figures(DELIVERY_NOTES[mode], verdicts)
        found += errors(mode, verdicts)
    return {
        "benchmark": "merges",
        "dataset": dataset,
        "split": split,
        "pairs": {
            "distinct": sum(p.kind == "distinct" for p in pairs),
            "restatement": sum(p.kind == "restatement" for p in pairs),
        },
        "modes": modes,
        "errors": found,
        "machine": machine(),
        "versions": versions(),
        "settings": {
            "code": code_version(),
            "embedder": settings.embedder,
            "merge_threshold": settings.merge_threshold,
            "recall_limit": LIMIT,
            "prefer_observations": True,
            "delivery": "rounds of one event per pair, in-process publisher",
            "producer_fields": "text, occurred_at, entities",
        },
        "date": now_iso(),
        "wall_time_s": wall,
    }
