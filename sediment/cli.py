"""`sediment`: the command line.

A command imports what it uses when it runs: `sediment mcp` answers its client's
`initialize` without loading the store, the embedder, Redis, Celery or the HTTP API,
and `sediment --help` lists the commands without them either.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from contracts.base import bank_id_problem
from sediment import data_commands, maintenance, memory_commands, remote
from sediment.startup import (
    require_durable_redis,
    runtime,
    settings_or_exit,
    tracing_or_exit,
)
from sediment.words import counted

if TYPE_CHECKING:
    from sediment.bootstrap import Runtime
    from telemetry.recall_logs import LastRecall

INGEST_BATCH = 256
"""Events `ingest` hands on at a time: embedded, one consolidation batch, which reads
the store once for all of them; 256 took a tenth less CPU time than 64 on the ingest
workload (20,000 events in one bank), and 512 or 1,000 no less, for some 35 MB more at
the peak (the read model is the same for any split: tests/property/test_convergence.py).
With --url, the events of one request (the API takes up to 1,000)."""

app = typer.Typer(no_args_is_help=True, help="Sediment: agent memory as an event-driven system.")
app.add_typer(maintenance.dlq_app, name="dlq")
app.command()(maintenance.reconcile)
app.command()(memory_commands.retain)
app.command()(memory_commands.recall)
app.command()(memory_commands.inspect)
app.command()(data_commands.forget)
app.add_typer(data_commands.keys_app, name="keys")
app.command()(data_commands.export)
app.command("import")(data_commands.import_)
app.command()(data_commands.audit)
app.command()(data_commands.expire)
console = Console()
err = Console(stderr=True)


@app.command()
def ingest(
    path: Annotated[Path, typer.Argument(help="a JSON-lines file, one event a line")],
    bank: Annotated[str | None, typer.Option(help="bank_id for lines that have none")] = None,
    batch: Annotated[
        int, typer.Option(min=1, max=1000, help="events handed on (or sent) at a time")
    ] = INGEST_BATCH,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="exit 0 when some lines were rejected (each is still named, and dead-lettered)",
        ),
    ] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Retain every event of a JSON-lines file (embedded: consolidate here; else publish).

    A line that is not a valid event is rejected: its line number and reason are
    printed, it goes to the dead letters (once, however often the file is ingested), and
    the command exits 1 (the other lines are retained) unless --allow-partial. Ctrl-C
    stops it once the batch in hand is taken, saying how many events were: the same
    command again resumes. With --url the events go to that server's HTTP API; a
    rejected line is named, not sent."""
    from sediment.ingest import IngestDeps, few_collections, run_ingest
    from sediment.ingest_remote import ingest_remote

    if not path.is_file():
        err.print(f"no file at {path.absolute()}: give the path of a JSON-lines file")
        raise typer.Exit(2)
    if url:
        with remote.answered(remote.connect(url, token)) as client:
            summary = ingest_remote(client, path, bank, batch, err)
    else:
        with few_collections() as set_aside:
            try:
                rt = runtime(creates_store=True)
            except KeyboardInterrupt:
                err.print("interrupted before any event was taken: run the same command again")
                raise typer.Exit(130) from None
            settings = rt.settings
            deps = IngestDeps(rt.publisher, rt.dead_letters, rt.metrics, settings.max_text_bytes)
            try:
                summary = run_ingest(deps, path, bank, batch, err, read=set_aside)
            finally:
                rt.close()
    console.print(summary.line())
    if summary.interrupted is not None:
        err.print(summary.interrupted.said(), highlight=False)
        raise typer.Exit(130)
    if summary.dead_lettered and (not allow_partial or not summary.done + summary.duplicates):
        err.print(
            f"{counted(summary.dead_lettered, 'line')} rejected: fix "
            f"{'it' if summary.dead_lettered == 1 else 'them'} and ingest the file again "
            "(retained lines are skipped as duplicates), or pass --allow-partial"
        )
        raise typer.Exit(1)


