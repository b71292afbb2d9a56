"""Thresholds and cue words that decide merges and supersessions."""

import re
from dataclasses import dataclass

CHANGE_CUES = (
    "moved",
    "moving",
    "moves",
    "switches",
    "changes",
    "relocated",
    "switched",
    "switching",
    "changed",
    "now",
    "no longer",
    "anymore",
    "any more",
    "quit",
    "instead",
    "became",
    "become",
    "started",
    "starting",
    "new",
    "left",
    "joined",
    "stopped",
    "actually",
    "correction",
    "retired",
    "used to",
    "nowadays",
    "these days",
    "updated",
    "replaced",
    "cancelled",
    "canceled",
    "rescheduled",
    "postponed",
    "moved to",
    "not",
    "never",
    "got",
    "promoted",
    "renamed",
    "divorced",
    "married",
    "engaged",
    "sold",
    "bought",
    "prefer",
    "prefers",
    "hate",
    "hates",
    "rebooked",
    "raised",
    "increased",
    "decreased",
    "lowered",
    "reduced",
    "pushed back",
    "brought forward",
    "closed",
    "reopened",
    "since",
    "transferred",
    "upgraded",
    "downgraded",
    "resigned",
    "hired",
    "graduated",
    "relocating",
)
NEGATION_CUES = (
    "no longer",
    "not",
    "never",
    "don't",
    "doesn't",
    "isn't",
    "wasn't",
    "aren't",
    "won't",
    "didn't",
    "quit",
    "stopped",
    "cancelled",
    "canceled",
    "retract",
    "retracted",
    "wrong",
    "incorrect",
    "false",
    "anymore",
    "any more",
    "nothing",
    "none",
)


def _cue_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = sorted({re.escape(w).replace(r"\ ", r"\s+") for w in words}, key=len)
    return re.compile(r"(?<![\w'])(?:" + "|".join(reversed(alternatives)) + r")(?![\w'])", re.I)


STRONG_CHANGE_CUES = (
    "moved",
    "moving",
    "moves",
    "relocated",
    "relocating",
    "switched",
    "switches",
    "switching",
    "changed",
    "changes",
    "no longer",
    "anymore",
    "any more",
    "quit",
    "instead",
    "correction",
    "rescheduled",
    "postponed",
    "cancelled",
    "canceled",
    "replaced",
    "sold",
    "closed",
    "stopped",
    "retired",
    "resigned",
    "transferred",
    "renamed",
    "promoted",
    "pushed back",
    "brought forward",
    "rebooked",
    "upgraded",
    "downgraded",
    "engaged",
    "married",
    "divorced",
    "broke up",
    "separated",
    "became",
    "joined",
    "hired",
    "graduated",
)
"""Cues that announce a change by themselves; "now", "new" or "got" also open sentences
that change nothing, so they count only when the two texts share a topic word."""

CHANGE_PATTERN = _cue_pattern((*CHANGE_CUES, *STRONG_CHANGE_CUES))
STRONG_CHANGE_PATTERN = _cue_pattern(STRONG_CHANGE_CUES)
NEGATION_PATTERN = _cue_pattern(NEGATION_CUES)


@dataclass(frozen=True)
class ConsolidationPolicy:
    """`merge_threshold`: cosine at which two texts say the same thing;
    `topic_threshold`: cosine at which two texts may be about the same thing (an update
    needs this plus a change cue, a shared topic word and statement shape; the static
    embedder scores "My GP is Dr. Alvarez" and "I switched GPs; I now see Dr. Okafor"
    at 0.39); `subject_threshold`: the cosine an update needs when the two statements share
    only their subject ("Alice lives in Boston", "Alice moved to Seattle": 0.62);
    `neighbour_limit`: how many similar memories are considered per event;
    `statement_max_words` / `statement_max_sentences`: what still counts as one statement
    that an implicit update may replace."""

    merge_threshold: float = 0.84
    topic_threshold: float = 0.35
    subject_threshold: float = 0.5
    neighbour_limit: int = 64
    statement_max_words: int = 30
    statement_max_sentences: int = 2

    @property
    def search_threshold(self) -> float:
        """Engines score approximately; search a little wider than any decision needs."""
        return max(0.0, min(self.merge_threshold, self.topic_threshold) - 0.02)


def has_strong_change_cue(text: str) -> bool:
    return STRONG_CHANGE_PATTERN.search(text) is not None


def has_change_cue(text: str) -> bool:
    return CHANGE_PATTERN.search(text) is not None


def has_negation_cue(text: str) -> bool:
    return NEGATION_PATTERN.search(text.replace("’", "'")) is not None
