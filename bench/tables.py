"""Terminal tables of benchmark reports (rich)."""

from rich.table import Table

from bench.record import Figures, RetrievalReport, ScaleReport, UpdatesReport
from bench.scoring import LATENCY_METRICS, METRICS

SHORT = {
    "recall@5": "R@5",
    "recall@10": "R@10",
    "recall@20": "R@20",
    "budget_recall@200": "BR@200",
    "budget_recall@400": "BR@400",
    "mrr": "MRR",
    "latency_p50_ms": "p50 ms",
    "latency_p95_ms": "p95 ms",
}


def fmt(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if metric in LATENCY_METRICS else f"{value:.3f}"


def system_table(report: RetrievalReport, system: str) -> Table:
    """One system: a row per category, overall, and adversarial apart."""
    counts = report["counts"]
    table = Table(title=f"{report['benchmark']}: {system}", title_justify="left")
    table.add_column("category")
    table.add_column("n", justify="right")
    for m in METRICS:
        table.add_column(SHORT[m], justify="right")
    figures = report["systems"][system]
    rows: list[tuple[str, int, Figures]] = [
        (c, counts.get(f"queries_{c}", 0), f) for c, f in figures["by_category"].items()
    ]
    rows.append(("overall", counts.get("queries", 0), figures["overall"]))
    if system in report["adversarial"]:
        rows.append(
            ("adversarial (apart)", counts.get("adversarial", 0), report["adversarial"][system])
        )
    for name, n, f in rows:
        style = "bold" if name == "overall" else ("dim" if "adversarial" in name else None)
        table.add_row(name, str(n), *(fmt(m, f[m]) for m in METRICS), style=style)
    return table


def comparison_table(report: RetrievalReport) -> Table:
    """Overall figures side by side and Sediment's ratio to the best baseline."""
    table = Table(
        title=f"{report['benchmark']}: sediment / best baseline (overall, adversarial excluded)",
        title_justify="left",
    )
    systems = list(report["systems"])
    table.add_column("metric")
    for s in systems:
        table.add_column(s, justify="right")
    table.add_column("ratio", justify="right")
    ratios = report["ratios"]["overall"]
    for m in METRICS:
        ratio = ratios.get(m)
        table.add_row(
            m,
            *(fmt(m, report["systems"][s]["overall"][m]) for s in systems),
            "-" if ratio is None else f"{ratio:.3f}",
        )
    return table


def category_ratio_table(report: RetrievalReport) -> Table:
    table = Table(title="sediment / best baseline per category", title_justify="left")
    table.add_column("category")
    shown = [m for m in METRICS if m not in LATENCY_METRICS]
    for m in shown:
        table.add_column(SHORT[m], justify="right")
    for category, ratios in report["ratios"].items():
        table.add_row(category, *("-" if ratios[m] is None else f"{ratios[m]:.3f}" for m in shown))
    return table


def updates_table(report: UpdatesReport) -> Table:
    table = Table(
        title=f"updates: {report['scenarios']} scenarios, {report['queries']} queries "
        f"({report['queries_with_absent']} with superseded fragments)",
        title_justify="left",
    )
    table.add_column("metric")
    table.add_column("file order", justify="right")
    table.add_column("shuffled + 30% duplicates", justify="right")
    table.add_row(
        "top1_current", f"{report['top1_current']:.3f}", f"{report['shuffled_top1_current']:.3f}"
    )
    table.add_row(
        "superseded_free_top5",
        f"{report['superseded_free_top5']:.3f}",
        f"{report['shuffled_superseded_free_top5']:.3f}",
    )
    if report.get("queries_with_current"):
        table.add_row(
            "kept_current",
            f"{report.get('kept_current', 0.0):.3f}",
            f"{report.get('shuffled_kept_current', 0.0):.3f}",
        )
    table.add_row("identical_after_shuffle", "", str(report["identical_after_shuffle"]))
    return table


def failures_table(report: UpdatesReport) -> Table:
    table = Table(title="failures", title_justify="left")
    for col in ("run", "scenario", "query", "top 1", "ok", "expected", "superseded in top 5"):
        table.add_column(col, overflow="fold")
    for f in report["failures"]:
        table.add_row(
            f["run"],
            f["scenario"],
            f["query"],
            f["top1"],
            "yes" if f["top1_ok"] else "no",
            ", ".join(f["expected"]),
            ", ".join(
                [*f["superseded_in_top5"], *(f"lost: {x}" for x in f.get("current_lost", []))]
            ),
        )
    return table


def scale_table(report: ScaleReport) -> Table:
    """Medians of each case's runs: a row per figure, a column per case."""
    table = Table(
        title=f"{report['benchmark']}: medians (load average {report['load_average']})",
        title_justify="left",
    )
    cases = report["cases"]
    keys = list(dict.fromkeys(k for c in cases for k in c["median"]))
    table.add_column("figure")
    for c in cases:
        table.add_column(f"{c['name']} ({len(c['runs'])} runs)", justify="right")
    for k in keys:
        table.add_row(k, *(f"{c['median'][k]:g}" if k in c["median"] else "-" for c in cases))
    return table
