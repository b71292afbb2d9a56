"""Crash after a forget: `sediment worker` is killed -9 as soon as a forget is handled
(no clean close), then started again. What is left of the forgotten texts on disk: in
the node's data directory (the embedded store's WAL and pages, until the restarted
worker opens the store and finishes the purge its `purge.pending` records) and in the
suite's Redis AOF (until the rewrite a forget owes, `SEDIMENT_FORGET_AOF_REWRITE_S`).
The same checks, small, run with the tests: tests/integration/test_forget_on_disk.py.
"""

import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.reliability.cluster import Broker, Node, Proc, RedisServer, stored_raw, wait_for
from contracts.events import RetainEvent
from sediment.forgetting import forget

BANK = "forget-crash"
SETTLE_S = 300.0
CLEAN_S = 300.0


@dataclass
class ForgetCrash:
    """Per round: files of the data directory holding a forgotten text right after the
    kill, and left once the restarted worker has had `CLEAN_S` to open the store
    (seconds until none: `purged_after_restart_s`); AOF files still holding one after
    `CLEAN_S` (seconds from the forget handled until none: `aof_clean_s`). None: not
    clean within `CLEAN_S`."""

    rounds: int
    forgotten: int
    kept_stored: int
    kept_sent: int
    files_after_kill: list[int] = field(default_factory=list)
    files_after_restart: list[int] = field(default_factory=list)
    aof_files_left: list[int] = field(default_factory=list)
    aof_clean_s: list[float | None] = field(default_factory=list)
    purged_after_restart_s: list[float | None] = field(default_factory=list)
    aof_rewrite_s: int = 60


def holding(root: Path, texts: list[str]) -> int:
    """Files under `root` that hold any of `texts`."""
    wanted = [t.encode() for t in texts]
    found = 0
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += any(w in data for w in wanted)
    return found


def _until_clean(root: Path, texts: list[str], since: float) -> tuple[float | None, int]:
    """Seconds from `since` until no file under `root` holds any of `texts` (None past
    `CLEAN_S`), and how many still do."""
    try:
        wait_for(lambda: holding(root, texts) == 0, CLEAN_S, f"no forgotten text in {root}", 0.5)
    except TimeoutError:
        return None, holding(root, texts)
    return round(time.monotonic() - since, 1), 0


def _events(round_no: int, n: int) -> list[RetainEvent]:
    start = datetime(2024, 3, 1, tzinfo=UTC) + timedelta(days=round_no)
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"forget-crash-{round_no}-{i}"),
            bank_id=BANK,
            text=f"Dana hid note zq{uuid.uuid4().hex} under the lamp (round {round_no}).",
            occurred_at=start + timedelta(minutes=i),
            metadata={"source_id": f"round-{round_no}-{'doomed' if i % 2 == 0 else 'kept'}"},
        )
        for i in range(n)
    ]


def forget_crash(server: RedisServer, workdir: Path, rounds: int, per_round: int) -> ForgetCrash:
    node = Node(server.url, workdir, "forget-crash")
    broker = Broker(server.client(), node.queue)
    publisher = node.runtime().publisher
    proc = Proc.worker(node)
    kept: list[RetainEvent] = []
    result = ForgetCrash(rounds, 0, 0, 0, aof_rewrite_s=node.settings().forget_aof_rewrite_s)
    for r in range(rounds):
        events = _events(r, per_round)
        doomed = [e.text for e in events if e.metadata["source_id"].endswith("doomed")]
        kept += [e for e in events if e.metadata["source_id"].endswith("kept")]
        proc.start()
        publisher.publish_retain(events)
        wait_for(broker.settled, SETTLE_S, "the retains")
        result.forgotten += len(doomed)
        forget(publisher, BANK, source_id=f"round-{r}-doomed")
        wait_for(broker.settled, SETTLE_S, "the forget")
        handled = time.monotonic()
        proc.kill9()
        result.files_after_kill.append(holding(node.data_dir, doomed))
        proc.start()
        purged, left = _until_clean(node.data_dir, doomed, time.monotonic())
        result.purged_after_restart_s.append(purged)
        result.files_after_restart.append(left)
        aof_clean, aof_left = _until_clean(server.dir, doomed, handled)
        result.aof_clean_s.append(aof_clean)
        result.aof_files_left.append(aof_left)
        proc.stop()
    rt = node.runtime()
    try:
        result.kept_stored = stored_raw(rt, [BANK]).stored
        result.kept_sent = len(kept)
    finally:
        rt.close()
    return result


