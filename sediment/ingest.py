"""`sediment ingest`: JSON-lines retain events as users write them."""

import gc
import hashlib
import json
import signal
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pydantic
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from contracts.events import RetainEvent, derive_event_id, with_expiry
from sediment.api.problems import problems
from sediment.retain import Publisher
from sediment.words import counted
from telemetry.metrics import Metrics, count_events
from worker.deadletters import DeadLetters
from worker.errors import PoisonEvent
from worker.tasks import bank_of, letter

INGEST_TASK = "ingest"
_INSTANT = pydantic.TypeAdapter(datetime)


@dataclass(frozen=True)
class BadLine:
    """`error`: the full text, kept in the dead letter; `reason`: what is wrong, one
    line per field, as the user is told it."""

    line_no: int
    raw: str
    error: str
    reason: str = ""

    def said(self) -> str:
        return self.reason or self.error


@dataclass(frozen=True)
class GoodLine:
    line_no: int
    raw: str
    event: RetainEvent


@dataclass(frozen=True)
class IngestSummary:
    """`done`: consolidated (embedded) or published; `duplicates`: lines that repeat an
    earlier line of the file word for word (as events) or, embedded, events already
    stored; neither is retained twice. A line whose event id an earlier line of the same
    bank has, with other content, is dead-lettered: the first line of an id in a bank
    is the one kept."""

    done: int
    duplicates: int
    dead_lettered: int
    published: bool
    interrupted: "Interrupted | None" = None
    lettered: bool = True
    """The rejected lines went to the dead letters (not so through a server's API:
    they are "rejected" then, and with none rejected the line reads as embedded)."""

    def line(self) -> str:
        verb = "published" if self.published else "consolidated"
        bad = "dead-lettered" if self.lettered or not self.dead_lettered else "rejected"
        return (
            f"{verb} {counted(self.done, 'event')}, {bad} {self.dead_lettered}, "
            f"skipped {counted(self.duplicates, 'duplicate')}"
        )


@dataclass(frozen=True)
class Interrupted:
    """Ctrl-C during an ingest: `taken` of `total` events were handed on (whole
    batches: the batch in hand when Ctrl-C came is finished first, `between_batches`).
    `in_hand`: the events of a batch a second Ctrl-C cut short, which may be partly
    taken too."""

    taken: int
    total: int
    in_hand: int = 0

    def said(self) -> str:
        more = f" (and up to {self.in_hand} more, cut short)" if self.in_hand else ""
        return (
            f"interrupted: {counted(self.taken, 'event')} of {self.total} taken{more}; run "
            "the same command again to resume (what was taken is skipped as a duplicate)"
        )


@contextmanager
def between_batches() -> Iterator[Callable[[], bool]]:
    """Ctrl-C (SIGINT) taken between batches: while the block runs, a first Ctrl-C is
    noted rather than raised, and the function the block is given says whether it
    came, so the batch in hand is handed on whole and what was taken is known exactly
    (a batch cut short may be stored in part). A second Ctrl-C raises at once. Off the
    main thread, where Python installs no signal handler, Ctrl-C raises as usual."""
    asked: list[bool] = []

    def note(signum: int, frame: object) -> None:
        if asked:
            raise KeyboardInterrupt
        asked.append(True)

    try:
        before = signal.signal(signal.SIGINT, note)
    except ValueError:
        yield lambda: False
        return
    try:
        yield lambda: bool(asked)
    finally:
        signal.signal(signal.SIGINT, before)


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


def complete(
    item: dict[str, object], default_bank: str | None, now: datetime | None = None
) -> dict[str, object]:
    """Fill what a line may omit: `bank_id` (from --bank) and `event_id` (derived); a
    `ttl_s` becomes `expires_at`, counted from `now` (default: this moment)."""
    out = with_expiry(dict(item), now or datetime.now(UTC))
    if "bank_id" not in out and default_bank is not None:
        out["bank_id"] = default_bank
    if "event_id" not in out:
        bank, text = str(out.get("bank_id", "")), str(out.get("text", ""))
        out["event_id"] = str(derive_event_id(bank, text, instant(out.get("occurred_at"))))
    return out


