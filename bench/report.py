"""`sediment-bench report`: docs/benchmarks.md and docs/recall_at_k.png from
bench/results/*.json. No figure in the page is typed by hand."""

import json
from pathlib import Path
from typing import Any, cast

from bench.record import (
    Figures,
    MergesReport,
    RetrievalReport,
    ScaleReport,
    StaleReport,
    SupersessionReport,
    SystemFigures,
    UpdateFailure,
    UpdatesReport,
    now_iso,
)
from bench.report_scale import GROWTH_PLOT, SCALE_KINDS, plot_growth
from bench.report_scale import section as scale_section
from bench.scoring import KS, METRICS
from bench.tables import SHORT, fmt

PLOT_NAME = "recall_at_k.png"
RETRIEVAL = ("locomo", "retrieval")
TITLES = {"locomo": "LoCoMo", "realmem": "RealMem", "beam-100k-dev": "BEAM"}
"""Section titles of known datasets; any other dataset is titled by its own name."""
HEADLINE = ("recall@10", "budget_recall@200")
RELIABILITY = "reliability.json"
PAGE_ORDER = (
    "locomo",
    "realmem",
    "beam",
    "locomo_minilm",
    "realmem_minilm",
    "beam_minilm",
    "stale_beam",
    "stale_beam_500k",
    "stale_beam_minilm",
    "stale_beam_500k_minilm",
    "supersession",
    "supersession_before",
    "updates_corpus",
    "merges_dev",
    "merges_test",
    "merges_dev_minilm",
    "merges_test_minilm",
    "merges_before_dev",
    "merges_before_test",
    "merges_before_dev_minilm",
    "merges_before_test_minilm",
    "updates",
    "ingest",
    "ingest_cli",
    "scale",
    "lag",
    "memory",
)
"""Quality first, then scale; result files not named here follow in name order."""


def page_order(path: Path) -> tuple[int, str]:
    stem = path.stem
    return (PAGE_ORDER.index(stem) if stem in PAGE_ORDER else len(PAGE_ORDER), stem)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]], numeric: bool = True) -> list[str]:
    align = ["---"] + ["---:" if numeric else "---"] * (len(header) - 1)
    return [_row(header), _row(align), *(_row(r) for r in rows), ""]


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _provenance(report: RetrievalReport | UpdatesReport, source: str) -> list[str]:
    m, v = report["machine"], report["versions"]
    settings = ", ".join(f"{k}={val}" for k, val in report["settings"].items())
    packages = ", ".join(f"{k} {val}" for k, val in v.items())
    return [
        f"Source `{source}`, dataset `{report['dataset']}`, run {report['date']}, "
        f"{m.get('cpu_count')} CPUs, {m.get('platform')}, Python {m.get('python')}.",
        "",
        f"Versions: {packages}.",
        "",
        f"Settings: {settings}.",
        "",
        "Wall time (s): "
        + ", ".join(f"{k} {val}" for k, val in report["wall_time_s"].items())
        + ".",
        "",
    ]


def _systems_table(per_system: dict[str, Figures], ratios: dict[str, float | None]) -> list[str]:
    rows = [[name, *(fmt(m, f[m]) for m in METRICS)] for name, f in per_system.items()]
    if ratios:
        rows.append(["sediment / best baseline", *(_ratio(ratios.get(m)) for m in METRICS)])
    return _table(["system", *(SHORT[m] for m in METRICS)], rows)


def dataset_title(report: RetrievalReport) -> str:
    key = "locomo" if report["benchmark"] == "locomo" else report["dataset"]
    return TITLES.get(key, key)


def embedder_of(report: RetrievalReport) -> str:
    return str(report["settings"].get("embedder", "static"))


def section_title(report: RetrievalReport) -> str:
    embedder = embedder_of(report)
    named = "" if embedder == "static" else f", embedder {embedder}"
    return f"{dataset_title(report)} retrieval{named}"


BELOW_MARGIN = 0.02
"""A category counts against Sediment in the summary when its recall@10 is below the
best baseline's by more than this (the ranking issue's bar)."""


