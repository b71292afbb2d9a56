"""The outdated stage alone, table-driven: which memories a newer one outdates at read time."""

import pytest
from rich.console import Console

from contracts.recall import RecallResponse
from readmodel.recall.candidate import Candidate
from readmodel.recall.order import sort_key
from readmodel.recall.outdated import outdate_older
from readmodel.recall.results import to_result
from sediment.render import recall_table
from tests.helpers import memory

Row = tuple[str, int, list[str], float]
"""(text, day, entities, score)."""

CASES: list[tuple[str, str, list[Row], list[int], dict[int, int]]] = [
    ("a newer value of one subject ranks first", "What does Maya drink?",
     [("Maya drinks black coffee in the morning.", 0, ["Maya"], 0.9),
      ("Maya drinks oat lattes in the morning.", 30, ["Maya"], 0.7)],
     [1, 0], {0: 1}),
    ("the speaker's own values, no entities", "Who is my doctor?",
     [("User: My doctor is Dr. Hale.", 0, [], 0.8),
      ("User: My doctor is Dr. Ortiz.", 9, [], 0.5),
      ("User: I walked to the park.", 5, [], 0.6)],
     [1, 0, 2], {0: 1}),
    ("three states: both older ones point to the newest, newer first", "Where does Ben live?",
     [("Ben lives in Leeds.", 0, ["Ben"], 0.9),
      ("Ben lives in York.", 10, ["Ben"], 0.8),
      ("Ben lives in Bath.", 20, ["Ben"], 0.4)],
     [2, 1, 0], {0: 2, 1: 2}),
    ("no entities, no speaker: the reader's subject", "How old is Emma?",
     [("Emma is 7.", 0, [], 0.8),
      ("Emma turned 8 today.", 30, [], 0.7)],
     [1, 0], {0: 1}),
    ("no entities, no speaker: another subject is left alone", "Where does my sister live?",
     [("My sister lives in Rome.", 0, [], 0.9),
      ("My brother lives in Paris.", 30, [], 0.5)],
     [0, 1], {}),
    ("no entities: the subject's name is no word the two must share", "Bob cello orchestra",
     [("Bob plays chess on weekends.", 0, [], 0.9),
      ("Bob plays golf on weekends.", 30, [], 0.5)],
     [0, 1], {}),
    ("another subject is left alone", "Where does Ben live?",
     [("Ben lives in Leeds.", 0, ["Ben"], 0.9),
      ("Ana lives in York.", 10, ["Ana"], 0.8)],
     [0, 1], {}),
    ("a question about the past keeps its order", "Where did Ben live before?",
     [("Ben lives in Leeds.", 0, ["Ben"], 0.9),
      ("Ben lives in York.", 10, ["Ben"], 0.8)],
     [0, 1], {}),
    ("two different statements are not two values", "What does Maya drink?",
     [("Maya drinks black coffee in the morning.", 0, ["Maya"], 0.9),
      ("Maya went to a tea tasting with her aunt last spring.", 30, ["Maya"], 0.7)],
     [0, 1], {}),
    ("the shared words must hold a word of the question", "What is Ben's favourite colour?",
     [("Ben lives in Leeds.", 0, ["Ben"], 0.9),
      ("Ben lives in York.", 10, ["Ben"], 0.8)],
     [0, 1], {}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "query", "rows", "order", "outdated"), CASES)
def test_outdate_older(
    name: str, query: str, rows: list[Row], order: list[int], outdated: dict[int, int]
) -> None:
    cands = [
        Candidate(memory(text, day, entities=entities), score=score)
        for text, day, entities, score in rows
    ]
    ranked = sorted(cands, key=sort_key)
    out = outdate_older(ranked, query)  # in order again, without another sort
    index = {c.id: i for i, c in enumerate(cands)}
    assert [index[c.id] for c in out] == order, name
    got = {index[c.id]: index[c.outdated_by] for c in out if c.outdated_by is not None}
    assert got == outdated, name


def test_only_the_head_is_compared() -> None:
    cands = [Candidate(memory(f"Ben lives in Town{i}.", i, entities=["Ben"]), score=1 - i / 100)
             for i in range(12)]  # fmt: skip
    out = outdate_older(cands, "Where does Ben live?", top=3)
    newest = cands[2].id
    assert [c.id for c in out] == [newest, cands[1].id, cands[0].id] + [c.id for c in cands[3:]]
    assert [c.outdated_by for c in out[:3]] == [None, newest, newest]
    assert all(c.outdated_by is None for c in out[3:])


def test_the_cli_table_says_what_outdated_a_result() -> None:
    newer, older = memory("Maya drinks tea.", 9), memory("Maya drinks coffee.", 1)
    results = [
        to_result(Candidate(newer, score=0.9), False),
        to_result(Candidate(older, score=0.8, outdated_by=newer.id), False),
    ]
    response = RecallResponse(bank_id="b1", query="What does Maya drink?", results=results)
    console = Console(width=200, record=True)
    console.print(recall_table(response))
    assert f"(outdated by {str(newer.id)[:6]})" in console.export_text()
