"""Supersession precision: does consolidation replace only what a newer value replaces?

Each labelled bank (bench/data/supersession_{dev,test}.json, written by
`bench/supersession_gen.py`) is retained into its own bank of a fresh embedded store, one
event per `consolidate` call in the file's (shuffled) order, as `sediment.retain.v1` tasks
would; then every raw memory's `superseded_by` is compared with the labels
(`bench/supersession_score.py`).
"""

import json
import tempfile
import time
import uuid
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.dataset import BENCH_NAMESPACE
from bench.record import (
    SupersessionError,
    SupersessionFigures,
    SupersessionReport,
    SupersessionSplit,
    machine,
    now_iso,
    versions,
)
from bench.supersession_score import (
    Judged,
    LabelledBank,
    SupersessionFile,
    cueless,
    figures,
    grouped,
    judge,
)
from contracts.events import RetainEvent
from readmodel.store import Filter, MemoryStore
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from worker.consolidation.relations import memory_id

RAW_KINDS = ("world", "experience")
SPLITS = ("dev", "test")


def default_paths() -> list[Path]:
    data = resources.files("bench").joinpath("data")
    return [Path(str(data.joinpath(f"supersession_{split}.json"))) for split in SPLITS]


def load_supersession(path: Path) -> SupersessionFile:
    data = SupersessionFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    ids = [s.id for b in data.banks for s in b.statements]
    if len(ids) != len(set(ids)):
        raise ValueError(f"statement ids repeat in {path}")
    known = set(ids)
    dangling = [
        s.id for b in data.banks for s in b.statements if s.superseded_by not in {None, *known}
    ]
    if dangling:
        raise ValueError(f"superseded_by names unknown statements in {path}: {dangling[:5]}")
    return data


def bank_id(bank: LabelledBank) -> str:
    return f"sup-{bank.id}"


def event_id(bank: LabelledBank, statement_id: str) -> uuid.UUID:
    return uuid.uuid5(BENCH_NAMESPACE, f"supersession\x1f{bank.id}\x1f{statement_id}")


def bank_events(bank: LabelledBank) -> list[RetainEvent]:
    """What a producer sends: the text, the event time and the named people, nothing else."""
    return [
        RetainEvent(
            event_id=event_id(bank, s.id),
            bank_id=bank_id(bank),
            text=s.text,
            occurred_at=s.occurred_at,
            entities=s.entities,
        )
        for s in bank.statements
    ]


def superseded(store: MemoryStore, bank: LabelledBank) -> dict[str, tuple[str | None, str | None]]:
    """Statement id -> (the statement that superseded it, the stored reason), from the store."""
    by_memory = {memory_id(bank_id(bank), event_id(bank, s.id)): s.id for s in bank.statements}
    out: dict[str, tuple[str | None, str | None]] = {}
    for point in store.scroll(Filter(bank_id(bank), kinds=RAW_KINDS)):
        r = point.record
        by = by_memory.get(r.superseded_by) if r.superseded_by else None
        out[by_memory[r.id]] = (by, getattr(r, "supersession_reason", None))
    return out


def run_split(
    data: SupersessionFile, settings: Settings, progress: Progress
) -> tuple[list[Judged], dict[str, str | None]]:
    """One fresh embedded store for the file; every bank retained, then read back."""
    judged: list[Judged] = []
    reasons: dict[str, str | None] = {}
    task = progress.add_task(f"supersession ({data.split or data.name})", total=len(data.banks))
    with tempfile.TemporaryDirectory(prefix="sediment-bench-supersession-") as tmp:
        rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": Path(tmp)}))
        try:
            for bank in data.banks:
                for event in bank_events(bank):
                    rt.publisher.publish_retain([event])
                found = superseded(rt.store, bank)
                judged += judge(bank.statements, {k: v[0] for k, v in found.items()})
                reasons.update({k: v[1] for k, v in found.items()})
                progress.advance(task)
        finally:
            rt.close()
    return judged, reasons


def split_figures(data: SupersessionFile, dataset: str, judged: list[Judged]) -> SupersessionSplit:
    by_id = {s.id: s for b in data.banks for s in b.statements}
    return {
        "dataset": dataset,
        "banks": len(data.banks),
        "statements": len(by_id),
        "overall": figures(judged),
        "by_attribute": grouped(judged, "attribute"),
        "by_role": grouped(judged, "role"),
        "by_family": grouped(judged, "family"),
        "cueless_updates": figures(cueless(judged, by_id)),
        "held_out_phrasings": figures(j for j in judged if j.statement.held_out),
    }


