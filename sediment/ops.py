"""Operator commands: the dead-letter stream and rebuilds."""

import json
from datetime import UTC, datetime
from typing import Annotated

import pydantic
import typer
from rich.console import Console
from rich.progress import Progress, TaskID
from rich.table import Table

from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from sediment.bootstrap import Runtime
from worker.consolidation.service import consolidate
from worker.publish import publish
from worker.rebuild import rebuild_bank

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


def _event_of(letter: DeadLetter, max_text_bytes: int) -> RetainEvent:
    return RetainEvent.model_validate(
        json.loads(letter.payload), context={"max_text_bytes": max_text_bytes}
    )


@dlq_app.command("replay")
def dlq_replay(ids: Annotated[list[str] | None, typer.Argument()] = None) -> None:
    """Retry dead letters (all, or the given ids); those that still fail stay, attempts + 1."""
    rt = _runtime()
    letters = [le for le in rt.dead_letters.list(10**9) if not ids or le.id in ids]
    replayed = 0
    for letter in letters:
        try:
            event = _event_of(letter, rt.settings.max_text_bytes)
            if rt.settings.mode == "embedded":
                consolidate([event], rt.consolidator)
            else:
                publish(rt.celery, [event], rt.settings.queue)
        except (ValueError, pydantic.ValidationError) as exc:
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
