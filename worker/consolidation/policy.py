"""Thresholds that decide merges, and the words that announce a change or a negation."""

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from readmodel.text import TEXT_CACHE_SIZE

CHANGE_CUES = (
    "now",
    "nowadays",
    "these days",
    "lately",
    "since",
    "instead",
    "anymore",
    "any more",
    "no longer",
    "switched",
    "switches",
    "changed",
    "changes",
    "moved",
    "moves",
    "relocated",
    "new",
    "started",
    "became",
    "replaced",
    "updated",
    "correction",
    "actually",
    "rescheduled",
    "rebooked",
    "postponed",
    "pushed back",
    "brought forward",
    "extended",
    "promoted",
    "joined",
    "left",
    "quit",
    "stopped",
    "gave up",
    "from now on",
)
"""Words that announce a change: shown with a supersession, and required before a habit,
a plan or an event's date is replaced (their values change less cleanly than a city).
A change word alone never makes an update."""

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
    """`merge_threshold`: cosine at which two texts say the same thing (a restatement);
    `neighbour_limit`: how many similar memories are compared with each new one. An
    update does not depend on closeness (the static embedder scores "Ivan is dating
    Laura" and "Ivan is engaged to Sofia" at 0.3): it is decided by subject, attribute
    and value, so the facts it compares are found by their slot keys, not by search."""

    merge_threshold: float = 0.84
    neighbour_limit: int = 64
    propose_threshold: float = 0.72

    @cached_property
    def search_threshold(self) -> float:
        """How close a neighbour must be to be compared for a merge. The readings decide
        (`relations.restates`): a statement in the same words but a pronoun for the name
        ("He works at Initech") or another format of its time ("6 pm" / "18:00") scores
        0.77 to 0.84 with the static embedder, so neighbours are proposed from
        `propose_threshold`; another main verb needs `merge_threshold`. Engines score
        approximately; search a little wider than either. Computed once per policy:
        every pair of memories compared asks for it."""
        return max(0.0, min(self.merge_threshold, self.propose_threshold) - 0.02)


def change_cue(text: str) -> str | None:
    """The first change word of `text`, lowercased, or None."""
    found = CHANGE_PATTERN.search(text.replace("’", "'"))
    return " ".join(found.group(0).lower().split()) if found else None


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def has_negation_cue(text: str) -> bool:
    return NEGATION_PATTERN.search(text.replace("’", "'")) is not None
