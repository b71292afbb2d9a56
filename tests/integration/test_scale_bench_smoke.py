"""Short runs of the scale benchmarks (`sediment-bench ingest`, `scale`, `lag`) on real
processes: each starts its own Redis (append-only, as workers require), real
`sediment worker` or `sediment serve` processes, and must see every event visible.
The figures are not checked here; they live in docs/benchmarks.md."""

from pathlib import Path

import pytest
from rich.console import Console

from bench.ingest_rate import EMBEDDED, STANDALONE, Shape, embedded_run_fresh, run_ingest
from bench.lag import LagPlan, run_lag
from bench.procs import Started, sediment, wait_until
from bench.scale import Size, run_scale
from bench.workload import events
from sediment.settings import Settings
from worker.consolidation import statements

pytestmark = pytest.mark.integration

SETTINGS = Settings(embedder="hash", log_level="WARNING")


def quiet() -> Console:
    return Console(stderr=True, quiet=True)


def test_ingest_sees_every_event_embedded_and_through_a_real_worker() -> None:
    report = run_ingest([Shape(2, 20, 1, (EMBEDDED, STANDALONE["1"]))], SETTINGS, quiet())
    (run,) = report["cases"][0]["runs"]
    for mode in ("embedded", "standalone_1w"):
        assert run[f"{mode}_done_markers"] == 40, run
        assert run[f"{mode}_eps"] > 0
    assert run["standalone_1w_dead_letters"] == 0


def test_an_embedded_run_starts_from_a_new_process(tmp_path: Path) -> None:
    """Nothing a run caches (text features of the same events) is left for the next."""
    statements._features.cache_clear()
    got = embedded_run_fresh(list(events(1, 12)), SETTINGS, tmp_path)
    assert got["done_markers"] == 12 and got["last_found"] == 1.0
    assert statements._features.cache_info().currsize == 0


def test_scale_measures_recall_in_process_over_http_and_a_worker_rss() -> None:
    report = run_scale([Size(60, True)], 1, 10, SETTINGS, quiet())
    (run,) = report["cases"][0]["runs"]
    for key in ("recall_p50_ms", "http_p50_ms", "floor_p50_ms", "serve_rss_mb", "worker_rss_mb"):
        assert run[key] > 0, (key, run)
    # What HTTP adds, on the same requests: serve's own recall time is part of each trip.
    assert 0 < run["serve_recall_p50_ms"] < run["http_p50_ms"], run
    assert 0 < run["http_around_recall_p50_ms"] < run["http_p50_ms"], run


def test_lag_drains_every_retain_under_recall_load() -> None:
    plan = LagPlan(preload=20, clients=2, seconds=5, fraction=0.5, runs=1)
    report = run_lag(plan, [2], SETTINGS, quiet())
    (run,) = report["cases"][0]["runs"]
    assert run["not_visible"] == 0, run
    assert run["lag_p95_ms"] > 0


def test_a_wait_on_a_process_that_died_fails_at_once_with_its_log(tmp_path: Path) -> None:
    died = sediment(["no-such-command"], {}, tmp_path / "died.log")
    with pytest.raises(RuntimeError, match="exited") as caught:
        wait_until(lambda: False, 60, "nothing", watch=[died])
    assert "No such command" in str(caught.value) or "no-such-command" in str(caught.value)
    assert isinstance(died, Started)
