"""`sediment retain|recall|inspect`: one memory in, memories out, one memory shown.

The options are the HTTP API's and MCP's names (`history`, `as_of`, `explain`, `tags`,
`limit`, ...), spelled as flags. Ids are printed short (six hex digits) and every
command that takes a memory id takes that prefix back (sediment/memory_ids.py).
"""

import sys
from datetime import UTC, datetime
from typing import Annotated

import pydantic
import typer
from rich.console import Console
from rich.markup import escape

from contracts.events import RetainEvent, derive_event_id, with_expiry
from contracts.recall import RecallRequest
from readmodel.store import Filter, expired
from sediment.api.outcomes import outcomes
from sediment.ingest import instant, reason_of
from sediment.memory_ids import MemoryIdError, resolve
from sediment.pending import recall_with_pending
from sediment.render import explain_table, print_record, recall_table
from sediment.retain import PublishError
from sediment.startup import runtime

console = Console()
err = Console(stderr=True)

Bank = Annotated[str, typer.Option(help="the bank (one memory space)")]


def _refuse(what: str, exc: pydantic.ValidationError) -> typer.Exit:
    err.print(f"invalid {what}: {escape(reason_of(exc))}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


def retain(
    text: Annotated[str, typer.Argument(help="the fact, in one or a few sentences")],
    bank: Bank,
    key: Annotated[
        str | None, typer.Option(help="a slot such as alice.city: a later value replaces this")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="a label to filter by (repeatable)")] = None,
    entity: Annotated[
        list[str] | None, typer.Option(help="a name it is about (repeatable)")
    ] = None,
    occurred_at: Annotated[
        str | None,
        typer.Option(help="when it happened, ISO 8601 with an offset (default: now)"),
    ] = None,
    ttl: Annotated[float | None, typer.Option(help="forget it after so many seconds")] = None,
    kind: Annotated[str, typer.Option(help="world (a fact) or experience")] = "world",
) -> None:
    """Remember one fact. Embedded, it is consolidated here and the answer says what
    became of it (stored, merged into an observation, what it superseded); otherwise it
    is queued for a worker and the answer gives its event id."""
    now = datetime.now(UTC)
    item: dict[str, object] = {
        "bank_id": bank,
        "text": text,
        "kind": kind,
        "occurred_at": occurred_at or now.isoformat(),
        "tags": tag or [],
        "entities": entity or [],
        "ttl_s": ttl,
    }
    if key is not None:
        item["key"] = key
    try:
        data = with_expiry(item, now)
        data["event_id"] = derive_event_id(bank, text, instant(data["occurred_at"]))
        rt = runtime(creates_store=True)
        event = RetainEvent.model_validate(
            data, context={"max_text_bytes": rt.settings.max_text_bytes}
        )
    except pydantic.ValidationError as exc:
        raise _refuse("retain", exc) from None
    except ValueError as exc:
        err.print(f"invalid retain: {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    try:
        rt.publisher.publish_retain([event])
        if rt.publisher.queued:
            console.print(f"queued event {event.event_id} for bank {bank}", highlight=False)
            return
        for outcome in outcomes(rt.store, bank, [event.event_id]):
            console.print(f"{outcome.said} (bank {bank})", highlight=False)
    except PublishError as exc:
        err.print(f"the broker did not take the event ({exc}); retry")
        raise typer.Exit(1) from exc
    finally:
        rt.close()


def recall(
    query: str,
    bank: Bank,
    limit: Annotated[int, typer.Option(min=1, max=100, help="most results")] = 10,
    history: Annotated[bool, typer.Option(help="every state, not only the current one")] = False,
    as_of: Annotated[
        datetime | None, typer.Option(help="the state as it was then (ISO 8601; UTC if no offset)")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="only memories with this tag (repeatable)")
    ] = None,
    tags_match: Annotated[str, typer.Option(help="any or all of the tags")] = "any",
    kind: Annotated[
        list[str] | None, typer.Option(help="only world, experience or observation")
    ] = None,
    explain: Annotated[bool, typer.Option(help="score components and stage timings")] = False,
    prefer_observations: bool = True,
    session_key: Annotated[
        str | None, typer.Option(help="groups the recalls of one conversation")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="budget for the results' text")] = None,
    full_text: Annotated[
        bool, typer.Option(help="whole texts; by default a long memory shows the part that matched")
    ] = False,
    wait_for: Annotated[
        list[str] | None,
        typer.Option(help="an event id retain answered: recall once it is consolidated"),
    ] = None,
    wait_timeout_s: Annotated[float, typer.Option(help="longest wait for --wait-for")] = 5.0,
    as_json: Annotated[bool, typer.Option("--json", help="print the response as JSON")] = False,
) -> None:
    """Recall memories of a bank for a query (the options are the HTTP API's and MCP's:
    history, as_of, tags, kinds, explain, wait_for, ...)."""
    try:
        request = RecallRequest.model_validate(
            {
                "query": query,
                "limit": limit,
                "history": history,
                "as_of": _aware(as_of),
                "tags": tag or [],
                "tags_match": tags_match,
                "kinds": kind or [],
                "explain": explain,
                "prefer_observations": prefer_observations,
                "session_key": session_key,
                "max_tokens": max_tokens,
                "full_text": full_text,
                "wait_for": wait_for or [],
                "wait_timeout_s": wait_timeout_s,
            }
        )
    except pydantic.ValidationError as exc:
        raise _refuse("recall", exc) from None
    rt = runtime()
    try:
        response = recall_with_pending(rt.recaller.recall, rt.pending, bank, request)
    finally:
        rt.close()
    if as_json:
        sys.stdout.write(response.model_dump_json(indent=2, exclude_none=True) + "\n")
        return
    console.print(recall_table(response))
    if explain and response.explain:
        console.print(explain_table(response))


def _aware(value: datetime | None) -> datetime | None:
    """typer parses ISO 8601 without an offset as naive; those are taken as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def inspect(
    memory_id: Annotated[str, typer.Argument(help="the id recall prints (a prefix) or in full")],
    bank: Annotated[str | None, typer.Option(help="the memory's bank (required)")] = None,
    raw: Annotated[bool, typer.Option(help="every stored field, as JSON")] = False,
) -> None:
    """Show a memory of a bank: its text, where it came from, what it replaced and what
    replaced it, and why, in words."""
    if bank is None:
        err.print(
            "give the memory's bank: sediment inspect --bank B MEMORY_ID "
            "(a memory is only visible within its own bank)"
        )
        raise typer.Exit(2)
    rt = runtime()
    try:
        found_id = resolve(rt.store, bank, memory_id)
        found = rt.store.fetch(bank, [found_id])
        if found and expired(found[0].record, datetime.now(UTC)):
            err.print(
                f"[red]memory {found_id} of bank {bank} has expired[/red] "
                "(the next expiry sweep forgets it)"
            )
            raise typer.Exit(1)
        if not found:
            err.print(
                f"[red]no memory {found_id} in bank {bank}[/red]: check the id, and that it "
                "belongs to this bank (a memory is only visible within its own bank)"
            )
            raise typer.Exit(1)
        if raw:
            sys.stdout.write(found[0].record.model_dump_json(indent=2) + "\n")
            return
        older = [p.record for p in rt.store.scroll(Filter(bank, superseded_by=found_id))]
        print_record(console, found[0].record, older)
    except MemoryIdError as exc:
        err.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    finally:
        rt.close()
