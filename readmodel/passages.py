"""Passages of a long text: where a memory of several paragraphs is cut so that each
part can be found, scored and returned on its own.

A text of at most `SPLIT_ABOVE` whitespace words is one passage and is not cut (its
spans are empty). A longer one is cut at paragraph breaks, a paragraph longer than
`PASSAGE_WORDS` at sentence ends, and a sentence longer than that between words; the
pieces are then packed, in order, into passages of at most `PASSAGE_WORDS` words, and
a last passage shorter than `MIN_TAIL_WORDS` joins the one before it. Spans are
character offsets into the text, contiguous and covering it (whitespace between two
passages belongs to the first), so `text[start:end]` is a passage and nothing is lost.

A pure function of the text: consolidation, the store's payload and a rebuild derive
the same spans from the same text, and only the passages' vectors need an embedder.
"""

import re
from collections.abc import Iterator

PASSAGE_WORDS = 120
"""The most whitespace words a passage holds (about 160 tokens of a model's vocabulary,
within what both shipped embedders read of one text)."""
SPLIT_ABOVE = 150
"""A text of at most this many words is one passage: cutting it would give a reader
nothing a short text does not already give."""
MIN_TAIL_WORDS = 30
"""A last passage shorter than this joins the one before it."""

Span = tuple[int, int]

_PARAGRAPH = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*\u2022]|\d+[.)])\s)")
_SENTENCE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)")
_WORD = re.compile(r"\S+")


def _cuts(text: str, pattern: re.Pattern[str], start: int, end: int) -> Iterator[Span]:
    """Pieces of text[start:end] ending where `pattern` matches (the match goes with
    the piece before it)."""
    at = start
    for m in pattern.finditer(text, start, end):
        if m.end() > at and m.start() > at:
            yield at, m.end()
            at = m.end()
    if at < end:
        yield at, end


def _words(text: str, start: int, end: int) -> int:
    return sum(1 for _ in _WORD.finditer(text, start, end))


def _by_words(text: str, start: int, end: int) -> Iterator[Span]:
    """text[start:end] in pieces of at most `PASSAGE_WORDS` words, cut after a word."""
    words = list(_WORD.finditer(text, start, end))
    for i in range(0, len(words), PASSAGE_WORDS):
        last = min(i + PASSAGE_WORDS, len(words))
        yield (
            (start if i == 0 else words[i].start()),
            (end if last == len(words) else words[last].start()),
        )


def _pieces(text: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, words) of the smallest units passages are packed from."""
    for p_start, p_end in _cuts(text, _PARAGRAPH, 0, len(text)):
        if _words(text, p_start, p_end) <= PASSAGE_WORDS:
            yield p_start, p_end, _words(text, p_start, p_end)
            continue
        for s_start, s_end in _cuts(text, _SENTENCE, p_start, p_end):
            n = _words(text, s_start, s_end)
            if n <= PASSAGE_WORDS:
                yield s_start, s_end, n
            else:
                for w_start, w_end in _by_words(text, s_start, s_end):
                    yield w_start, w_end, _words(text, w_start, w_end)


def passage_spans(text: str) -> tuple[Span, ...]:
    """The passages of `text` as (start, end) offsets; empty when it is one passage."""
    if len(text.split()) <= SPLIT_ABOVE:  # every text stored passes here: the cheap count
        return ()
    packed: list[list[int]] = []  # [start, end, words]
    for start, end, n in _pieces(text):
        if packed and packed[-1][2] + n <= PASSAGE_WORDS:
            packed[-1][1], packed[-1][2] = end, packed[-1][2] + n
        else:
            if packed:
                packed[-1][1] = start  # the whitespace between goes with the first
            packed.append([start, end, n])
    if len(packed) > 1 and packed[-1][2] < MIN_TAIL_WORDS:
        tail = packed.pop()
        packed[-1][1], packed[-1][2] = tail[1], packed[-1][2] + tail[2]
    packed[0][0], packed[-1][1] = 0, len(text)
    if len(packed) < 2:
        return ()
    return tuple((s, e) for s, e, _ in packed)


def passage_texts(text: str, spans: tuple[Span, ...]) -> list[str]:
    return [text[s:e].strip() for s, e in spans]
