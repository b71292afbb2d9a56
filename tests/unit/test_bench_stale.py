"""The stale-value benchmark: the metric on hand-made ranked lists, the sidecar's checks,
then `sediment-bench stale` end to end on a tiny dataset and its section in the report."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import structlog
from typer.testing import CliRunner

from bench.commands import app
from bench.dataset import BenchSet, load_generic
from bench.stale import load_stale
from bench.stale_score import Mark, Shown, score_query, summarize

GOLD = frozenset({"new"})
STALE = frozenset({"old"})


def shown(*items: str | tuple[str, str]) -> list[Shown]:
    """A ranked list: `"x"` covers label x unmarked; `("x", "outdated")` is marked; a
    `+` joins the labels one result covers (an observation)."""
    out = []
    for it in items:
        labels, mark = (it, None) if isinstance(it, str) else it
        out.append(Shown(frozenset(labels.split("+")), cast(Mark | None, mark)))
    return out


@pytest.mark.parametrize(
    ("ranked", "above", "in_top5", "marked"),
    [
        (shown("a", "new", "b", "old"), True, 1, 0),
        (shown("old", "new"), False, 1, 0),
        (shown("new", "a", "b", "c", "d", "e", "f", "g", "h", "i", "old"), True, 0, 0),
        (shown("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "new"), False, 0, 0),
        (shown("new+old"), False, 1, 0),
        (shown(("old", "outdated"), "new"), False, 1, 1),
        (shown("new", ("old", "superseded")), True, 1, 1),
        (shown("x", "y", "z", "w", "v", "old", "new"), False, 0, 0),
        (shown(), False, 0, 0),
    ],
)
def test_score_query(ranked: list[Shown], above: bool, in_top5: int, marked: int) -> None:
    outcome = score_query("q", ranked, GOLD, STALE)
    assert outcome["updated_above_stale"] is above
    assert outcome["stale_in_top5"] == in_top5
    assert outcome["stale_in_top5_marked"] == marked


def test_every_gold_turn_shown_must_be_above_every_stale_turn() -> None:
    gold, stale = frozenset({"g1", "g2"}), frozenset({"s1", "s2"})
    assert score_query("q", shown("g1", "s1", "g2"), gold, stale)["updated_above_stale"] is False
    one_gold = score_query("q", shown("g1", "x", "s1"), gold, stale)
    assert one_gold["updated_above_stale"] is True
    assert one_gold["gold_ranks"] == {"g1": 1, "g2": None}
    assert one_gold["stale"] == [{"id": "s1", "rank": 3, "mark": None}]
    assert one_gold["stale_absent"] == ["s2"]
    assert score_query("q", shown("g1", "s2", "x"), gold, stale)["gold_in_top10"] is True


def test_summarize_counts_a_query_marked_only_when_every_top5_stale_turn_is() -> None:
    gold, stale = frozenset({"g"}), frozenset({"s1", "s2"})
    outcomes = [
        score_query("both", shown(("s1", "outdated"), "g", ("s2", "superseded")), gold, stale),
        score_query("half", shown(("s1", "outdated"), "s2", "g"), gold, stale),
        score_query("clean", shown("g", "x"), gold, stale),
        score_query("missing", shown("x"), gold, stale),
    ]
    s = summarize(outcomes)
    assert s["queries"] == 4
    assert s["gold_in_top10"] == 3
    assert s["updated_above_stale"] == 1 and s["updated_above_stale_rate"] == 0.25
    assert s["queries_stale_in_top5"] == 2
    assert s["stale_in_top5_marked"] == 1 and s["stale_in_top5_marked_rate"] == 0.5
    assert (s["stale_turns_in_top5_marked"], s["stale_turns_in_top5_unmarked"]) == (3, 1)
    assert summarize([])["stale_in_top5_marked_rate"] is None


T0 = "2024-03-01T12:0{}:00Z"
DATASET: dict[str, Any] = {
    "name": "tiny-stale",
    "memories": [
        {"id": "t1", "bank_id": "b1", "text": "User: I write all my code in Vim.",
         "occurred_at": T0.format(1)},
        {"id": "t2", "bank_id": "b1", "text": "User: My sister Ana lives in Lisbon.",
         "occurred_at": T0.format(2)},
        {"id": "t3", "bank_id": "b1", "text": "User: I switched from Vim to VS Code for my code.",
         "occurred_at": T0.format(3)},
        {"id": "t4", "bank_id": "b2", "text": "User: Our team meets on Mondays.",
         "occurred_at": T0.format(1)},
    ],
    "queries": [
        {"id": "b1/ku/0", "bank_id": "b1", "query": "Which editor do I write my code in?",
         "gold_ids": ["t3"], "category": "knowledge_update", "query_time": T0.format(9)},
        {"id": "b1/ie/0", "bank_id": "b1", "query": "Where does Ana live?",
         "gold_ids": ["t2"], "category": "information_extraction"},
        {"id": "b2/ku/0", "bank_id": "b2", "query": "When does the team meet?",
         "gold_ids": ["t4"], "category": "knowledge_update"},
    ],
}  # fmt: skip
SIDECAR: dict[str, Any] = {
    "queries": {
        "b1/ku/0": {"stale_ids": ["t1"], "gold_ids": ["t3"]},
        "b2/ku/0": {"stale_ids": [], "gold_ids": ["t4"]},
    }
}


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def bench_set(tmp_path: Path) -> BenchSet:
    return load_generic(write(tmp_path / "data.json", DATASET))


def test_load_stale_keeps_the_updates_with_a_replaced_value(
    bench_set: BenchSet, tmp_path: Path
) -> None:
    chosen, counts = load_stale(write(tmp_path / "s.json", SIDECAR), bench_set)
    assert [c.query.id for c in chosen] == ["b1/ku/0"]
    assert chosen[0].stale == {"t1"} and chosen[0].gold == {"t3"}
    assert counts["knowledge_update_queries"] == 2 and counts["with_stale_turns"] == 1


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ({"nope": {"stale_ids": ["t1"], "gold_ids": ["t3"]}}, "'nope'"),
        ({"b1/ie/0": {"stale_ids": ["t1"], "gold_ids": ["t2"]}}, "information_extraction"),
        ({"b1/ku/0": {"stale_ids": ["t4"], "gold_ids": ["t3"]}}, "'t4', not in b1"),
        ({"b1/ku/0": {"stale_ids": ["t3"], "gold_ids": ["t3"]}}, "as stale and gold"),
    ],
)
def test_load_stale_names_what_is_wrong(
    bench_set: BenchSet, tmp_path: Path, entry: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        load_stale(write(tmp_path / "s.json", {"queries": entry}), bench_set)


@pytest.fixture
def _restore_logging() -> Iterator[None]:
    """The CLI configures structlog to write to its (captured, then closed) stderr."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("_restore_logging")
