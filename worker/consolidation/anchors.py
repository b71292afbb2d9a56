"""Words a pattern cannot match without, so that a sentence holding none of them is not
searched with it.

Reading a statement's slots runs about a hundred frame patterns over every sentence
(`frames.FRAMES`), and nearly all of them fail. Each pattern names words it needs (a
verb, a noun, one of a few alternatives); `required_words` reads them from the
pattern's parse tree, and `Prefilter` runs a pattern only on sentences that hold one.
The test is necessary for a match, so the matches are exactly those of running every
pattern (tests/unit/test_frame_prefilter.py checks it on generated and random text).

A pattern whose requirement cannot be read (no literal word, or a construct this
reader does not know) is always run, so the filter can only skip work, never a match.
"""

import re
from collections.abc import Sequence
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

Words = frozenset[str]

_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789 '-")
_REPEATS = tuple(
    op
    for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
    if (op := getattr(sre, name, None)) is not None
)


def required_words(pattern: re.Pattern[str]) -> Words | None:
    """Lowercase strings one of which every match of `pattern` contains (compared with
    the lowercased text), or None when no such set can be read from it."""
    try:
        tree = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:
        return None
    return _required(list(tree))


def _required(items: Sequence[tuple[Any, Any]]) -> Words | None:
    """Of a sequence: the most selective requirement among its literal runs and its
    required parts (each part must match, so any one part's requirement holds)."""
    found: list[Words] = []
    run: list[str] = []

    def end_run() -> None:
        if run:
            found.append(frozenset(["".join(run)]))
            run.clear()

    for op, arg in items:
        if op is sre.LITERAL and chr(arg).lower() in _WORD_CHARS:
            run.append(chr(arg).lower())
            continue
        end_run()
        if op is sre.SUBPATTERN:
            found.append(_required(list(arg[-1])) or frozenset())
        elif op is sre.BRANCH:
            alternatives = [_required(list(a)) for a in arg[1]]
            if all(alternatives):
                found.append(frozenset().union(*alternatives))  # type: ignore[arg-type]
        elif op in _REPEATS and arg[0] >= 1:
            found.append(_required(list(arg[2])) or frozenset())
        elif op is sre.ASSERT and arg[0] == 1:
            # A lookahead's text lies in the searched sentence too.
            found.append(_required(list(arg[1])) or frozenset())
    end_run()
    usable = [words for words in found if words and all(words)]
    if not usable:
        return None
    return max(usable, key=lambda words: (min(map(len, words)), -len(words)))


class Prefilter:
    """The patterns of `patterns` that may match a sentence, in their order."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self._count = len(patterns)
        self._always: list[int] = []
        by_word: dict[str, list[int]] = {}
        for i, pattern in enumerate(patterns):
            words = required_words(pattern)
            if words is None:
                self._always.append(i)
                continue
            for word in words:
                by_word.setdefault(word, []).append(i)
        self._by_word = {w: tuple(ids) for w, ids in sorted(by_word.items())}

    @property
    def always_run(self) -> int:
        """How many patterns have no readable requirement (run on every sentence)."""
        return len(self._always)

    def candidates(self, sentence: str) -> list[int]:
        """Indices of the patterns to run on `sentence`. Text that is not ASCII runs
        them all: under IGNORECASE some non-ASCII letters match ASCII ones."""
        if not sentence.isascii():
            return list(range(self._count))
        low = sentence.lower()
        chosen = set(self._always)
        for word, ids in self._by_word.items():
            if word in low:
                chosen.update(ids)
        return sorted(chosen)
