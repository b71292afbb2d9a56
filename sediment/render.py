"""Terminal rendering of recall responses and records."""

import uuid
from collections.abc import Sequence
from typing import Protocol

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from contracts.memory import Observation, Relation
from contracts.recall import RecallResponse
from readmodel.reading import read
from readmodel.reading.statement import describe
from readmodel.store import Record
from sediment.memory_ids import short
from sediment.words import counted
from telemetry.recall_logs import LastRecall

TIMESTAMP_WIDTH = len("2024-01-10T09:00:00+00:00")
"""A timestamp is never wrapped: the text column gives way instead."""


def recall_table(response: RecallResponse) -> Table:
    """Ids are shown short; `sediment inspect --bank B ID` takes them back. A current
    state found through an older state that matched the query says so: "shown for older
    state X" (what `sediment inspect` lists under "replaces", directly or a few
    states back)."""
    pending = f", {counted(response.pending, 'event')} pending" if response.pending else ""
    title = f"recall: {response.query!r} (bank {response.bank_id}{pending})"
    table = Table(title=title, expand=True)
    for col in ("#", "id", "score", "kind", "state", "text"):
        table.add_column(col, overflow="fold")
    table.add_column("occurred_at", no_wrap=True, min_width=TIMESTAMP_WIDTH)
    for i, r in enumerate(response.results, 1):
        note = f" (shown for older state {short(r.state_replaces)})" if r.state_replaces else ""
        if r.superseded_by:
            note += f" (superseded by {short(r.superseded_by)})"
        if r.outdated_by:
            note += f" (outdated by {short(r.outdated_by)})"
        if r.source_memory_ids:
            note += f" [{len(r.source_memory_ids)} sources]"
        if r.snippet:
            note += " [excerpt: --full-text for the whole]"
        if "instruction" in r.labels:
            note += " [standing instruction]"
        table.add_row(
            str(i),
            short(r.id),
            f"{r.score:.3f}",
            r.kind,
            r.state.value,
            escape(r.text + note),
            r.occurred_at.isoformat(),
        )
    return table


def explain_table(response: RecallResponse) -> Table:
    """What each stage did, and each result's score components."""
    table = Table(title="explain: stages", expand=True)
    for col in ("stage", "ms", "candidates", "note"):
        table.add_column(col, overflow="fold")
    for t in response.explain or []:
        table.add_row(t.stage, f"{t.ms:.2f}", str(t.candidates), escape(t.note))
    return table


class Replaced(Protocol):
    """An older state, as the store holds it or as the HTTP API summarizes it."""

    @property
    def id(self) -> uuid.UUID: ...
    @property
    def text(self) -> str: ...
    @property
    def supersession_reason(self) -> str | None: ...


def print_record(console: Console, record: Record, supersedes: Sequence[Replaced]) -> None:
    """The memory and its story in words: where it came from, what it replaced and what
    replaced it, and why; internals (features, slot keys) only with `--raw`."""
    when = record.occurred_at.date().isoformat()
    state = "current" if record.superseded_by is None else "superseded"
    console.print(f"[bold]{short(record.id)}[/bold] {record.kind}, {when}, {state}  ({record.id})")
    console.print(f"  {escape(record.text)}")
    if record.key:
        console.print(f"  key: {escape(record.key)}")
    for line in reading_lines(record):
        console.print(f"  {escape(line)}")
    if isinstance(record, Observation):
        console.print(f"  an observation drawn from {record.proof_count} statements:")
        for sid in record.source_memory_ids:
            console.print(f"    source {short(sid)}")
    if record.observation_id:
        console.print(f"  merged into observation {short(record.observation_id)}")
    if record.superseded_by:
        how = _relation(record)
        console.print(f"  {how} {short(record.superseded_by)}")
        if record.supersession_reason:
            console.print(f"    why: {escape(record.supersession_reason)}")
    for older in supersedes:
        console.print(f"  replaces {short(older.id)}: {escape(older.text)}")
        if older.supersession_reason:
            console.print(f"    why: {escape(older.supersession_reason)}")


def reading_lines(record: Record) -> list[str]:
    """How the text reads (`readmodel.reading`), and what that means for merging: an
    observation joins only statements of one reading."""
    reading = read(record.text, record.entities)
    if not reading.readable:
        return [
            f"not read as a statement ({reading.unread}): it joins only a statement "
            "with the same content words"
        ]
    lines = [f"read as: {describe(c)}" for c in reading.clauses]
    if isinstance(record, Observation):
        lines.append("joined: every source states this reading, however worded")
    elif record.observation_id:
        lines.append("joined its observation: a source with the same reading")
    return lines


def _relation(record: Record) -> str:
    if record.relation == Relation.INVALIDATED_BY:
        return "invalidated (no longer true) by"
    return "evolved into (replaced by a newer state)"


def last_recall_table(snapshot: LastRecall) -> Table:
    title = (
        f"last recall of session {snapshot.session_key!r} (bank {snapshot.bank_id}) "
        f"at {snapshot.at.isoformat()}, query {snapshot.query_hash}"
    )
    table = Table(title=title, expand=True)
    for col in ("rank", "score", "id"):
        table.add_column(col, overflow="fold")
    for r in snapshot.results:
        table.add_row(str(r.rank), f"{r.score:.3f}", str(r.id))
    return table