def _best(figures: dict[str, Figures], metric: str) -> tuple[str, float]:
    return max(((n, f[metric]) for n, f in figures.items() if n != "sediment"), key=lambda p: p[1])


def below_best(systems: dict[str, SystemFigures], margin: float = 0.0) -> list[str]:
    """The categories where Sediment's recall@10 is below the best baseline's by more than
    `margin`."""
    out = []
    for category, mine in systems["sediment"]["by_category"].items():
        others = {n: s["by_category"][category] for n, s in systems.items()}
        if mine["recall@10"] < _best(others, "recall@10")[1] - margin - 1e-9:
            out.append(category)
    return out


def summary_table(reports: list[RetrievalReport]) -> list[str]:
    """One row per retrieval run (dataset and embedder): Sediment beside its best same-run
    baseline on recall@10, budget recall@200 and MRR, its p50 as a multiple of RRF's, and
    how many categories fall below the best baseline (by any amount, and by more than
    `BELOW_MARGIN`)."""
    rows = []
    for report in reports:
        systems = report["systems"]
        overall = {n: s["overall"] for n, s in systems.items()}
        mine = overall["sediment"]
        row = [dataset_title(report), embedder_of(report)]
        for metric in ("recall@10", "budget_recall@200", "mrr"):
            best, value = _best(overall, metric)
            row += [f"{mine[metric]:.3f}", f"{value:.3f} ({best})", f"{mine[metric] - value:+.3f}"]
        p50, rrf = mine["latency_p50_ms"], overall.get("rrf", {}).get("latency_p50_ms")
        row += [f"{p50:.1f}", f"{p50 / rrf:.1f}x" if rrf else "-"]
        n = len(systems["sediment"]["by_category"])
        below, far = below_best(systems), below_best(systems, BELOW_MARGIN)
        row.append(f"{len(below)} of {n} ({len(far)} by > {BELOW_MARGIN})")
        rows.append(row)
    header = ["dataset", "embedder", "R@10", "best baseline R@10", "difference", "BR@200",
              "best baseline BR@200", "difference", "MRR", "best baseline MRR", "difference",
              "p50 ms", "p50 / RRF's", "categories below the best baseline"]  # fmt: skip
    return _table(header, rows)


def headline_table(systems: dict[str, SystemFigures]) -> list[str]:
    """Per group (overall, each category): Sediment beside the best same-run baseline,
    on recall@10 and budget recall@200."""
    groups: list[tuple[str, dict[str, Figures]]] = [
        ("overall", {n: s["overall"] for n, s in systems.items()})
    ]
    for category in systems["sediment"]["by_category"]:
        groups.append((category, {n: s["by_category"][category] for n, s in systems.items()}))
    rows = []
    for name, figures in groups:
        row = [name]
        for metric in HEADLINE:
            mine = figures["sediment"][metric]
            best, value = max(
                ((n, f[metric]) for n, f in figures.items() if n != "sediment"),
                key=lambda p: p[1],
            )
            row += [f"{mine:.3f}", f"{value:.3f} ({best})", f"{mine - value:+.3f}"]
        rows.append(row)
    header = ["group"]
    for metric in HEADLINE:
        short = SHORT[metric]
        header += [f"sediment {short}", f"best baseline {short}", "difference"]
    return _table(header, rows)


