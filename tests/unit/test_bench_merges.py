"""The merge benchmark's runner: its verdicts and figures on hand-made store contents,
its file checks, and a tiny file end to end through `sediment-bench merges`."""

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner

from bench.commands import app
from bench.merges.data import MergesFile, Pair, check
from bench.merges.render import merges_section
from bench.merges.run import DELIVERIES, event, memory_of
from bench.merges.score import (
    Held,
    Hit,
    Seen,
    distinct_by_family,
    distinct_figures,
    errors,
    judge,
    restatement_by_family,
    restatement_figures,
    visible,
)
from bench.record import MergesReport
from bench.report import write_report
from contracts.memory import derive_memory_id

A, B, OTHER = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()


def pair(kind: str = "distinct", family: str = "possessive_subject", **kw: Any) -> Pair:
    """A pair with the given fields; a distinct one asks a query on each side."""

    def side(text: str, query: str) -> dict[str, str]:
        return {"text": text, **({"query": query} if kind == "distinct" else {})}

    return Pair.model_validate(
        {
            "id": kw.get("id", "p1"),
            "kind": kind,
            "family": family,
            "split": kw.get("split", "dev"),
            "a": side(kw.get("a", "Dan works at Initech."), "Where does Dan work?"),
            "b": side(kw.get("b", "Dan's wife works at Initech."), "Where does Dan's wife work?"),
        }
    )


def raw(memory: uuid.UUID, text: str) -> Hit:
    return Hit(memory, "world", text)


def observation(text: str) -> Hit:
    return Hit(uuid.uuid4(), "observation", text)


BOTH = Held("Dan's wife works at Initech.", frozenset({A, B}))


def test_a_false_merge_hides_the_older_fact_behind_the_newer_text() -> None:
    """The failure the benchmark exists for: both memories in one observation whose text
    is the second's; the first's query finds only that observation."""
    seen = Seen(
        A,
        B,
        (BOTH,),
        frozenset(),
        hits_first=(observation("Dan's wife works at Initech."),),
        hits_second=(observation("Dan's wife works at Initech."),),
    )
    v = judge(pair(), seen)
    assert v.merged and v.label == "false_merge"
    assert v.hidden_first and not v.hidden_second
    assert v.observation == "Dan's wife works at Initech."


def test_apart_and_both_found_is_ok() -> None:
    seen = Seen(
        A,
        B,
        (),
        frozenset(),
        hits_first=(raw(B, "Dan's wife works at Initech."), raw(A, "Dan works at Initech.")),
        hits_second=(raw(B, "Dan's wife works at Initech."),),
    )
    v = judge(pair(), seen)
    assert not v.merged and not v.hidden_first and not v.hidden_second
    assert v.label == "ok"


def test_an_observation_of_one_member_is_no_merge() -> None:
    only_a = Held("Dan works at Initech.", frozenset({A, OTHER}))
    v = judge(pair(), Seen(A, B, (only_a,), frozenset()))
    assert not v.merged
    assert v.hidden_first and v.hidden_second  # no hits at all: both hidden
    assert v.label == "hidden"


@pytest.mark.parametrize(
    ("hits", "shown"),
    [
        ((raw(A, "anything"),), True),  # its raw memory, whatever the text returned
        ((observation("Dan works at Initech."),), True),  # an observation in its words
        ((observation("  Dan works\nat Initech. "),), True),  # spacing aside
        ((observation("dan works at initech."),), False),  # another text is not its text
        ((raw(OTHER, "Dan works at Initech."),), False),  # a raw memory is matched by id
        ((), False),
    ],
)
def test_visible(hits: tuple[Hit, ...], shown: bool) -> None:
    assert visible(A, "Dan works at Initech.", hits) is shown


def test_a_superseded_member_is_reported_not_counted_a_merge() -> None:
    v = judge(pair(), Seen(A, B, (), frozenset({A}), hits_second=(raw(B, "x"),)))
    assert v.superseded and not v.merged
    assert v.label == "hidden" and v.hidden_first and not v.hidden_second