def read_events(
    path: Path, default_bank: str | None, max_text_bytes: int
) -> Iterator[GoodLine | BadLine]:
    """Each line as an event or as what is wrong with it; a `ttl_s` counts from one
    instant for the whole file, so two equal lines are equal events."""
    now = datetime.now(UTC)
    with path.open(encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
                if not isinstance(item, dict):
                    raise ValueError("each line must be a JSON object")
                event = RetainEvent.model_validate(
                    complete(item, default_bank, now), context={"max_text_bytes": max_text_bytes}
                )
                yield GoodLine(line_no, raw.rstrip("\n"), event)
            except pydantic.ValidationError as exc:
                yield BadLine(line_no, raw.rstrip("\n"), str(exc), reason_of(exc))
            except ValueError as exc:
                yield BadLine(line_no, raw.rstrip("\n"), str(exc), f"not valid JSON: {exc}")


def reason_of(exc: pydantic.ValidationError) -> str:
    """Each bad field with its problem, never the value (a line's text may be private)."""
    found = problems(exc.errors())
    return "; ".join(f"{d.field}: {d.problem}" for d in found) or "invalid event"


def first_lines(lines: Sequence[GoodLine]) -> tuple[list[RetainEvent], int, list[BadLine]]:
    """The first line of each event id of a bank wins (ids are per bank, as everywhere:
    one id in two banks is two events): the events to retain, how many later lines
    repeat an earlier one exactly, and the later lines that reuse an id of their bank
    for other content (refused, with the line they clash with)."""
    first: dict[tuple[str, uuid.UUID], GoodLine] = {}
    kept: list[RetainEvent] = []
    repeated, clashing = 0, []
    for line in lines:
        earlier = first.setdefault((line.event.bank_id, line.event.event_id), line)
        if earlier is line:
            kept.append(line.event)
        elif earlier.event == line.event:
            repeated += 1
        else:
            problem = (
                f"event_id {line.event.event_id} is line {earlier.line_no}'s too in bank "
                f"{line.event.bank_id!r} (given, or derived from bank, text and occurred_at), "
                "with other content: the first line of an id in a bank is kept; give this "
                "line an event_id of its own, or drop it"
            )
            clashing.append(BadLine(line.line_no, line.raw, problem))
    return kept, repeated, clashing


@dataclass(frozen=True)
class IngestDeps:
    publisher: Publisher
    dead_letters: DeadLetters
    metrics: Metrics
    max_text_bytes: int


def run_ingest(
    deps: IngestDeps,
    path: Path,
    bank: str | None,
    batch: int,
    err: Console,
    read: Callable[[], None] = lambda: None,
) -> IngestSummary:
    """Every valid line through the one retain path (consolidated here or published, as
    the bootstrap chose); bad lines, and lines reusing an earlier line's event id for
    other content, go to the dead-letter stream, once: a line already there from an
    earlier run of the file is named again, not dead-lettered twice. Ctrl-C stops
    between batches' worth of work and says how far it got (`interrupted`). `read` is
    called once the file is read (`few_collections` sets the events aside)."""
    items = list(read_events(path, bank, deps.max_text_bytes))
    read()
    good = [i for i in items if isinstance(i, GoodLine)]
    unique, repeated, clashing = first_lines(good)
    bad = [*(i for i in items if isinstance(i, BadLine)), *clashing]
    bad.sort(key=lambda b: b.line_no)
    lettered = already_lettered(deps.dead_letters) if bad else set()
    for b in bad:
        again = payload_digest(b.raw) in lettered
        if not again:
            reason = PoisonEvent(f"line {b.line_no}: {b.said()}")
            count_events(deps.metrics, "dead_lettered", [bank_of(b.raw)])
            deps.dead_letters.add(letter(INGEST_TASK, b.raw, reason, 1))
        where = "dead-lettered by an earlier run" if again else "dead-lettered"
        err.print(
            f"[yellow]line {b.line_no} rejected[/yellow] ({where}): {escape(b.said())}",
            highlight=False,
            soft_wrap=True,
        )
    queued = deps.publisher.queued
    done = taken = 0
    stopped = None
    with Progress(console=err, transient=True) as progress, between_batches() as asked:
        task = progress.add_task("ingest", total=len(unique))
        chunk: list[RetainEvent] = []
        try:
            for start in range(0, len(unique), batch):
                if asked():
                    stopped = Interrupted(taken, len(unique))
                    break
                chunk = unique[start : start + batch]
                done += deps.publisher.publish_retain(chunk)
                taken += len(chunk)
                progress.advance(task, len(chunk))
        except KeyboardInterrupt:
            stopped = Interrupted(taken, len(unique), len(chunk))
    duplicates = repeated + (0 if queued else taken - done)
    return IngestSummary(done, duplicates, len(bad), published=queued, interrupted=stopped)


COLLECTION_THRESHOLDS = (100_000, 20, 20)
"""The cyclic collector's thresholds while an ingest runs (Python's defaults: 700, 10,
10). Reading the file and consolidating allocate many small objects that reference
counting frees, and keep many that live for the whole ingest (the events read, the
store's and the readings' caches): under the defaults, the collector's passes over
those took about a tenth of an ingest's time."""


@contextmanager
def few_collections() -> Iterator[Callable[[], None]]:
    """The cyclic collector run less often while the block runs: what exists when it
    starts (the modules) is set aside from its passes (`gc.freeze`), and so is what
    exists when the block calls the function it is given (the events read); the
    thresholds are `COLLECTION_THRESHOLDS`. Both restored after the block. When
    something is frozen already, nothing more is (whoever froze it unfreezes it)."""
    before = gc.get_threshold()
    freezes = gc.get_freeze_count() == 0

    def set_aside() -> None:
        if freezes:
            gc.freeze()

    set_aside()
    gc.set_threshold(*COLLECTION_THRESHOLDS)
    try:
        yield set_aside
    finally:
        gc.set_threshold(*before)
        if freezes:
            gc.unfreeze()


def payload_digest(raw: str) -> str:
    """What a dead letter knows its payload by (`DeadLetter.payload_sha256`)."""
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def already_lettered(letters: DeadLetters, limit: int = 100_000) -> set[str]:
    """The payload digests of the ingest's dead letters there are."""
    return {
        le.payload_sha256 or payload_digest(le.payload)
        for le in letters.list(limit)
        if le.task == INGEST_TASK
    }
