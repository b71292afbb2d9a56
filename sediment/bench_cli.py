"""`sediment bench ...`: benchmarks as the CLI runs them (methodology: BENCHMARKS.md).

The bench modules are imported inside each command: they need the `bench` extra
(bm25s, matplotlib), which the rest of the CLI does not.
"""

import importlib
import sys
import time
from pathlib import Path
from typing import Annotated, Literal

import pydantic
import typer
from rich.console import Console

from bench.dataset import BenchSet
from bench.record import RetrievalReport, write_json
from sediment.logs import configure
from sediment.settings import Settings

bench_app = typer.Typer(
    no_args_is_help=True,
    help="Benchmarks: LoCoMo retrieval, generic retrieval, knowledge updates, report.",
)
console = Console(width=None if sys.stdout.isatty() else 140)
err = Console(stderr=True)

EmbedderName = Literal["static", "minilm", "hash"]
EmbedderOpt = Annotated[EmbedderName, typer.Option(help="embedder for the run")]
NoJson = Annotated[bool, typer.Option("--no-json", help="print only; write no JSON")]
MISSING_EXTRA = "the benchmarks need the bench extra: pip install 'sediment-memory[bench]'"


def bench_settings(embedder: EmbedderName) -> Settings:
    """The process's settings (SEDIMENT_* tuning applies) with the run's embedder."""
    try:
        settings = Settings(embedder=embedder, log_level="WARNING")
    except pydantic.ValidationError as exc:
        err.print(f"[red]invalid settings[/red]: {exc}")
        raise typer.Exit(2) from None
    configure(settings.log_format, settings.log_level)
    return settings


def _require_extra(module: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError:
        err.print(f"[red]{MISSING_EXTRA}[/red]")
        raise typer.Exit(2) from None


def _print_retrieval(report: RetrievalReport) -> None:
    from bench.tables import category_ratio_table, comparison_table, system_table

    for system in report["systems"]:
        console.print(system_table(report, system))
    console.print(comparison_table(report))
    console.print(category_ratio_table(report))
    console.print("counts: " + ", ".join(f"{k} {v}" for k, v in report["counts"].items()))


def _run_retrieval(bs: BenchSet, benchmark: str, embedder: EmbedderName, out: Path | None) -> None:
    from bench.runner import run_retrieval

    settings = bench_settings(embedder)
    err.print(
        f"{len(bs.events)} events in {len(bs.banks)} banks, {len(bs.queries)} queries "
        f"(+{len(bs.adversarial)} adversarial, reported apart)"
    )
    start = time.perf_counter()
    report = run_retrieval(bs, benchmark, settings, err)
    report["wall_time_s"]["total"] = round(time.perf_counter() - start, 2)
    _print_retrieval(report)
    if out:
        write_json(out, report)
        console.print(f"wrote {out}")


@bench_app.command()
def locomo(
    path: Annotated[
        Path, typer.Option(help="a file in the official LoCoMo format", exists=True, dir_okay=False)
    ],
    conversations: Annotated[
        str | None,
        typer.Option(help="comma-separated sample ids, e.g. conv-26,conv-30 (default: all)"),
    ] = None,
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/locomo.json"
    ),
    no_json: NoJson = False,
) -> None:
    """LoCoMo retrieval: Sediment vs dense, BM25 and RRF over the same stored memories."""
    _require_extra("bm25s")
    from bench.locomo import load_locomo

    wanted = [c.strip() for c in conversations.split(",") if c.strip()] if conversations else None
    try:
        bs = load_locomo(path, wanted)
    except (ValueError, KeyError) as exc:
        err.print(f"[red]cannot read {path}[/red]: {exc}")
        raise typer.Exit(2) from None
    _run_retrieval(bs, "locomo", embedder, None if no_json else json_out)


@bench_app.command()
def retrieval(
    dataset: Annotated[
        Path,
        typer.Option(help="generic retrieval JSON (BENCHMARKS.md §2)", exists=True, dir_okay=False),
    ],
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path | None, typer.Option("--json", help="write the JSON here")] = None,
) -> None:
    """Generic retrieval dataset: same metrics and baselines as `locomo`."""
    _require_extra("bm25s")
    from bench.dataset import load_generic

    try:
        bs = load_generic(dataset)
    except (ValueError, pydantic.ValidationError) as exc:
        err.print(f"[red]cannot read {dataset}[/red]: {exc}")
        raise typer.Exit(2) from None
    _run_retrieval(bs, "retrieval", embedder, json_out)


@bench_app.command()
def updates(
    path: Annotated[
        Path | None,
        typer.Option(help="scenarios (default: the shipped dev set)", exists=True, dir_okay=False),
    ] = None,
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/updates.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Knowledge updates: current state after in-order, shuffled and duplicated delivery."""
    from bench.tables import failures_table, updates_table
    from bench.updates import default_path, load_updates, run_updates

    source = path or default_path()
    try:
        data = load_updates(source)
    except (ValueError, pydantic.ValidationError) as exc:
        err.print(f"[red]cannot read {source}[/red]: {exc}")
        raise typer.Exit(2) from None
    start = time.perf_counter()
    report = run_updates(data, source.name, bench_settings(embedder), err)
    report["wall_time_s"]["total"] = round(time.perf_counter() - start, 2)
    console.print(updates_table(report))
    if report["failures"]:
        console.print(failures_table(report))
    if not no_json:
        write_json(json_out, report)
        console.print(f"wrote {json_out}")


@bench_app.command()
def report(
    results: Annotated[Path, typer.Option(help="folder of result JSON")] = Path("bench/results"),
    docs: Annotated[Path, typer.Option(help="where the page and plot go")] = Path("docs"),
) -> None:
    """Write docs/benchmarks.md and docs/recall_at_k.png from the result JSON files."""
    _require_extra("matplotlib")
    from bench.report import write_report

    try:
        written = write_report(results, docs)
    except FileNotFoundError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from None
    for p in written:
        console.print(f"wrote {p}")