def retrieval_section(report: RetrievalReport, source: str, plot: str | None) -> list[str]:
    counts = report["counts"]
    lines = [f"## {section_title(report)} (`{report['benchmark']}`)", ""]
    lines += ["### Sediment against the best same-run baseline", ""]
    lines += headline_table(report["systems"])
    lines += _provenance(report, source)
    lines.append("Counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".")
    lines += ["", f"### Overall ({counts.get('queries', 0)} queries, adversarial excluded)", ""]
    systems = report["systems"]
    lines += _systems_table(
        {n: s["overall"] for n, s in systems.items()}, report["ratios"]["overall"]
    )
    for category in systems["sediment"]["by_category"]:
        n = counts.get(f"queries_{category}", 0)
        lines += [f"### {category} ({n} queries)", ""]
        lines += _systems_table(
            {name: s["by_category"][category] for name, s in systems.items()},
            report["ratios"].get(category, {}),
        )
    if report["adversarial"]:
        lines += [f"### adversarial, reported apart ({counts.get('adversarial', 0)} queries)", ""]
        lines += _systems_table(report["adversarial"], {})
    lines += ["### Diagnostics", ""]
    keys = sorted({k for d in report["diagnostics"].values() for k in d})
    lines += _table(
        ["system", *keys],
        [[n, *(str(d.get(k, "-")) for k in keys)] for n, d in report["diagnostics"].items()],
    )
    if plot:
        lines += [f"![recall@k, sediment vs baselines]({plot})", ""]
    return lines


def failure_rows(failures: list[UpdateFailure]) -> list[list[str]]:
    """One row per distinct failure; the runs it happened in are listed together."""
    runs: dict[tuple[str, ...], list[str]] = {}
    for f in failures:
        row = (
            f["scenario"],
            f["query"],
            f["top1"].replace("|", "\\|"),
            "yes" if f["top1_ok"] else "no",
            ", ".join(
                [*f["superseded_in_top5"], *(f"lost: {x}" for x in f.get("current_lost", []))]
            ),
        )
        runs.setdefault(row, []).append(f["run"])
    return [[" + ".join(r), *row] for row, r in runs.items()]


def updates_title(report: UpdatesReport) -> str:
    """The shipped dev set's section keeps its title; another scenario file, or another
    embedder, is named in it."""
    named = [] if report["dataset"] == "updates_dev.json" else [report["dataset"]]
    embedder = report["settings"].get("embedder", "static")
    if embedder != "static":
        named.append(f"embedder {embedder}")
    return "Knowledge updates (`updates`" + "".join(f", {n}" for n in named) + ")"


def updates_section(report: UpdatesReport, source: str) -> list[str]:
    lines = [f"## {updates_title(report)}", "", *_provenance(report, source)]
    lines.append(
        f"{report['scenarios']} scenarios, {report['queries']} queries, "
        f"{report['queries_with_absent']} of them with superseded fragments"
        + (
            f", {report['queries_with_current']} no-change controls (kept_current: the "
            "memory no change replaced is in the top 5, unmarked)."
            if report.get("queries_with_current")
            else "."
        )
    )
    lines.append("")
    lines += _table(
        ["metric", "file order", "shuffled + 30% duplicates"],
        [
            [
                "top1_current",
                f"{report['top1_current']:.3f}",
                f"{report['shuffled_top1_current']:.3f}",
            ],
            [
                "superseded_free_top5",
                f"{report['superseded_free_top5']:.3f}",
                f"{report['shuffled_superseded_free_top5']:.3f}",
            ],
            *(
                [
                    [
                        "kept_current",
                        f"{report.get('kept_current', 0.0):.3f}",
                        f"{report.get('shuffled_kept_current', 0.0):.3f}",
                    ]
                ]
                if report.get("queries_with_current")
                else []
            ),
            ["identical_after_shuffle", "", str(report["identical_after_shuffle"]).lower()],
        ],
    )
    if report["failures"]:
        lines += ["Failures (runs: where the query failed):", ""]
        lines += _table(
            ["runs", "scenario", "query", "top 1", "top 1 ok", "superseded in top 5"],
            failure_rows(report["failures"]),
            numeric=False,
        )
    return lines


def plot_recall(report: RetrievalReport, out: Path) -> None:
    """Grouped bars: recall@5/10/20 of each system, overall (Agg backend, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    systems = list(report["systems"])
    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    width = 0.8 / len(systems)
    for i, name in enumerate(systems):
        values = [report["systems"][name]["overall"][f"recall@{k}"] for k in KS]
        xs = [j + i * width for j in range(len(KS))]
        bars = ax.bar(xs, values, width, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks([j + width * (len(systems) - 1) / 2 for j in range(len(KS))])
    ax.set_xticklabels([f"recall@{k}" for k in KS])
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of evidence turns covered")
    ax.set_title(f"{report['dataset']}: categories 1-4, {report['counts'].get('queries', 0)} q")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def _load(path: Path) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(path.read_text(encoding="utf-8")))


def write_report(results_dir: Path, docs_dir: Path) -> list[Path]:
    """Every result file in name order; the plot comes from locomo.json when present."""
    files = sorted(results_dir.glob("*.json"), key=page_order)
    if not files:
        raise FileNotFoundError(f"no results in {results_dir}: run `sediment-bench ...` first")
    written: list[Path] = []
    plot: str | None = None
    locomo = results_dir / "locomo.json"
    if locomo.exists():
        plot_recall(cast(RetrievalReport, _load(locomo)), docs_dir / PLOT_NAME)
        plot = PLOT_NAME
        written.append(docs_dir / PLOT_NAME)
    growth: str | None = None
    scale = results_dir / "scale.json"
    if scale.exists() and plot_growth(cast(ScaleReport, _load(scale)), docs_dir / GROWTH_PLOT):
        growth = GROWTH_PLOT
        written.append(docs_dir / GROWTH_PLOT)
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `sediment-bench report` from `{results_dir.as_posix()}/*.json` on "
        f"{now_iso()}. Do not edit by hand: rerun the benchmarks, then the report. "
        "Methodology: `BENCHMARKS.md` (shared docs). Latency figures are single runs on a "
        "noisy 2-core machine; compare systems within one run only.",
        "",
    ]
    retrieval = [
        cast(RetrievalReport, d) for d in map(_load, files) if d.get("benchmark") in RETRIEVAL
    ]
    if retrieval:
        lines += ["## Summary: every dev set against its best same-run baseline", ""]
        lines += summary_table(retrieval)
        lines += [
            "Per dataset and embedder, one run; the sections below give each category and "
            "how the run was made. p50 is compared with RRF's p50 in the same run.",
            "",
        ]
    merges_seen = False
    merges = [cast(MergesReport, d) for d in map(_load, files) if d.get("benchmark") == "merges"]
    for path in files:
        data = _load(path)
        source = f"{results_dir.as_posix()}/{path.name}"
        kind = data.get("benchmark")
        if kind in RETRIEVAL:
            lines += retrieval_section(
                cast(RetrievalReport, data), source, plot if path == locomo else None
            )
        elif kind == "updates":
            lines += updates_section(cast(UpdatesReport, data), source)
        elif kind == "stale":
            from bench.stale_render import stale_section

            lines += stale_section(cast(StaleReport, data), source)
        elif kind == "stale_ab":
            from bench.stale_render import stale_ab_section

            lines += stale_ab_section(data, source)
        elif kind == "supersession":
            from bench.supersession import supersession_section

            lines += supersession_section(cast(SupersessionReport, data), source)
        elif kind == "updates_corpus":
            from bench.updates_corpus import corpus_section

            lines += corpus_section(cast(SupersessionReport, data), source)
        elif kind == "merges":
            from bench.merges.render import merges_section, summary

            if not merges_seen:
                lines += summary(merges)
                merges_seen = True
            lines += merges_section(cast(MergesReport, data), source)
        elif kind in SCALE_KINDS:
            lines += scale_section(cast(ScaleReport, data), source, growth)
        elif kind == "ingest_cli":
            from bench.ingest_cli import section as ingest_cli_section

            lines += ingest_cli_section(data, source)
        elif kind == "tracing_cost":
            from bench.tracing_cost import tracing_section

            lines += tracing_section(data, source)
        elif kind == "mcp_payloads":
            from bench.mcp_payloads import mcp_section

            lines += mcp_section(data, source)
        elif kind == "forget_rules":
            from bench.forget_rules_cost import forget_rules_section

            lines += forget_rules_section(data, source)
        elif kind == "chains":
            from bench.chain_cost import chains_section

            lines += chains_section(data, source)
        elif kind is None and path.name == RELIABILITY:
            continue  # the fault suite writes its own page, docs/reliability.md
        else:
            lines += [f"## {path.name}", "", f"Not rendered: benchmark `{kind}`.", ""]
    out = docs_dir / "benchmarks.md"
    docs_dir.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    written.insert(0, out)
    return written
