"""The merge benchmark's terminal tables and its section of docs/benchmarks.md."""

from rich.table import Table

from bench.record import DistinctFigures, MergeError, MergeMode, MergesReport, RestatementFigures

DISTINCT_COLUMNS = (
    "pairs", "false merges", "FMR", "hidden", "hidden rate", "hidden 1st", "hidden 2nd",
    "superseded",
)  # fmt: skip
RESTATEMENT_COLUMNS = ("pairs", "merged", "merge rate", "superseded")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def distinct_cells(f: DistinctFigures) -> list[str]:
    return [
        str(f["pairs"]),
        str(f["false_merges"]),
        _pct(f["false_merge_rate"]),
        f"{f['hidden']}/{f['statements']}",
        _pct(f["hidden_rate"]),
        str(f["hidden_first"]),
        str(f["hidden_second"]),
        str(f["superseded"]),
    ]


def restatement_cells(f: RestatementFigures) -> list[str]:
    return [str(f["pairs"]), str(f["merged"]), _pct(f["merge_rate"]), str(f["superseded"])]


def _title(report: MergesReport, mode: str) -> str:
    return f"merges {report['split']} ({report['settings']['embedder']}), {mode}"


def mode_tables(report: MergesReport, mode: str) -> list[Table]:
    figures = report["modes"][mode]
    distinct = Table(title=f"{_title(report, mode)}: distinct facts", title_justify="left")
    distinct.add_column("family")
    for col in DISTINCT_COLUMNS:
        distinct.add_column(col, justify="right")
    for family, f in figures["distinct_by_family"].items():
        distinct.add_row(family, *distinct_cells(f))
    distinct.add_row("overall", *distinct_cells(figures["overall"]["distinct"]), style="bold")
    same = Table(title=f"{_title(report, mode)}: restatements", title_justify="left")
    same.add_column("family")
    for col in RESTATEMENT_COLUMNS:
        same.add_column(col, justify="right")
    for family, r in figures["restatement_by_family"].items():
        same.add_row(family, *restatement_cells(r))
    same.add_row("overall", *restatement_cells(figures["overall"]["restatement"]), style="bold")
    return [distinct, same]


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|---|" + "---:|" * (len(header) - 1),
        *("| " + " | ".join(r) + " |" for r in rows),
        "",
    ]


def _mode_md(figures: MergeMode) -> list[str]:
    distinct = [[f, *distinct_cells(d)] for f, d in figures["distinct_by_family"].items()]
    distinct.append(["**overall**", *distinct_cells(figures["overall"]["distinct"])])
    same = [[f, *restatement_cells(r)] for f, r in figures["restatement_by_family"].items()]
    same.append(["**overall**", *restatement_cells(figures["overall"]["restatement"])])
    return [
        *_md_table(["distinct family", *DISTINCT_COLUMNS], distinct),
        *_md_table(["restatement family", *RESTATEMENT_COLUMNS], same),
    ]


def _cell(text: str | None) -> str:
    return "" if text is None else text.replace("|", "\\|")


def error_rows(errors: list[MergeError], kind: str) -> list[list[str]]:
    """One row per pair and verdict; the deliveries it happened in are joined."""
    modes: dict[tuple[str, ...], list[str]] = {}
    for e in errors:
        if e["kind"] != kind:
            continue
        key = (e["pair"], e["verdict"], e["first"], e["second"], e["observation"] or "")
        modes.setdefault(key, []).append(e["mode"])
    return [[" + ".join(m), *(_cell(c) for c in key)] for key, m in modes.items()]