AOF_SLACK_S = 15
"""Beyond the rewrite interval: the worker's sweep period (5 s), its restart and the
rewrite itself."""


def forget_verdicts(f: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(check, measured, target, met) rows of the summary table."""
    left = sum(f["files_after_restart"])
    purged = [s for s in f["purged_after_restart_s"] if s is not None]
    aof_left = sum(f["aof_files_left"])
    aof = [s for s in f["aof_clean_s"] if s is not None]
    bound = f["aof_rewrite_s"] + AOF_SLACK_S
    worst_aof = max(aof) if aof else None
    return [
        (
            "forgotten text in the data files after a kill -9 right after a forget and a restart",
            f"{left} files (purged {max(purged, default=None)} s after the restart, worst)",
            "0",
            left == 0 and len(purged) == f["rounds"],
        ),
        (
            "forgotten text in Redis's AOF after the rewrite interval",
            f"{aof_left} files (clean {worst_aof} s after the forget, worst)",
            f"0, within {bound} s",
            aof_left == 0 and worst_aof is not None and worst_aof <= bound,
        ),
    ]


def _run_apart(f: dict[str, Any]) -> list[str]:
    """A run of this scenario alone, merged into an earlier run's results, says so."""
    run = f.get("run")
    if not run:
        return []
    return [
        f"This scenario ran on its own ({run['at']} on {run['host']}, {run['wall_time_s']} s),",
        "after the rest of the suite, and its results were added to that run's.",
    ]


def forget_section(f: dict[str, Any]) -> list[str]:
    rows = [
        [i + 1, f["forgotten"] // f["rounds"], *cells]
        for i, cells in enumerate(
            zip(
                f["files_after_kill"],
                f["files_after_restart"],
                f["purged_after_restart_s"],
                f["aof_clean_s"],
                strict=True,
            )
        )
    ]
    header = [
        "round",
        "forgotten",
        "data files holding it after the kill",
        "left after the restart",
        "purged after the restart",
        "AOF clean after the forget",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += [
        "| " + " | ".join(f"{c} s" if isinstance(c, float) else str(c) for c in row) + " |"
        for row in rows
    ]
    return [
        "",
        "## Crash after a forget",
        "",
        f"{f['rounds']} rounds on a node of its own: memories retained, half of them",
        "forgotten (by `source_id`), and `sediment worker` killed -9 as soon as the forget",
        "is handled, before any clean close; then started again. Each forgotten text is",
        "looked for in every file of the data directory (the embedded store's WAL and",
        "pages, until the restarted worker opens the store and finishes the purge its",
        "`purge.pending` records) and of the suite's Redis directory (the AOF, until the",
        "rewrite the forget owes: at once for the first, then at most every",
        f"`SEDIMENT_FORGET_AOF_REWRITE_S` = {f['aof_rewrite_s']} s, by a worker's sweep when",
        "the worker that owed it was killed).",
        "",
        *lines,
        "",
        f"Memories not forgotten, stored at the end: {f['kept_stored']} of {f['kept_sent']}.",
        *_run_apart(f),
        "Out of a forget's reach (docs/data.md, \"Forget\"): a Redis replica's own AOF",
        "until it resyncs or rewrites, RDB snapshots and backups taken before the forget,",
        "and copies below the application (freed filesystem blocks, swap, volume snapshots).",
        "The same checks run with the tests: `tests/integration/test_forget_on_disk.py`",
        "(a process killed by `os._exit` as the forget returns, the embedded store and",
        "qdrant-client's local mode; the AOF of a Redis of the test's own).",
    ]
