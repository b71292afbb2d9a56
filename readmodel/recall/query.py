"""Query analysis: keyword terms, temporal intent, heuristic expansion. Pure."""

import re
from dataclasses import dataclass

from readmodel.text import FUNCTION_WORDS, STOPWORDS, stem, tokens

MIN_TERM_CHARS = 3
TEMPORAL_INTENT = re.compile(
    r"(?<![\w'])(?:latest|most\s+recent(?:ly)?|recently|currently|current|now|nowadays|today|"
    r"changed|updated|newest|last\s+time|these\s+days|anymore|any\s+more|"
    r"still|already|again|next|yesterday|this\s+week|so\s+far|earlier|previously)(?![\w'])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    terms: tuple[str, ...]
    stems: tuple[str, ...]
    temporal_intent: bool


def salient_terms(text: str) -> tuple[str, ...]:
    """Query words that can identify a memory: no stopwords or function words, >= 3 chars,
    first occurrence order."""
    seen: dict[str, None] = {}
    for t in tokens(text):
        if len(t) >= MIN_TERM_CHARS and t not in STOPWORDS and t not in FUNCTION_WORDS:
            seen.setdefault(t, None)
    return tuple(seen)


def analyse(text: str) -> QueryAnalysis:
    terms = salient_terms(text)
    stems = tuple(dict.fromkeys(stem(t) for t in terms))
    return QueryAnalysis(text, terms, stems, TEMPORAL_INTENT.search(text) is not None)


def expansions(analysis: QueryAnalysis, max_queries: int, min_token: int) -> list[str]:
    """The query plus up to `max_queries - 1` sub-queries, longest salient terms first
    (deterministic: ties by first position)."""
    ranked = sorted(
        (t for t in analysis.terms if len(t) >= min_token),
        key=lambda t: (-len(t), analysis.terms.index(t)),
    )
    subs = [t for t in ranked if t != analysis.text.strip().lower()]
    return [analysis.text, *subs[: max(0, max_queries - 1)]]