INTRO = [
    "## Merges (`merges`)",
    "",
    "Does consolidation merge restatements, and only them? `bench/data/merges.json` holds "
    "hand-written pairs of statements, each labelled by family and split into a dev and a "
    "test half: distinct-fact pairs (two different facts: another subject, possessor, kin "
    "or role, swapped arguments, another qualifier, object, number, date or time, a "
    "negation, another tense, lower-case or digit subjects, accented names), each "
    "statement with its own query; and restatements (one fact in other words). Each pair "
    "is retained into a bank of its own of a fresh embedded store, the second statement "
    "a day later in event time, with the project's real consolidation and embedder. "
    "A distinct pair is **falsely merged** when one observation holds both memories; a "
    "distinct statement is **hidden** when its query (limit 10, observations preferred, "
    "the default) returns neither its memory nor an observation with its text. A "
    "restatement is **merged** when one observation holds both. A statement can also be "
    "hidden because the other superseded it (counted under `superseded`): for some "
    "negation, tense, date and swapped pairs a reader may call that an update, never a "
    "merge. Two deliveries: "
    "`in_order`, and `shuffled_duplicated` (the second statement first, each delivered "
    "twice). Run with `sediment-bench merges --split dev|test [--embedder minilm]` (or "
    "`python -m bench.merges`).",
    "",
]


def _share(count: int, total: int, rate: float | None) -> str:
    return f"{count}/{total} ({_pct(rate)})"


def summary(reports: list[MergesReport]) -> list[str]:
    """What the benchmark measures, then one row per run (half and embedder): the in-order
    figures, and whether the shuffled, duplicated delivery gave the same ones."""
    rows = []
    for r in reports:
        mine = r["modes"]["in_order"]
        d, same = mine["overall"]["distinct"], mine["overall"]["restatement"]
        agree = all(
            m["overall"] == mine["overall"]
            and m["distinct_by_family"] == mine["distinct_by_family"]
            for m in r["modes"].values()
        )
        rows.append(
            [
                r["split"],
                str(r["settings"]["embedder"]),
                str(r["settings"].get("code", "-")),
                _share(d["false_merges"], d["pairs"], d["false_merge_rate"]),
                _share(d["hidden"], d["statements"], d["hidden_rate"]),
                _share(same["merged"], same["pairs"], same["merge_rate"]),
                "yes" if agree else "no",
            ]
        )
    header = ["half", "embedder", "measured at", "false merges (FMR)", "hidden statements",
              "restatements merged", "shuffled + duplicated: same figures"]  # fmt: skip
    return [*INTRO, *_md_table(header, rows)]


def merges_section(report: MergesReport, source: str) -> list[str]:
    """Markdown for `sediment-bench report`: per delivery, per family, then the errors
    on distinct pairs (false merges and hidden facts) and the restatements left apart."""
    s = report["settings"]
    lines = [
        f"### Merges, {report['split']} half, embedder {s['embedder']}, measured at "
        f"{s.get('code', 'unknown code')}",
        "",
        f"Source `{source}`, dataset `{report['dataset']}`, run {report['date']}; "
        f"{report['pairs']['distinct']} distinct-fact pairs, "
        f"{report['pairs']['restatement']} restatements; settings: "
        + ", ".join(f"{k}={v}" for k, v in s.items())
        + "; wall time (s): "
        + ", ".join(f"{k} {v}" for k, v in report["wall_time_s"].items())
        + ". FMR: false-merge rate; hidden 1st/2nd: hidden statements that came first or "
        "second in event time; superseded: pairs where one memory superseded the other.",
        "",
    ]
    for mode, figures in report["modes"].items():
        lines += [f"#### {mode}: {figures['delivery']}", "", *_mode_md(figures)]
    wrong = error_rows(report["errors"], "distinct")
    if wrong:
        lines += ["Distinct pairs merged or hidden:", ""]
        header = ["deliveries", "pair", "verdict", "first", "second", "merged into"]
        lines += [
            "| " + " | ".join(header) + " |",
            "|---" * len(header) + "|",
            *("| " + " | ".join(r) + " |" for r in wrong),
            "",
        ]
    apart = error_rows(report["errors"], "restatement")
    if apart:
        lines += ["Restatements not merged:", ""]
        header = ["deliveries", "pair", "verdict", "first", "second"]
        lines += [
            "| " + " | ".join(header) + " |",
            "|---" * len(header) + "|",
            *("| " + " | ".join(r[:-1]) + " |" for r in apart),
            "",
        ]
    return lines