@app.command()
def worker(
    pool: Annotated[str, typer.Option(help="solo, threads or prefork")] = "solo",
    loglevel: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR")] = "INFO",
) -> None:
    """Run a Celery worker consuming retain events."""
    from celery.signals import worker_process_shutdown, worker_shutdown

    from sediment.sampler import attach_to_worker

    rt = runtime(actor="worker", creates_store=True)
    require_durable_redis(rt)
    rt.check_layout()
    if rt.topology.local_store and pool == "prefork" and rt.settings.worker_concurrency > 1:
        err.print(
            "a local store admits one process: use --pool solo or threads, or "
            "SEDIMENT_MODE=distributed with SEDIMENT_QDRANT_URL"
        )
        raise typer.Exit(2)
    if rt.settings.metrics_enabled:
        attach_to_worker(rt.gauges(store=False), rt.redis, rt.settings.metrics_sample_s)
    expiry = not (rt.topology.local_store and pool == "prefork")
    if expiry and rt.topology.local_store:
        _ = rt.store
    maintenance.sweep_in_worker(rt.sweep_loops(expiry=expiry), rt.heartbeat)
    worker_shutdown.connect(lambda **_: rt.close(), weak=False)
    worker_process_shutdown.connect(lambda **_: rt.close(), weak=False)
    argv = [
        "worker",
        "-Q",
        rt.settings.queue,
        "--pool",
        pool,
        "-c",
        str(rt.settings.worker_concurrency),
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    rt.celery.worker_main(argv)


@app.command()
def ping(
    local: Annotated[bool, typer.Option(help="only this host's worker (celery@HOSTNAME)")] = False,
    worker_name: Annotated[
        list[str] | None, typer.Option("--worker", help="a worker node name (repeatable)")
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.1, max=60.0, help="seconds to wait")] = 5.0,
) -> None:
    """Ping workers over the broker; exit 0 when one answers (for health checks)."""
    from sediment.ping import local_worker
    from sediment.ping import ping as ping_workers

    rt = runtime()
    if not rt.topology.shared_redis:
        err.print("embedded mode has no broker to ping through: set SEDIMENT_MODE")
        raise typer.Exit(2)
    destination = [local_worker()] if local else worker_name
    answered = ping_workers(rt.celery, destination, timeout)
    for name in answered:
        console.print(f"{name}: pong")
    if not answered:
        err.print(f"no worker answered within {timeout:g} s")
        raise typer.Exit(1)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="interface to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port to listen on")] = 8000,
) -> None:
    """Serve the HTTP API; in embedded and standalone modes, consume events here too."""
    from sediment.serve import serve as run_server

    rt = runtime(hosts_worker=True, creates_store=True)
    require_durable_redis(rt)
    rt.check_rebuild()
    run_server(rt, host, port)


