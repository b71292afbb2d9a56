"""The supersession benchmark: the scorer alone, the shipped data, then a small bank end to end."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bench.supersession import default_paths, load_supersession, run_supersession
from bench.supersession_gen import generate
from bench.supersession_score import LabelledStatement, figures, grouped, judge
from sediment.settings import Settings

T0 = datetime(2023, 1, 1, tzinfo=UTC)


def st(sid: str, day: int, **labels: Any) -> LabelledStatement:
    return LabelledStatement(
        id=sid,
        text=labels.pop("text", f"statement {sid}"),
        occurred_at=T0 + timedelta(days=day),
        subject=labels.pop("subject", "ana"),
        role=labels.pop("role", "episode"),
        **labels,
    )


CHAIN = "b:ana:residence:"
BANK = [
    st(
        "a",
        0,
        attribute="residence",
        role="update_old",
        chain=CHAIN,
        value="Porto",
        superseded_by="b",
    ),
    st(
        "r",
        5,
        attribute="residence",
        role="restatement",
        chain=CHAIN,
        value="Porto",
        superseded_by="b",
    ),
    st(
        "b",
        10,
        attribute="residence",
        role="update_new",
        chain=CHAIN,
        value="Lyon",
        superseded_by="c",
    ),
    st("c", 20, attribute="residence", role="update_new", chain=CHAIN, value="Bern"),
    st("e", 12),
    st("f", 14, role="feeling"),
]


@pytest.mark.parametrize(
    ("predicted", "verdicts"),
    [
        ({}, {"a": "missed", "r": "missed", "b": "missed", "c": "kept", "e": "kept"}),
        ({"a": "b", "r": "b", "b": "c"}, {"a": "found", "r": "found", "b": "found"}),
        ({"a": "c"}, {"a": "found"}),  # a later state of the same history is acceptable
        ({"a": "e"}, {"a": "wrong"}),  # an episode is not
        ({"b": "a"}, {"b": "wrong"}),  # nor an older state
        ({"e": "c", "c": "e"}, {"e": "false", "c": "false"}),
    ],
)
def test_judge(predicted: dict[str, str], verdicts: dict[str, str]) -> None:
    judged = {j.statement.id: j.verdict for j in judge(BANK, predicted)}
    assert {k: judged[k] for k in verdicts} == verdicts


def test_figures_precision_recall_and_false_rate() -> None:
    judged = judge(BANK, {"a": "b", "b": "c", "e": "c"})
    f = figures(judged)
    assert (f["found"], f["missed"], f["false"], f["wrong_superseder"]) == (2, 1, 1, 0)
    assert f["precision"] == round(2 / 3, 4)
    assert f["recall"] == round(2 / 3, 4)
    assert f["should_stay"] == 3 and f["false_supersession_rate"] == round(1 / 3, 4)
    by_attribute = grouped(judged, "attribute")
    assert by_attribute["residence"]["recall"] == round(2 / 3, 4)
    assert by_attribute["(none)"]["precision"] == 0.0
    assert figures([])["precision"] is None


def test_the_shipped_halves_are_what_the_generator_writes() -> None:
    dev, test = default_paths()
    generated = generate()
    for path, split in ((dev, "dev"), (test, "test")):
        assert json.loads(path.read_text(encoding="utf-8")) == generated[split]


def test_the_shipped_halves_are_large_and_disjoint() -> None:
    halves = [load_supersession(p) for p in default_paths()]
    statements = [s for h in halves for b in h.banks for s in b.statements]
    subjects = {(b.id, s.subject) for h in halves for b in h.banks for s in b.statements if s.chain}
    updates = [s for s in statements if s.role == "update_new"]
    assert len(subjects) >= 40
    assert sum(1 for s in statements if s.superseded_by is None and s.role != "update_new") >= 400
    assert len(updates) >= 120 and len({s.attribute for s in updates}) >= 12
    assert any(s.cue is False for s in updates)
    assert not {b.id for b in halves[0].banks} & {b.id for b in halves[1].banks}
    order = [s.occurred_at for s in halves[0].banks[0].statements]
    assert order != sorted(order)  # arrival order is not time order


SMALL = {
    "name": "small",
    "split": "small",
    "banks": [
        {
            "id": "b1",
            "statements": [
                {
                    "id": "s2",
                    "text": "Ana moved to Lyon.",
                    "occurred_at": "2023-06-01T09:00:00Z",
                    "entities": ["Ana"],
                    "subject": "Ana",
                    "attribute": "residence",
                    "role": "update_new",
                    "chain": "c",
                    "value": "Lyon",
                    "cue": True,
                },
                {
                    "id": "s1",
                    "text": "Ana lives in Porto.",
                    "occurred_at": "2022-01-01T09:00:00Z",
                    "entities": ["Ana"],
                    "subject": "Ana",
                    "attribute": "residence",
                    "role": "update_old",
                    "chain": "c",
                    "value": "Porto",
                    "superseded_by": "s2",
                },
                {
                    "id": "s3",
                    "text": "Ana moved the car to the other side of the street.",
                    "occurred_at": "2023-07-01T09:00:00Z",
                    "entities": ["Ana"],
                    "subject": "Ana",
                    "role": "action",
                },
            ],
        }
    ],
}


def test_a_small_bank_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL), encoding="utf-8")
    report = run_supersession(
        [(path.name, load_supersession(path))],
        Settings(embedder="static"),
        Console(quiet=True),
        "test",
    )
    overall = report["splits"]["small"]["overall"]
    assert (overall["precision"], overall["recall"], overall["false_supersession_rate"]) == (
        1.0,
        1.0,
        0.0,
    )
    assert report["errors"] == []
    json.dumps(report)


def test_dangling_superseders_are_refused(tmp_path: Path) -> None:
    broken = json.loads(json.dumps(SMALL))
    broken["banks"][0]["statements"][1]["superseded_by"] = "nope"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ValueError, match="unknown statements"):
        load_supersession(path)
