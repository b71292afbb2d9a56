"""The pure parts of the speed and scale benchmarks: the event generator is
deterministic, the percentile / median / ratio arithmetic, and the JSON shape that
`sediment-bench report` renders."""

import json
import os
import time
from datetime import timedelta
from pathlib import Path

import pytest

from bench.lag import Timeline
from bench.latency import floor_of, latency_figures, median_runs, percentile, ratio
from bench.procs import rss_mb
from bench.record import write_json
from bench.report import write_report
from bench.report_scale import section
from bench.scale import recall_seconds
from bench.suite import case, finish, new_report
from bench.workload import after, events, queries


def test_the_same_seed_gives_the_same_events() -> None:
    first, again = list(events(3, 50)), list(events(3, 50))
    assert first == again
    assert len({e.event_id for e in first}) == 150
    assert {e.bank_id for e in first} == {"bench-000", "bench-001", "bench-002"}
    assert [e.text for e in events(3, 50, seed=8)] != [e.text for e in first]
    assert queries(3, 20) == queries(3, 20)


def test_a_longer_run_starts_with_the_same_event_ids() -> None:
    """Event ids depend on seed, bank and position only, not on the size."""
    small, large = list(events(1, 100)), list(events(1, 400))
    assert [e.event_id for e in small] == [e.event_id for e in large[:100]]


def test_a_stream_from_where_the_last_ended_continues_its_timeline() -> None:
    """Live traffic: a later stream starts where the earlier one ended (the generator
    delivers at most ten hours out of order either way); from the default start it
    would be a backfill of the same span."""
    jitter = timedelta(hours=10)
    first = list(events(1, 200))
    later = list(events(1, 200, seed=8, start=after(200)))
    assert max(e.occurred_at for e in first) <= after(200) + jitter
    assert min(e.occurred_at for e in later) >= after(200) - jitter
    assert min(e.occurred_at for e in events(1, 200, seed=8)) < after(20)
    timeline = Timeline()
    a, b = timeline.events(50, seed=1), timeline.events(50, seed=2)
    assert timeline.end == after(100)
    assert min(e.occurred_at for e in b) >= after(50) - jitter
    assert {e.event_id for e in a}.isdisjoint({e.event_id for e in b})


@pytest.mark.parametrize(
    ("samples", "q", "expected"),
    [
        ([1.0], 50, 1.0),
        ([1.0, 2.0, 3.0, 4.0], 50, 2.5),
        ([1.0, 2.0, 3.0, 4.0, 5.0], 95, 4.8),
        ([5.0, 1.0, 3.0], 0, 1.0),
        ([5.0, 1.0, 3.0], 100, 5.0),
    ],
)
def test_percentile_interpolates_between_ranks(
    samples: list[float], q: float, expected: float
) -> None:
    assert percentile(samples, q) == pytest.approx(expected)


def test_percentile_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_latency_figures_are_milliseconds() -> None:
    figures = latency_figures([0.001 * i for i in range(1, 101)], "recall_")
    assert figures == {"recall_p50_ms": 50.5, "recall_p95_ms": 95.05, "recall_p99_ms": 99.01}


def test_ratio_and_medians_of_runs() -> None:
    assert ratio(30.0, 10.0) == 3.0
    assert ratio(1.0, 0.0) is None
    runs = [{"a": 1.0, "b": 9.0}, {"a": 3.0}, {"a": 2.0, "b": 7.0}]
    assert median_runs(runs) == {"a": 2.0, "b": 8.0}
    assert floor_of(runs) == {"a": 1.0, "b": 7.0}


def scale_report() -> dict[str, object]:
    report = new_report("scale", {"embedder": "hash"}, ["a note"])
    for n, p50 in ((1000, 10.0), (10000, 20.0)):
        runs = [
            {"recall_p50_ms": p50 + i, "http_p50_ms": 2 * p50, "floor_p50_ms": 1.0}
            for i in range(3)
        ]
        params = {"memories": n, "load": "raw upserts marked consolidated"}
        report["cases"].append(case(f"{n} memories", params, runs))
    return dict(finish(report, time.perf_counter()))


def test_a_scale_report_has_provenance_runs_and_medians(tmp_path: Path) -> None:
    report = scale_report()
    assert {"benchmark", "machine", "versions", "settings", "date", "load_average"} <= set(report)
    assert {"start", "end"} <= set(report["load_average"])  # type: ignore[arg-type]
    assert {"qdrant-edge-py", "celery", "redis"} <= set(report["versions"])  # type: ignore[arg-type]
    first = report["cases"][0]  # type: ignore[index]
    assert len(first["runs"]) == 3 and first["median"]["recall_p50_ms"] == 11.0
    path = tmp_path / "results" / "scale.json"
    write_json(path, report)  # type: ignore[arg-type]
    assert json.loads(path.read_text())["cases"][1]["median"]["http_p50_ms"] == 40.0


def test_report_renders_scale_results_and_the_growth_plot(tmp_path: Path) -> None:
    results, docs = tmp_path / "results", tmp_path / "docs"
    write_json(results / "scale.json", scale_report())  # type: ignore[arg-type]
    written = write_report(results, docs)
    assert docs / "scale_growth.png" in written
    page = (docs / "benchmarks.md").read_text()
    assert "Recall latency by bank size" in page
    assert "| recall_p50_ms | 11 | 21 |" in page
    assert "a note" in page


def test_a_section_names_every_case_with_its_run_count() -> None:
    lines = section(scale_report(), "x.json", None)  # type: ignore[arg-type]
    assert any("1000 memories (3 runs)" in line for line in lines)


def test_the_page_puts_quality_before_scale_and_unknown_files_last() -> None:
    from bench.report import page_order

    names = ["memory", "zeta", "ingest", "updates", "locomo", "scale", "alpha", "realmem"]
    ordered = [p.stem for p in sorted((Path(f"{n}.json") for n in names), key=page_order)]
    assert ordered == [
        "locomo",
        "realmem",
        "updates",
        "ingest",
        "scale",
        "memory",
        "alpha",
        "zeta",
    ]


def test_resident_memory_is_reported_with_what_it_is_made_of() -> None:
    ballast = bytearray(64 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])
    figures = rss_mb(os.getpid())
    assert figures["anon_mb"] > 64
    assert figures["anon_mb"] + figures["file_mb"] == pytest.approx(figures["rss_mb"], abs=1)
    assert figures["pss_mb"] <= figures["rss_mb"] <= figures["peak_rss_mb"]
    del ballast


def test_a_large_bank_has_as_many_subjects_as_documented_each_named_in_full() -> None:
    """About 40 subjects per 1,000 events at any size (a bank of 10,000 events is not
    the same few hundred lives told over and over), each event naming its subject's
    full name, which its text starts with."""
    stream = list(events(1, 10_000))
    subjects = {e.entities[0] for e in stream}
    assert len(subjects) == 400
    assert all(len(e.entities) == 1 and e.text.startswith(e.entities[0]) for e in stream)
    assert all(len(name.split()) == 2 for name in subjects)


def test_serves_recall_time_is_read_from_server_timing() -> None:
    assert recall_seconds("recall;dur=4.250") == pytest.approx(0.00425)
    for bad in ("", "db;dur=3", "recall"):
        with pytest.raises(RuntimeError, match="Server-Timing"):
            recall_seconds(bad)
