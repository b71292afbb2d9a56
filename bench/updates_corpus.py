"""The independent update corpus: supersession measured per phrasing family.

The corpus (bench/data/updates_corpus_{dev,test}.json, written by `bench/corpus_gen.py`
apart from the extractor's vocabulary) is retained and scored exactly as the supersession
benchmark does (`bench/supersession.py`); this module adds the per-family figures and
their tables. A family is all on one side of the split, so the test half's families are
phrasings a rule tuned on the dev half never saw.
"""

from importlib import resources
from pathlib import Path

from rich.table import Table

from bench.corpus_families import DISTRACTOR_FAMILIES, UPDATE_FAMILIES
from bench.record import SupersessionFigures, SupersessionReport, SupersessionSplit

SPLITS = ("dev", "test")
KIND = {f.name: "update" for f in UPDATE_FAMILIES} | {
    f.name: "distractor" for f in DISTRACTOR_FAMILIES
}


def default_paths() -> list[Path]:
    data = resources.files("bench").joinpath("data")
    return [Path(str(data.joinpath(f"updates_corpus_{split}.json"))) for split in SPLITS]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _cells(f: SupersessionFigures) -> list[str]:
    return [
        str(f["should_supersede"]),
        str(f["found"]),
        _pct(f["precision"]),
        _pct(f["recall"]),
        f"{f['false']}/{f['should_stay']}",
        _pct(f["false_supersession_rate"]),
    ]


COLUMNS = ("updates", "found", "precision", "recall", "false", "FSR")


def family_table(name: str, split: SupersessionSplit) -> Table:
    """One row per phrasing family (update families first), then overall."""
    table = Table(
        title=f"updates corpus {name} ({split['banks']} banks, {split['statements']} statements)",
        title_justify="left",
    )
    table.add_column("family")
    table.add_column("kind")
    for col in COLUMNS:
        table.add_column(col, justify="right")
    rows = sorted(split["by_family"].items(), key=lambda kv: (KIND.get(kv[0], "?")[0], kv[0]))
    for family, f in rows:
        table.add_row(family, KIND.get(family, "?"), *_cells(f))
    table.add_row("overall", "", *_cells(split["overall"]), style="bold")
    return table


def corpus_section(report: SupersessionReport, source: str) -> list[str]:
    """Markdown: per split, one row per phrasing family, then overall."""
    lines = [f"## Independent update corpus (`updates-corpus`, rule: {report['rule']})", ""]
    lines += [f"Source `{source}`, run {report['date']}.", ""]
    for name, split in report["splits"].items():
        lines += [
            f"### {name} ({split['banks']} banks, {split['statements']} statements)",
            "",
            "| family | kind | " + " | ".join(COLUMNS) + " |",
            "|---|---|" + "---:|" * len(COLUMNS),
        ]
        rows = sorted(split["by_family"].items(), key=lambda kv: (KIND.get(kv[0], "?")[0], kv[0]))
        for family, f in rows:
            lines.append(f"| {family} | {KIND.get(family, '?')} | " + " | ".join(_cells(f)) + " |")
        lines.append("| **overall** | | " + " | ".join(_cells(split["overall"])) + " |")
        lines.append("")
    return lines


def comparison_section(before: SupersessionReport, after: SupersessionReport) -> list[str]:
    """Markdown: per split and phrasing family, the two runs side by side (P, R, FSR)."""
    lines = []
    for name, split in after["splits"].items():
        old = before["splits"][name]
        lines += [
            f"### {name} ({split['banks']} banks, {split['statements']} statements)",
            "",
            "| family | kind | updates | P before | P after | R before | R after "
            "| false before | false after |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        families = sorted(split["by_family"], key=lambda f: (KIND.get(f, "?")[0], f))
        rows = [(f, old["by_family"][f], split["by_family"][f]) for f in families]
        rows.append(("**overall**", old["overall"], split["overall"]))
        for family, a, b in rows:
            lines.append(
                f"| {family} | {KIND.get(family, '')} | {b['should_supersede']} "
                f"| {_pct(a['precision'])} | {_pct(b['precision'])} "
                f"| {_pct(a['recall'])} | {_pct(b['recall'])} "
                f"| {a['false']}/{a['should_stay']} | {b['false']}/{b['should_stay']} |"
            )
        lines.append("")
    return lines
