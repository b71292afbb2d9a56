"""Standing instructions: which texts state one and when it applies; recall places the
one closest to the question second in the results, under the request's filter, for
its own bank only."""

from dataclasses import replace
from pathlib import Path

import pytest
import qdrant_edge as qe
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from contracts.recall import RecallRequest
from readmodel.embedders import Embedder
from readmodel.embedders.hashing import HashEmbedder
from readmodel.instructions import instruction_scope
from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.instructions import place_instruction
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter, MemoryStore, TextStats
from readmodel.stores.edge import EdgeStore
from readmodel.stores.payload import INSTRUCTION_SCOPE_FIELD, ROLE_FIELD
from readmodel.text import text_stats
from sediment.api.compact import compact, structured, text_of
from sediment.render import recall_table
from tests.helpers import edge_consolidator, event, memory
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.rebuild import rebuild_bank


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        (
            "User: Always format code snippets with syntax highlighting when I ask about "
            "implementation details. ->-> 1,25",
            "implementation details",
        ),
        ("Whenever we talk about money, please give amounts in euros.", "money"),
        ("For questions about my health, never suggest supplements.", "my health"),
        ("Please use metric units whenever I ask you about recipes.", "recipes"),
        ("Thanks! Also, don't use jargon when I ask for legal explanations.", "legal explanations"),
        ("If I ask about the weather, give temperatures in Celsius.", "the weather"),
        ("Remember to cite sources every time I ask about history!", "history"),
        ("Make sure to list tradeoffs when I ask for design advice", "design advice"),
        ("Ana: From now on, answer in Spanish.", "answer in Spanish"),
        ("I'd like you to always use euros when we talk about prices.", "prices"),
        ("Could you give sizes in centimetres whenever I ask about furniture?", "furniture"),
    ],
)
def test_an_instruction_says_when_it_applies(text: str, scope: str) -> None:
    span = instruction_scope(text)
    assert span is not None
    assert text[span[0] : span[1]] == scope
    assert text_stats(text).instruction == span


@pytest.mark.parametrize(
    "text",
    [
        "I always drink coffee when I ask about the menu.",
        "When I ask about deadlines I get nervous.",
        "She always uses bullet points when she asks about lists.",
        "Never been to Paris though.",
        "Always wear sunscreen.",
        "Assistant: Got it! When discussing markup, I will always include semantic tags.",
        "I asked about the deadline yesterday, and they said Friday.",
        "We always go hiking when we talk about holidays.",
        "Could you help me plan the trip to Rome next week?",
        "I want you to know that I moved to Lisbon.",
    ],
)
def test_a_statement_or_a_habit_is_no_instruction(text: str) -> None:
    assert instruction_scope(text) is None
    assert text_stats(text).instruction is None


@given(st.text(max_size=300))
def test_a_scope_is_a_nonempty_span_of_the_text(text: str) -> None:
    span = instruction_scope(text)
    if span is not None:
        assert 0 <= span[0] < span[1] <= len(text)
        assert text[span[0] : span[1]].strip() == text[span[0] : span[1]]


def instruction(text: str, cosine: float) -> Candidate:
    return Candidate(memory(text), vector=cosine, stats=text_stats(text))


def test_the_closest_instruction_above_the_floor_moves_up_to_its_place() -> None:
    answers = [Candidate(memory(f"answer {i}"), vector=0.9) for i in range(5)]
    near = instruction("Always give amounts in euros when I ask about money.", 0.6)
    far = instruction("Always answer in French when I ask about poems.", 0.4)
    ordered, placed = place_instruction([*answers, far, near], floor=0.3, place=2)
    assert placed == near and ordered[1] == near and ordered[0] == answers[0]
    assert ordered.index(far) == 6 and len(ordered) == 7
    assert place_instruction([*answers, near], floor=0.7, place=2) == ([*answers, near], None)
    assert place_instruction([*answers, near], floor=0.3, place=0)[1] is None
    already = place_instruction([near, *answers], floor=0.3, place=2)[0]
    assert already == [near, *answers]


def test_an_instruction_known_only_by_its_text_is_not_placed() -> None:
    stored_without = Candidate(memory("Always use euros when I ask about money."), vector=0.9)
    assert stored_without.stats is None
    assert place_instruction([stored_without], floor=0.0, place=1)[1] is None
    other = Candidate(memory("x"), vector=0.9, stats=TextStats(frozenset(), 1))
    assert place_instruction([other], floor=0.0, place=1)[1] is None


RULE = "Always include version numbers when I ask about libraries."
FACTS = [
    f"The parser release {i} pins its libraries, lark and regex, for the parser." for i in range(8)
]


