"""The CLI ingest benchmark's events and page section, and the read-model comparison's
events (bench/ingest_cli.py, bench/identity.py)."""

import json
from pathlib import Path

from bench.identity import PASSAGE_SENTENCES, differences, lines
from bench.ingest_cli import ingest_times, section, states, write_jsonl

CODE = Path(__file__).resolve().parents[2]


def test_the_events_file_is_the_same_for_the_same_arguments(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert write_jsonl(first, 300) == 300
    write_jsonl(second, 300)
    assert first.read_bytes() == second.read_bytes()
    events = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert len({e["event_id"] for e in events}) == 300
    assert all(e["entities"] and e["entities"][0] in e["text"] for e in events)


def test_the_section_gives_each_checkouts_runs_medians_and_ratios() -> None:
    report = {
        "benchmark": "ingest_cli",
        "date": "2026-11-28T05:00:00+00:00",
        "machine": {"cpu_count": 2, "platform": "Linux", "python": "3.11.7"},
        "commits": {"/old": "16cf774", "/new": "abc1234"},
        "runs": 2,
        "events": 20000,
        "embedder": "static",
        "load_start": [1.0, 1.0, 1.0],
        "load_end": [2.0, 2.0, 2.0],
        "eps": {"/old": [250.0, 270.0], "/new": [520.0, 560.0]},
        "median_eps": {"/old": 260.0, "/new": 540.0},
        "ratio_to_first": {"/old": [1.0, 1.0], "/new": [2.08, 2.074]},
        "eps_per_cpu_s": {"/old": [300.0, 310.0], "/new": [640.0, 650.0]},
        "median_eps_per_cpu_s": {"/old": 305.0, "/new": 645.0},
        "cpu_ratio_to_first": {"/old": [1.0, 1.0], "/new": [2.133, 2.097]},
        "states": {
            "/old": {"raw": 20000, "superseded": 7378, "by_another_person": 7148},
            "/new": {"raw": 20000, "superseded": 4912, "by_another_person": 0},
        },
    }
    text = "\n".join(section(report, "bench/results/ingest_cli.json"))
    assert "| before | 16cf774 | 20,000 | 7,378 | 7,148 |" in text
    assert "| /new | abc1234 | 20,000 | 4,912 | 0 |" in text
    assert "| before | 16cf774 | 250.0, 270.0 | 260.0 | 1.00, 1.00 | 305.0 |" in text
    assert "| after | abc1234 | 520.0, 560.0 | 540.0 | 2.08, 2.07 | 645.0 | 2.13, 2.10 |" in text
    assert "20,000 short events" in text


def test_the_comparison_events_hold_restatements_and_long_passages() -> None:
    events = lines(200)
    assert events == lines(200)
    texts = [e["text"] for e in events]
    assert len(texts) - len(set(texts)) > 200  # the same statements said again, later
    longest = max(texts, key=len)
    assert longest.count(".") >= PASSAGE_SENTENCES - 2
    assert len({e["bank_id"] for e in events}) > 100


def test_the_comparison_names_every_field_that_differs() -> None:
    a = {"m1": {"text": "Ana lives in Porto.", "state": "current", "superseded_by": None}}
    b = {"m1": {"text": "Ana lives in Porto.", "state": "superseded", "superseded_by": "m2"}}
    found = differences(a, b)
    assert len(found) == 2 and all(f.startswith("m1 ") for f in found)
    assert differences(a, a) == []
    assert differences(a, {}) == ["only in the first: m1"]


def test_an_ingest_of_the_workload_supersedes_no_one_by_another_person(tmp_path: Path) -> None:
    """`sediment ingest` of 1,500 workload events (people of one first name among them),
    then the stored states as the benchmark counts them."""
    jsonl = tmp_path / "events.jsonl"
    write_jsonl(jsonl, 1500)
    ingest_times(CODE, jsonl, tmp_path / "data", "static")
    found = states(CODE, tmp_path / "data")
    assert found["raw"] == 1500
    assert found["superseded"] > 50
    assert found["by_another_person"] == 0
