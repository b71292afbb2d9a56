"""The CLI as a client of a running `sediment serve`: `--url` (or SEDIMENT_URL) on each
data command sends it through the HTTP API (`SedimentClient`), with the bearer of
`--token` (or SEDIMENT_API_TOKEN: the server's token, or an API key's secret).

An embedded store admits one process, so while `serve` runs, the commands that would
open it go through the server instead; they print what the embedded commands print
(the same tables and lines, from the same answers), so a script reads either alike.
What the server queues for its worker is read back once the worker has handled it (a
wait of at most WAIT_S without progress), so the command prints what became of it as
embedded mode does: a retain, what it stored; an ingest, how many events it stored
and how many it skipped as duplicates; a forget by ids, how many memories went. A
forget by a filter or of a whole bank queued says so instead: which memories it
removes is decided by the worker when it runs, and the API reads no count of them
back. An error the server answers with is printed as the server said it (status and
message), and the command exits 1; a request refused before it was sent exits 2. The
client is imported when a command is given --url.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Final

import typer
from rich.console import Console
from rich.markup import escape

from contracts.memory import derive_memory_id
from sediment.api.models import MemoryView, Outcome

if TYPE_CHECKING:
    from sediment.client import SedimentClient

URL_ENV: Final = "SEDIMENT_URL"
TOKEN_ENV: Final = "SEDIMENT_API_TOKEN"
WAIT_S: Final = 10.0
"""How long `retain --url` waits for the server's worker before it says "queued" (and
`ingest --url` and `forget --url`, for the worker's next step, before they say
"published" and "queued")."""
POLL_S: Final = 0.1

Url = Annotated[
    str | None,
    typer.Option(
        "--url",
        envvar=URL_ENV,
        help="a running `sediment serve` (http://HOST:PORT): go through its HTTP API "
        "instead of opening the store",
        rich_help_panel="Client mode",
    ),
]
Token = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar=TOKEN_ENV,
        help="with --url: the bearer to send (the server's SEDIMENT_API_TOKEN, or an "
        "API key's secret)",
        rich_help_panel="Client mode",
    ),
]

err = Console(stderr=True)


def connect(url: str, token: str | None) -> SedimentClient:
    """A client of `url`; a retry or two, not a long wait, for a command line."""
    from sediment.client import SedimentClient
    from sediment.client.retry import Retry

    if not url.startswith(("http://", "https://")):
        err.print(
            f"--url {url!r} is not an HTTP URL: give the address `sediment serve` listens "
            "on, such as http://127.0.0.1:8000",
            highlight=False,
        )
        raise typer.Exit(2)
    return SedimentClient(url, token=token or None, retry=Retry(attempts=2, backoff_s=0.2))


@contextmanager
def answered(client: SedimentClient) -> Iterator[SedimentClient]:
    """The client, closed after; a call that fails is one line on stderr and exit 1
    (2 for a request refused before it was sent)."""
    from sediment.client import SedimentError, Unavailable, ValidationFailed

    try:
        with client:
            yield client
    except Unavailable as exc:
        err.print(
            f"{escape(exc.message)} (is `sediment serve` running there? check --url or {URL_ENV})",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1) from None
    except ValidationFailed as exc:
        err.print(f"{client.url}: {escape(exc.message)}", highlight=False, soft_wrap=True)
        raise typer.Exit(2 if exc.status is None else 1) from None
    except SedimentError as exc:
        err.print(f"{client.url}: {escape(exc.message)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def consolidated(
    client: SedimentClient,
    bank: str,
    event_ids: Sequence[uuid.UUID],
    wait_s: float = WAIT_S,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Outcome] | None:
    """What became of retained events the server queued, read back once its worker has
    consolidated them (as embedded mode says it); None when that took over `wait_s`."""
    from sediment.client import NotFound

    deadline = time.monotonic() + wait_s
    views: list[MemoryView] = []
    for event_id in event_ids:
        memory_id = derive_memory_id(bank, event_id)
        while True:
            try:
                views.append(client.memory(memory_id, bank=bank))
                break
            except NotFound:
                if time.monotonic() >= deadline:
                    return None
                sleep(POLL_S)
    return [_outcome(e, v) for e, v in zip(event_ids, views, strict=True)]


def holds(client: SedimentClient, bank: str, event_id: uuid.UUID) -> bool:
    """Whether the bank stores the memory of a retained event (whose id the event's
    derives)."""
    from sediment.client import NotFound

    try:
        client.memory(derive_memory_id(bank, event_id), bank=bank)
    except NotFound:
        return False
    return True


def stored(
    client: SedimentClient,
    queued: Sequence[tuple[str, Sequence[uuid.UUID]]],
    advance: Callable[[], None] = lambda: None,
    wait_s: float = WAIT_S,
    sleep: Callable[[float], None] = time.sleep,
) -> int | None:
    """How many of the events the server queued (per bank, their ids) its worker stored,
    read back as it handles them: an event's memory is there, or the bank has nothing
    pending any more, so the event was handled and stored nothing (it had been
    forgotten), as embedded mode counts it. `advance` is called for each event handled;
    None when the worker handled none of them for `wait_s`."""
    count = 0
    for bank, event_ids in queued:
        for event_id in event_ids:
            one = _stored(client, bank, event_id, wait_s, sleep)
            if one is None:
                return None
            count += one
            advance()
    return count


def _stored(
    client: SedimentClient,
    bank: str,
    event_id: uuid.UUID,
    wait_s: float,
    sleep: Callable[[float], None],
) -> bool | None:
    """Whether the worker stored the event, once it has handled it; None after `wait_s`."""
    deadline = time.monotonic() + wait_s
    while True:
        if holds(client, bank, event_id):
            return True
        if client.status(bank=bank).pending == 0:
            return holds(client, bank, event_id)  # it may have been stored since the look
        if time.monotonic() >= deadline:
            return None
        sleep(POLL_S)


def forgotten(
    client: SedimentClient,
    bank: str,
    memory_ids: Sequence[uuid.UUID],
    wait_s: float = WAIT_S,
    sleep: Callable[[float], None] = time.sleep,
) -> int | None:
    """How many memories a forget by ids the server queued removed, read back once its
    worker has: the ids the bank no longer holds, counted once each, as embedded mode
    counts them (an observation's id names no stored memory: the forget leaves it, and
    it is not counted). None when that took over `wait_s`."""
    from sediment.client import NotFound

    deadline = time.monotonic() + wait_s
    count = 0
    for memory_id in dict.fromkeys(memory_ids):
        while True:
            try:
                view = client.memory(memory_id, bank=bank)
            except NotFound:
                count += 1
                break
            if view.memory.kind == "observation":
                break
            if time.monotonic() >= deadline:
                return None
            sleep(POLL_S)
    return count


def _outcome(event_id: uuid.UUID, view: MemoryView) -> Outcome:
    from sediment.api.outcomes import words

    record = view.memory
    outcome = Outcome(
        event_id=event_id,
        memory_id=record.id,
        observation_id=getattr(record, "observation_id", None),
        supersedes=[s.id for s in view.edges.supersedes],
        superseded_by=record.superseded_by,
    )
    return outcome.model_copy(update={"said": words(outcome)})
