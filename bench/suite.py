"""A speed or scale report as it is built: provenance first (machine, versions, the
load average when the run started), then one case per configuration, each with
every run's figures and their medians; the load average again at the end."""

import time
from collections.abc import Mapping, Sequence

from bench.latency import Figures, load_average, median_runs
from bench.record import (
    PACKAGES,
    SERVICE_PACKAGES,
    ScaleCase,
    ScaleReport,
    Setting,
    machine,
    now_iso,
    versions,
)


def new_report(
    benchmark: str, settings: Mapping[str, Setting], notes: Sequence[str] = ()
) -> ScaleReport:
    return ScaleReport(
        benchmark=benchmark,
        machine=machine(),
        versions=versions(PACKAGES + SERVICE_PACKAGES),
        settings=dict(settings),
        date=now_iso(),
        load_average={"start": load_average()},
        notes=list(notes),
        cases=[],
        wall_time_s={},
    )


def case(name: str, params: Mapping[str, Setting], runs: Sequence[Figures]) -> ScaleCase:
    return ScaleCase(name=name, params=dict(params), runs=list(runs), median=median_runs(runs))


def finish(report: ScaleReport, started: float) -> ScaleReport:
    """`started`: `time.perf_counter()` when the benchmark began."""
    report["load_average"]["end"] = load_average()
    report["wall_time_s"]["total"] = round(time.perf_counter() - started, 1)
    return report
