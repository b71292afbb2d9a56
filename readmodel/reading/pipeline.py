"""The reader: named, pure stages run in a fixed order over each clause of a statement.

    words -> subject -> predicate -> values -> roles -> frame (content, change, kind)

Each stage takes the clause's `Draft` and returns it with its own annotations; a stage
that cannot go on says why (`Draft.unread`) and the clause is not read further. A text
long enough to be cut into passages (`readmodel.passages`) is not read as one statement.
"""

import hashlib
from collections.abc import Callable
from functools import lru_cache

from readmodel.passages import SPLIT_ABOVE
from readmodel.reading.draft import Draft
from readmodel.reading.frames import change_cue, content_terms, kind_of, read_frame
from readmodel.reading.grammar import NEGATIONS
from readmodel.reading.predicates import read_predicate
from readmodel.reading.roles import read_roles
from readmodel.reading.statement import Clause, Reading
from readmodel.reading.subjects import read_subject
from readmodel.reading.values import read_values
from readmodel.reading.words import as_note, clauses, normalise, speaker_of, tokens
from readmodel.text import TEXT_CACHE_SIZE

Stage = Callable[[Draft], Draft]
STAGES: tuple[tuple[str, Stage], ...] = (
    ("subject", read_subject),
    ("predicate", read_predicate),
    ("values", read_values),
    ("roles", read_roles),
)
MAX_CLAUSES = 4
"""More sentences than this make a text a passage of talk, not a statement."""


def read_clause(text: str, speaker: str | None = None, entities: tuple[str, ...] = ()) -> Draft:
    """One clause through every stage, or as far as it could be read."""
    draft = Draft(tokens(text), speaker, entities)
    for _name, stage in STAGES:
        draft = stage(draft)
        if draft.unread is not None:
            break
    return draft


def clause_of(draft: Draft) -> Clause:
    frame, content = read_frame(draft)
    return Clause(
        subject=draft.subject,
        predicate=draft.predicate,
        frame=frame,
        content=content,
        values=draft.values,
        polarity=draft.polarity,
        tense=draft.tense,
        aspect=draft.aspect,
        change=change_cue(draft),
        kind=kind_of(draft),
        passive=draft.passive,
        modal=draft.modal,
        named=draft.named,
    )


def _words(sentences: list[str]) -> frozenset[str]:
    """Content terms of every sentence, each with its contrasting preposition, and a
    mark for a negation: what an unread statement is compared by."""
    out: set[str] = set()
    for sentence in sentences:
        found = tokens(sentence)
        for i, token in enumerate(found):
            if token.low in NEGATIONS:
                out.add("~not")
            out.update(content_terms(token.low, found[i - 1].low if i else ""))
    return frozenset(out)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _read(text: str, entities: tuple[str, ...]) -> Reading:
    """A text that reads neither as statements nor with its prefix as a speaker is tried
    as a terse note ("CI: Node 20" as "CI is Node 20")."""
    normal = normalise(text)
    speaker, rest = speaker_of(normal)
    reading = _statements(text, rest, speaker, entities)
    colon = any(" : " in f" {c.frame} " for c in reading.clauses)
    if not colon and reading.readable:
        return reading
    for said, by in ((rest, speaker), (normal, None)):
        note = as_note(said)
        if note is not None:
            retried = _statements(text, note, by, entities)
            if retried.readable:
                return retried
    return reading


def _statements(text: str, rest: str, speaker: str | None, entities: tuple[str, ...]) -> Reading:
    sentences = clauses(rest)
    if len(text.split()) > SPLIT_ABOVE:
        return Reading((), fingerprint(_words(sentences)), "a long text, read by passage")
    if not sentences:
        return Reading((), _words(sentences), "no words")
    if len(sentences) > MAX_CLAUSES:
        return Reading((), _words(sentences), f"more than {MAX_CLAUSES} sentences")
    read: list[Clause] = []
    for sentence in sentences:
        draft = read_clause(sentence, speaker, entities)
        if draft.unread is not None:
            return Reading((), _words(sentences), f"{draft.unread}: {sentence!r}")
        read.append(clause_of(draft))
    return Reading(tuple(read), _words(sentences))


def fingerprint(words: frozenset[str]) -> frozenset[str]:
    """The content words of a long text as one digest: compared only for equality, and
    stored with the memory, where a long text's hundreds of stems would double its size."""
    digest = hashlib.blake2b("\x1f".join(sorted(words)).encode(), digest_size=16)
    return frozenset({f"#{digest.hexdigest()}"})


ONE_STATEMENT_WORDS = 25
"""Words beyond which a text says several things (a request with what it presupposes, a
turn of talk): the longest statement of the supersession and update corpora has 18, and
a turn of conversation that is superseded whole for one of its values loses the rest."""


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def several_statements(text: str) -> bool:
    """Whether `text` says more than one thing: more than `ONE_STATEMENT_WORDS` words
    besides its speaker. Superseding such a memory whole would take its other statements
    with the one a newer memory replaced."""
    _, rest = speaker_of(normalise(text))
    return len(rest.split()) > ONE_STATEMENT_WORDS


def read(text: str, entities: list[str] | tuple[str, ...] = ()) -> Reading:
    """The reading of a statement (`statement.Reading`)."""
    return _read(text, tuple(entities))
