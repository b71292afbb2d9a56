"""Newer answers from outside the pool (`readmodel.recall.successors`): a memory that
answers a question about the present is looked up again, by its answering sentence,
among the memories said after it; one found that answers anew outdates it."""

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from contracts.recall import RecallRequest
from readmodel.embedders import Vectors
from readmodel.embedders.static import SHIPPED_MODEL_DIR, StaticEmbedder
from readmodel.recall.answers import answering, question
from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.outdated import outdate_older
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.successors import newer_answers, probes
from readmodel.store import Filter, Hit, Vector
from tests.helpers import edge_consolidator, event, memory, ranked_candidates, texts
from worker.consolidation.consolidator import consolidate

QUERY = "How many interviews have I secured for executive producer roles this season?"
PAST = "How many interviews did I secure for executive producer roles last season?"
OLD = "User: I only secured 3 interviews for executive producer roles between April 25 and May 1."
NEW = (
    "User: How can I use the fact that I secured 5 interviews to improve my resume and get "
    "more callbacks?"
)
FILLER = [
    "Assistant: Interviews for executive producer roles often open with your slate.",
    "Assistant: Executive producer roles are secured through referrals more than ads.",
    "Assistant: Before interviews, list the producer roles you secured funding for.",
    "Assistant: Recruiters for executive roles read your producer credits early.",
    "Assistant: Secured interviews are a sign the executive producer pitch is working.",
    "Assistant: Producer interviews ask how you secured distribution for past roles.",
    "Assistant: Executive interviews test budgeting; producer roles need it daily.",
    "Assistant: Keep a log of interviews and roles; executive hiring is slow.",
]


def test_a_newer_count_of_the_asked_thing_answers_with_fewer_of_its_words() -> None:
    asked = question(QUERY)
    assert asked is not None and asked.counted == "interview"
    assert answering(asked, NEW) is None
    found = answering(asked, NEW, newer=True)
    assert found is not None and found.counts and found.values == frozenset({"5"})
    said = answering(asked, OLD)
    assert said is not None and "3 interviews" in said.sentence
    other = "User: I secured 5 tickets for the show."
    assert answering(asked, other, newer=True) is None


def _later(text: str, day: int) -> Candidate:
    return Candidate(memory(text, day), vector=0.5)


def test_a_later_memory_joins_only_when_it_answers_anew() -> None:
    head = ranked_candidates((OLD, 0.9), ("User: I like tea.", 0.5))
    out = outdate_older(head, QUERY, later=[_later(NEW, 20), _later("User: I secured a loan.", 21)])
    assert texts(out) == [NEW, OLD, "User: I like tea."]
    assert out[1].outdated_by == out[0].id and out[0].score == pytest.approx(0.9)
    kept = outdate_older(head, QUERY, later=[_later("User: I secured a loan.", 21)])
    assert texts(kept) == texts(head) and all(c.outdated_by is None for c in kept)
    same = outdate_older(head, QUERY, later=[_later(OLD.replace("User:", "User: Again,"), 20)])
    assert texts(same) == texts(head)


@pytest.mark.parametrize(
    "query",
    [
        "How many interviews did I secure for producer roles last year?",  # the past
        "Where do I live?",  # no value type asked
        "How many interviews have I secured in total across all roles?",  # adds up
    ],
)
def test_no_probe_for_other_questions(query: str) -> None:
    head = ranked_candidates((OLD, 0.9))
    assert probes(head, query) == []
    assert newer_answers(head, query, Filter("b1"), _no_embed, _no_search) == []


def _no_embed(texts: Sequence[str]) -> Vectors:
    raise AssertionError("no embedding for a question that is not probed")


def _no_search(queries: object, limit: int) -> list[list[Hit]]:
    raise AssertionError("no search for a question that is not probed")


def test_the_probe_searches_the_current_states_after_the_answer_in_scope() -> None:
    old = Candidate(memory(OLD, 3), vector=0.8)
    seen: list[Filter] = []

    def search(queries: list[tuple[Vector, Filter]], limit: int) -> list[list[Hit]]:
        seen.extend(f for _, f in queries)
        return [[] for _ in queries]

    scope = Filter("b1", tags_any=("work",))

    def embed(texts: Sequence[str]) -> Vectors:
        return np.ones((len(texts), 4), dtype=np.float32)

    assert newer_answers([old], QUERY, scope, embed, search) == []
    (flt,) = seen
    assert flt.bank_id == "b1" and flt.tags_any == ("work",)
    assert flt.occurred_from == old.record.occurred_at and flt.state is not None


def _bank(root: Path) -> tuple[RecallPipeline, str]:
    deps = edge_consolidator(root, StaticEmbedder(SHIPPED_MODEL_DIR))
    events = [event(OLD, 0), *(event(t, 1 + i) for i, t in enumerate(FILLER))]
    events += [event(NEW, 30), event(NEW.replace("5", "9"), 40, bank="b2")]
    consolidate(events, deps)
    config = RecallConfig(depth=6, semantic_floor=0.0)
    return RecallPipeline(deps.store, deps.embedder, config), "b1"


def test_recall_finds_the_newer_count_outside_the_pool(tmp_path: Path) -> None:
    """The pool (depth 6) holds the older count and not the newer one, which shares few of
    the question's words; the probe finds it, it ranks first, the older is marked."""
    pipeline, bank = _bank(tmp_path)
    request = RecallRequest(query=QUERY, limit=2, explain=True)
    response = pipeline.recall(bank, request)
    assert [r.text for r in response.results] == [NEW, OLD]
    assert response.results[1].outdated_by == response.results[0].id
    stages = {s.stage: s for s in response.explain or []}
    assert stages["successors"].candidates >= 1
    # the newer count is in no bank but its own: b2's is not found
    assert all("9 interviews" not in r.text for r in response.results)
    # the past is left as it is: nothing is looked up, nothing marked
    past = pipeline.recall(bank, RecallRequest(query=PAST, limit=2, explain=True))
    assert NEW not in [r.text for r in past.results]
    assert all(r.outdated_by is None for r in past.results)
    assert {s.stage for s in past.explain or []}.isdisjoint({"successors"}) or all(
        s.candidates == 0 for s in past.explain or [] if s.stage == "successors"
    )