@app.command()
def mcp(
    bank: Annotated[
        str | None,
        typer.Option(
            help="the one bank this server serves (else SEDIMENT_MCP_BANK): a call naming "
            "another is refused, unless --all-banks"
        ),
    ] = None,
    all_banks: Annotated[
        bool,
        typer.Option(
            "--all-banks",
            help="let calls name any bank; --bank (or SEDIMENT_MCP_BANK) is then only the "
            "default for calls that name none",
        ),
    ] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Serve the MCP tools over stdio, for desktop agents and IDEs.

    With --bank B (or SEDIMENT_MCP_BANK) the server is pinned to B: `banks` lists only
    B and a call naming another bank is a tool error. --all-banks lets calls name any
    bank. With neither a bank nor --all-banks, every call names its bank. With --url,
    each message goes to that serve's /mcp and the banks are its key's.
    """
    if url:
        from sediment.mcp_bridge import run_bridge

        if bank is not None or all_banks:
            err.print("with --url the token's or key's banks apply: drop --bank/--all-banks")
            raise typer.Exit(2)
        remote.connect(url, token).close()
        run_bridge(url, token)
        return
    from sediment.mcp_server import run_stdio

    problem = None if bank is None else bank_id_problem(bank)
    if problem is not None:
        err.print(f"--bank {problem}")
        raise typer.Exit(2)
    settings = settings_or_exit()
    tracing = tracing_or_exit(settings, "mcp")

    def opened() -> "Runtime":
        from sediment.bootstrap import bootstrap

        return bootstrap(settings, actor="mcp", traced=tracing, creates_store=True)

    try:
        run_stdio(settings, opened, bank, all_banks)
    finally:
        if tracing is not None:
            tracing.shutdown()


@app.command("last-recall")
def last_recall(
    bank: Annotated[str, typer.Option(help="bank of the recall")],
    session: Annotated[str, typer.Option(help="the recall's session_key")],
    as_json: Annotated[bool, typer.Option("--json", help="print the snapshot as JSON")] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Show what a session's last recall returned: ids, ranks and scores (no text).

    Reads Redis only, so it works next to a running `sediment serve` (which owns the
    store); in embedded mode snapshots live inside the serving process: ask it with --url.
    """
    from sediment.render import last_recall_table

    snapshot: LastRecall | None
    if url:
        with remote.answered(remote.connect(url, token)) as client:
            snapshot = client.last_recall(session, bank=bank)
    else:
        rt = runtime()
        snapshot = rt.recall_log.last(bank, session)
    if snapshot is None:
        err.print(f"no last recall for session {session!r} in bank {bank} (it may have expired)")
        raise typer.Exit(1)
    if as_json:
        sys.stdout.write(snapshot.model_dump_json(indent=2) + "\n")
    else:
        console.print(last_recall_table(snapshot))


@app.command()
def banks(
    as_json: Annotated[bool, typer.Option("--json", help="print the list as JSON")] = False,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """The banks that hold memories, with how many memories and observations each has
    (with --url, the banks the token or key may read)."""
    from sediment.api.banks import summaries

    if url:
        with remote.answered(remote.connect(url, token)) as client:
            listed = client.banks()
    else:
        rt = runtime()
        try:
            listed = summaries(rt.store)
        finally:
            rt.close()
    if as_json:
        sys.stdout.write(listed.model_dump_json(indent=2) + "\n")
        return
    if not listed.banks:
        err.print("no bank holds memories yet: retain or ingest first")
        return
    table = Table(title=f"{counted(len(listed.banks), 'bank')}")
    table.add_column("bank", overflow="fold")
    table.add_column("memories", justify="right")
    table.add_column("observations", justify="right")
    for b in listed.banks:
        table.add_row(b.bank_id, str(b.memories), str(b.observations))
    console.print(table)


@app.command()
def stats(
    bank: Annotated[str | None, typer.Option(help="one bank (default: all banks)")] = None,
    minutes: Annotated[int, typer.Option(min=1, max=1440, help="window in minutes")] = 15,
    watch: Annotated[bool, typer.Option(help="refresh every 2 s until Ctrl-C")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the snapshot as JSON")] = False,
    counts: Annotated[
        bool | None,
        typer.Option(
            help="count memories per bank in the store (default: when this process can "
            "open it; a running serve samples them itself)"
        ),
    ] = None,
    url: remote.Url = None,
    token: remote.Token = None,
) -> None:
    """Rates, latency percentiles, lag, queue depth and dead letters of the last minutes.

    Metrics live in Redis. In embedded mode each process counts in its own memory and
    leaves its counts in the data directory when it closes the store, so `sediment
    stats` after an ingest shows them; while `serve` runs, ask it with --url.
    """
    from sediment.stats import run, run_remote

    if url:
        with remote.answered(remote.connect(url, token)) as client:
            run_remote(lambda: client.stats(minutes=minutes, bank=bank), watch, as_json, console)
        return
    rt = runtime()
    if not rt.settings.metrics_enabled:
        err.print("metrics are disabled (SEDIMENT_METRICS_ENABLED=false)")
        raise typer.Exit(1)
    store_counts = _can_count(rt) if counts is None else counts
    try:
        run(rt.gauges(store=store_counts), bank, minutes, watch, as_json, store_counts, console)
    finally:
        rt.close()


def _can_count(rt: "Runtime") -> bool:
    """A Qdrant server is counted; a local store only when no other process has it: on
    a shared Redis the serve that has it samples the counts into the metrics itself;
    embedded, its figures live in its own process, so this one is refused, naming
    `--url` (one that showed its own empty figures would mislead)."""
    from sediment.bootstrap import NoDataDirError
    from sediment.store_owner import StoreOwnedError

    if not rt.topology.local_store:
        return True
    try:
        _ = rt.store
    except (StoreOwnedError, NoDataDirError):
        if not rt.topology.shared_redis:
            raise
        return False
    return True


@app.command()
def rebuild(
    bank: Annotated[str | None, typer.Option(help="the bank to rebuild")] = None,
    all_banks: Annotated[bool, typer.Option("--all", help="every bank")] = False,
) -> None:
    """Re-derive observations and edges from the stored raw memories."""
    if (bank is None) == (not all_banks):
        err.print("give exactly one of --bank B or --all")
        raise typer.Exit(2)
    from worker.consolidation.layout import LAYOUT

    rt = runtime(finishes_rebuild=True)
    try:
        total = maintenance.rebuild(rt.consolidator, [bank] if bank else None, err, LAYOUT)
    finally:
        rt.close()
    console.print(f"rebuilt {counted(total, 'raw memory', 'raw memories')}")


@app.command()
def optimize() -> None:
    """Build the embedded store's search index (HNSW) over what was written since the
    last run. Recall searches by full scan until then; run it while serve is stopped
    (the engine blocks the process until done: about a minute at 100,000 memories)."""
    rt = runtime()
    try:
        done = maintenance.optimize(rt.store)
    finally:
        rt.close()
    if done is None:
        console.print("the store is a Qdrant server, which optimizes itself: nothing to do")
        return
    what = "optimized" if done.changed else "nothing to optimize"
    console.print(
        f"{what} in {done.seconds:.1f} s; segments {done.segments_before} -> {done.segments_after}"
    )


@app.command()
def demo(
    data_dir: Annotated[
        Path | None,
        typer.Option(help="where to keep the demo's store (default: SEDIMENT_DATA_DIR)"),
    ] = None,
) -> None:
    """Ingest a shipped sample conversation and show observations, chains and recall."""
    from sediment.demo import run_demo

    run_demo(settings_or_exit(), data_dir, console)


@app.command("build-model")
def build_model(
    out: Annotated[
        Path | None, typer.Option(help="directory to write (default: the shipped model's)")
    ] = None,
) -> None:
    """Rebuild the shipped static model from all-MiniLM-L6-v2 (needs the distill extra)."""
    from readmodel.embedders.build_static import build_static_model
    from readmodel.embedders.static import SHIPPED_MODEL_DIR

    target = out or SHIPPED_MODEL_DIR
    build_static_model(target)
    console.print(f"static model written to {target}")


def main() -> None:
    """The `sediment` command: a store derived under another layout or left by a rebuild
    cut short, a local store another process has open, a data directory that is not
    there and Redis unreachable are each a clear refusal (what was found, what to do),
    not a traceback."""
    try:
        app()
    except Exception as exc:
        refuse(exc)
        raise


def refuse(exc: Exception) -> None:
    """Exit with what `main` says of `exc`, when it is one of those refusals. The
    modules that define them are loaded by then (only they raise them)."""
    import redis

    from sediment.bootstrap import NoDataDirError
    from sediment.store_owner import StoreOwnedError
    from worker.consolidation.layout import StaleLayoutError
    from worker.rebuild import InterruptedRebuildError

    if isinstance(exc, StaleLayoutError | InterruptedRebuildError):
        err.print(f"refusing to start: {exc}")
        raise SystemExit(2) from exc
    if isinstance(exc, StoreOwnedError | NoDataDirError):
        err.print(str(exc), highlight=False, markup=False, soft_wrap=True)
        raise SystemExit(1) from None
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
        err.print(
            f"Redis is unreachable ({type(exc).__name__}: {exc}); start it, or check "
            "SEDIMENT_REDIS_URL, and run the command again"
        )
        raise SystemExit(1) from exc


if __name__ == "__main__":
    main()
