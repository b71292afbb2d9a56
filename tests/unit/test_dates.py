"""Dates named in a query: the window they give, the bonus, and the fetch within them."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.dates import date_match, query_window, within
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import T0, event, memory
from worker.consolidation.consolidator import Consolidator, consolidate


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did Maria paint on October 13, 2023?", utc(2023, 10, 12), utc(2023, 10, 15)),
        ("What did Gina find on 1 February, 2023?", utc(2023, 1, 31), utc(2023, 2, 3)),
        ("What class did she start in December 2023?", utc(2023, 12, 1), utc(2024, 1, 8)),
        ("Where did he go in May, 2022?", utc(2022, 5, 1), utc(2022, 6, 8)),
        ("How often did she go to the beach in 2023?", utc(2023, 1, 1), utc(2024, 1, 8)),
    ],
)
def test_the_most_specific_named_date_gives_the_window(
    query: str, start: datetime, end: datetime
) -> None:
    window = query_window(query)
    assert window is not None and (window.start, window.end) == (start, end)


@pytest.mark.parametrize(
    "query",
    ["When did Maria paint?", "Room 2023B", "What happened on February 30, 2023?", "May I ask?"],
)
def test_no_calendar_date_no_window(query: str) -> None:
    assert query_window(query) is None


def test_the_bonus_goes_to_memories_inside_only() -> None:
    window = query_window("in May 2023")
    assert window is not None
    inside = Candidate(memory("In May.", 0).model_copy(update={"occurred_at": utc(2023, 5, 9)}))
    outside = Candidate(memory("In June.", 0).model_copy(update={"occurred_at": utc(2023, 7, 9)}))
    got = date_match([inside, outside], window, 0.15)
    assert [(c.date, c.score) for c in got] == [(1.0, 0.15), (0.0, 0.0)]


def test_the_window_narrows_the_request_filter_and_never_widens_it() -> None:
    window = query_window("in May 2023")
    assert window is not None
    narrowed = within(Filter("b1", occurred_from=utc(2023, 5, 20)), window)
    assert narrowed is not None and narrowed.occurred_from == utc(2023, 5, 20)
    assert narrowed.occurred_to == window.end
    assert within(Filter("b1", occurred_to=utc(2022, 1, 1)), window) is None


def test_a_named_date_brings_in_and_lifts_the_memory_from_then(tmp_path: Path) -> None:
    emb = HashEmbedder(64)
    store = EdgeStore(tmp_path)
    store.ensure_schema(emb.dimension)
    cons = Consolidator(store, emb, NoLocks())
    later = [
        event(f"Maria went to the shelter event with friends, take {i}.", 40 + i) for i in range(12)
    ]
    consolidate([*later, event("Maria went to the shelter event.", 10)], cons)
    query = f"What did Maria do at the shelter in {(T0 + timedelta(days=10)):%B %Y}?"
    dated = RecallPipeline(store, emb, RecallConfig(depth=5)).recall(
        "b1", RecallRequest(query=query, limit=3, explain=True)
    )
    top = dated.results[0]
    assert top.text == "Maria went to the shelter event."
    assert top.components is not None and top.components.date == 1.0
    plain = RecallPipeline(store, emb, RecallConfig(depth=5, date_weight=0.0)).recall(
        "b1", RecallRequest(query=query, limit=3)
    )
    assert "Maria went to the shelter event." not in [r.text for r in plain.results]
