"""How a command starts: settings read and checked once, logging configured, then
the bootstrap. Invalid settings stop the process with the variable named."""

import os
from typing import TYPE_CHECKING

import pydantic
import typer
from rich.console import Console
from rich.markup import escape

from sediment.logs import configure
from sediment.settings import Settings
from sediment.settings_errors import problems
from sediment.tracing import Tracing, TracingUnavailable, start_tracing, wanted

if TYPE_CHECKING:
    from sediment.bootstrap import Runtime

err = Console(stderr=True)


def settings_or_exit() -> Settings:
    """Invalid settings stop the process with the variable named and what it accepts."""
    try:
        settings = Settings()
    except pydantic.ValidationError as exc:
        for line in problems(exc):
            err.print(f"[red]invalid setting[/red] {escape(line)}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    configure(settings.log_format, settings.log_level)
    return settings


def runtime(
    *,
    hosts_worker: bool = False,
    actor: str = "cli",
    creates_store: bool = False,
    finishes_rebuild: bool = False,
) -> "Runtime":
    """`actor`: who the audit names for the changes this process makes on its own.
    `creates_store`: the command stores (serve, worker, ingest, retain, import, mcp),
    so a local data directory that does not exist yet is created; a command that only
    reads refuses one, saying where it looked, rather than answering from an empty
    store it made up. Tracing starts here when asked for (sediment/tracing.py), before
    the command publishes or consumes anything; asked for and impossible, the process
    stops. `finishes_rebuild`: `sediment rebuild`, the one command that opens a store a
    rebuild cut short left behind (worker/rebuild.py). The bootstrap's modules are
    imported here, not before: a command that never opens the runtime never loads them."""
    from sediment.bootstrap import bootstrap

    rt = bootstrap(
        settings_or_exit(),
        hosts_worker=hosts_worker,
        actor=actor,
        creates_store=creates_store,
        finishes_rebuild=finishes_rebuild,
    )
    try:
        _ = rt.tracing
    except TracingUnavailable as exc:
        err.print(f"[red]cannot trace[/red]: {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    return rt


def tracing_or_exit(settings: Settings, service: str) -> "Tracing | None":
    """Tracing started as `runtime` starts it (when the settings ask for it), for a
    process that opens its runtime later (`sediment mcp`); asked for and impossible,
    the process stops here, at start."""
    if not wanted(settings.otel, os.environ):
        return None
    try:
        return start_tracing(service, os.environ, settings.otel_file)
    except TracingUnavailable as exc:
        err.print(f"[red]cannot trace[/red]: {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None


def require_durable_redis(rt: "Runtime") -> None:
    """`serve` and `worker` on a shared Redis: refuse one that loses data on restart
    (sediment/persistence.py)."""
    from sediment.persistence import refusal

    if not rt.topology.shared_redis:
        return
    s = rt.settings
    problem = refusal(rt.redis, s.redis_url, s.allow_volatile_redis)
    if problem is not None:
        err.print(f"[red]refusing to start[/red]: {escape(problem)}", highlight=False)
        raise typer.Exit(2)
