"""`sediment ingest`: JSON-lines retain events as users write them."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pydantic
from rich.console import Console
from rich.progress import Progress

from contracts.events import RetainEvent, derive_event_id
from readmodel.metrics import count_events
from sediment.bootstrap import Runtime
from worker.consolidation.service import Status, consolidate
from worker.errors import PoisonEvent
from worker.publish import publish
from worker.tasks import bank_of, letter

INGEST_TASK = "ingest"
_INSTANT = pydantic.TypeAdapter(datetime)


@dataclass(frozen=True)
class BadLine:
    line_no: int
    raw: str
    error: str


@dataclass(frozen=True)
class IngestSummary:
    """`done`: consolidated (embedded) or published; `duplicates`: lines whose event was
    already in the file or, embedded, already stored; neither is retained twice."""

    done: int
    duplicates: int
    dead_lettered: int
    published: bool

    def line(self) -> str:
        verb = "published" if self.published else "consolidated"
        return (
            f"{verb} {self.done} events, dead-lettered {self.dead_lettered}, "
            f"skipped {self.duplicates} duplicates"
        )


def instant(value: object) -> str:
    """The moment as the HTTP API spells it (UTC, `+00:00`), so every spelling of one
    instant ("Z", "+00:00", "+02:00") derives one event id. A value that is not an aware
    timestamp is kept as written: validation rejects the line anyway."""
    try:
        when = _INSTANT.validate_python(value)
    except pydantic.ValidationError:
        return str(value if value is not None else "")
    if when.tzinfo is None or when.utcoffset() is None:
        return str(value)
    return when.astimezone(UTC).isoformat()


def complete(item: dict[str, object], default_bank: str | None) -> dict[str, object]:
    """Fill what a line may omit: `bank_id` (from --bank) and `event_id` (derived)."""
    out = dict(item)
    if "bank_id" not in out and default_bank is not None:
        out["bank_id"] = default_bank
    if "event_id" not in out:
        bank, text = str(out.get("bank_id", "")), str(out.get("text", ""))
        out["event_id"] = str(derive_event_id(bank, text, instant(out.get("occurred_at"))))
    return out


def read_events(
    path: Path, default_bank: str | None, max_text_bytes: int
) -> Iterator[RetainEvent | BadLine]:
    with path.open(encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
                if not isinstance(item, dict):
                    raise ValueError("each line must be a JSON object")
                yield RetainEvent.model_validate(
                    complete(item, default_bank), context={"max_text_bytes": max_text_bytes}
                )
            except (ValueError, pydantic.ValidationError) as exc:
                yield BadLine(line_no, raw.rstrip("\n"), str(exc))


def run_ingest(
    rt: Runtime, path: Path, bank: str | None, batch: int, err: Console
) -> IngestSummary:
    """Embedded: consolidate here. Otherwise publish (through the redelivery ledger) and
    leave the work to the workers. Bad lines go to the dead-letter stream either way."""
    items = list(read_events(path, bank, rt.settings.max_text_bytes))
    bad = [i for i in items if isinstance(i, BadLine)]
    for b in bad:
        reason = PoisonEvent(f"line {b.line_no}: {b.error}")
        count_events(rt.metrics, "dead_lettered", [bank_of(b.raw)])
        rt.dead_letters.add(letter(INGEST_TASK, b.raw, reason, 1))
        err.print(f"[yellow]line {b.line_no} dead-lettered[/yellow]: {b.error.splitlines()[0]}")
    unique = list({e.event_id: e for e in items if isinstance(e, RetainEvent)}.values())
    repeated = sum(1 for i in items if isinstance(i, RetainEvent)) - len(unique)
    embedded = rt.settings.mode == "embedded"
    done = 0
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("ingest", total=len(unique))
        for start in range(0, len(unique), batch):
            chunk = unique[start : start + batch]
            if embedded:
                outcomes = consolidate(chunk, rt.consolidator)
                done += sum(1 for o in outcomes if o.status is Status.STORED)
            else:
                done += publish(rt.celery, chunk, rt.settings.queue, batch, rt.ledger)
            progress.advance(task, len(chunk))
    duplicates = repeated + (len(unique) - done if embedded else 0)
    return IngestSummary(done, duplicates, len(bad), published=not embedded)
