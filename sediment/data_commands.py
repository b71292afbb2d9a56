"""`sediment forget|export|import|audit|expire` and `sediment keys`: thin wrappers over
the one retain path, so embedded commands act here and the other modes publish to
workers; every change is recorded in the bank's audit stream as the `cli`'s. What a
command writes with is imported when it runs (sediment/cli.py)."""

import json
import secrets
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sediment import remote
from sediment.api.keys import ApiKey, digest
from sediment.short_ids import parse_full
from sediment.startup import runtime
from sediment.words import counted

if TYPE_CHECKING:
    from sediment.bootstrap import Runtime

console = Console()
err = Console(stderr=True)


def forget(
    bank: Annotated[str, typer.Option(help="bank to forget in")],
    memory_id: Annotated[
        list[str] | None,
        typer.Option("--id", help="a memory id, or the short id recall prints (repeatable)"),
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="memories with any of these tags")] = None,
    entity: Annotated[list[str] | None, typer.Option(help="memories naming any of these")] = None,
    start: Annotated[datetime | None, typer.Option(help="occurred at or after (ISO 8601)")] = None,
    end: Annotated[datetime | None, typer.Option(help="occurred at or before (ISO 8601)")] = None,
    source_id: Annotated[str | None, typer.Option(help="metadata.source_id equals")] = None,
    everything: Annotated[bool, typer.Option("--all", help="the whole bank")] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Forget memories for good: by id, by a filter, or the whole bank. Tombstones keep
    a replayed or redelivered retain of them from coming back."""
    from sediment.forgetting import forget_event, require_held
    from sediment.retain import PublishError

    if url:
        with remote.answered(remote.connect(url, token)) as client:
            ids = [parse_full(m) or client.memory(m, bank=bank).memory.id for m in memory_id or []]
            done = client.forget(
                bank=bank,
                memory_ids=ids,
                tags=tag or [],
                entities=entity or [],
                start=_aware(start),
                end=_aware(end),
                source_id=source_id,
                all_memories=everything,
            )
            count: int | None = done.forgotten or 0
            if done.queued:  # by filter: no count to read back (sediment/remote.py)
                count = remote.forgotten(client, bank, ids) if ids else None
        show_forget(bank, done.event_id, count)
        return
    rt = runtime()
    try:
        ids = _memory_ids(rt, bank, memory_id or [])
        if not rt.publisher.queued:
            require_held(rt.store, bank, ids)
        event = forget_event(
            bank,
            memory_ids=ids,
            tags=tag or [],
            entities=entity or [],
            start=_aware(start),
            end=_aware(end),
            source_id=source_id,
            everything=everything,
        )
    except ValueError as exc:
        rt.close()
        err.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from None
    try:
        count = rt.publisher.publish_forget([event])
    except PublishError as exc:
        err.print(f"[red]the broker did not take the forget ({exc}); retry[/red]")
        raise typer.Exit(1) from exc
    finally:
        rt.close()
    show_forget(bank, event.event_id, None if rt.publisher.queued else count)


def show_forget(bank: str, event_id: uuid.UUID, forgotten: int | None) -> None:
    """`forgotten`: how many went here; None when the forget is queued for a worker."""
    if forgotten is None:
        console.print(f"forget {event_id} queued for bank {bank}")
    else:
        console.print(
            f"forgot {counted(forgotten, 'memory', 'memories')} in bank {bank} (event {event_id})"
        )


def _memory_ids(rt: "Runtime", bank: str, given: list[str]) -> list[uuid.UUID]:
    """Full ids as given; a short id (a prefix) resolved in the bank's store, which a
    local store's owner must allow (sediment/store_owner.py)."""
    from sediment.memory_ids import resolve

    return [parse_full(text) or resolve(rt.store, bank, text) for text in given]


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
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Write the bank's raw events and tombstones as JSON lines, ending with a trailer
    that counts and checksums them (what `sediment import` reads and checks)."""
    from sediment.transfer import export_lines

    if url:
        with remote.answered(remote.connect(url, token)) as client:
            text = client.export(bank=bank)
        if out is None:
            sys.stdout.write(text)
        else:
            out.write_text(text, encoding="utf-8")
        return
    rt = runtime()
    counts: dict[str, int] = {}
    try:
        lines = export_lines(rt.store, rt.tombstones, bank, datetime.now(UTC), counts)
        if out is None:
            for line in lines:
                print(line)
        else:
            with out.open("w", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines)
        rt.publisher.auditor.record(bank, "export", counts=counts)
    finally:
        rt.close()


def import_(
    path: Path,
    bank: Annotated[str | None, typer.Option(help="import into this bank instead")] = None,
    no_trailer_check: Annotated[
        bool,
        typer.Option(
            "--no-trailer-check",
            help="import a file without a trailer (version 1) or whose trailer disagrees",
        ),
    ] = False,
) -> None:
    """Replay an export through the one retain path (tombstones as forgets, first). The
    file is checked whole first: one without its trailer (cut short), or whose records
    do not match the trailer's counts and checksum, is refused and nothing is written."""
    from sediment.retain import PublishError
    from sediment.transfer import import_lines

    if not path.is_file():
        err.print(f"no file at {path.absolute()}: give the path of a `sediment export` file")
        raise typer.Exit(2)
    rt = runtime(creates_store=True)
    try:
        with path.open(encoding="utf-8") as f:
            send = rt.publisher.recording("import")
            done = import_lines(send, f, bank, check_trailer=not no_trailer_check)
    except (ValueError, PublishError) as exc:
        err.print(f"[red]{path}: {exc}[/red]")
        raise typer.Exit(1) from exc
    finally:
        rt.close()
    console.print(
        f"imported {counted(done.events, 'event')} into bank {done.bank} "
        f"({done.stored} new), {counted(done.tombstones, 'tombstone')}"
    )


