"""The speaker a question names: "What does Melanie do on hikes?" asks about what
Melanie said, not about what her friend said to her.

A conversation turn opens with its speaker ("Melanie: We roasted marshmallows..."), and
the other speaker's replies, told in the same session, share its words, its context and
its session affinity, often using the name too ("Wow, Melanie!"). When the question
names a memory's speaker, that memory's score is multiplied by `1 + weight`; memories
of other speakers, and memories without one, are untouched. A question that names no
speaker changes nothing.
"""

from readmodel.recall.candidate import Candidate, replace
from readmodel.text import speaker, tokens


def named_speakers(query: str, candidates: list[Candidate]) -> frozenset[str]:
    """Speakers of the candidates that the question names as a word ("Melanie's" too)."""
    words = set(tokens(query))
    return frozenset(s for c in candidates if (s := speaker(c.record.text)) in words)


def speaker_match(candidates: list[Candidate], query: str, weight: float) -> list[Candidate]:
    if weight <= 0:
        return candidates
    named = named_speakers(query, candidates)
    if not named:
        return candidates
    factor = 1.0 + weight
    return [
        replace(c, score=c.score * factor) if speaker(c.record.text) in named else c
        for c in candidates
    ]