def test_restatements_are_merged_or_not_and_never_hidden() -> None:
    same = pair(
        "restatement", "synonym_verb", a="Dan works at Initech.", b="Dan works for Initech."
    )
    merged = judge(
        same, Seen(A, B, (Held("Dan works for Initech.", frozenset({A, B})),), frozenset())
    )
    apart = judge(same, Seen(A, B, (), frozenset()))
    assert merged.merged and merged.label == "ok"
    assert not apart.merged and apart.label == "not_merged"
    assert not (apart.hidden_first or apart.hidden_second)


def test_figures_count_pairs_statements_and_families() -> None:
    ok = judge(pair(id="p1"), Seen(A, B, (), frozenset(), (raw(A, "a"),), (raw(B, "b"),)))
    false = judge(pair(id="p2"), Seen(A, B, (BOTH,), frozenset(), (), (observation(BOTH.text),)))
    other = judge(
        pair(id="p3", family="negation", a="I eat meat.", b="I don't eat meat."),
        Seen(A, B, (), frozenset({A}), (), (raw(B, "b"),)),
    )
    same = judge(pair("restatement", "filler", id="r1"), Seen(A, B, (BOTH,), frozenset()))
    apart = judge(pair("restatement", "filler", id="r2"), Seen(A, B, (), frozenset()))
    verdicts = [ok, false, other, same, apart]
    d = distinct_figures(verdicts)
    assert d == {
        "pairs": 3,
        "false_merges": 1,
        "false_merge_rate": 0.3333,
        "statements": 6,
        "hidden": 2,
        "hidden_rate": 0.3333,
        "hidden_first": 2,
        "hidden_second": 0,
        "superseded": 1,
    }
    assert restatement_figures(verdicts) == {
        "pairs": 2,
        "merged": 1,
        "merge_rate": 0.5,
        "superseded": 0,
    }
    assert list(distinct_by_family(verdicts)) == ["possessive_subject", "negation"]
    assert distinct_by_family(verdicts)["negation"]["false_merges"] == 0
    assert list(restatement_by_family(verdicts)) == ["filler"]
    assert restatement_figures([])["merge_rate"] is None
    assert distinct_figures([])["hidden_rate"] is None
    found = errors("in_order", verdicts)
    assert [(e["pair"], e["verdict"]) for e in found] == [
        ("p2", "false_merge"),
        ("p3", "hidden (first)"),
        ("r2", "not_merged"),
    ]


def _file(*pairs: Pair) -> MergesFile:
    return MergesFile(pairs=list(pairs))


def test_a_pair_written_twice_in_either_order_is_refused() -> None:
    one = pair(id="p1")
    again = pair(
        id="p2", a="dan's wife works at Initech.", b="Dan  works at Initech.", split="test"
    )
    with pytest.raises(ValueError, match="p1 and p2 hold the same two statements"):
        check(_file(one, again))


def test_repeated_ids_and_mixed_families_are_refused() -> None:
    with pytest.raises(ValueError, match="pair ids repeat"):
        check(_file(pair(id="p1"), pair(id="p1", a="Tom is tall.")))
    with pytest.raises(ValueError, match="both kinds"):
        check(_file(pair(id="p1"), pair("restatement", id="p2", a="Tom is tall.")))


def test_a_distinct_pair_without_queries_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a query on both sides"):
        Pair.model_validate(
            {
                "id": "x",
                "kind": "distinct",
                "family": "negation",
                "split": "dev",
                "a": {"text": "I eat meat.", "query": "Do I eat meat?"},
                "b": {"text": "I don't eat meat."},
            }
        )


