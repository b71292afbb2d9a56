"""The speaker a question names: "What does Melanie do on hikes?" asks about what
Melanie said, not about what her friend said to her.

A conversation turn opens with its speaker ("Melanie: We roasted marshmallows..."), and
the other speaker's replies, told in the same session, share its words, its context and
its session affinity, often using the name too ("Wow, Melanie!"). When the question
names a memory's speaker, that memory's score is multiplied by `1 + weight`; memories
of other speakers, and memories without one, are untouched. A question that names no
speaker changes nothing.

A transcript of a user and an assistant names its speakers by their roles ("User: ...",
"Assistant: ..."), and its questions come from the user. So the question's first person
names the user ("What is my weekly word count target?" is answered by what the user
said of it, not by the assistant's longer replies that restate it), and a question about
what the assistant said ("What did you recommend for ...?", "the schedule you
suggested") names the assistant instead. A question of how the user went about something
("How did I organize the sprint's tasks?") names neither: the transcript tells that in
the exchange, the user's turn and the assistant's reply to it, and lifting one of the
two would push the other out.
"""

import re

from readmodel.recall.candidate import Candidate, replace
from readmodel.text import speaker, tokens

USER_ROLES = frozenset({"user", "human"})
"""Speakers that are the user of a chat transcript: the question's first person."""
ASSISTANT_ROLES = frozenset({"assistant"})
"""Speakers that are the assistant of a chat transcript: the question's "you" when it
asks what was said."""

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "im", "ive"})
_SAID_BY_YOU = re.compile(
    r"\b(?:did|do|have|had)\s+you\s+(?:\w+\s+)?"
    r"(?:say|said|mention|mentioned|tell|told|suggest|suggested|recommend|recommended|"
    r"explain|explained|advise|advised|propose|proposed|describe|described|outline|outlined)\b"
    r"|\byou\s+(?:said|mentioned|told|suggested|recommended|explained|advised|proposed|"
    r"described|outlined)\b",
    re.IGNORECASE,
)
_HOW_I_WENT_ABOUT = re.compile(r"\bhow\s+(?:did|have|had)\s+I\b", re.IGNORECASE)


def roles_named(query: str, words: set[str]) -> frozenset[str]:
    """The transcript roles a question names: the assistant's when it asks what "you"
    said, otherwise the user's when it speaks in the first person, unless it asks how
    the user went about something."""
    if _SAID_BY_YOU.search(query):
        return ASSISTANT_ROLES
    if words & _FIRST_PERSON and not _HOW_I_WENT_ABOUT.search(query):
        return USER_ROLES
    return frozenset()


def named_speakers(query: str, candidates: list[Candidate]) -> frozenset[str]:
    """Speakers of the candidates that the question names: by name as a word
    ("Melanie's" too), or by role (`roles_named`)."""
    words = set(tokens(query))
    wanted = words | roles_named(query, words)
    return frozenset(s for c in candidates if (s := speaker(c.record.text)) in wanted)


def lift_named(
    candidates: list[Candidate], named: frozenset[str], weight: float
) -> list[Candidate]:
    """The memories of the `named` speakers multiplied by `1 + weight`."""
    if weight <= 0 or not named:
        return candidates
    factor = 1.0 + weight
    return [
        replace(c, score=c.score * factor) if speaker(c.record.text) in named else c
        for c in candidates
    ]


def speaker_note(named: frozenset[str], weight: float) -> str:
    """The stage's `explain` note: whom the question named, by what factor."""
    if not named:
        return "the question names no speaker"
    return f"x {1 + weight:g}: " + ", ".join(sorted(named))
