"""Text features shared by consolidation and recall: tokens, stems, stopwords and
function words, and keyword (sparse) vectors of hashed terms with saturated term frequency.

The engine applies IDF (the sparse vector is declared with the IDF modifier), so
documents carry only term frequency and queries carry ones.
"""

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer

from readmodel.instructions import instruction_scope
from readmodel.passages import passage_spans
from readmodel.store import PassageStats, SparseVector, TextStats

TEXT_CACHE_SIZE = 16384
"""Entries of each per-text cache (`speaker` here; statement features, value words, word
sets and the negation cue in worker/consolidation). A cached text costs about 2.8 KB
over all of them on the bench workload (texts of 45 characters), so 16,384 texts hold
about 46 MB where 65,536 held about 180 in a long-running worker; a batch's neighbours
and slot-key scrolls are what is reused, and fit (see docs/decisions/0020)."""

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_K1 = 1.2

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t don doesn didn isn wasn ll re ve d m o y""".split()
)

# Question and filler words: never a topic of a memory or a query.
FUNCTION_WORDS = frozenset(
    """when what which where who whom whose why how from into have has had does did do
    done can could would should will shall may might must also just like get got tell
    told said say says know knew think thought ever yet still much many any some""".split()
)


def tokens(text: str) -> list[str]:
    """Lowercase word tokens with possessive endings removed."""
    out = []
    for raw in _TOKEN.findall(text.lower()):
        word = raw.replace("’", "'")
        if word.endswith("'s"):
            word = word[:-2]
        out.append(word.replace("'", ""))
    return [w for w in out if w]


_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball (Porter 2) stem, so "lives" and "live" are one term."""
    return str(_STEMMER.stemWord(word))


def terms(text: str) -> list[str]:
    """Stemmed tokens that carry meaning for keyword matching."""
    return [stem(t) for t in tokens(text) if t not in STOPWORDS]


def term_id(term: str) -> int:
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def _sparse(weights: dict[int, float]) -> SparseVector:
    ordered = sorted(weights.items())
    return SparseVector(tuple(i for i, _ in ordered), tuple(v for _, v in ordered))


def document_vector(text: str) -> SparseVector:
    counts = Counter(term_id(t) for t in terms(text))
    return _sparse({i: tf * (_K1 + 1) / (tf + _K1) for i, tf in counts.items()})


def query_vector(text: str | Iterable[str]) -> SparseVector:
    words = terms(text) if isinstance(text, str) else list(text)
    return _sparse({term_id(t): 1.0 for t in words})


# "Ana: I moved" names its speaker; these capitalised openers are not people.
_SPEAKER = re.compile(r"^\s*([A-Z][\w.-]*)\s*:\s")
NOT_SPEAKERS = frozenset(
    """correction reminder update note news ps fyi btw re subject summary question answer
    todo tip warning important""".split()
)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def speaker(text: str) -> str | None:
    """The lowercase name a text opens with as its speaker ("Ana: ..."), or None;
    "Note:"-like openers are not speakers."""
    found = _SPEAKER.match(text)
    if found is None:
        return None
    name = found.group(1).lower()
    return None if name in NOT_SPEAKERS else name


def text_stats(text: str) -> TextStats:
    """What recall ranks a text by (`TextStats`), from the text itself."""
    return TextStats(
        frozenset(stem(w) for w in tokens(text)),
        len(text.split()),
        tuple(
            PassageStats(
                s, e, frozenset(stem(w) for w in tokens(text[s:e])), len(text[s:e].split())
            )
            for s, e in passage_spans(text)
        ),
        instruction_scope(text),
    )


def encode_stems(stems: Iterable[str]) -> str:
    """One string, the stems sorted and space-separated (a stem holds no space): a
    single payload value, cheap for an engine to convert, where a list costs per item."""
    return " ".join(sorted(stems))


def decode_stems(value: str) -> frozenset[str]:
    return frozenset(value.split())
