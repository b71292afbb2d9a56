"""`sediment-bench merges` and `python -m bench.merges`: one half of the merge
benchmark, both deliveries, tables on the terminal and the JSON report."""

import sys
import time
from pathlib import Path
from typing import Annotated, Literal

import pydantic
import typer
from rich.console import Console
from rich.progress import Progress

from bench.merges.data import Split, default_path, load_merges, of_split
from bench.record import write_json
from sediment.logs import configure
from sediment.settings import Settings

console = Console(width=None if sys.stdout.isatty() else 140)
err = Console(stderr=True)
EmbedderName = Literal["static", "minilm", "hash"]


def default_json(split: str, embedder: str) -> Path:
    named = "" if embedder == "static" else f"_{embedder}"
    return Path(f"bench/results/merges_{split}{named}.json")


def merges(
    split: Annotated[Split, typer.Option(help="which half of the pairs")] = "dev",
    embedder: Annotated[EmbedderName, typer.Option(help="embedder for the run")] = "static",
    path: Annotated[
        Path | None,
        typer.Option(help="labelled pairs (default: bench/data/merges.json)", dir_okay=False),
    ] = None,
    json_out: Annotated[
        Path | None,
        typer.Option(
            "--json",
            help="where to write the JSON (default: bench/results/"
            "merges_<split>[_<embedder>].json)",
        ),
    ] = None,
    no_json: Annotated[bool, typer.Option("--no-json", help="print only; write no JSON")] = False,
) -> None:
    """Merges: false merges and hidden facts of distinct pairs, merged restatements,
    in order and shuffled with every event delivered twice."""
    from bench.merges.render import mode_tables
    from bench.merges.run import DELIVERIES, run_merges

    source = path or default_path()
    try:
        data = load_merges(source)
        settings = Settings(embedder=embedder, log_level="WARNING")
    except (OSError, ValueError, pydantic.ValidationError) as exc:
        err.print(f"[red]cannot run merges on {source}[/red]: {exc}")
        raise typer.Exit(2) from None
    configure(settings.log_format, settings.log_level)
    pairs = of_split(data, split)
    start = time.perf_counter()
    with Progress(console=err) as progress:
        task = progress.add_task(f"merges {split}", total=2 * len(pairs) * len(DELIVERIES))
        report = run_merges(
            pairs, source.name, split, settings, lambda n: progress.advance(task, n)
        )
    report["wall_time_s"]["total"] = round(time.perf_counter() - start, 2)
    for mode in report["modes"]:
        for table in mode_tables(report, mode):
            console.print(table)
    if not no_json:
        out = json_out or default_json(split, embedder)
        write_json(out, report)
        console.print(f"wrote {out}")


def main() -> None:
    typer.run(merges)
