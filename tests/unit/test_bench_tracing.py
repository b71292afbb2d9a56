"""`sediment-bench tracing` on a tiny bank: both sides timed over the same recalls, the
traced side really traced, and the report section says what was measured."""

from pathlib import Path

from bench.tracing_cost import run_tracing_cost, runtime, tracing_section


def test_the_traced_side_traces_and_the_other_does_not(tmp_path: Path) -> None:
    on, off = runtime("on", tmp_path / "on"), runtime("off", tmp_path / "off")
    try:
        assert on.tracer.enabled and not off.tracer.enabled
    finally:
        for rt in (on, off):
            rt.close()
        assert on.traced is not None
        on.traced.shutdown()


def test_a_run_reports_both_sides_and_their_ratio() -> None:
    report = run_tracing_cost(["off", "on"], memories=20, recalls=6, runs=1, say=lambda _: None)
    assert set(report["median"]) == {"off_p50_ms", "on_p50_ms", "off_cpu_p50_ms", "on_cpu_p50_ms"}
    assert report["on_over_off"] == round(
        report["median"]["on_p50_ms"] / report["median"]["off_p50_ms"], 3
    )
    section = "\n".join(tracing_section(report, "bench/results/tracing.json"))
    assert "| tracing on, every trace sampled |" in section
    assert f"on / off, same process: {report['on_over_off']} wall" in section