def rules_bank(root: Path) -> Consolidator:
    """Bank b1: facts on a topic, a rule on it, an unrelated memory; bank b2: a rule on
    the same topic."""
    deps = edge_consolidator(root, HashEmbedder(64))
    events = [event(t, i) for i, t in enumerate([*FACTS, RULE, "We hiked in May."])]
    events.append(event("Always answer in haiku when I ask about libraries.", 3, bank="b2"))
    consolidate(events, deps)
    return deps


def store_with_rules(root: Path) -> tuple[MemoryStore, Embedder]:
    deps = rules_bank(root)
    return deps.store, deps.embedder


def test_recall_places_the_bank_s_instruction_second(tmp_path: Path) -> None:
    store, embedder = store_with_rules(tmp_path)
    floor0 = RecallConfig(semantic_floor=0.0)
    request = RecallRequest(query="Which libraries does the parser pin?", limit=4, explain=True)
    response = RecallPipeline(store, embedder, floor0).recall("b1", request)
    texts = [r.text for r in response.results]
    assert texts[1] == RULE and texts[0] != RULE
    assert response.results[1].labels == ["instruction"]
    assert "haiku" not in " ".join(texts)
    note = next(s.note for s in response.explain if s.stage == "instructions")
    assert str(response.results[1].id) in note
    off = RecallPipeline(store, embedder, RecallConfig(semantic_floor=0.0, instruction_place=0))
    assert RULE not in [r.text for r in off.recall("b1", request).results]
    one = RecallPipeline(store, embedder, floor0).recall(
        "b1", request.model_copy(update={"limit": 1})
    )
    assert [r.text for r in one.results] == texts[:1]
    high = RecallPipeline(store, embedder, RecallConfig(semantic_floor=0.99)).recall("b1", request)
    assert RULE not in [r.text for r in high.results]


def test_the_request_s_filter_holds_for_the_instruction(tmp_path: Path) -> None:
    store, embedder = store_with_rules(tmp_path)
    pipeline = RecallPipeline(store, embedder, RecallConfig(semantic_floor=0.0))
    query = "Which libraries does the parser pin?"
    before = RecallRequest(query=query, limit=4, end=event(RULE, 7).occurred_at)
    assert RULE not in [r.text for r in pipeline.recall("b1", before).results]
    tagged = RecallRequest(query=query, limit=4, tags=["absent"])
    assert pipeline.recall("b1", tagged).results == []


def test_an_agent_sees_which_result_is_a_rule(tmp_path: Path) -> None:
    store, embedder = store_with_rules(tmp_path)
    pipeline = RecallPipeline(store, embedder, RecallConfig(semantic_floor=0.0))
    response = pipeline.recall("b1", RecallRequest(query="Which libraries does the parser pin?"))
    answer = compact(response)
    rule = next(f for f in answer.results if f.text == RULE)
    assert rule.instruction is True
    assert all(f.instruction is None for f in answer.results if f.text != RULE)
    assert any(ln.endswith(f"{RULE} [instruction]") for ln in text_of(response).splitlines())
    assert "instruction" not in structured(compact(response)).get("results", [{}])[0]
    console = Console(width=400, record=True)
    console.print(recall_table(response))
    assert "[standing instruction]" in console.export_text()


def test_a_rebuild_marks_the_instructions_stored_before(tmp_path: Path) -> None:
    deps = rules_bank(tmp_path)
    store = deps.store
    assert isinstance(store, EdgeStore)
    rules = Filter("b1", instructions=True)
    assert [p.record.text for p in store.scroll(rules)] == [RULE]
    ids = [str(p.record.id) for p in store.scroll(Filter("b1"))]
    store._update(qe.UpdateOperation.delete_payload(ids, [ROLE_FIELD, INSTRUCTION_SCOPE_FIELD]))
    assert list(store.scroll(rules)) == []
    assert all(
        p.stats is not None and p.stats.instruction is None for p in store.scroll(Filter("b1"))
    )
    rebuild_bank("b1", deps)
    assert [p.record.text for p in store.scroll(rules)] == [RULE]