def errors(
    split: str, data: SupersessionFile, judged: Sequence[Judged], reasons: dict[str, str | None]
) -> list[SupersessionError]:
    by_id = {s.id: s for b in data.banks for s in b.statements}
    out: list[SupersessionError] = []
    for j in judged:
        if j.verdict in ("found", "kept"):
            continue
        s = j.statement
        out.append(
            {
                "split": split,
                "verdict": j.verdict,
                "statement": s.id,
                "text": s.text,
                "attribute": s.attribute,
                "role": s.role,
                "superseded_by": j.predicted_by,
                "superseder_text": by_id[j.predicted_by].text if j.predicted_by else None,
                "expected": s.superseded_by,
                "reason": reasons.get(s.id),
            }
        )
    return out


def run_supersession(
    files: Sequence[tuple[str, SupersessionFile]],
    settings: Settings,
    progress_console: Console,
    rule: str,
) -> SupersessionReport:
    wall: dict[str, float] = {}
    splits: dict[str, SupersessionSplit] = {}
    found_errors: list[SupersessionError] = []
    with Progress(console=progress_console) as progress:
        for dataset, data in files:
            name = data.split or dataset
            start = time.perf_counter()
            judged, reasons = run_split(data, settings, progress)
            wall[name] = round(time.perf_counter() - start, 2)
            splits[name] = split_figures(data, dataset, judged)
            found_errors += errors(name, data, judged, reasons)
    return {
        "benchmark": "supersession",
        "rule": rule,
        "splits": splits,
        "errors": found_errors,
        "machine": machine(),
        "versions": versions(),
        "settings": {
            "embedder": settings.embedder,
            "merge_threshold": settings.merge_threshold,
            "delivery": "one event per consolidate call, in the file's arrival order",
            "producer_fields": "text, occurred_at, entities",
        },
        "date": now_iso(),
        "wall_time_s": wall,
    }


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _row(table: Table, name: str, f: SupersessionFigures, style: str | None = None) -> None:
    table.add_row(
        name,
        str(f["should_supersede"]),
        str(f["superseded"]),
        str(f["found"]),
        _pct(f["precision"]),
        _pct(f["recall"]),
        f"{f['false']}/{f['should_stay']}",
        _pct(f["false_supersession_rate"]),
        style=style,
    )


def split_table(name: str, split: SupersessionSplit, rule: str) -> Table:
    """Per attribute type, overall, cue-less updates and held-out phrasings."""
    table = Table(
        title=f"supersession {name} ({split['banks']} banks, {split['statements']} statements; "
        f"rule: {rule})",
        title_justify="left",
    )
    for col in ("attribute", "gold", "superseded", "found", "precision", "recall", "false"):
        table.add_column(col, justify="left" if col == "attribute" else "right")
    table.add_column("FSR", justify="right")
    for attribute, f in split["by_attribute"].items():
        _row(table, attribute, f)
    _row(table, "overall", split["overall"], "bold")
    _row(table, "cue-less updates", split["cueless_updates"], "dim")
    if split["held_out_phrasings"]["should_supersede"] or split["held_out_phrasings"]["false"]:
        _row(table, "held-out phrasings", split["held_out_phrasings"], "dim")
    return table


def roles_table(report: SupersessionReport) -> Table:
    table = Table(title="false supersessions by role", title_justify="left")
    table.add_column("role")
    for name in report["splits"]:
        table.add_column(f"{name} false/stay", justify="right")
    roles = sorted({r for s in report["splits"].values() for r in s["by_role"]})
    for role in roles:
        cells = []
        for split in report["splits"].values():
            f = split["by_role"].get(role)
            cells.append("-" if f is None else f"{f['false']}/{f['should_stay']}")
        table.add_row(role, *cells)
    return table


def supersession_section(report: SupersessionReport, source: str) -> list[str]:
    """Markdown for `sediment-bench report`: per split, per attribute type, then by role."""
    lines = [f"## Supersession precision (`supersession`, rule: {report['rule']})", ""]
    lines.append(
        f"Source `{source}`, run {report['date']}; settings: "
        + ", ".join(f"{k}={v}" for k, v in report["settings"].items())
        + "."
    )
    lines.append("")
    header = "| attribute | gold | superseded | found | precision | recall | false | FSR |"
    for name, split in report["splits"].items():
        lines += [
            f"### {name} ({split['banks']} banks, {split['statements']} statements)",
            "",
            header,
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        rows = [
            *split["by_attribute"].items(),
            ("**overall**", split["overall"]),
            ("cue-less updates", split["cueless_updates"]),
        ]
        if split["held_out_phrasings"]["should_supersede"]:
            rows.append(("held-out phrasings", split["held_out_phrasings"]))
        for attribute, f in rows:
            lines.append(
                f"| {attribute} | {f['should_supersede']} | {f['superseded']} | {f['found']} | "
                f"{_pct(f['precision'])} | {_pct(f['recall'])} | {f['false']}/{f['should_stay']} "
                f"| {_pct(f['false_supersession_rate'])} |"
            )
        lines.append("")
    return lines
