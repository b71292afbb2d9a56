"""`sediment-bench chains` on tiny banks: both banks timed over the same questions, the
newest version found first in each, and the report section gives the ratio; the
benchmarks page renders the section from its JSON."""

import json
from pathlib import Path

from bench.chain_cost import chains_section, run_chain_cost
from bench.report import write_report


def test_a_run_times_both_banks_and_reports_their_ratio(tmp_path: Path) -> None:
    report = run_chain_cost(keys=3, changes=6, runs=1, say=lambda _: None)
    assert set(report["p50_ms"]) == {"one_state", "chained"}
    assert report["head_first"] == {"one_state": 1.0, "chained": 1.0}
    assert report["ratio"] == round(report["p50_ms"]["chained"] / report["p50_ms"]["one_state"], 3)
    section = "\n".join(chains_section(report, "bench/results/chains.json"))
    assert "| 6 states per key |" in section
    assert f"chained / one state: {report['ratio']}" in section
    results = tmp_path / "results"
    results.mkdir()
    (results / "chains.json").write_text(json.dumps(report), encoding="utf-8")
    write_report(results, tmp_path / "docs")
    page = (tmp_path / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "## Long supersession chains against one state per key (`chains`)" in page