def test_a_later_rule_for_the_same_condition_replaces_the_earlier() -> None:
    apa = instruction("Always use APA style when I ask about formatting references.", 0.7)
    mla = replace(
        instruction("Always use MLA style when I ask about formatting references.", 0.6),
        record=memory("Always use MLA style when I ask about formatting references.", 30),
    )
    pages = replace(
        instruction("Always include page numbers when I ask about formatting references.", 0.5),
        record=memory("Always include page numbers when I ask about formatting references.", 40),
    )
    other = instruction("Always use MLA style when I ask about poems.", 0.4)
    answers = [Candidate(memory(f"answer {i}"), vector=0.9) for i in range(3)]
    ordered, placed = place_instruction([*answers, apa, pages, mla, other], 0.3, 2)
    assert placed is not None and placed.record.text == mla.record.text
    assert ordered[1].record.text == mla.record.text
    older = next(c for c in ordered if c.record.text == apa.record.text)
    assert older.outdated_by == mla.id
    assert all(c.outdated_by is None for c in ordered if c.id != apa.id)
    past, placed_then = place_instruction([*answers, apa, mla], 0.3, 2, current=False)
    assert placed_then is not None and placed_then.id == mla.id
    assert all(c.outdated_by is None for c in past)
    first, _ = place_instruction([apa, *answers, mla], 0.3, 2)
    assert [c.record.text for c in first[:2]] == [mla.record.text, apa.record.text]
    alone, kept = place_instruction([*answers, apa, pages], 0.3, 2)
    assert all(c.outdated_by is None for c in alone)
    assert kept is not None and kept.id == apa.id


def test_a_rule_no_closer_than_the_next_rule_is_not_placed() -> None:
    answers = [Candidate(memory(f"answer {i}"), vector=0.9) for i in range(4)]
    money = instruction("Always give amounts in euros when I ask about money.", 0.6)
    poems = instruction("Always answer in French when I ask about poems.", 0.59)
    ordered, placed = place_instruction([*answers, money, poems], 0.3, 2, ratio=0.95)
    assert placed is None and ordered == [*answers, money, poems]
    far_poems = replace(poems, vector=0.3)
    ordered, placed = place_instruction([*answers, money, far_poems], 0.3, 2, ratio=0.95)
    assert placed == money and ordered[1] == money
    always, placed_anyway = place_instruction([*answers, money, poems], 0.3, 2, ratio=1.0)
    assert placed_anyway == money and always[1] == money


def test_versions_of_one_rule_are_one_rule_to_the_ratio_test() -> None:
    apa = instruction("Always use APA style when I ask about formatting references.", 0.6)
    mla = replace(
        instruction("Always use MLA style when I ask about formatting references.", 0.6),
        record=memory("Always use MLA style when I ask about formatting references.", 30),
    )
    answers = [Candidate(memory(f"answer {i}"), vector=0.9) for i in range(3)]
    ordered, placed = place_instruction([*answers, apa, mla], 0.3, 2, ratio=0.95)
    assert placed is not None and placed.record.text == mla.record.text
    assert ordered[1].record.text == mla.record.text


@given(st.floats(0.3, 0.99), st.lists(st.floats(0.0, 0.99), max_size=4), st.floats(0.05, 1.0))
def test_the_ratio_test_keeps_the_closest_rule_or_nothing(
    best: float, others: list[float], ratio: float
) -> None:
    """Whatever the cosines, the rule placed is the closest one, placed only when its
    distance is within `ratio` of the closest other rule's; the order is otherwise kept."""
    topics = ["money", "poems", "travel", "films", "cars"]
    asks = [
        "answer briefly",
        "use bullet points",
        "cite sources",
        "answer in French",
        "add a table",
    ]
    rules = [
        instruction(f"Always {asks[i + 1]} when I ask about {topics[i + 1]}.", v)
        for i, v in enumerate(others)
        if v < best
    ]
    top = instruction(f"Always {asks[0]} when I ask about {topics[0]}.", best)
    answers = [Candidate(memory(f"answer {i}"), vector=0.9) for i in range(3)]
    given_order = [*answers, *rules, top]
    ordered, placed = place_instruction(given_order, 0.3, 2, ratio=ratio)
    runner_up = max((r.vector for r in rules), default=None)
    expected = runner_up is None or 1 - best <= ratio * (1 - runner_up)
    assert (placed == top) is expected
    assert sorted(map(id, ordered)) == sorted(map(id, given_order))
    if not expected:
        assert ordered == given_order


def test_one_rule_said_twice_is_one_rule_to_the_ratio_test() -> None:
    money = instruction("Always give amounts in euros when I ask about money.", 0.6)
    finances = instruction("Whenever we talk about finances, give amounts in euros.", 0.59)
    answers = [Candidate(memory(f"answer {i}"), vector=0.9) for i in range(3)]
    ordered, placed = place_instruction([*answers, money, finances], 0.3, 2, ratio=0.95)
    assert placed == money and ordered[1] == money
