"""Long memories by passages: how a text is cut, what consolidation stores for it, what
recall returns of it (the passage that answers, the whole on request), what the token
budget counts, and the rebuild that derives passages for memories stored before."""

import itertools
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.passages import MIN_TAIL_WORDS, PASSAGE_WORDS, SPLIT_ABOVE, passage_spans
from readmodel.recall.candidate import Candidate
from readmodel.recall.order import fill_window
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.snippets import best_passage, returned_text, returned_tokens, with_snippets
from readmodel.store import Filter, PassageStats, StoredPoint
from readmodel.text import text_stats
from sediment.api.compact import compact, text_of
from sediment.render import recall_table
from tests.helpers import edge_consolidator, event, ingested, memory
from worker.consolidation.consolidator import consolidate
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.rebuild import rebuild_bank

FILLER = (
    "We talked about the weather and the traffic on the way home, and about "
    "nothing much else that afternoon while the kettle boiled. "
)
FLASK = (
    "The project's web layer uses Flask routes with a blueprint per module and "
    "handles HTTP requests through them. "
)
BOAT = "My sister bought a small sailing boat called Petrel and keeps it at the marina in Brest. "


def long_text(middle: str) -> str:
    """Three paragraphs of about 90 words; the middle one says `middle`."""
    return "\n\n".join([FILLER * 4, middle + FILLER * 3, FILLER * 4])


def words(text: str) -> int:
    return len(text.split())


def test_a_short_text_is_one_passage() -> None:
    assert passage_spans("I moved to Lisbon.") == ()
    assert passage_spans(" ".join(["word"] * SPLIT_ABOVE)) == ()


def test_a_long_text_is_cut_at_its_paragraphs() -> None:
    text = long_text(BOAT)
    spans = passage_spans(text)
    assert len(spans) == 3
    assert BOAT.strip() in text[spans[1][0] : spans[1][1]]
    assert all(text[e - 1] != " " or text[e - 1 : e + 1].isspace() for _, e in spans[:-1])


def test_a_paragraph_longer_than_a_passage_is_cut_at_sentences_then_words() -> None:
    sentence = "One two three four five six seven eight nine ten. "
    text = sentence * 40  # 400 words, one paragraph
    spans = passage_spans(text)
    assert len(spans) >= 3
    assert all(text[s:e].strip().endswith(".") for s, e in spans)
    run_on = " ".join(f"w{i}" for i in range(400))  # no sentence end at all
    assert all(
        words(run_on[s:e]) <= PASSAGE_WORDS + MIN_TAIL_WORDS for s, e in passage_spans(run_on)
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 60), st.sampled_from([" ", ". ", ".\n", "\n\n", "\n- "])),
        min_size=1,
        max_size=40,
    )
)
def test_passages_cover_the_text_in_order_and_within_size(parts: list[tuple[int, str]]) -> None:
    text = "".join(" ".join(["lorem"] * n) + sep for n, sep in parts)
    spans = passage_spans(text)
    if words(text) <= SPLIT_ABOVE:
        assert spans == ()
        return
    assert len(spans) >= 2
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(0 < words(text[s:e]) < PASSAGE_WORDS + MIN_TAIL_WORDS for s, e in spans)


def test_the_stats_hold_each_passage() -> None:
    text = long_text(BOAT)
    stats = text_stats(text)
    assert [(p.start, p.end) for p in stats.passages] == list(passage_spans(text))
    assert "petrel" in stats.passages[1].stems and "petrel" not in stats.passages[0].stems
    assert sum(p.tokens for p in stats.passages) == stats.tokens


def passage(stems: str, tokens: int = 10) -> PassageStats:
    return PassageStats(0, 1, frozenset(stems.split()), tokens)


def test_the_passage_chosen_is_the_closest_then_the_one_with_the_query_words() -> None:
    rows = np.eye(3, dtype=np.float32)
    passages = [passage("a"), passage("b"), passage("c")]
    assert best_passage(passages, rows, rows[2], frozenset({"a"})) == 2
    assert best_passage(passages, None, rows[2], frozenset({"b"})) == 1
    assert best_passage(passages, None, rows[2], frozenset()) == 0


def test_consolidation_stores_a_vector_per_passage(tmp_path: Path) -> None:
    store, embedder = ingested(tmp_path, [long_text(BOAT), "I moved to Lisbon."])
    points = {p.record.text: p for p in store.scroll(Filter("b1", kinds=RAW_KINDS), True)}
    long, short = points[long_text(BOAT)], points["I moved to Lisbon."]
    assert short.passages is None
    assert long.passages is not None and long.passages.shape == (3, 64)
    pieces = [long.record.text[s:e].strip() for s, e in passage_spans(long.record.text)]
    assert np.allclose(long.passages, np.asarray(embedder.embed(pieces)), atol=1e-6)


