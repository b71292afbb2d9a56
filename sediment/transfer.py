"""Export and import of a bank: JSON lines, replayed through the one retain path.

    {"format": "sediment-export", "version": 2, "bank": "team-a", "exported_at": "..."}
    {"type": "retain", "event": {<RetainEvent>}}          one per raw memory, event-time order
    {"type": "tombstone", "tombstone": {<Tombstone>}}     one per forgotten memory
    {"type": "trailer", "counts": {"retain": n, "tombstone": m}, "sha256": "<hex>"}

The raw events are the bank's source of truth: observations, states and edges are
derived, so an import re-derives them (by convergence, the same read model: same ids,
states, edges, observations). A memory's id derives from its bank and event id, so an
import into another bank (`--bank`) is a copy: the source bank keeps its memories.
Tombstones are imported as forgets, first, so an import never brings back what was
forgotten. Importing twice changes nothing: the events are
duplicates by id. Votes and last-access times are not exported; `expires_at` is, so an
imported memory expires when the original would have (at once, if that has passed).

The trailer is the last line: the count of each kind of record and the SHA-256 of
every line before it (each as UTF-8 with one newline; blank lines are not records).
An export that failed part way has none, so an import tells a whole file from a cut
one: it refuses a file without a trailer, or whose counts or checksum disagree with
the records, before it publishes anything. Files of version 1 (before trailers) are
imported only with the check off (`sediment import --no-trailer-check`).
"""

import hashlib
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

import pydantic

from contracts.events import RetainEvent
from contracts.forget import Tombstone
from contracts.memory import Memory
from readmodel.store import Filter, MemoryStore
from sediment.forgetting import forget_event
from sediment.retain import Publisher
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.consolidation.relations import time_key
from worker.tombstones import Tombstones

FORMAT: Final = "sediment-export"
VERSION: Final = 2
READABLE: Final = (1, 2)
RECORD_KINDS: Final = ("retain", "tombstone")
IMPORT_BATCH: Final = 256
FORGET_BATCH: Final = 1000


def retain_event(memory: Memory) -> RetainEvent:
    """The retain event a raw memory was stored from (its derived fields dropped)."""
    assert memory.event_id is not None
    return RetainEvent(
        event_id=memory.event_id,
        bank_id=memory.bank_id,
        kind="experience" if memory.kind == "experience" else "world",
        text=memory.text,
        context=memory.context,
        occurred_at=memory.occurred_at,
        mentioned_at=memory.mentioned_at,
        entities=memory.entities,
        tags=memory.tags,
        key=memory.key,
        supersedes=memory.declared_supersedes,
        importance=memory.importance,
        metadata=memory.metadata,
        expires_at=memory.expires_at,
    )


def export_lines(
    store: MemoryStore,
    tombstones: Tombstones,
    bank_id: str,
    now: datetime,
    counts: dict[str, int] | None = None,
) -> Iterator[str]:
    """The export, line by line; memories expired by `now` are left out (they are as
    good as forgotten; the sweep tombstones them). The memories and tombstones are read
    before this returns, so an unreachable store or Redis fails the call, not a stream
    already under way. `counts`, when given, is filled with the number of `events` and
    `tombstones` written."""
    raw = [p.record for p in store.scroll(Filter(bank_id, kinds=RAW_KINDS, live_at=now))]
    stones = tombstones.of_bank(bank_id)
    header = {"format": FORMAT, "version": VERSION, "bank": bank_id, "exported_at": now.isoformat()}
    tally = counts if counts is not None else {}
    tally.update(events=0, tombstones=0)
    return _lines(header, sorted(raw, key=time_key), stones, tally)


def _lines(
    header: dict[str, object],
    raw: Sequence[Memory],
    stones: Sequence[Tombstone],
    tally: dict[str, int],
) -> Iterator[str]:
    checksum = Checksum()
    yield checksum.line(header)
    for memory in raw:
        if memory.event_id is not None:
            event = retain_event(memory).model_dump(mode="json", exclude_defaults=True)
            tally["events"] += 1
            yield checksum.line({"type": "retain", "event": event})
    for stone in stones:
        tally["tombstones"] += 1
        yield checksum.line({"type": "tombstone", "tombstone": stone.model_dump(mode="json")})
    yield json.dumps(checksum.trailer(), sort_keys=True)


@dataclass
class Checksum:
    """The records so far: their count by kind and the SHA-256 of their lines."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RECORD_KINDS, 0))
    digest: Any = field(default_factory=hashlib.sha256)

    def add(self, line: str, kind: str | None) -> None:
        self.digest.update(line.encode("utf-8") + b"\n")
        if kind is not None:
            self.counts[kind] += 1

    def line(self, row: dict[str, object]) -> str:
        text = json.dumps(row, sort_keys=True)
        kind = row.get("type")
        self.add(text, kind if isinstance(kind, str) else None)
        return text

    def trailer(self) -> dict[str, object]:
        return {"type": "trailer", "counts": self.counts, "sha256": self.digest.hexdigest()}


@dataclass(frozen=True)
class Imported:
    bank: str
    events: int
    stored: int
    tombstones: int


NO_TRAILER: Final = (
    "the file has no trailer (its last line counts and checksums the records): it was cut "
    "short, as an export that failed part way is, or written before version 2; export the "
    "bank again, or import it unchecked with --no-trailer-check"
)


@dataclass(frozen=True)
class Parsed:
    bank: str
    exported_at: datetime
    events: list[RetainEvent]
    stones: list[Tombstone]


def _numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Each line that is not blank, with its number in the file and without its end."""
    for n, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if text.strip():
            yield n, text


