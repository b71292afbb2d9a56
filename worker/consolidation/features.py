"""The reading of a memory, and the features consolidation decides on: computed once per
memory at ingest, the only place consolidation reads a text.

`relate` compares a new memory with tens of stored ones per event: their slots, change
word, negation and value words. Computed from the text each time, that cost grew with
the bank (per-text caches miss more the more memories there are). So `raw_memory`
computes them once and the memory carries them (`Memory.features`, one compact JSON
string: one payload value to write, and a read returns it with the record); reading
them back is a JSON parse, remembered per string.

A memory written before the field existed, or under another `FORMAT`, has its features
computed from the text, as before; `sediment rebuild` stores them. The features are a
function of the text and entities alone (`statement_features` is pure), so a stored
value and a computed one are equal and decisions do not depend on where they came from.
A change to the rules that compute them needs a rebuild, as `slot_keys` does.

The reading (`readmodel.reading`: subject, frame, typed values, polarity, tense) is stored
with them, so deciding whether two memories restate one fact reads neither text again:
one event's way through consolidation reads its text here, once, and every stored
neighbour it is compared with is decoded, not read.
"""

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from contracts.memory import Memory
from readmodel.reading import Reading, read, reading_key, several_statements, thing_keys
from readmodel.reading import statement as reading_json
from readmodel.text import STOPWORDS, TEXT_CACHE_SIZE
from worker.consolidation import openframes
from worker.consolidation.fullnames import full_names, qualified_reading, qualified_statement
from worker.consolidation.openframes import OpenReading
from worker.consolidation.openkeys import open_keys, open_query_keys
from worker.consolidation.policy import has_negation_cue
from worker.consolidation.statements import Slot, StatementFeatures, statement_features
from worker.consolidation.updates import slot_keys

FORMAT: Final = 7
"""Written first in every encoded value; a value of another format is not read (7: a
clause says how its subject is named, a known thing's date and status are the reader's,
the open reading keeps no things)."""

_VALUE_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve twenty thirty
    hundred thousand million first second third red orange yellow green blue purple pink
    black white grey gray brown monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december
    morning afternoon evening night""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_KINDS = ("fact", "episode", "other")


@dataclass(frozen=True)
class TextFeatures:
    """`statement`: what the text states (slots, change word); `negation`: whether it
    has a negation word; `values`: the words naming a value (`value_words`); `reading`:
    its reading (`readmodel.reading.read`), what restatement is decided on; `several`:
    whether it says several things (`readmodel.reading.several_statements`), so that no
    newer value of one of them supersedes it whole; `open`: its reading by frame
    (`openframes.py`), None for a text too long to be a stated fact."""

    statement: StatementFeatures
    negation: bool
    values: frozenset[str]
    reading: Reading
    several: bool
    open: OpenReading | None = None


def computed(text: str, entities: list[str] | tuple[str, ...] = ()) -> TextFeatures:
    """Read as a statement, by attribute and by frame, a person named in full keyed by
    the full name (`fullnames.py`)."""
    names = full_names(text, tuple(sorted(set(entities))))
    return TextFeatures(
        qualified_statement(statement_features(text, entities), names),
        has_negation_cue(text),
        value_words(text),
        read(text, entities),
        several_statements(text),
        qualified_reading(openframes.read(text, entities), names),
    )


def stored_fields(text: str, entities: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """What a raw memory stores about its text, computed here once: its features and
    the slot keys they give, with the keys of its open frames (`openkeys.open_keys`)
    and of its reading (`readmodel.reading.reading_key`), at ingest and again by a
    rebuild. Remembered per text and entities (a bank repeats
    texts: "replaced a broken light bulb", said of each person many times)."""
    keys, encoded = _stored(text, tuple(entities))
    return {"slot_keys": list(keys), "features": encoded}


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _stored(text: str, entities: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    found = computed(text, entities)
    key = reading_key(found.reading)
    keys = {
        *slot_keys(found.statement),
        *open_keys(found.open),
        *((key,) if key else ()),
        *thing_keys(found.reading),
    }
    return tuple(sorted(keys)), encode(found)


def query_keys(found: TextFeatures) -> tuple[str, ...]:
    """The stored keys a memory of these features reads its neighbours by, besides its
    slots: its open frames' (`openkeys.open_query_keys`) and its reading's, which every
    statement read alike stores (`readmodel.reading.reading_key`), and those of the
    statements of a thing's date or status it may relate to
    (`readmodel.reading.thing_keys`)."""
    key = reading_key(found.reading)
    keys = (*open_query_keys(found.open), *((key,) if key is not None else ()))
    return (*keys, *thing_keys(found.reading, query=True))


def of(memory: Memory) -> TextFeatures:
    """The memory's features: as stored, or computed from its text when none are."""
    if memory.features is not None:
        stored = decode(memory.features)
        if stored is not None:
            return stored
    return computed(memory.text, memory.entities)


def encode(features: TextFeatures) -> str:
    st = features.statement
    slots = [[s.subject, s.attribute, s.value, s.mode, s.tier] for s in st.slots]
    data = [
        FORMAT,
        st.speaker,
        st.kind,
        st.cue,
        features.negation,
        sorted(features.values),
        features.several,
    ]
    opened = openframes.to_json(features.open) if features.open is not None else None
    reading = reading_json.to_json(features.reading)
    return json.dumps([*data, slots, opened, reading], ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def decode(text: str) -> TextFeatures | None:
    """The features `encode` wrote, or None for a value of another format or shape."""
    try:
        data = json.loads(text)
        version, speaker, kind, cue, negation, values, several, slots, opened, reading = data
        if version != FORMAT or kind not in _KINDS:
            return None
        if not isinstance(negation, bool) or not isinstance(several, bool):
            return None
        statement = StatementFeatures(
            _str_or_none(speaker),
            kind,
            _str_or_none(cue),
            tuple(Slot(*(str(part) for part in s)) for s in slots),
        )
        by_frame = openframes.from_json(opened) if opened is not None else None
        return TextFeatures(
            statement,
            negation,
            frozenset(str(v) for v in values),
            reading_json.from_json(reading),
            several,
            by_frame,
        )
    except (ValueError, TypeError):
        return None


def _str_or_none(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def value_words(text: str) -> frozenset[str]:
    """Words naming a value: numbers, names (capitalised, not sentence-initial), colours, days."""
    found: set[str] = set()
    for sentence in re.split(r"[.!?]\s+", text):
        for i, word in enumerate(_WORD.findall(sentence)):
            low = word.lower()
            if low in STOPWORDS:
                continue
            if (
                any(c.isdigit() for c in word)
                or low in _VALUE_WORDS
                or (i > 0 and word[0].isupper())
            ):
                found.add(low)
    return frozenset(found)


def mentions(text: str, words: frozenset[str]) -> frozenset[str]:
    """Those of `words` that `text` has as words (case-insensitive). Tested against the
    text itself: value words are few, a text's words many, and only pairs of memories
    close enough to restate one another get here."""
    if not words:
        return words
    return words & _words(text)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))
