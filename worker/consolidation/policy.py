"""Thresholds and cue words that decide merges and supersessions."""

import re
from dataclasses import dataclass

CHANGE_CUES = (
    "moved",
    "moving",
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


CHANGE_PATTERN = _cue_pattern(CHANGE_CUES)
NEGATION_PATTERN = _cue_pattern(NEGATION_CUES)


@dataclass(frozen=True)
class ConsolidationPolicy:
    """`merge_threshold`: cosine at which two texts say the same thing;
    `topic_threshold`: cosine at which two texts are about the same thing (an update
    needs this plus a change cue); `neighbour_limit`: how many similar memories are
    considered per event."""

    merge_threshold: float = 0.84
    topic_threshold: float = 0.55
    neighbour_limit: int = 64

    @property
    def search_threshold(self) -> float:
        """Engines score approximately; search a little wider than any decision needs."""
        return max(0.0, min(self.merge_threshold, self.topic_threshold) - 0.02)


def has_change_cue(text: str) -> bool:
    return CHANGE_PATTERN.search(text) is not None


def has_negation_cue(text: str) -> bool:
    return NEGATION_PATTERN.search(text.replace("’", "'")) is not None