TINY = {
    "pairs": [
        {
            "id": "same",
            "kind": "restatement",
            "family": "case_punctuation",
            "split": "test",
            "a": {"text": "dan works at initech"},
            "b": {"text": "Dan works at Initech."},
        },
        {
            "id": "apart",
            "kind": "distinct",
            "family": "another_object",
            "split": "test",
            "a": {"text": "I visited the Louvre.", "query": "Did I visit the Louvre?"},
            "b": {"text": "I bought a new rug for the study.", "query": "What rug did I buy?"},
        },
        {
            "id": "elsewhere",
            "kind": "distinct",
            "family": "another_object",
            "split": "dev",
            "a": {"text": "Maya plays tennis.", "query": "Does Maya play tennis?"},
            "b": {"text": "Maya plays the violin.", "query": "Does Maya play the violin?"},
        },
    ]
}


@pytest.fixture
def _restore_logging() -> Iterator[None]:
    """The CLI configures structlog to write to its (captured, then closed) stderr."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("_restore_logging")
def test_tiny_file_end_to_end(tmp_path: Path) -> None:
    """One split only, both deliveries, in a real embedded store: the JSON has the
    documented shape and the report section renders it."""
    source, out = tmp_path / "tiny.json", tmp_path / "out.json"
    source.write_text(json.dumps(TINY), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["merges", "--split", "test", "--path", str(source), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    report: MergesReport = json.loads(out.read_text(encoding="utf-8"))
    assert report["benchmark"] == "merges" and report["split"] == "test"
    assert report["pairs"] == {"distinct": 1, "restatement": 1}
    assert set(report["modes"]) == set(DELIVERIES)
    for mode in report["modes"].values():
        assert mode["overall"]["distinct"]["statements"] == 2
        assert list(mode["distinct_by_family"]) == ["another_object"]
        assert list(mode["restatement_by_family"]) == ["case_punctuation"]
        # a change of case and a full stop: the same sentence, one observation
        assert mode["overall"]["restatement"]["merged"] == 1
    assert {"embedder", "merge_threshold", "recall_limit"} <= set(report["settings"])
    assert "in_order" in report["wall_time_s"] and "total" in report["wall_time_s"]
    lines = merges_section(report, "bench/results/x.json")
    heading = "### Merges, test half, embedder static, measured at layout "
    assert any(line.startswith(heading) for line in lines)
    assert any(line.startswith("| **overall** |") for line in lines)
    # the page: what the benchmark measures once, then each result file
    results = tmp_path / "results"
    results.mkdir()
    for name in ("merges_dev.json", "merges_test.json"):
        (results / name).write_text(json.dumps(report), encoding="utf-8")
    page = write_report(results, tmp_path / "docs")[0].read_text(encoding="utf-8")
    assert page.count("## Merges (`merges`)") == 1  # what it measures, once
    summary_row = "| test | static | layout "
    assert page.count(summary_row) == 2  # one summary row per result file
    assert "| 1/1 (1.000) |" in page  # the restatement, merged
    assert page.count("### Merges, test half") == 2
    assert "Not rendered" not in page


@pytest.mark.usefixtures("_restore_logging")
def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"pairs": [{**TINY["pairs"][1], "kind": "same"}]}), "utf-8")
    result = CliRunner().invoke(app, ["merges", "--path", str(bad), "--no-json"])
    assert result.exit_code == 2
    assert "cannot run merges on" in result.output and "bad.json" in result.output


def test_the_second_statement_is_later_and_the_shuffled_delivery_repeats_each() -> None:
    p = pair()
    first, second = event(p, 3, "first"), event(p, 3, "second")
    assert second.occurred_at > first.occurred_at
    assert first.bank_id == second.bank_id and first.event_id != second.event_id
    assert memory_of(p, "first") == derive_memory_id(first.bank_id, first.event_id)
    assert DELIVERIES["in_order"] == ("first", "second")
    shuffled = DELIVERIES["shuffled_duplicated"]
    assert shuffled[0] == "second" and shuffled.count("first") == shuffled.count("second") == 2
