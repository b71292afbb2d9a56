"""The knowledge-update benchmark: the scorer alone, then a 2-scenario file end to end."""

import json
import random
import uuid
from pathlib import Path

import pytest
from rich.console import Console

from bench.updates import (
    UpdateQuery,
    default_path,
    judge,
    load_updates,
    run_updates,
    scenario_events,
    shuffled_with_duplicates,
)
from sediment.settings import Settings

Q = UpdateQuery(query="Where does Alice live?", expect_top=["Seattle"], expect_absent=["Boston"])


@pytest.mark.parametrize(
    ("texts", "top1_ok", "found"),
    [
        (["Alice moved to Seattle.", "Alice likes tea."], True, []),
        (["alice moved to SEATTLE."], True, []),
        (["Alice lives in Boston.", "Alice moved to Seattle."], False, ["Boston"]),
        (["Alice moved to Seattle.", "Alice lives in Boston."], True, ["Boston"]),
        (["a", "b", "c", "d", "e", "Alice lives in Boston."], False, []),  # 6th is outside
        ([], False, []),
    ],
)
def test_judge(texts: list[str], top1_ok: bool, found: list[str]) -> None:
    ids = [uuid.uuid4() for _ in texts]
    verdict = judge(texts, ids, Q)
    assert verdict.top1_ok is top1_ok
    assert verdict.superseded_found == found
    assert len(verdict.top_ids) == min(5, len(texts))


def test_a_marked_old_value_in_the_top_5_is_clean() -> None:
    texts = ["Alice moved to Seattle.", "Alice lives in Boston."]
    ids = [uuid.uuid4() for _ in texts]
    assert judge(texts, ids, Q, [False, True]).superseded_found == []
    assert judge(texts, ids, Q, [True, False]).superseded_found == ["Boston"]


TWO = {
    "scenarios": [
        {
            "id": "move",
            "events": [
                {
                    "text": "Alice moved to Seattle.",
                    "occurred_at": "2023-06-01T09:00:00Z",
                    "entities": ["Alice"],
                    "key": "alice.city",
                },
                {
                    "text": "Alice lives in Boston.",
                    "occurred_at": "2022-01-01T09:00:00Z",
                    "entities": ["Alice"],
                    "key": "alice.city",
                },
            ],
            "queries": [
                {
                    "query": "Where does Alice live?",
                    "expect_top": ["Seattle"],
                    "expect_absent": ["Boston"],
                    "query_time": "2023-07-01T00:00:00Z",
                }
            ],
        },
        {
            "id": "control",
            "events": [{"text": "Bob plays the cello.", "occurred_at": "2023-01-01T09:00:00Z"}],
            "queries": [{"query": "What instrument does Bob play?", "expect_top": ["piano"]}],
        },
    ]
}


def test_two_scenarios_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(TWO), encoding="utf-8")
    report = run_updates(
        load_updates(path), path.name, Settings(embedder="static"), Console(quiet=True)
    )
    assert report["queries"] == 2 and report["scenarios"] == 2
    assert report["queries_with_absent"] == 1
    assert report["top1_current"] == 0.5  # the control expects the wrong instrument
    assert report["superseded_free_top5"] == 1.0
    assert report["shuffled_top1_current"] == 0.5
    assert report["identical_after_shuffle"] is True
    assert {(f["scenario"], f["run"]) for f in report["failures"]} == {
        ("control", "file-order"),
        ("control", "shuffled"),
    }
    json.dumps(report)


def test_shuffle_duplicates_thirty_percent_with_a_fixed_seed() -> None:
    data = load_updates(default_path())
    events = [e for s in data.scenarios for e in scenario_events(s)][:10]
    first = shuffled_with_duplicates(events, random.Random(1))
    assert len(first) == 13
    assert {e.event_id for e in first} == {e.event_id for e in events}
    assert first == shuffled_with_duplicates(events, random.Random(1))


def test_shipped_dev_set_is_valid_and_large_enough() -> None:
    data = load_updates(default_path())
    assert len(data.scenarios) >= 40
    assert all(s.queries for s in data.scenarios)


def test_repeated_scenario_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text(json.dumps({"scenarios": [TWO["scenarios"][1]] * 2}), encoding="utf-8")
    with pytest.raises(ValueError, match="repeat"):
        load_updates(path)


def test_the_report_names_another_scenario_file_and_embedder() -> None:
    from bench.report import updates_title

    report = json.loads(Path("bench/results/natural_updates_minilm.json").read_text())
    assert updates_title(report) == (
        "Knowledge updates (`updates`, natural_updates_dev.json, embedder minilm)"
    )
    report.update(dataset="updates_dev.json", settings={"embedder": "static"})
    assert updates_title(report) == "Knowledge updates (`updates`)"


def test_a_control_whose_memory_is_marked_or_missing_is_lost() -> None:
    q = UpdateQuery(query="Which editor do I use?", expect_top=["Vim"], expect_current=["Vim"])
    texts = ["I use Vim.", "I swam today."]
    ids = [uuid.uuid4() for _ in texts]
    assert judge(texts, ids, q, [False, False]).current_lost == []
    assert judge(texts, ids, q, [True, False]).current_lost == ["Vim"]
    assert judge(texts[1:], ids[1:], q).current_lost == ["Vim"]
