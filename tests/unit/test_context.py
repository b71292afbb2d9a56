"""`context`: indexed with the memory, never shown as its text, never deciding merges."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.pipeline import RecallPipeline
from tests.helpers import edge_consolidator, event
from worker.consolidation.consolidator import Consolidator, consolidate

EMB = HashEmbedder(64)


@pytest.fixture
def cons(tmp_path: Path) -> Consolidator:
    return edge_consolidator(tmp_path, EMB)


def test_a_reply_is_found_by_what_it_answers_and_shown_without_it(cons: Consolidator) -> None:
    consolidate(
        [
            event("Sure, every Sunday morning.", 0, context="Do you still go sailing on the lake?"),
            event("The bakery opens at seven.", 1),
        ],
        cons,
    )
    request = RecallRequest(query="sailing lake", limit=2, explain=True)
    top, other = RecallPipeline(cons.store, EMB).recall("b1", request).results
    assert top.text == "Sure, every Sunday morning."
    assert top.components is not None and other.components is not None
    assert top.components.keyword == 1.0 and other.components.keyword == 0.0


def test_restatements_merge_whatever_their_contexts(cons: Consolidator) -> None:
    consolidate(
        [
            event("I love hiking in the Alps.", 0, context="What do you do on weekends?"),
            event("I love hiking in the Alps.", 5, context="Any plans for the summer trip?"),
        ],
        cons,
    )
    response = RecallPipeline(cons.store, EMB).recall("b1", RecallRequest(query="hiking Alps"))
    assert [r.kind for r in response.results] == ["observation"]
    assert response.results[0].source_memory_ids and len(response.results[0].source_memory_ids) == 2


@pytest.mark.parametrize(
    ("context", "expected"),
    [(None, None), ("   ", None), ("\u200b\u2060 \ufeff", None), ("What now?", "What now?")],
)
def test_blank_context_is_none(context: str | None, expected: str | None) -> None:
    e = event("Fine.", 0, context=context)
    assert e.context == expected
    assert e.indexed_text() == (f"{expected}\nFine." if expected else "Fine.")


def test_context_over_the_cap_is_refused_with_its_name() -> None:
    payload = event("Fine.", 0).model_dump(mode="json") | {"context": "x" * 70_000}
    with pytest.raises(ValidationError, match="context is 70000 bytes"):
        RetainEvent.model_validate(payload)
