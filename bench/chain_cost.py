"""What long supersession chains cost a current-state recall: recall p50 on a bank whose
`keys` keys each changed `changes` times against the same bank with one state per key.

    sediment-bench chains          # 100 keys x 100 changes; bench/results/chains.json

Two banks in one embedded store (static embedder, qdrant-edge, a temporary directory),
built by the real consolidator: "Server nodeK runs version V." under the key `nodeK`,
once per key in the one bank, `changes` times per key (rising times, batches of 200)
in the other. Each run asks every key's current version once per bank, the banks
alternating, and keeps each bank's p50; the report gives the medians of the runs, their
ratio, and how often the newest version came first (the chain's head, whatever the
number of states before it).
"""

import os
import platform
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from readmodel.embedders import Embedder
from readmodel.embedders.factory import make_embedder
from readmodel.recall.pipeline import RecallPipeline
from readmodel.stores.edge import EdgeStore
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.locks import ProcessLocks

SIDES = ("one_state", "chained")
T0 = datetime(2025, 1, 1, tzinfo=UTC)
BATCH = 200


def _text(key: int, version: int) -> str:
    return f"Server node{key} runs version {version}."


def _events(bank: str, keys: int, changes: int) -> list[RetainEvent]:
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}-{k}-{v}"),
            bank_id=bank,
            text=_text(k, v),
            occurred_at=T0 + timedelta(hours=v, minutes=k % 60),
            key=f"node{k}",
        )
        for v in range(1, changes + 1)
        for k in range(keys)
    ]


def _build(deps: Consolidator, bank: str, keys: int, changes: int) -> float:
    events = _events(bank, keys, changes)
    started = time.monotonic()
    for i in range(0, len(events), BATCH):
        consolidate(events[i : i + BATCH], deps)
    return round(time.monotonic() - started, 1)


def _ask(pipeline: RecallPipeline, bank: str, key: int, newest: int) -> tuple[float, bool]:
    request = RecallRequest(query=f"What version does server node{key} run now?", limit=10)
    t0 = time.perf_counter()
    response = pipeline.recall(bank, request)
    took = time.perf_counter() - t0
    first = response.results[0].text if response.results else ""
    return took, first == _text(key, newest)


def run_chain_cost(
    keys: int, changes: int, runs: int, say: Callable[[str], None] = print
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="sediment-chains-"))
    load = round(os.getloadavg()[0], 1)
    started = time.monotonic()
    try:
        store = EdgeStore(workdir / "store")
        embedder: Embedder = make_embedder("static")
        store.ensure_schema(embedder.dimension)
        deps = Consolidator(store, embedder, ProcessLocks(10.0))
        newest = {"one_state": 1, "chained": changes}
        built = {side: _build(deps, side, keys, newest[side]) for side in SIDES}
        say(f"built: {built} s")
        pipeline = RecallPipeline(store, embedder, clock=lambda: T0 + timedelta(days=365))
        for side in SIDES:  # one warm-up query per bank
            _ask(pipeline, side, 0, newest[side])
        per_run: list[dict[str, float]] = []
        first = {side: 0 for side in SIDES}
        for run in range(runs):
            times: dict[str, list[float]] = {side: [] for side in SIDES}
            for k in range(keys):
                for side in SIDES if (k + run) % 2 == 0 else reversed(SIDES):
                    took, right = _ask(pipeline, side, k, newest[side])
                    times[side].append(took)
                    first[side] += right
            per_run.append(
                {side: round(statistics.median(times[side]) * 1000, 3) for side in SIDES}
            )
            say(f"run {run + 1}: {per_run[-1]}")
        store.close()
        p50 = {side: round(statistics.median(r[side] for r in per_run), 3) for side in SIDES}
        return {
            "benchmark": "chains",
            "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "host": f"{platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "load_at_start": load,
            "embedder": embedder.name,
            "keys": keys,
            "changes": changes,
            "runs": per_run,
            "build_s": built,
            "p50_ms": p50,
            "ratio": round(p50["chained"] / p50["one_state"], 3) if p50["one_state"] else None,
            "head_first": {side: round(first[side] / (keys * runs), 3) for side in SIDES},
            "wall_time_s": round(time.monotonic() - started, 1),
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def chains_section(report: dict[str, Any], source: str) -> list[str]:
    labels = {
        "one_state": "one state per key",
        "chained": f"{report['changes']} states per key",
    }
    rows = [
        f"| {labels[side]} | {report['p50_ms'][side]} | {report['head_first'][side]} "
        f"| {' / '.join(str(r[side]) for r in report['runs'])} |"
        for side in SIDES
    ]
    return [
        "## Long supersession chains against one state per key (`chains`)",
        "",
        f"Source `{source}`, run {report['generated_at']}, {report['host']}, load "
        f"{report.get('load_at_start')} at start; embedder {report['embedder']}; wall time "
        f"{report['wall_time_s']} s. Two banks of {report['keys']} keys in one embedded "
        f"store: one state per key, and {report['changes']} changes per key (one chain "
        "each); each key's current version asked once per bank and run, the banks "
        "alternating (bench/chain_cost.py). p50 is the median of the runs' p50s.",
        "",
        "| bank | recall p50 ms | newest version first | p50 of each run (ms) |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        f"- chained / one state: {report['ratio']} (target: at most 1.5)",
        "",
    ]
