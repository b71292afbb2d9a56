"""`sediment ingest --url`: a JSON-lines file through a running server's HTTP API.

The lines are read and checked here as the embedded ingest checks them (the same
reasons, by line number); the valid ones go in batches of one bank each to
`POST /v1/banks/{bank}/memories` with their event ids, so a re-run is safe (the
server stores an event once). An event whose memory the bank holds already is a
duplicate, skipped and not sent; what the server queues is read back once its worker
has handled it, so the summary counts what was stored and what was skipped as the
embedded ingest does (sediment/remote.py). A rejected line is named and not sent: the
dead letters are the server's, and it never saw the line, so the summary says
"rejected" where the embedded one says "dead-lettered".
"""

import uuid
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from contracts.events import RetainEvent, RetainItem
from sediment import remote
from sediment.client import SedimentClient
from sediment.ingest import (
    BadLine,
    GoodLine,
    IngestSummary,
    Interrupted,
    between_batches,
    first_lines,
    read_events,
)

MAX_TEXT_BYTES = 1 << 30
"""The server applies its own limit (SEDIMENT_MAX_TEXT_BYTES) and names a line over it."""


def as_item(event: RetainEvent) -> RetainItem:
    return RetainItem.model_validate(event.model_dump(exclude={"bank_id"}, exclude_none=True))


def batches(events: Sequence[RetainEvent], size: int) -> list[tuple[str, list[RetainEvent]]]:
    """Runs of at most `size` events of one bank, in file order."""
    out: list[tuple[str, list[RetainEvent]]] = []
    for event in events:
        if out and out[-1][0] == event.bank_id and len(out[-1][1]) < size:
            out[-1][1].append(event)
        else:
            out.append((event.bank_id, [event]))
    return out


def ingest_remote(
    client: SedimentClient, path: Path, bank: str | None, batch: int, err: Console
) -> IngestSummary:
    items = list(read_events(path, bank, MAX_TEXT_BYTES))
    good = [i for i in items if isinstance(i, GoodLine)]
    unique, repeated, clashing = first_lines(good)
    bad = sorted(
        [*(i for i in items if isinstance(i, BadLine)), *clashing], key=lambda b: b.line_no
    )
    for b in bad:
        err.print(
            f"[yellow]line {b.line_no} rejected[/yellow] (not sent): {escape(b.said())}",
            highlight=False,
            soft_wrap=True,
        )
    taken = held = stored = sent = 0
    queued: list[tuple[str, list[uuid.UUID]]] = []
    stopped = None
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("ingest", total=len(unique))
        chunk: list[RetainEvent] = []
        try:
            with between_batches() as asked:
                for bank_id, chunk in batches(unique, batch):
                    if asked():
                        stopped = Interrupted(taken, len(unique))
                        break
                    new = [e for e in chunk if not remote.holds(client, bank_id, e.event_id)]
                    if new:
                        accepted = client.retain_many([as_item(e) for e in new], bank=bank_id)
                        if accepted.outcomes is None:
                            queued.append((bank_id, accepted.event_ids))
                        else:
                            stored += sum(o.stored for o in accepted.outcomes)
                    held += len(chunk) - len(new)
                    sent += len(new)
                    taken += len(chunk)
                    progress.advance(task, len(chunk))
        except KeyboardInterrupt:
            stopped = Interrupted(taken, len(unique), len(chunk))
        handled = None if stopped else _handled(client, queued, progress)
    if handled is None:
        return IngestSummary(
            sent, repeated + held, len(bad), published=True, interrupted=stopped, lettered=False
        )
    done = stored + handled
    return IngestSummary(
        done, repeated + held + sent - done, len(bad), published=False, lettered=False
    )


def _handled(
    client: SedimentClient, queued: list[tuple[str, list[uuid.UUID]]], progress: Progress
) -> int | None:
    """How many of the queued events the server's worker stored (`remote.stored`);
    None when it is not done in time, or Ctrl-C stops the wait."""
    if not queued:
        return 0
    task = progress.add_task("consolidated by the server", total=sum(len(i) for _, i in queued))
    try:
        return remote.stored(client, queued, lambda: progress.advance(task))
    except KeyboardInterrupt:
        return None
