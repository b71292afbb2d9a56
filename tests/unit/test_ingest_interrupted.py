"""Ctrl-C during `sediment ingest`, embedded or through a server: the batch in hand
when it comes is handed on whole before the ingest stops, so the count it prints of
what was taken is what a re-run skips, exactly. Ctrl-C is a real SIGINT here, sent
while a batch is being taken (where it came before)."""

import io
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from contracts.events import RetainEvent, RetainItem
from sediment.api.models import RetainAccepted
from sediment.client import NotFound
from sediment.ingest import IngestDeps, run_ingest
from sediment.ingest_remote import ingest_remote
from telemetry.metrics import NoopMetrics
from worker.deadletters import FileDeadLetters

BATCH = 4


def lines(path: Path, n: int) -> Path:
    rows = [{"text": f"Fact {i}.", "occurred_at": "2024-01-01T00:00:00Z"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class Interrupting:
    """Takes every batch it is given (it stores them: `taken`); Ctrl-C reaches the
    process while it takes the second (`presses` times)."""

    queued = False

    def __init__(self, presses: int = 1) -> None:
        self.taken: list[object] = []
        self.presses = presses

    def take(self, events: Sequence[object]) -> None:
        self.taken += events
        if len(self.taken) == 2 * BATCH:
            for _ in range(self.presses):
                os.kill(os.getpid(), signal.SIGINT)

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        self.take(events)
        return len(events)

    def retain_many(self, items: Sequence[RetainItem], *, bank: str) -> RetainAccepted:
        self.take(items)
        return RetainAccepted(event_ids=[], status="consolidated", outcomes=[])

    def memory(self, memory_id: object, *, bank: str) -> object:
        raise NotFound("no such memory", 404)


def test_ctrl_c_lets_the_batch_in_hand_finish_and_counts_it(tmp_path: Path) -> None:
    path = lines(tmp_path / "events.jsonl", 5 * BATCH)
    publisher = Interrupting()
    deps = IngestDeps(publisher, FileDeadLetters(tmp_path / "dlq.jsonl", 10), NoopMetrics(), 1000)
    summary = run_ingest(deps, path, "b", BATCH, Console(file=io.StringIO()))
    assert summary.interrupted is not None
    assert summary.interrupted.taken == summary.done == len(publisher.taken) == 2 * BATCH
    assert summary.interrupted.said().startswith(
        f"interrupted: {2 * BATCH} events of {5 * BATCH} taken; run the same command again"
    )


def test_through_a_server_too(tmp_path: Path) -> None:
    path = lines(tmp_path / "events.jsonl", 5 * BATCH)
    client = Interrupting()
    summary = ingest_remote(client, path, "b", BATCH, Console(file=io.StringIO()))  # type: ignore[arg-type]
    assert summary.interrupted is not None
    assert summary.interrupted.taken == len(client.taken) == 2 * BATCH


def test_a_second_ctrl_c_stops_at_once_and_says_what_may_be_taken(tmp_path: Path) -> None:
    path = lines(tmp_path / "events.jsonl", 5 * BATCH)
    publisher = Interrupting(presses=2)
    deps = IngestDeps(publisher, FileDeadLetters(tmp_path / "dlq.jsonl", 10), NoopMetrics(), 1000)
    summary = run_ingest(deps, path, "b", BATCH, Console(file=io.StringIO()))
    assert summary.interrupted is not None
    assert (summary.interrupted.taken, summary.interrupted.in_hand) == (BATCH, BATCH)
    assert summary.interrupted.said().startswith(
        f"interrupted: {BATCH} events of {5 * BATCH} taken (and up to {BATCH} more, cut short);"
    )
