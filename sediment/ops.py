"""Operator commands: the dead-letter stream, the redelivery ledger, rebuilds."""

import json
from datetime import UTC, datetime
from typing import Annotated

import typer
from celery.signals import worker_ready, worker_shutdown
from rich.console import Console
from rich.progress import Progress, TaskID
from rich.table import Table

from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from sediment.bootstrap import Runtime
from sediment.ingest import complete
from worker.celery_app import FEEDBACK_TASK
from worker.consolidation.service import consolidate
from worker.errors import PoisonEvent
from worker.feedback import apply_feedback
from worker.publish import publish, publish_feedback
from worker.rebuild import rebuild_bank
from worker.sweeper import SweepLoop

dlq_app = typer.Typer(no_args_is_help=True, help="The dead-letter stream sediment:dlq.")
console = Console()


def _runtime() -> Runtime:
    from sediment.cli import runtime

    return runtime()


@dlq_app.command("list")
def dlq_list(
    limit: int = 100,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Show dead letters with their reasons."""
    rt = _runtime()
    letters = rt.dead_letters.list(limit)
    if as_json:
        console.print_json(json.dumps([le.model_dump(mode="json") for le in letters]))
        return
    table = Table(title=f"dead letters ({rt.dead_letters.length()} in all)")
    for col in ("id", "task", "error", "message", "attempts", "last_seen"):
        table.add_column(col, overflow="fold")
    for le in letters:
        table.add_row(
            le.id,
            le.task,
            le.error_class,
            le.message[:300],
            str(le.attempts),
            le.last_seen.isoformat(),
        )
    console.print(table)


def _events_of(
    letter: DeadLetter, max_text_bytes: int, bank: str | None
) -> list[RetainEvent] | FeedbackEvent:
    """The letter's payload as the events it was meant to be, completed the way ingest
    completes a line (bank from --bank, event_id derived), so a fixed line replays
    under the same id it would have had."""
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


def _replay(rt: Runtime, letter: DeadLetter, bank: str | None) -> None:
    """Embedded: handle here, as ingest does. Otherwise publish for the workers."""
    found = _events_of(letter, rt.settings.max_text_bytes, bank)
    embedded = rt.settings.mode == "embedded"
    if isinstance(found, FeedbackEvent):
        if embedded and rt.worker_deps.feedback is not None:
            apply_feedback(found, rt.worker_deps.feedback)
        else:
            publish_feedback(rt.celery, [found], rt.settings.queue, rt.ledger)
    elif embedded:
        consolidate(found, rt.consolidator)
    else:
        publish(rt.celery, found, rt.settings.queue, ledger=rt.ledger)


@dlq_app.command("replay")
def dlq_replay(
    ids: Annotated[list[str] | None, typer.Argument()] = None,
    bank: Annotated[str | None, typer.Option(help="bank_id for ingest lines that had none")] = None,
) -> None:
    """Retry dead letters (all, or the given ids): retain events, batches' events, feedback
    and ingest lines; those that still fail stay, attempts + 1, with the new reason."""
    rt = _runtime()
    letters = [le for le in rt.dead_letters.list(10**9) if not ids or le.id in ids]
    replayed = 0
    for letter in letters:
        try:
            _replay(rt, letter, bank)
        except (ValueError, PoisonEvent) as exc:
            rt.dead_letters.remove([letter.id])
            rt.dead_letters.add(
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
        rt.dead_letters.remove([letter.id])
        replayed += 1
    console.print(f"replayed {replayed}, still failing {len(letters) - replayed}")
    rt.close()


def reconcile() -> None:
    """Sweep the redelivery ledger once: publish again events that are neither queued nor
    held by a worker (lost by a worker killed mid-delivery); print what was done."""
    rt = _runtime()
    if rt.sweeper is None or rt.ledger is None:
        console.print("embedded mode: no broker, no ledger; nothing to reconcile")
        return
    report = rt.sweeper.sweep()
    if not report.swept:
        console.print("another sweep is running (a worker's); try again in a few seconds")
        raise typer.Exit(1)
    console.print(
        f"ledger: {rt.ledger.size()} events not yet handled; checked {report.candidates} "
        f"that looked lost, {report.in_flight} in flight, {report.held_back} still queued; "
        f"republished {len(report.republished)}, gave up on {len(report.abandoned)}"
    )
    for name in report.republished:
        console.print(f"  republished {name}")
    for name in report.abandoned:
        console.print(f"  dead-lettered {name} (republished too often)")


def sweep_loop(rt: Runtime) -> SweepLoop | None:
    """The periodic sweep a consuming process runs (every SEDIMENT_LEDGER_SWEEP_S)."""
    interval = rt.settings.ledger_sweep_s
    return SweepLoop(rt.sweeper, interval) if rt.sweeper is not None and interval > 0 else None


def sweep_in_worker(rt: Runtime) -> None:
    """`sediment worker`: sweep from the moment the worker consumes until it stops."""
    loop = sweep_loop(rt)
    if loop is not None:
        worker_ready.connect(lambda **_: loop.start(), weak=False)
        worker_shutdown.connect(lambda **_: loop.stop(), weak=False)


def rebuild(rt: Runtime, banks: list[str] | None, err: Console) -> int:
    targets = banks if banks is not None else rt.store.banks()
    total = 0
    with Progress(console=err, transient=True) as progress:
        for bank in targets:
            task = progress.add_task(f"rebuild {bank}", total=None)

            def advance(done: int, n: int, t: TaskID = task) -> None:
                progress.update(t, completed=done, total=n)

            total += rebuild_bank(bank, rt.consolidator, advance)
    return total
