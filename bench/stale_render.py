"""The stale-value benchmark as tables: the console's and the report page's."""

from typing import Any

from rich.table import Table

from bench.record import StaleReport
from bench.stale import MODES
from bench.stale_score import QueryOutcome, StaleSummary

TITLES = {"beam-100k-dev": "BEAM 100K dev", "beam-500k-dev": "BEAM 500K dev"}


def _count(count: int, total: int, rate: float | None) -> str:
    return f"{count} of {total}" + ("" if rate is None else f" ({rate:.3f})")


def summary_rows(report: StaleReport) -> list[list[str]]:
    """One row per figure, one column per mode."""
    s: dict[str, StaleSummary] = report["summary"]
    rows = [
        [
            "gold turn in the top 10",
            *(f"{s[m]['gold_in_top10']} of {s[m]['queries']}" for m in MODES),
        ],
        [
            "updated turn above every stale turn",
            *(
                _count(
                    s[m]["updated_above_stale"], s[m]["queries"], s[m]["updated_above_stale_rate"]
                )
                for m in MODES
            ),
        ],
        [
            "stale turns in the top 5 all marked (queries)",
            *(
                _count(
                    s[m]["stale_in_top5_marked"],
                    s[m]["queries_stale_in_top5"],
                    s[m]["stale_in_top5_marked_rate"],
                )
                for m in MODES
            ),
        ],
        [
            "stale turns in the top 5: marked / unmarked",
            *(
                f"{s[m]['stale_turns_in_top5_marked']} / {s[m]['stale_turns_in_top5_unmarked']}"
                for m in MODES
            ),
        ],
    ]
    c = report["counts"]
    if "gold_results_marked_outdated" in c:
        rows.append(
            [
                "gold results of every query marked outdated / shown",
                "-",
                f"{c['gold_results_marked_outdated']} / {c['gold_results_shown_present']}",
            ]
        )
    return rows


def _ranks(outcome: QueryOutcome) -> tuple[str, str, str]:
    gold = ", ".join("-" if r is None else str(r) for r in outcome["gold_ranks"].values())
    stale = ", ".join(
        [*(str(h["rank"]) for h in outcome["stale"]), *("-" for _ in outcome["stale_absent"])]
    )
    marks = ", ".join(f"{h['rank']}: {h['mark'] or 'unmarked'}" for h in outcome["stale"])
    return gold, stale, marks or "-"


def query_rows(report: StaleReport) -> list[list[str]]:
    """Per query: gold and stale ranks (`-`: not in the top 10) in each mode, and marks."""
    rows = []
    by_mode = {m: {o["query_id"]: o for o in report["queries"][m]} for m in MODES}
    for qid in by_mode[MODES[0]]:
        row = [qid]
        for m in MODES:
            o = by_mode[m][qid]
            gold, stale, marks = _ranks(o)
            row += [gold, stale, marks, "yes" if o["updated_above_stale"] else "no"]
        rows.append(row)
    return rows


def query_header() -> list[str]:
    header = ["query"]
    for m in MODES:
        header += [f"{m}: gold rank", f"{m}: stale rank", f"{m}: marks", f"{m}: above"]
    return header


def console_tables(report: StaleReport) -> list[Table]:
    summary = Table(title=f"{title(report)}: stale values ({report['counts']['with_stale_turns']} "
                    "knowledge updates with a replaced value)")  # fmt: skip
    summary.add_column("figure")
    for m in MODES:
        summary.add_column(m, justify="right")
    for row in summary_rows(report):
        summary.add_row(*row)
    per_query = Table(title="per query (ranks in the top 10; -: not there)")
    for name in query_header():
        per_query.add_column(name, no_wrap=name == "query")
    for row in query_rows(report):
        per_query.add_row(*row)
    return [summary, per_query]


def title(report: StaleReport) -> str:
    return TITLES.get(report["dataset"], report["dataset"])


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    align = ["---"] * len(header)
    return [_row(header), _row(align), *(_row(r) for r in rows), ""]


def stale_section(report: StaleReport, source: str) -> list[str]:
    embedder = str(report["settings"].get("embedder", "static"))
    named = "" if embedder == "static" else f", embedder {embedder}"
    m, counts = report["machine"], report["counts"]
    settings = ", ".join(f"{k}={v}" for k, v in report["settings"].items())
    lines = [f"## {title(report)} stale values{named} (`stale`)", ""]
    lines += [
        "Knowledge updates whose replaced value the dataset names: does current-state recall "
        "rank the turn with the new value above every turn with the old one, and mark "
        "(`superseded` or `outdated_by`) a stale turn it returns in the top 5? Mode `as_of` "
        "asks as the retrieval bench does (query time as `as_of`); `present` asks without it.",
        "",
    ]
    lines += _table(["figure", *MODES], summary_rows(report))
    lines += [
        f"Source `{source}`, dataset `{report['dataset']}`, run {report['date']}, "
        f"{m.get('cpu_count')} CPUs, {m.get('platform')}, Python {m.get('python')}.",
        "",
        f"Settings: {settings}.",
        "",
        "Counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".",
        "",
        "Wall time (s): " + ", ".join(f"{k} {v}" for k, v in report["wall_time_s"].items()) + ".",
        "",
        "Per query (ranks in the top 10; `-`: not there):",
        "",
    ]
    lines += _table(query_header(), query_rows(report))
    return lines


def stale_ab_section(data: dict[str, Any], source: str) -> list[str]:
    """Two query-time rules over one store (`before`, `after`): present questions."""
    keys = [
        ("updated turn above every stale turn", "updated_above_stale", "queries"),
        ("stale turns in the top 5 marked", "stale_in_top5_marked", "queries_stale_in_top5"),
        (
            "gold results marked outdated",
            "gold_results_marked_outdated",
            "gold_results_shown_present",
        ),
    ]
    before, after = data["before"], data["after"]
    rows = [
        [name, f"{before[n]} of {before[d]}", f"{after[n]} of {after[d]}"] for name, n, d in keys
    ]
    lines = [
        f"## Stale values, two rules on one store (`stale`, {data.get('dataset', '')}, "
        f"embedder {data.get('embedder', '')})",
        "",
        f"Source `{source}`. Both rules ask the same store, built once; before: "
        f"{data.get('before_rule', 'the earlier rule')}.",
        "",
        "| figure | before | after |",
        "| --- | ---: | ---: |",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]
