"""Operator commands: the dead-letter stream, the redelivery ledger, rebuilds, optimize.

What a command works with (Celery, the store, the worker's modules) is imported when
it runs (sediment/cli.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from sediment import store_owner
from sediment.startup import runtime
from sediment.words import counted

if TYPE_CHECKING:
    from readmodel.store import MemoryStore
    from sediment.bootstrap import Runtime
    from sediment.retain import Publisher
    from worker.consolidation.consolidator import Consolidator
    from worker.deadletters import DeadLetters
    from worker.holders import Heartbeat
    from worker.sweeper import SweepLoop

TIMESTAMP_WIDTH = len("2024-01-10T09:00:00+00:00")
"""A timestamp to the second, as `sediment/render.py` keeps it on one line."""

dlq_app = typer.Typer(no_args_is_help=True, help="The dead-letter stream sediment:dlq.")
console = Console()
err = Console(stderr=True)


@dlq_app.command("list")
def dlq_list(
    limit: Annotated[int, typer.Option(help="oldest letters to show")] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="print the letters as JSON")] = False,
) -> None:
    """Show dead letters with their reasons."""
    rt = runtime()
    with held(rt) as dead_letters:
        letters = dead_letters.list(limit)
        total = dead_letters.length()
    if as_json:
        console.print_json(json.dumps([le.model_dump(mode="json") for le in letters]))
        return
    console.print(letters_table(letters, total))


@contextmanager
def held(rt: Runtime) -> Iterator[DeadLetters]:
    """The dead letters, for the block. Embedded, they are a file of the data directory,
    which its owner (`sediment serve`) writes too: the directory is taken for the block
    as opening the store takes it, so while another process has it the command is
    refused, naming it (sediment/store_owner.py), as the other commands are."""
    data_dir = rt.settings.data_dir
    taken = not rt.topology.shared_redis and data_dir.is_dir()
    if taken:
        store_owner.acquire(data_dir)
    try:
        yield rt.dead_letters
    finally:
        if taken:
            store_owner.release(data_dir)


def letters_table(letters: Sequence[DeadLetter], total: int) -> Table:
    """One row a letter. Its id (what `dlq replay` and `dlq remove` take) and
    `last_seen` (to the second; `--json` has it whole) are never wrapped: the other
    columns give way instead."""
    table = Table(title=f"dead letters ({total} in all)")
    table.add_column("id", no_wrap=True)
    for col in ("task", "error", "message", "payload", "attempts"):
        table.add_column(col, overflow="fold")
    table.add_column("last_seen", no_wrap=True, min_width=TIMESTAMP_WIDTH)
    for le in letters:
        size = f"{le.payload_bytes} B" if le.payload_bytes is not None else ""
        table.add_row(
            le.id,
            le.task,
            le.error_class,
            le.message[:300],
            f"{size} (truncated)" if le.truncated else size,
            str(le.attempts),
            le.last_seen.isoformat(timespec="seconds"),
        )
    return table


def _events_of(
    letter: DeadLetter, max_text_bytes: int, bank: str | None
) -> list[RetainEvent] | FeedbackEvent:
    """The letter's payload as the events it was meant to be, completed the way ingest
    completes a line (bank from --bank, event_id derived), so a fixed line replays
    under the same id it would have had."""
    from sediment.ingest import complete
    from worker.celery_app import FEEDBACK_TASK
    from worker.errors import PoisonEvent

    body = json.loads(letter.payload)
    if letter.task == FEEDBACK_TASK:
        return FeedbackEvent.model_validate(body)
    items = body if isinstance(body, list) and all(isinstance(i, dict) for i in body) else [body]
    events = []
    for item in items:
        if not isinstance(item, dict):
            raise PoisonEvent(f"a retain event must be a JSON object, got {type(item).__name__}")
        events.append(
            RetainEvent.model_validate(
                complete(item, bank), context={"max_text_bytes": max_text_bytes}
            )
        )
    return events


def _replay(letter: DeadLetter, bank: str | None, publisher: Publisher, max_bytes: int) -> None:
    """Through the one retain path: handled here or published, as the process does."""
    found = _events_of(letter, max_bytes, bank)
    if isinstance(found, FeedbackEvent):
        publisher.publish_feedback([found])
    else:
        publisher.publish_retain(found)


@dlq_app.command("replay")
def dlq_replay(
    ids: Annotated[list[str] | None, typer.Argument()] = None,
    bank: Annotated[str | None, typer.Option(help="bank_id for ingest lines that had none")] = None,
) -> None:
    """Retry dead letters (all, or the given ids): retain events, batches' events, feedback
    and ingest lines; those that still fail stay, attempts + 1, with the new reason.
    Letters whose payload was cut to a preview (over SEDIMENT_DLQ_MAX_PAYLOAD_BYTES)
    cannot be replayed: they are named and left as they are (exit status 1)."""
    rt = runtime(creates_store=True)
    with held(rt) as dead_letters:
        report = replay_letters(dead_letters, rt.publisher, rt.settings.max_text_bytes, ids, bank)
    for letter in report.unreplayable:
        err.print(f"[yellow]{letter.id}[/yellow]: {unreplayable_reason(letter)}", highlight=False)
    console.print(f"replayed {report.replayed}, still failing {report.failing}")
    if report.unreplayable:
        console.print(f"cannot be replayed (payload truncated) {len(report.unreplayable)}")
    rt.close()
    if report.unreplayable:
        raise typer.Exit(1)


@dlq_app.command("remove")
def dlq_remove(ids: Annotated[list[str], typer.Argument(help="dead-letter ids")]) -> None:
    """Delete dead letters for good (e.g. truncated ones, once republished from source)."""
    rt = runtime()
    with held(rt) as dead_letters:
        removed = dead_letters.remove(ids)
    console.print(f"removed {removed}")
    rt.close()


def unreplayable_reason(letter: DeadLetter) -> str:
    return (
        f"cannot be replayed: the payload was {letter.payload_bytes} bytes, over "
        f"SEDIMENT_DLQ_MAX_PAYLOAD_BYTES, and only its first {len(letter.payload.encode())} "
        f"bytes were kept (sha256 {letter.payload_sha256}); the full payload is gone. "
        f"Publish the event again from its source, then `sediment dlq remove {letter.id}`."
    )


@dataclass(frozen=True)
class ReplayReport:
    replayed: int
    failing: int
    unreplayable: list[DeadLetter]


def replay_letters(
    dead_letters: DeadLetters,
    publisher: Publisher,
    max_text_bytes: int,
    ids: list[str] | None,
    bank: str | None,
) -> ReplayReport:
    """Replay the chosen letters, except truncated ones, which stay untouched."""
    from worker.errors import PoisonEvent

    chosen = [le for le in dead_letters.list(10**9) if not ids or le.id in ids]
    letters = [le for le in chosen if not le.truncated]
    replayed = 0
    for letter in letters:
        try:
            _replay(letter, bank, publisher, max_text_bytes)
        except (ValueError, PoisonEvent) as exc:
            dead_letters.remove([letter.id])
            dead_letters.add(
                letter.model_copy(
                    update={
                        "attempts": letter.attempts + 1,
                        "last_seen": datetime.now(UTC),
                        "message": str(exc)[:4000],
                        "error_class": type(exc).__name__,
                    }
                )
            )
            continue
        dead_letters.remove([letter.id])
        replayed += 1
    return ReplayReport(replayed, len(letters) - replayed, [le for le in chosen if le.truncated])


def reconcile() -> None:
    """Sweep the redelivery ledger once: publish again events that are neither queued nor
    held by a worker (lost by a worker killed mid-delivery); print what was done."""
    rt = runtime()
    if rt.sweeper is None or rt.ledger is None:
        console.print("embedded mode: no broker, no ledger; nothing to reconcile")
        return
    report = rt.sweeper.sweep()
    if not report.swept:
        console.print("another sweep is running (a worker's); try again in a few seconds")
        raise typer.Exit(1)
    console.print(
        f"ledger: {counted(rt.ledger.size(), 'event')} not yet handled; checked "
        f"{report.candidates} that looked lost, {report.in_flight} in flight, "
        f"{report.held_back} still queued; "
        f"republished {len(report.republished)}, gave up on {len(report.abandoned)}; "
        f"restored {counted(len(report.restored), 'message')} of stopped consumers"
    )
    for name in report.republished:
        console.print(f"  republished {name}")
    for name in report.abandoned:
        console.print(f"  dead-lettered {name} (republished too often)")


def sweep_in_worker(loops: Sequence[SweepLoop], heartbeat: Heartbeat | None = None) -> None:
    """`sediment worker`: beat and sweep from the moment the worker consumes until it
    stops."""
    from celery.signals import worker_ready, worker_shutdown

    if heartbeat is not None:
        worker_ready.connect(lambda **_: heartbeat.start(), weak=False)
        worker_shutdown.connect(lambda **_: heartbeat.stop(), weak=False)
    for loop in loops:
        worker_ready.connect(lambda _loop=loop, **_: _loop.start(), weak=False)
        worker_shutdown.connect(lambda _loop=loop, **_: _loop.stop(), weak=False)


def rebuild(
    consolidator: Consolidator, banks: list[str] | None, err: Console, layout: int | None = None
) -> int:
    """`banks` (None: every bank, then `layout` recorded), recorded in the store as a
    rebuild under way until it has finished (worker/rebuild.py)."""
    from worker.rebuild import rebuild_banks

    with Progress(console=err, transient=True) as progress:

        def on_bank(bank: str) -> Callable[[int, int], None]:
            task = progress.add_task(f"rebuild {bank}", total=None)

            def advance(done: int, n: int) -> None:
                progress.update(task, completed=done, total=n)

            return advance

        return rebuild_banks(banks, consolidator, on_bank, layout)


@dataclass(frozen=True)
class Optimized:
    changed: bool
    seconds: float
    segments_before: str
    segments_after: str


def optimize(store: MemoryStore) -> Optimized | None:
    """Build the embedded store's HNSW graphs now (Edge has no background optimizer);
    None for a Qdrant server, which optimizes itself. The engine holds the interpreter
    lock until done, so this runs apart from serve's requests: on its own, or while
    serve is stopped."""
    from readmodel.stores.edge import EdgeStore

    inner = getattr(store, "inner", store)
    if not isinstance(inner, EdgeStore):
        return None
    before = inner.info().details.get("segments", "?")
    start = time.perf_counter()
    changed = inner.optimize()
    seconds = time.perf_counter() - start
    return Optimized(changed, seconds, before, inner.info().details.get("segments", "?"))
