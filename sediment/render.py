"""Terminal rendering of recall responses and records."""

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from contracts.memory import Observation
from contracts.recall import RecallResponse
from readmodel.store import Record
from telemetry.recall_logs import LastRecall


def recall_table(response: RecallResponse) -> Table:
    table = Table(title=f"recall: {response.query!r} (bank {response.bank_id})", expand=True)
    for col in ("#", "score", "kind", "state", "text", "occurred_at"):
        table.add_column(col, overflow="fold")
    for i, r in enumerate(response.results, 1):
        note = f" (replaces {str(r.state_replaces)[:8]})" if r.state_replaces else ""
        if r.outdated_by:
            note += f" (outdated by {str(r.outdated_by)[:8]})"
        if r.source_memory_ids:
            note += f" [{len(r.source_memory_ids)} sources]"
        table.add_row(
            str(i),
            f"{r.score:.3f}",
            r.kind,
            r.state.value,
            r.text + note,
            r.occurred_at.isoformat(),
        )
    return table


def print_record(console: Console, record: Record, supersedes: list[Record]) -> None:
    console.print(f"[bold]{record.id}[/bold]  kind={record.kind}  state={record.state.value}")
    console.print(f"  text: {record.text}")
    console.print(f"  occurred_at: {record.occurred_at.isoformat()}  key={record.key}")
    if isinstance(record, Observation):
        console.print(f"  proof_count: {record.proof_count}")
        for sid in record.source_memory_ids:
            console.print(f"  source: {sid}")
    if record.observation_id:
        console.print(f"  observation: {record.observation_id}")
    if record.superseded_by:
        console.print(f"  --{record.relation}--> {record.superseded_by}")
        if record.supersession_reason:
            console.print(f"  why: {escape(record.supersession_reason)}")
    for older in supersedes:
        console.print(f"  <--{older.relation}-- {older.id}: {older.text}")
        if older.supersession_reason:
            console.print(f"      why: {escape(older.supersession_reason)}")


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
