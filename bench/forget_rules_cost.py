"""What past forgets cost a retain batch: consolidation of single-event batches in a bank
that has seen `forgets` filter forgets, with the forget rules kept for good (as before
they were pruned) and pruned once no retain still owed can need them.

    sediment-bench forget-rules        # 3,000 forgets, 200 batches; bench/results/forget_rules.json

Each side has a bank of its own in one embedded store (static embedder, qdrant-edge, a
temporary directory) and the rules of `forgets` filter forgets made over the hour
before, in Redis (a `redis-server` of the bench's own when one is installed, else
fakeredis). Then each side consolidates the same single-event batches, the two sides
alternating, every retain recorded in the redelivery ledger as published now and
settled once handled, as a worker does. Reported per side: p50 and p95 of a batch's
wall time (`consolidate`), the rules each batch read, and the rules left at the end.
"""

import os
import platform
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fakeredis
import redis

from contracts.events import RetainEvent
from contracts.forget import ForgetFilter, ForgetRule
from readmodel.embedders.factory import make_embedder
from readmodel.stores.edge import EdgeStore
from worker.consolidation.consolidator import Consolidator, consolidate, event_memory_id
from worker.ledger import Entry, Kind, Ledger, event_key
from worker.locks import ProcessLocks
from worker.tombstones import RedisTombstones

SIDES = ("kept", "pruned")
SEED = 200
"""Memories in each bank before the batches."""


class CountingTombstones(RedisTombstones):
    """Counts the rules each read returns."""

    def __init__(self, client: redis.Redis) -> None:
        super().__init__(client)
        self.reads: list[int] = []

    def rules(self, bank_id: str) -> list[ForgetRule]:
        found = super().rules(bank_id)
        self.reads.append(len(found))
        return found


def _events(bank: str, prefix: str, n: int, start: datetime) -> list[RetainEvent]:
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{prefix}-{i}"),
            bank_id=bank,
            text=f"Person{i % 37} moved to city {i % 11} and took up hobby {i % 7}.",
            occurred_at=start + timedelta(minutes=i),
        )
        for i in range(n)
    ]


def _client(workdir: Path) -> tuple[redis.Redis, Callable[[], None], str]:
    if shutil.which("redis-server") is None:
        return fakeredis.FakeRedis(), lambda: None, "fakeredis"
    from bench.reliability.cluster import RedisServer

    server = RedisServer(workdir)
    server.start()
    return server.client(), server.stop, "redis-server"


def run_forget_rules_cost(
    forgets: int, batches: int, say: Callable[[str], None] = print
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="sediment-forget-rules-"))
    load = round(os.getloadavg()[0], 1)
    client, stop, backend = _client(workdir)
    started = time.monotonic()
    try:
        store = EdgeStore(workdir / "store")
        embedder = make_embedder("static")
        store.ensure_schema(embedder.dimension)
        ledger = Ledger(client)
        now = datetime.now(UTC)
        sides: dict[str, Consolidator] = {}
        stones: dict[str, CountingTombstones] = {}
        for side in SIDES:
            stones[side] = CountingTombstones(client)
            base = Consolidator(store, embedder, ProcessLocks(10.0), tombstones=stones[side])
            sides[side] = replace(base, unsettled=ledger if side == "pruned" else None)
            bank = f"bench-{side}"
            consolidate(_events(bank, f"{side}-seed", SEED, now - timedelta(days=30)), sides[side])
            for n in range(forgets):
                at = now - timedelta(hours=1) + timedelta(seconds=n * 3600 / max(1, forgets))
                stones[side].add_rule(
                    ForgetRule(
                        bank_id=bank,
                        forget_event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{side}-forget-{n}"),
                        filter=ForgetFilter(tags=[f"tag-{n}"]),
                        accepted_at=at,
                    )
                )
            stones[side].reads.clear()
        say(f"{forgets} forget rules per bank; {batches} single-event batches per side")
        times: dict[str, list[float]] = {s: [] for s in SIDES}
        for i in range(batches):
            for side in SIDES if i % 2 == 0 else reversed(SIDES):
                times[side].append(_batch(sides[side], ledger, f"bench-{side}", i))
        return {
            "benchmark": "forget_rules",
            "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "host": f"{platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "load_at_start": load,
            "redis": backend,
            "forgets": forgets,
            "batches": batches,
            "seed_memories": SEED,
            "sides": {side: _summary(times[side], stones[side], f"bench-{side}") for side in SIDES},
            "wall_time_s": round(time.monotonic() - started, 1),
        }
    finally:
        stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _batch(deps: Consolidator, ledger: Ledger, bank: str, i: int) -> float:
    """One retain, published now (in the ledger), consolidated and settled: seconds."""
    [event] = _events(bank, f"{bank}-batch-{i}", 1, datetime(2025, 1, 1, tzinfo=UTC))
    at = time.time()
    key = event_key(bank, event.event_id)
    ledger.record([Entry(Kind.RETAIN, key, "bench", {}, 0, at)], at)
    accepted = {event_memory_id(event): datetime.fromtimestamp(at, UTC)}
    t0 = time.perf_counter()
    consolidate([event], deps, accepted)
    took = time.perf_counter() - t0
    ledger.settle(Kind.RETAIN, [key])
    return took


def _summary(times: Sequence[float], stones: CountingTombstones, bank: str) -> dict[str, Any]:
    ms = sorted(t * 1000 for t in times)
    return {
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2),
        "rules_read_first_batch": stones.reads[0] if stones.reads else 0,
        "rules_read_max_after_first": max(stones.reads[1:], default=0),
        "rules_left": len(stones.rules(bank)),
    }


def forget_rules_section(report: dict[str, Any], source: str) -> list[str]:
    rows = []
    labels = {"kept": "rules kept for good (before)", "pruned": "rules pruned (now)"}
    for side in SIDES:
        s = report["sides"][side]
        rows.append(
            f"| {labels[side]} | {s['p50_ms']} | {s['p95_ms']} | {s['rules_read_first_batch']} "
            f"| {s['rules_read_max_after_first']} | {s['rules_left']} |"
        )
    return [
        "## Past forgets against a retain batch (`forget-rules`)",
        "",
        f"Source `{source}`, run {report['generated_at']}, {report['host']}, load "
        f"{report.get('load_at_start')} at start; Redis: "
        f"{report['redis']}; wall time {report['wall_time_s']} s. A bank of "
        f"{report['seed_memories']} memories with the rules of {report['forgets']} filter "
        f"forgets made over the hour before, then {report['batches']} single-event batches "
        "per side, the sides alternating (bench/forget_rules_cost.py).",
        "",
        "| rules | batch p50 ms | batch p95 ms | rules read, first batch | rules read, "
        "later batches (max) | rules left |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]
