"""The CLI as a client of a running `sediment serve`: `--url` (or SEDIMENT_URL) on each
data command sends it through the HTTP API (`SedimentClient`), with the bearer of
`--token` (or SEDIMENT_API_TOKEN: the server's token, or an API key's secret).

An embedded store admits one process, so while `serve` runs, the commands that would
open it go through the server instead; they print what the embedded commands print
(the same tables and lines, from the same answers), so a script reads either alike.
A retain the server queues is read back once its worker has consolidated it (at
most WAIT_S), so it prints what became of it as embedded mode does; a forget the
server queues says so. An error the server answers with is printed as the server said it (status and
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
"""How long `retain --url` waits for the server's worker before it says "queued"."""
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