def test_recall_returns_the_passage_that_answers_and_the_whole_on_request(tmp_path: Path) -> None:
    texts = [long_text(BOAT), long_text(FLASK), "I moved to Lisbon."]
    store, embedder = ingested(tmp_path, texts)
    pipeline = RecallPipeline(store, embedder)
    query = "what is the name of my sister's sailing boat at the marina"
    [top, *_] = pipeline.recall("b1", RecallRequest(query=query, limit=3)).results
    whole = long_text(BOAT)
    assert "Petrel" in top.text and words(top.text) < words(whole) / 2
    assert [(s.start, s.end) for s in top.snippet] == [passage_spans(whole)[1]]
    assert top.text == whole[top.snippet[0].start : top.snippet[0].end].strip()
    full = pipeline.recall("b1", RecallRequest(query=query, limit=3, full_text=True)).results
    assert full[0].id == top.id and full[0].text == whole and full[0].snippet == []
    short = [r for r in full if r.text == "I moved to Lisbon."]
    assert all(r.snippet == [] for r in short)


def test_the_budget_counts_what_is_returned(tmp_path: Path) -> None:
    store, embedder = ingested(tmp_path, [long_text(BOAT), long_text(FLASK)])
    pipeline = RecallPipeline(store, embedder)
    query = "sailing boat Petrel marina Flask routes blueprint"
    budget = 240  # two snippets (about 100 words each) fit; one whole text (300) does not
    cut = pipeline.recall("b1", RecallRequest(query=query, limit=5, max_tokens=budget))
    assert len(cut.results) == 2
    assert sum(words(r.text) for r in cut.results) <= budget
    whole = pipeline.recall(
        "b1", RecallRequest(query=query, limit=5, max_tokens=budget, full_text=True)
    )
    assert whole.results == []


def test_the_window_budgets_a_snippet_by_its_tokens() -> None:
    text = long_text(BOAT)
    stats = text_stats(text)
    c = Candidate(memory(text), score=1.0, stats=stats)
    [cut] = with_snippets([c], 5, lambda memories: {}, np.zeros(4, np.float32), ["petrel"])
    assert cut.snippet == (1,)
    assert returned_tokens(cut) == stats.passages[1].tokens
    assert "Petrel" in returned_text(cut)
    assert fill_window([cut], 5, max_tokens=stats.passages[1].tokens).shown == [cut]
    assert fill_window([c], 5, max_tokens=stats.passages[1].tokens).shown == []


def test_rebuild_embeds_the_passages_of_a_memory_stored_without(tmp_path: Path) -> None:
    embedder = HashEmbedder(64)
    deps = edge_consolidator(tmp_path, embedder)
    consolidate([event(long_text(BOAT), 0)], deps)
    store = deps.store
    [stored] = list(store.scroll(Filter("b1", kinds=RAW_KINDS), True))
    assert stored.passages is not None
    # As a version before passages wrote it: no passage vectors.
    store.upsert([StoredPoint(stored.record, stored.dense, stored.sparse)])
    [bare] = list(store.scroll(Filter("b1", kinds=RAW_KINDS), True))
    assert bare.passages is None
    rebuild_bank("b1", deps)
    [after] = list(store.scroll(Filter("b1", kinds=RAW_KINDS), True))
    assert after.passages is not None
    assert np.allclose(after.passages, stored.passages, atol=1e-6)


def test_an_agent_sees_which_results_are_excerpts(tmp_path: Path) -> None:
    store, embedder = ingested(tmp_path, [long_text(BOAT), "I moved to Lisbon."])
    pipeline = RecallPipeline(store, embedder)
    query = "my sister's sailing boat Petrel and where I moved"
    response = pipeline.recall("b1", RecallRequest(query=query, limit=2))
    answer = compact(response)
    by_text = {f.text: f for f in answer.results}
    boat = next(f for t, f in by_text.items() if "Petrel" in t)
    assert boat.excerpt is True and by_text["I moved to Lisbon."].excerpt is None
    lines = text_of(response).splitlines()
    assert any("Petrel" in ln and ln.endswith("[excerpt]") for ln in lines)
    assert any(ln.endswith("I moved to Lisbon.") for ln in lines)
    table = recall_table(pipeline.recall("b1", RecallRequest(query=query, limit=2)))
    assert table.row_count == 2
