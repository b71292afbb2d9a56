"""Forget under a running server: `sediment serve` (standalone, consuming its queue and
holding the embedded store) is never stopped; memories retained, some forgotten, and
every file of the node's data directory searched for the forgotten texts until none
holds one (the serving process copies its store's live points into a fresh shard at
most `SEDIMENT_FORGET_PURGE_S` after a forget, readmodel/stores/edge.py `purge_now`).
Recall is asked for the memories kept after each round. The same check, small, runs
with the tests: tests/unit/test_live_purge.py and
tests/integration/test_reliability_smoke.py.
"""

import contextlib
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from bench.reliability.cluster import Broker, Node, Proc, RedisServer, running, wait_for
from contracts.events import RetainEvent
from sediment.forgetting import forget

BANK = "live-purge"
SETTLE_S = 300.0
PURGE_S = 20
"""The bound the scenario runs with (`SEDIMENT_FORGET_PURGE_S`; the default is 120)."""
COPY_SLACK_S = 15
"""Beyond the bound: the copy itself (a few seconds at 10,000 memories)."""
AUTH = {"Authorization": "Bearer reliability-token"}


@dataclass
class LivePurge:
    """Per round: data files holding a forgotten text once the forget was handled,
    seconds from then until none does (None: not within bound + slack), whether serve
    was up all along, and kept memories recall found for their marker."""

    rounds: int
    per_round: int
    purge_s: int
    files_after_forget: list[int] = field(default_factory=list)
    clean_after_s: list[float | None] = field(default_factory=list)
    serve_pids: list[int] = field(default_factory=list)
    serve_up: bool = True
    kept_recalled: int = 0
    kept_asked: int = 0


def holding(root: Path, texts: list[str]) -> int:
    """Files under `root` holding any of `texts`; a file the copy removed while it was
    read holds nothing."""
    wanted = [t.encode() for t in texts]
    found = 0
    for where, _, names in os.walk(root):
        for name in names:
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                data = (Path(where) / name).read_bytes()
                found += any(w in data for w in wanted)
    return found


def _clean(root: Path, texts: list[str]) -> bool:
    return holding(root, texts) == 0


def _events(round_no: int, n: int) -> list[RetainEvent]:
    start = datetime(2024, 6, 1, tzinfo=UTC) + timedelta(days=round_no)
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"live-purge-{round_no}-{i}"),
            bank_id=BANK,
            text=f"Femi left note zq{uuid.uuid4().hex} in the blue box (round {round_no}).",
            occurred_at=start + timedelta(minutes=i),
            metadata={"source_id": f"round-{round_no}-{'doomed' if i % 2 == 0 else 'kept'}"},
        )
        for i in range(n)
    ]


def _recalled(proc: Proc, texts: list[str]) -> int:
    """Kept memories recall returns when asked for their marker."""
    found = 0
    with httpx.Client(base_url=proc.base_url, headers=AUTH, timeout=30) as http:
        for text in texts:
            marker = next(w for w in text.split() if w.startswith("zq"))
            r = http.post(f"/v1/banks/{BANK}/recall", json={"query": marker, "limit": 5})
            r.raise_for_status()
            found += any(marker in res["text"] for res in r.json()["results"])
    return found


def live_purge(
    server: RedisServer, workdir: Path, rounds: int, per_round: int, purge_s: int = PURGE_S
) -> LivePurge:
    extra = {"SEDIMENT_FORGET_PURGE_S": str(purge_s)}
    node = Node(server.url, workdir, "live-purge", extra=extra)
    broker = Broker(server.client(), node.queue)
    publisher = node.runtime().publisher
    result = LivePurge(rounds, per_round, purge_s)
    proc = Proc.serve(node)
    with running(proc):
        for r in range(rounds):
            events = _events(r, per_round)
            doomed = [e.text for e in events if e.metadata["source_id"].endswith("doomed")]
            kept = [e.text for e in events if e.metadata["source_id"].endswith("kept")]
            publisher.publish_retain(events)
            wait_for(broker.settled, SETTLE_S, "the retains")
            forget(publisher, BANK, source_id=f"round-{r}-doomed")
            wait_for(broker.settled, SETTLE_S, "the forget")
            handled = time.monotonic()
            result.files_after_forget.append(holding(node.data_dir, doomed))
            try:
                wait_for(
                    partial(_clean, node.data_dir, doomed),
                    2 * purge_s + COPY_SLACK_S,
                    "no forgotten text in the data directory",
                    0.5,
                )
                result.clean_after_s.append(round(time.monotonic() - handled, 1))
            except TimeoutError:
                result.clean_after_s.append(None)
            result.kept_recalled += _recalled(proc, kept)
            result.kept_asked += len(kept)
            result.serve_pids.append(proc.pid)
            result.serve_up = result.serve_up and proc.alive()
    return result


def live_purge_verdicts(f: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(check, measured, target, met) rows of the summary table."""
    clean = [s for s in f["clean_after_s"] if s is not None]
    bound = f["purge_s"] + COPY_SLACK_S
    worst = max(clean) if len(clean) == f["rounds"] else None
    up = f["serve_up"] and len(set(f["serve_pids"])) == 1
    return [
        (
            "forgotten text in the data files of a running `sediment serve` "
            f"(`SEDIMENT_FORGET_PURGE_S` = {f['purge_s']})",
            f"clean after {worst} s (worst of {f['rounds']}); serve "
            f"{'up throughout' if up else 'stopped'}",
            f"within {bound} s, serve up throughout",
            worst is not None and worst <= bound and up,
        ),
        (
            "memories kept, recalled by their marker after the purge",
            f"{f['kept_recalled']} of {f['kept_asked']}",
            f"= {f['kept_asked']}",
            f["kept_recalled"] == f["kept_asked"],
        ),
    ]


def live_purge_section(f: dict[str, Any]) -> list[str]:
    ran = f.get("ran_alone")
    rows = [
        f"| {i + 1} | {f['per_round'] // 2} | {held} | "
        f"{f'{s} s' if s is not None else 'not clean'} |"
        for i, (held, s) in enumerate(zip(f["files_after_forget"], f["clean_after_s"], strict=True))
    ]
    return [
        "",
        "## Forget under a running server",
        "",
        f"{f['rounds']} rounds on a node of its own, `sediment serve` (standalone: it",
        "consumes its queue and holds the embedded store) running throughout with",
        f"`SEDIMENT_FORGET_PURGE_S` = {f['purge_s']} (the default is 120): {f['per_round']}",
        "memories retained, half of them forgotten (by `source_id`), and every file of",
        "the data directory searched for the forgotten texts until none holds one. The",
        "serving process copies its store's live points into a fresh shard at most that",
        "many seconds after a forget, so the texts leave the WAL and the segment pages",
        "without a restart. Then recall is asked for each memory kept, by its marker.",
        "",
        "| round | forgotten | data files holding it once handled | clean after the forget |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        f"Kept memories recalled: {f['kept_recalled']} of {f['kept_asked']}; one `sediment "
        f"serve` process ({'up throughout' if f['serve_up'] else 'it died'}).",
        *([f"This scenario ran on its own ({ran[0]} on {ran[1]})."] if ran else []),
        "The same checks run with the tests: `tests/unit/test_live_purge.py`.",
    ]
