"""`sediment forget` (and the other own-your-data commands): thin wrappers over the one
retain path, so embedded commands act here and the other modes publish to workers."""

import json
import secrets
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sediment.api.keys import ApiKey, digest
from sediment.forgetting import forget_event
from sediment.retain import PublishError
from sediment.startup import runtime
from sediment.transfer import export_lines, import_lines

console = Console()
err = Console(stderr=True)


def forget(
    bank: Annotated[str, typer.Option(help="bank to forget in")],
    memory_id: Annotated[
        list[uuid.UUID] | None, typer.Option("--id", help="a memory id (repeatable)")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="memories with any of these tags")] = None,
    entity: Annotated[list[str] | None, typer.Option(help="memories naming any of these")] = None,
    start: Annotated[datetime | None, typer.Option(help="occurred at or after (ISO 8601)")] = None,
    end: Annotated[datetime | None, typer.Option(help="occurred at or before (ISO 8601)")] = None,
    source_id: Annotated[str | None, typer.Option(help="metadata.source_id equals")] = None,
    everything: Annotated[bool, typer.Option("--all", help="the whole bank")] = False,
) -> None:
    """Forget memories for good: by id, by a filter, or the whole bank. Tombstones keep
    a replayed or redelivered retain of them from coming back."""
    try:
        event = forget_event(
            bank,
            memory_ids=memory_id or [],
            tags=tag or [],
            entities=entity or [],
            start=_aware(start),
            end=_aware(end),
            source_id=source_id,
            everything=everything,
        )
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    rt = runtime()
    try:
        count = rt.publisher.publish_forget([event])
    except PublishError as exc:
        err.print(f"[red]the broker did not take the forget ({exc}); retry[/red]")
        raise typer.Exit(1) from exc
    finally:
        rt.close()
    if rt.publisher.queued:
        console.print(f"forget {event.event_id} queued for bank {bank}")
    else:
        console.print(f"forgot {count} memories in bank {bank} (event {event.event_id})")


def _aware(value: datetime | None) -> datetime | None:
    """typer parses ISO 8601 without an offset as naive; those are taken as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


keys_app = typer.Typer(no_args_is_help=True, help="Scoped API keys (SEDIMENT_API_KEYS_FILE).")


@keys_app.command("new")
def new_key(
    name: Annotated[str, typer.Option(help="who or what uses the key")],
    banks: Annotated[list[str], typer.Option(help="fnmatch pattern of banks (repeatable)")],
    scopes: Annotated[list[str], typer.Option(help="read, write, forget or admin (repeatable)")],
) -> None:
    """Print a new secret and the entry to add to the keys file; only the secret's
    SHA-256 is stored, so the secret is shown once."""
    secret = secrets.token_urlsafe(32)
    try:
        key = ApiKey(name=name, sha256=digest(secret), banks=tuple(banks), scopes=tuple(scopes))
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    console.print(f"secret (shown once): {secret}", soft_wrap=True)
    console.print("entry for SEDIMENT_API_KEYS_FILE:", soft_wrap=True)
    print(json.dumps(key.model_dump(mode="json"), sort_keys=True))


def export(
    bank: Annotated[str, typer.Option(help="bank to export")],
    out: Annotated[Path | None, typer.Option(help="file to write (default: stdout)")] = None,
) -> None:
    """Write the bank's raw events and tombstones as JSON lines (sediment/transfer.py)."""
    rt = runtime()
    try:
        lines = export_lines(rt.store, rt.tombstones, bank, datetime.now(UTC))
        if out is None:
            for line in lines:
                print(line)
        else:
            with out.open("w", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines)
    finally:
        rt.close()


def import_(
    path: Path,
    bank: Annotated[str | None, typer.Option(help="import into this bank instead")] = None,
) -> None:
    """Replay an export through the one retain path (tombstones as forgets, first)."""
    rt = runtime()
    try:
        with path.open(encoding="utf-8") as f:
            done = import_lines(rt.publisher, f, bank)
    except (ValueError, PublishError) as exc:
        err.print(f"[red]{path}: {exc}[/red]")
        raise typer.Exit(1) from exc
    finally:
        rt.close()
    console.print(
        f"imported {done.events} events into bank {done.bank} ({done.stored} new), "
        f"{done.tombstones} tombstones"
    )
