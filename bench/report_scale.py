"""The speed, cost and scale sections of docs/benchmarks.md (`ingest`, `scale`, `lag`,
`memory` results) and the growth plot, from their JSON. No figure is typed by hand."""

from pathlib import Path

from bench.record import ScaleCase, ScaleReport

SCALE_KINDS = ("ingest", "scale", "lag", "memory")
GROWTH_PLOT = "scale_growth.png"
TITLES = {
    "ingest": "Ingest rate, publish to visible (`ingest`)",
    "scale": "Recall latency by bank size (`scale`)",
    "lag": "Consolidation lag under recall load (`lag`)",
    "memory": "Serve memory under sustained recall (`memory`)",
}


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(header) - 1)
    return [_row(header), _row(align), *(_row(r) for r in rows), ""]


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:g}"


def provenance(report: ScaleReport, source: str) -> list[str]:
    m, la = report["machine"], report["load_average"]
    packages = ", ".join(f"{k} {v}" for k, v in report["versions"].items())
    settings = ", ".join(f"{k}={v}" for k, v in report["settings"].items())
    return [
        f"Source `{source}`, run {report['date']}, {m.get('cpu_count')} CPUs, "
        f"{m.get('platform')}, Python {m.get('python')}. Load average (1, 5, 15 min) at "
        f"start {la.get('start')}, at end {la.get('end')}; wall time "
        f"{report['wall_time_s'].get('total')} s.",
        "",
        f"Versions: {packages}.",
        "",
        f"Settings: {settings}.",
        "",
        *(f"- {note}" for note in report["notes"]),
        "",
    ]


def figures_table(cases: list[ScaleCase], keys: list[str]) -> list[str]:
    """A row per figure, a column per case: medians, with the run count in the header."""
    header = ["figure (median)", *(f"{c['name']} ({len(c['runs'])} runs)" for c in cases)]
    rows = [[k, *(_num(c["median"].get(k)) for c in cases)] for k in keys]
    return _table(header, rows)


def _keys(cases: list[ScaleCase]) -> list[str]:
    return list(dict.fromkeys(k for c in cases for k in c["median"]))


def _params(cases: list[ScaleCase]) -> list[str]:
    out = []
    for c in cases:
        if c["params"]:
            out.append(f"- {c['name']}: " + ", ".join(f"{k} {v}" for k, v in c["params"].items()))
    return [*out, ""] if out else []


def section(report: ScaleReport, source: str, plot: str | None) -> list[str]:
    kind = report["benchmark"]
    cases = report["cases"]
    lines = [f"## {TITLES.get(kind, kind)}", "", *provenance(report, source)]
    lines += _params(cases)
    lines += figures_table(cases, _keys(cases))
    if plot and kind == "scale":
        lines += [f"![how recall latency and memory grow with the bank]({plot})", ""]
    return lines


def _series(report: ScaleReport, key: str, load: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for c in report["cases"]:
        if c["params"].get("load") == load and key in c["median"]:
            xs.append(float(str(c["params"]["memories"])))
            ys.append(c["median"][key])
    return xs, ys


def plot_growth(report: ScaleReport, out: Path) -> bool:
    """Recall p50/p95 in-process, over HTTP and the floor, by bank size (log-log), and
    serve's RSS; False when the report has fewer than two sizes of one kind of load."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    loads = [str(c["params"].get("load")) for c in report["cases"]]
    load = max(set(loads), key=loads.count) if loads else ""
    if len(_series(report, "recall_p50_ms", load)[0]) < 2:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=120)
    for key, label in (
        ("recall_p50_ms", "recall p50 (in-process)"),
        ("recall_p95_ms", "recall p95 (in-process)"),
        ("http_p50_ms", "recall p50 (HTTP)"),
        ("cold_recall_p50_ms", "first recalls p50 (in-process)"),
        ("floor_p50_ms", "floor p50"),
        ("exact_floor_p50_ms", "exact floor p50"),
    ):
        xs, ys = _series(report, key, load)
        left.plot(xs, ys, marker="o", label=label)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("memories in the bank")
    left.set_ylabel("ms")
    left.legend(fontsize=8)
    left.set_title(f"latency ({load})", fontsize=9)
    for key, label in (("serve_rss_mb", "serve RSS"), ("worker_peak_rss_mb", "worker peak RSS")):
        xs, ys = _series(report, key, load)
        right.plot(xs, ys, marker="o", label=label)
    right.set_xscale("log")
    right.set_xlabel("memories in the bank")
    right.set_ylabel("MB")
    right.legend(fontsize=8)
    right.set_title("resident memory", fontsize=9)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return True
