"""The per-text caches of text features are bounded by one size, small enough that a
long-running worker or serve does not hold hundreds of MB of them (readmodel/text.py)."""

from collections.abc import Callable
from typing import Any

import pytest

from readmodel import text
from worker.consolidation import features, policy, statements

PER_TEXT: dict[str, Callable[..., Any]] = {
    "speaker": text.speaker,
    "statement features": statements._features,
    "stored features, decoded": features.decode,
    "words": features._words,
    "negation cue": policy.has_negation_cue,
}


def test_the_bound_is_small() -> None:
    assert 1024 <= text.TEXT_CACHE_SIZE <= 16384


@pytest.mark.parametrize("name", sorted(PER_TEXT))
def test_every_per_text_cache_has_the_bound(name: str) -> None:
    assert PER_TEXT[name].cache_info().maxsize == text.TEXT_CACHE_SIZE  # type: ignore[attr-defined]


def test_a_full_cache_stays_at_the_bound() -> None:
    cached = features._words
    for i in range(text.TEXT_CACHE_SIZE + 10):
        cached(f"text {i}")
    assert cached.cache_info().currsize == text.TEXT_CACHE_SIZE
    cached.cache_clear()
