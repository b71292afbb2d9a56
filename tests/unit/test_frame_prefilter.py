"""The frame prefilter skips only patterns that cannot match: the slots a sentence gives
are those of running every frame, on generated statements and on random text."""

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.supersession_gen import generate
from bench.workload import events
from worker.consolidation import statements
from worker.consolidation.anchors import Prefilter, required_words
from worker.consolidation.frames import FRAMES
from worker.consolidation.statements import FRAME_FILTER

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def every_match(sentence: str) -> list[tuple[int, tuple[int, int]]]:
    return [(i, m.span()) for i, f in enumerate(FRAMES) for m in f.pattern.finditer(sentence)]


def filtered_match(sentence: str) -> list[tuple[int, tuple[int, int]]]:
    return [
        (i, m.span())
        for i in FRAME_FILTER.candidates(sentence)
        for m in FRAMES[i].pattern.finditer(sentence)
    ]


def texts(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "text" and isinstance(value, str):
                yield value
            else:
                yield from texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from texts(value)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"\bno\s+longer\s+", {"longer"}),
        (r"\b(?:lives?|living)\s+in\s+", {"liv"}),
        (r"\b(?:moved|went)\s+(?:back\s+)?to\s+(?=(?-i:[A-Z]))", {"moved", "went"}),
        (r"(?:my|our)\s+(?:cat|dog)(?=\s+is\s+named)", {"named"}),
        (r"\b(?:works?|worked)\s+at\b", {"work"}),
    ],
)
def test_the_required_words_are_read_from_the_pattern(pattern: str, words: set[str]) -> None:
    """The most selective literal run or alternation a match needs (the parser factors
    alternatives: "lives?|living" is "liv" then "e" or "ing")."""
    assert required_words(re.compile(pattern, re.I)) == words


@pytest.mark.parametrize(
    "pattern",
    [r"(?P<val>(?-i:[A-Z])\w+)", r"(?:new\s+)?\d+", r"(?!never)\w+", r"(?:a|b|)\s+\d"],
)
def test_a_pattern_without_a_required_word_has_none(pattern: str) -> None:
    assert required_words(re.compile(pattern, re.I)) is None


def test_a_pattern_without_requirement_always_runs() -> None:
    patterns = [re.compile(r"\bno\s+longer\b", re.I), re.compile(r"\d+")]
    pre = Prefilter(patterns)
    assert pre.always_run == 1
    assert pre.candidates("It is 42.") == [1]
    assert pre.candidates("Ana No Longer lives here.") == [0, 1]


def test_every_frame_has_required_words() -> None:
    """Otherwise the filter saves nothing for it (it is run on every sentence)."""
    assert FRAME_FILTER.always_run == 0


def test_text_that_is_not_ascii_runs_every_frame() -> None:
    assert FRAME_FILTER.candidates("Zoë lives in Kraków.") == list(range(len(FRAMES)))


class AllFrames:
    def candidates(self, sentence: str) -> list[int]:
        return list(range(len(FRAMES)))


def test_generated_statements_give_the_same_matches_and_features(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = [
        t
        for name in ("supersession_dev.json", "updates_dev.json")
        for t in texts(json.loads((DATA / name).read_text()))
    ]
    generated = [t for split in generate().values() for t in texts(split)]
    stream = [e.text for e in events(2, 400, seed=5)]
    corpus = shipped + generated + stream
    assert len(corpus) > 2000
    skipped = 0
    for text in corpus:
        assert filtered_match(text) == every_match(text), text
        skipped += len(FRAMES) - len(FRAME_FILTER.candidates(text))
    assert skipped > 0.5 * len(FRAMES) * len(corpus)
    sample = corpus[::20]
    filtered = [statements._features.__wrapped__(t, ()) for t in sample]
    monkeypatch.setattr(statements, "FRAME_FILTER", AllFrames())
    assert [statements._features.__wrapped__(t, ()) for t in sample] == filtered


def _vocabulary() -> list[str]:
    words = {
        w
        for f in FRAMES
        for w in re.findall(r"[a-z]{2,}", f.pattern.pattern.replace(r"\s+", " "))
        if w not in {"w", "s", "i", "a", "z"}
    }
    return [*sorted(words), "Ana", "Porto", "Acme", "my", "her", "'s", "is", "the", "."]


VOCABULARY = _vocabulary()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=14), st.booleans())
def test_random_sentences_give_the_same_matches(words: list[str], capital: bool) -> None:
    sentence = " ".join(words)
    if capital:
        sentence = sentence.upper()
    assert filtered_match(sentence) == every_match(sentence)