def audit(
    bank: Annotated[str, typer.Option(help="bank whose audit stream to read")],
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="newest entries to show")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="print the entries as JSON")] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Who changed the bank's data: retains, forgets, imports, expiries, votes, exports
    (newest first; ids and counts, never memory text)."""
    if url:
        with remote.answered(remote.connect(url, token)) as client:
            entries = client.audit(bank=bank, limit=limit)
    else:
        rt = runtime()
        try:
            entries = rt.audit_log.read(bank, limit)
        finally:
            rt.close()
    if as_json:
        print(json.dumps([e.model_dump(mode="json") for e in entries], indent=2))
        return
    table = Table(title=f"audit of bank {bank} (newest first)")
    table.add_column("at", no_wrap=True)
    for col in ("actor", "action", "counts", "ids", "request"):
        table.add_column(col, overflow="fold")
    for e in entries:
        ids = [*e.event_ids, *e.memory_ids]
        table.add_row(
            e.at.isoformat(timespec="seconds"),
            e.actor,
            e.action,
            " ".join(f"{k}={v}" for k, v in sorted(e.counts.items())),
            ", ".join(str(i) for i in ids[:3]) + (f" (+{len(ids) - 3})" if len(ids) > 3 else ""),
            e.request_id or "",
        )
    console.print(table)


def expire(
    bank: Annotated[str | None, typer.Option(help="one bank (default: every bank)")] = None,
) -> None:
    """Forget the memories that have expired, now (workers and `sediment serve` do it
    every SEDIMENT_EXPIRY_SWEEP_S; recall hides them from the moment they expire)."""
    from sediment.auditing import acting_as
    from sediment.retain import PublishError

    rt = runtime()
    try:
        with acting_as("cli"):
            report = rt.expiry_sweep.sweep([bank] if bank else None)
    except PublishError as exc:
        err.print(f"[red]the broker did not take the forgets ({exc}); retry[/red]")
        raise typer.Exit(1) from exc
    finally:
        rt.close()
    if not report.swept:
        err.print("another expiry sweep is running (a worker's); try again in a minute")
        raise typer.Exit(1)
    verb = "queued for forgetting" if rt.publisher.queued else "forgot"
    total = sum(report.expired.values())
    memories = counted(total, "expired memory", "expired memories")
    console.print(f"{verb} {memories} in {counted(len(report.expired), 'bank')}")
    for name, n in sorted(report.expired.items()):
        console.print(f"  {name}: {n}")