def test_stale_command_end_to_end_and_report(tmp_path: Path) -> None:
    results, docs = tmp_path / "results", tmp_path / "docs"
    out = results / "stale_tiny.json"
    data, sidecar = write(tmp_path / "d.json", DATASET), write(tmp_path / "s.json", SIDECAR)
    runner = CliRunner()
    result = runner.invoke(
        app, ["stale", "--dataset", str(data), "--stale", str(sidecar), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["benchmark"] == "stale" and report["dataset"] == "tiny-stale"
    assert set(report["summary"]) == set(report["queries"]) == {"as_of", "present"}
    for mode, summary in report["summary"].items():
        assert summary["queries"] == 1
        assert summary["gold_in_top10"] == 1, mode
        (row,) = report["queries"][mode]
        assert row["query_id"] == "b1/ku/0" and row["gold_ranks"]["t3"] is not None
    assert report["counts"]["events"] == 4 and report["counts"]["with_stale_turns"] == 1
    assert {"ingest", "queries", "total"} <= set(report["wall_time_s"])

    result = runner.invoke(app, ["report", "--results", str(results), "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    page = (docs / "benchmarks.md").read_text()
    assert "## tiny-stale stale values (`stale`)" in page
    assert "| b1/ku/0 |" in page


@pytest.mark.usefixtures("_restore_logging")
def test_stale_command_rejects_a_bad_sidecar(tmp_path: Path) -> None:
    data = write(tmp_path / "d.json", DATASET)
    bad = write(tmp_path / "s.json", {"queries": {"nope": {"gold_ids": ["t3"]}}})
    result = CliRunner().invoke(app, ["stale", "--dataset", str(data), "--stale", str(bad)])
    assert result.exit_code == 2
    assert "'nope'" in result.output


def test_two_rules_on_one_store_render_side_by_side() -> None:
    from bench.stale_render import stale_ab_section

    figures = {
        "updated_above_stale": 14,
        "queries": 18,
        "stale_in_top5_marked": 5,
        "queries_stale_in_top5": 9,
        "gold_results_marked_outdated": 9,
        "gold_results_shown_present": 231,
    }
    data = {
        "benchmark": "stale_ab",
        "dataset": "beam-100k-dev",
        "embedder": "minilm",
        "before": figures,
        "after": {**figures, "updated_above_stale": 16},
    }
    text = "\n".join(stale_ab_section(data, "bench/results/x.json"))
    assert "| updated turn above every stale turn | 14 of 18 | 16 of 18 |" in text
    assert "| gold results marked outdated | 9 of 231 | 9 of 231 |" in text
    assert "embedder minilm" in text
