"""`sediment retain|recall|inspect`: one memory in, memories out, one memory shown.

The options are the HTTP API's and MCP's names (`history`, `as_of`, `explain`, `tags`,
`limit`, ...), spelled as flags. Ids are printed short (six hex digits) and every
command that takes a memory id takes that prefix back (sediment/memory_ids.py). What
a command reads or writes with is imported when it runs (sediment/cli.py).
"""

import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Annotated

import pydantic
import typer
from rich.console import Console
from rich.markup import escape

from contracts.events import RetainEvent, RetainItem, derive_event_id, with_expiry
from contracts.recall import RecallRequest, RecallResponse
from sediment import remote
from sediment.api.models import Outcome
from sediment.recall_defaults import LOW_CONFIDENCE, left_out_note, surface_default
from sediment.startup import runtime

console = Console()
err = Console(stderr=True)

Bank = Annotated[str, typer.Option(help="the bank (one memory space)")]


def _refuse(what: str, exc: pydantic.ValidationError) -> typer.Exit:
    from sediment.ingest import reason_of

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
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Remember one fact. Embedded, it is consolidated here and the answer says what
    became of it (stored, merged into an observation, what it superseded); otherwise it
    is queued for a worker and the answer gives its event id."""
    from sediment.api.outcomes import outcomes
    from sediment.ingest import instant
    from sediment.retain import PublishError

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
    if url:
        _retain_remote(url, token, bank, item)
        return
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
        done = None if rt.publisher.queued else outcomes(rt.store, bank, [event.event_id])
        show_retained(bank, event.event_id, done)
    except PublishError as exc:
        err.print(f"the broker did not take the event ({exc}); retry")
        raise typer.Exit(1) from exc
    finally:
        rt.close()


def _retain_remote(url: str, token: str | None, bank: str, fields: dict[str, object]) -> None:
    """Checked here as the embedded command checks it, then sent to the server."""
    data = {k: v for k, v in fields.items() if k != "bank_id" and v is not None}
    try:
        one = RetainItem.model_validate(data)
    except pydantic.ValidationError as exc:
        raise _refuse("retain", exc) from None
    with remote.answered(remote.connect(url, token)) as client:
        accepted = client.retain_many([one], bank=bank)
        done = accepted.outcomes
        if done is None:
            done = remote.consolidated(client, bank, accepted.event_ids)
    show_retained(bank, accepted.event_ids[0], done)


def show_retained(bank: str, event_id: object, done: Sequence[Outcome] | None) -> None:
    """What became of a retain (consolidated: per outcome), or that it is queued."""
    if done is None:
        console.print(f"queued event {event_id} for bank {bank}", highlight=False)
        return
    for outcome in done:
        console.print(f"{outcome.said} (bank {bank})", highlight=False)


def recall(
    query: str,
    bank: Bank,
    limit: Annotated[int, typer.Option(min=1, max=100, help="most results")] = 10,
    history: Annotated[bool, typer.Option(help="every state, not only the current one")] = False,
    as_of: Annotated[
        str | None,
        typer.Option(help="the state as it was then, ISO 8601 with an offset (as retain's)"),
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="only memories with this tag (repeatable)")
    ] = None,
    tags_match: Annotated[str, typer.Option(help="any or all of the tags")] = "any",
    kind: Annotated[
        list[str] | None, typer.Option(help="only world, experience or observation")
    ] = None,
    explain: Annotated[bool, typer.Option(help="score components and stage timings")] = False,
    prefer_observations: Annotated[
        bool,
        typer.Option(
            help="rank an observation (what several memories agree on) above the memories "
            "it was drawn from; --no-prefer-observations ranks them alike"
        ),
    ] = True,
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
    min_score: Annotated[
        float,
        typer.Option(help="leave out results scored below this (instead of the evidence rule)"),
    ] = 0.0,
    all_: Annotated[
        bool,
        typer.Option(
            "--all",
            help="results without topical evidence too (no word of the query, far in meaning)",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the response as JSON")] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Recall memories of a bank for a query (the options are the HTTP API's and MCP's:
    history, as_of, tags, kinds, explain, wait_for, ...).

    Results without topical evidence are left out unless --all or --min-score is given.
    A bank that holds no memories (a typo, another case: `Eve` for `eve`) is not an
    empty answer: the command names the nearest banks on stderr and exits 1."""
    from sediment.pending import recall_with_pending

    try:
        request = RecallRequest.model_validate(
            {
                "query": query,
                "limit": limit,
                "history": history,
                "as_of": as_of,
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
                "min_score": min_score,
                "all": True if all_ else None,
            }
        )
    except pydantic.ValidationError as exc:
        raise _refuse("recall", exc) from None
    request = surface_default(request)
    if url:
        with remote.answered(remote.connect(url, token)) as client:
            response = client.recall(request, bank=bank, full=True)
            known = _empty(response) and [b.bank_id for b in client.banks().banks]
        show_recall(response, as_json, lambda: known or [])
        return
    rt = runtime()
    try:
        response = recall_with_pending(rt.recaller.recall, rt.pending, bank, request)
        known = _empty(response) and rt.store.banks()
    finally:
        rt.close()
    show_recall(response, as_json, lambda: known or [])


def _empty(response: RecallResponse) -> bool:
    return not response.results and not response.pending


def show_recall(
    response: RecallResponse, as_json: bool, known_banks: Callable[[], list[str]]
) -> None:
    """The answer as a table (or JSON); an answer from a bank that holds no memories
    (and has none pending) adds a note naming the nearest banks, and exits 1."""
    from sediment.api.banks import empty_bank_note
    from sediment.render import explain_table, recall_table

    known = known_banks() if _empty(response) else [response.bank_id]
    unknown = response.bank_id not in known
    if as_json:
        sys.stdout.write(response.wire(indent=2) + "\n")
    elif not unknown:
        console.print(recall_table(response))
        if response.low_confidence:
            console.print(LOW_CONFIDENCE, highlight=False)
        if response.without_evidence:
            console.print(left_out_note(response.without_evidence, "--all"), highlight=False)
        if response.explain:
            console.print(explain_table(response))
    if unknown:
        err.print(escape(empty_bank_note(response.bank_id, known)), highlight=False)
        raise typer.Exit(1)


def inspect(
    memory_id: Annotated[str, typer.Argument(help="the id recall prints (a prefix) or in full")],
    bank: Annotated[str | None, typer.Option(help="the memory's bank (required)")] = None,
    raw: Annotated[bool, typer.Option(help="every stored field, as JSON")] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Show a memory of a bank: its text, where it came from, what it replaced and what
    replaced it, and why, in words."""
    from readmodel.store import Filter, expired
    from sediment.memory_ids import MemoryIdError, resolve
    from sediment.render import print_record

    if bank is None:
        err.print(
            "give the memory's bank: sediment inspect --bank B MEMORY_ID "
            "(a memory is only visible within its own bank)"
        )
        raise typer.Exit(2)
    if url:
        with remote.answered(remote.connect(url, token)) as client:
            view = client.memory(memory_id, bank=bank)
        if raw:
            sys.stdout.write(view.memory.model_dump_json(indent=2) + "\n")
            return
        print_record(console, view.memory, view.edges.supersedes)
        return
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
