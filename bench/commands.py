"""`sediment-bench ...`: benchmarks as the CLI runs them (methodology: BENCHMARKS.md).

The bench modules are imported inside each command: they need the `bench` extra
(bm25s, matplotlib), which the rest of the CLI does not.
"""

import importlib
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Literal

import pydantic
import typer
from rich.console import Console

from bench.dataset import BenchSet
from bench.merges.cli import merges as merges_command
from bench.record import RetrievalReport, ScaleReport, write_json
from sediment.logs import configure
from sediment.settings import Settings

app = typer.Typer(
    no_args_is_help=True,
    help="Benchmarks: LoCoMo retrieval, generic retrieval, stale values, knowledge updates, "
    "supersession precision, merges, MCP payloads, report.",
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


@app.command()
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


@app.command()
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


@app.command()
def stale(
    dataset: Annotated[
        Path,
        typer.Option(help="generic retrieval JSON (BENCHMARKS.md §2)", exists=True, dir_okay=False),
    ],
    stale_path: Annotated[
        Path,
        typer.Option(
            "--stale",
            help="per knowledge-update query: stale_ids (replaced value) and gold_ids",
            exists=True,
            dir_okay=False,
        ),
    ],
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path | None, typer.Option("--json", help="write the JSON here")] = None,
) -> None:
    """Stale values: the updated turn above every stale turn, and stale turns in the top 5
    marked, for each knowledge update of a retrieval dataset."""
    from bench.dataset import load_generic
    from bench.stale import load_stale, run_stale
    from bench.stale_render import console_tables

    try:
        bs = load_generic(dataset)
    except (ValueError, pydantic.ValidationError) as exc:
        err.print(f"[red]cannot read {dataset}[/red]: {exc}")
        raise typer.Exit(2) from None
    try:
        chosen, counts = load_stale(stale_path, bs)
    except (ValueError, pydantic.ValidationError) as exc:
        err.print(f"[red]cannot read {stale_path}[/red]: {exc}")
        raise typer.Exit(2) from None
    err.print(
        f"{len(bs.events)} events in {len(bs.banks)} banks, {len(chosen)} knowledge updates "
        "with a replaced value"
    )
    start = time.perf_counter()
    report = run_stale(bs, chosen, counts, bench_settings(embedder), err)
    report["wall_time_s"]["total"] = round(time.perf_counter() - start, 2)
    for table in console_tables(report):
        console.print(table)
    if json_out:
        write_json(json_out, report)
        console.print(f"wrote {json_out}")


@app.command()
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
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")


@app.command()
def supersession(
    path: Annotated[
        list[Path] | None,
        typer.Option(help="labelled banks (default: the shipped dev and test halves)"),
    ] = None,
    embedder: EmbedderOpt = "static",
    rule: Annotated[str, typer.Option(help="a name for the rule measured, kept in the JSON")] = (
        "same subject + attribute, new value"
    ),
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/supersession.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Supersession precision: recall, precision and false-supersession rate of updates."""
    from bench.supersession import (
        default_paths,
        load_supersession,
        roles_table,
        run_supersession,
        split_table,
    )

    files = []
    for source in path or default_paths():
        try:
            files.append((source.name, load_supersession(source)))
        except (OSError, ValueError, pydantic.ValidationError) as exc:
            err.print(f"[red]cannot read {source}[/red]: {exc}")
            raise typer.Exit(2) from None
    start = time.perf_counter()
    report = run_supersession(files, bench_settings(embedder), err, rule)
    report["wall_time_s"]["total"] = round(time.perf_counter() - start, 2)
    for name, split in report["splits"].items():
        console.print(split_table(name, split, rule))
    console.print(roles_table(report))
    if not no_json:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")


@app.command("updates-corpus")
def updates_corpus(
    path: Annotated[
        list[Path] | None,
        typer.Option(help="corpus files (default: the shipped dev and test halves)"),
    ] = None,
    embedder: EmbedderOpt = "static",
    rule: Annotated[str, typer.Option(help="a name for the rule measured, kept in the JSON")] = (
        "frame and value"
    ),
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/updates_corpus.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Independent update corpus: supersession per phrasing family, dev and test halves."""
    from bench.supersession import load_supersession, run_supersession
    from bench.updates_corpus import default_paths, family_table

    files = []
    for source in path or default_paths():
        try:
            files.append((source.name, load_supersession(source)))
        except (OSError, ValueError, pydantic.ValidationError) as exc:
            err.print(f"[red]cannot read {source}[/red]: {exc}")
            raise typer.Exit(2) from None
    start = time.perf_counter()
    report = run_supersession(files, bench_settings(embedder), err, rule)
    report["benchmark"] = "updates_corpus"
    report["wall_time_s"]["total"] = round(time.perf_counter() - start, 2)
    for name, split in report["splits"].items():
        console.print(family_table(name, split))
    if not no_json:
        write_json(json_out, report)
        console.print(f"wrote {json_out}")


app.command("merges")(merges_command)


@app.command()
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


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s.replace("_", "").strip()) for s in text.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        err.print(f"[red]--sizes {text!r}[/red]: comma-separated positive counts, e.g. 1000,10000")
        raise typer.Exit(2)
    return sizes


