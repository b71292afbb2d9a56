"""Snippets: what of a long memory a result returns.

A memory of several passages (`readmodel.passages`) is returned as the passage that
answers the query, not as its whole text (unless the request asks `full_text`): an
agent with a token budget reads the part that matched, and the budget (`max_tokens`)
counts what is returned. The passage is the one closest to the query by its stored
vector's cosine, plus `LEXICAL_WEIGHT` times the share of the query's stems it holds
(stored with it at ingest; nothing is tokenised here); ties go to the earlier passage.
A memory whose passage vectors are not stored (an older store until its rebuild) is cut
by the stems alone.
"""

import uuid
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from readmodel.recall.candidate import Candidate, replace, text_stats
from readmodel.store import PassageStats, Vector

LEXICAL_WEIGHT = 0.3
"""What holding every stem of the query adds to a passage's cosine."""

VectorsOf = Callable[[Sequence[Candidate]], Mapping[uuid.UUID, Vector]]
"""The stored passage vectors of these candidates' memories (those that have them):
`PassageCache.vectors` over the store's `passage_vectors`."""


def _unit(v: Vector) -> Vector:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def best_passage(
    passages: Sequence[PassageStats], rows: Vector | None, query: Vector, stems: frozenset[str]
) -> int:
    """The index of the passage that answers the query best (see the module); `query`
    of unit length."""
    lexical = np.array(
        [len(stems & p.stems) / len(stems) if stems else 0.0 for p in passages], dtype=np.float32
    )
    scores = LEXICAL_WEIGHT * lexical
    if rows is not None and len(rows) == len(passages):
        unit_rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        scores = scores + unit_rows @ query
    return int(np.argmax(scores))


def with_snippets(
    ordered: list[Candidate],
    head: int,
    vectors_of: VectorsOf,
    query: Vector,
    stems: Sequence[str],
) -> list[Candidate]:
    """The first `head` candidates with passages get `snippet` (the chosen passage's
    index); the order is unchanged."""
    long = [c for c in ordered[:head] if text_stats(c).passages]
    if not long:
        return ordered
    rows = vectors_of(long)
    wanted, unit = frozenset(stems), _unit(np.asarray(query, dtype=np.float32))
    chosen = {
        c.id: best_passage(text_stats(c).passages, rows.get(c.id), unit, wanted) for c in long
    }
    return [replace(c, snippet=(chosen[c.id],)) if c.id in chosen else c for c in ordered]


def snippet_spans(c: Candidate) -> list[tuple[int, int]]:
    """The character spans of the candidate's snippet, in text order (empty: whole)."""
    if not c.snippet:
        return []
    passages = text_stats(c).passages
    return [(passages[i].start, passages[i].end) for i in sorted(c.snippet)]


def returned_text(c: Candidate) -> str:
    """What a result carries as its text: the snippet's passages, or the whole text."""
    spans = snippet_spans(c)
    if not spans:
        return c.record.text
    return "\n…\n".join(c.record.text[s:e].strip() for s, e in spans)


def returned_tokens(c: Candidate) -> int:
    """Whitespace tokens of what the result returns (`max_tokens` counts these)."""
    if not c.snippet:
        return text_stats(c).tokens
    passages = text_stats(c).passages
    return sum(passages[i].tokens for i in c.snippet)