def _row(n: int, text: str) -> dict[str, Any]:
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {n}: not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise ValueError(f"line {n}: not a JSON object")
    return row


def _header(
    numbered: Iterator[tuple[int, str]], checksum: Checksum, bank: str | None
) -> tuple[str, datetime]:
    """The bank to import into (`bank`, else the exported one) and when it was exported."""
    first = next(numbered, None)
    if first is None:
        raise ValueError(f"the file is empty, not a {FORMAT} file")
    n, text = first
    header = _row(n, text)
    if header.get("format") != FORMAT or header.get("version") not in READABLE:
        shown = json.dumps(header, sort_keys=True)[:200]
        raise ValueError(f"line {n}: not a {FORMAT} file of version 1 or 2: {shown}")
    try:
        exported_at = datetime.fromisoformat(str(header["exported_at"]))
        target = bank or str(header["bank"])
    except (KeyError, ValueError) as exc:
        problem = f"line {n}: the header lacks a valid bank or exported_at ({exc})"
        raise ValueError(problem) from None
    checksum.add(text, None)
    return target, exported_at


def _record(n: int, kind: str, row: dict[str, Any], bank: str) -> RetainEvent | Tombstone:
    try:
        if kind == "retain":
            return RetainEvent.model_validate({**row["event"], "bank_id": bank})
        return Tombstone.model_validate({**row["tombstone"], "bank_id": bank})
    except (KeyError, TypeError, pydantic.ValidationError) as exc:
        raise ValueError(f"line {n}: not a valid {kind} record: {exc}") from None


def _parse(lines: Iterable[str], bank: str | None, check_trailer: bool) -> Parsed:
    """The whole file, checked, before anything is published: a ValueError naming the
    line and what is wrong with it, or with the trailer."""
    numbered, checksum = _numbered(lines), Checksum()
    target, exported_at = _header(numbered, checksum, bank)
    events: list[RetainEvent] = []
    stones: list[Tombstone] = []
    first_line: dict[uuid.UUID, int] = {}
    trailer: tuple[int, dict[str, Any]] | None = None
    for n, text in numbered:
        row = _row(n, text)
        if trailer is not None:
            raise ValueError(f"line {n}: a record after the trailer (line {trailer[0]})")
        kind = row.get("type")
        if kind == "trailer":
            trailer = (n, row)
            continue
        if kind not in RECORD_KINDS:
            raise ValueError(f"line {n}: unknown record type {kind!r}")
        checksum.add(text, kind)
        record = _record(n, kind, row, target)
        if isinstance(record, Tombstone):
            stones.append(record)
            continue
        seen = first_line.setdefault(record.event_id, n)
        if seen != n:
            raise ValueError(f"line {n}: event_id {record.event_id} is line {seen}'s too")
        events.append(record)
    if check_trailer:
        _verify(trailer, checksum)
    return Parsed(target, exported_at, events, stones)


def _verify(trailer: tuple[int, dict[str, Any]] | None, checksum: Checksum) -> None:
    if trailer is None:
        raise ValueError(NO_TRAILER)
    n, row = trailer
    held = ", ".join(f"{k}={v}" for k, v in checksum.counts.items())
    counts = row.get("counts")
    if counts != checksum.counts:
        raise ValueError(
            f"line {n}: the trailer counts {json.dumps(counts, sort_keys=True)} but the file "
            f"holds {held}: records are missing or were added; export the bank again"
        )
    actual = checksum.digest.hexdigest()
    if row.get("sha256") != actual:
        raise ValueError(
            f"line {n}: the trailer's sha256 {row.get('sha256')!r} is not the records' "
            f"({actual}): the file was changed after the export; export the bank again"
        )


def import_lines(
    publisher: Publisher,
    lines: Iterable[str],
    bank: str | None = None,
    *,
    check_trailer: bool = True,
) -> Imported:
    """The whole file is read and checked first (its trailer too, unless
    `check_trailer` is false): a ValueError publishes nothing. Then tombstones (as
    forgets of their event ids, or memory ids for those without one), then the events in
    batches."""
    parsed = _parse(lines, bank, check_trailer)
    target, events, at = parsed.bank, parsed.events, parsed.exported_at
    by_event = [s.event_id for s in parsed.stones if s.event_id is not None]
    by_memory = [s.memory_id for s in parsed.stones if s.event_id is None]
    for start in range(0, len(by_event), FORGET_BATCH):
        chunk = by_event[start : start + FORGET_BATCH]
        publisher.publish_forget([forget_event(target, event_ids=chunk, now=at)])
    for start in range(0, len(by_memory), FORGET_BATCH):
        chunk = by_memory[start : start + FORGET_BATCH]
        publisher.publish_forget([forget_event(target, memory_ids=chunk, now=at)])
    stored = 0
    for start in range(0, len(events), IMPORT_BATCH):
        stored += publisher.publish_retain(events[start : start + IMPORT_BATCH])
    return Imported(target, len(events), stored, len(parsed.stones))