def _write_scale(report: ScaleReport, out: Path | None) -> None:
    from bench.tables import scale_table

    console.print(scale_table(report))
    if out is not None:
        write_json(out, report)
        console.print(f"wrote {out}")


Runs = Annotated[int, typer.Option(min=1, max=20, help="runs per configuration (medians)")]


@app.command()
def ingest(
    sizes: Annotated[str, typer.Option(help="events in one bank, comma-separated")] = "1000,10000",
    large_from: Annotated[
        int, typer.Option(help="sizes from here are run once, embedded and one worker only")
    ] = 5000,
    banks: Annotated[int, typer.Option(min=0, help="a many-bank case: this many banks")] = 100,
    per_bank: Annotated[int, typer.Option(min=1, help="events per bank, many-bank case")] = 10,
    runs: Runs = 3,
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/ingest.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Ingest events/s, publish to visible: embedded and standalone, beside the same-run
    floor (embedding plus raw upserts, no consolidation)."""
    from bench.ingest_rate import EMBEDDED, STANDALONE, Shape, run_ingest

    every = (EMBEDDED, STANDALONE["1"], STANDALONE["1x2"])
    large = (EMBEDDED, STANDALONE["1"])
    shapes = [
        Shape(1, n, 1, large) if n >= large_from else Shape(1, n, runs, every)
        for n in _sizes(sizes)
    ]
    if banks:
        shapes.append(Shape(banks, per_bank, runs, every))
    report = run_ingest(shapes, bench_settings(embedder), err)
    _write_scale(report, None if no_json else json_out)


@app.command()
def scale(
    sizes: Annotated[str, typer.Option(help="memories in one bank, comma-separated")] = (
        "1000,10000,100000"
    ),
    consolidate_up_to: Annotated[
        int, typer.Option(help="sizes up to this are consolidated; larger: raw upserts")
    ] = 1000,
    also_raw: Annotated[
        bool, typer.Option(help="also load the consolidated sizes raw, to compare")
    ] = True,
    queries: Annotated[int, typer.Option(min=10, help="queries per run")] = 200,
    runs: Runs = 3,
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/scale.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Recall p50/p95/p99 by bank size, in-process and over HTTP, beside the same-run
    floor; RSS of serve and of a worker."""
    from bench.scale import Size, run_scale

    wanted = []
    for n in _sizes(sizes):
        if n <= consolidate_up_to:
            wanted.append(Size(n, True))
        if n > consolidate_up_to or also_raw:
            wanted.append(Size(n, False))
    report = run_scale(wanted, runs, queries, bench_settings(embedder), err)
    _write_scale(report, None if no_json else json_out)


@app.command()
def lag(
    clients: Annotated[int, typer.Option(min=0, max=200, help="recall clients")] = 20,
    seconds: Annotated[float, typer.Option(min=5, help="seconds of retains per run")] = 60,
    fraction: Annotated[float, typer.Option(min=0.05, max=2, help="share of capacity")] = 0.5,
    preload: Annotated[int, typer.Option(min=10, help="memories in the bank first")] = 1000,
    slots: Annotated[
        str, typer.Option(help="SEDIMENT_SERVE_RECALL_SLOTS values to compare (0: no limit)")
    ] = "0,2",
    runs: Runs = 3,
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/lag.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Publish-to-visible lag p50/p95 of retains through a standalone serve at a share
    of its capacity, while clients recall from it over HTTP."""
    from bench.lag import LagPlan, run_lag

    plan = LagPlan(preload, clients, seconds, fraction, runs)
    choices = [int(s) for s in slots.split(",") if s.strip()]
    report = run_lag(plan, choices, bench_settings(embedder), err)
    _write_scale(report, None if no_json else json_out)


@app.command()
def memory(
    checkpoints: Annotated[
        str, typer.Option(help="recall counts at which RSS is read, comma-separated")
    ] = "10000,50000",
    clients: Annotated[int, typer.Option(min=1, max=100, help="HTTP clients")] = 8,
    memories: Annotated[int, typer.Option(min=10, help="memories in the bank")] = 1000,
    label: Annotated[str, typer.Option(help="what was measured (for the report)")] = "current",
    embedder: EmbedderOpt = "static",
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/memory.json"
    ),
    no_json: NoJson = False,
) -> None:
    """RSS of an embedded `sediment serve` after N recalls over HTTP (flat: within 10%)."""
    from bench.memory import run_memory

    points = sorted(_sizes(checkpoints))
    report = run_memory(points, clients, memories, bench_settings(embedder), err)
    report["settings"]["code"] = label
    _write_scale(report, None if no_json else json_out)


@app.command()
def tracing(
    memories: Annotated[int, typer.Option(min=10, help="memories in the bank")] = 2000,
    recalls: Annotated[int, typer.Option(min=10, help="recalls per side and run")] = 400,
    runs: Annotated[int, typer.Option(min=1, max=20)] = 3,
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/tracing.json"
    ),
    no_json: NoJson = False,
    baseline: Annotated[
        Path | None,
        typer.Option(help="a checkout without tracing: also time 'off' there against here"),
    ] = None,
) -> None:
    """Recall p50 with tracing off and on (every trace sampled), the same run, medians
    of runs (needs the otel extra)."""
    _require_extra("opentelemetry.sdk.trace")
    from bench.tracing_cost import run_tracing_cost, tracing_section

    configure("console", "WARNING")
    report = run_tracing_cost(["off", "on"], memories, recalls, runs, err.print, baseline)
    console.print("\n".join(tracing_section(report, str(json_out))))
    if not no_json:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")


@app.command()
def mcp(
    runs: Annotated[int, typer.Option(min=1, max=20)] = 3,
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/mcp.json"
    ),
    no_json: NoJson = False,
    baseline: Annotated[
        Path | None,
        typer.Option(help="another checkout: run its `sediment mcp` too, alternating"),
    ] = None,
) -> None:
    """What an agent pays for the stdio MCP server: `initialize` time, the tool list's
    bytes, recall's text and whole answer against the memory text shown, tool errors."""
    from bench.mcp_payloads import run_payloads, summary

    report = run_payloads(runs, baseline, err.print)
    console.print("\n".join(summary(report)))
    if not no_json:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")


@app.command("forget-rules")
def forget_rules(
    forgets: Annotated[int, typer.Option(min=1, help="past filter forgets in the bank")] = 3000,
    batches: Annotated[int, typer.Option(min=2, help="single-event batches per side")] = 200,
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/forget_rules.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Retain batch p50 in a bank after many forgets, rules kept for good against pruned."""
    from bench.forget_rules_cost import forget_rules_section, run_forget_rules_cost

    configure("console", "WARNING")
    report = run_forget_rules_cost(forgets, batches, err.print)
    console.print("\n".join(forget_rules_section(report, str(json_out))))
    if not no_json:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")


@app.command()
def chains(
    keys: Annotated[int, typer.Option(min=1, help="keys in each bank")] = 100,
    changes: Annotated[
        int, typer.Option(min=2, help="states of each key in the chained bank")
    ] = 100,
    runs: Annotated[int, typer.Option(min=1, max=20)] = 3,
    json_out: Annotated[Path, typer.Option("--json", help="where to write the JSON")] = Path(
        "bench/results/chains.json"
    ),
    no_json: NoJson = False,
) -> None:
    """Current-state recall p50 on a bank whose keys each changed many times against the
    same bank with one state per key, the same run, medians of runs."""
    from bench.chain_cost import chains_section, run_chain_cost

    configure("console", "WARNING")
    report = run_chain_cost(keys, changes, runs, err.print)
    console.print("\n".join(chains_section(report, str(json_out))))
    if not no_json:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")
