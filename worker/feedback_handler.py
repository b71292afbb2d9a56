"""Feedback events: votes and "not useful" marks, persisted on the read model's records.

Counts are capped where they are stored (3 up, 3 down, 5 not-useful marks), so the
recall bias they feed stays bounded however many votes arrive. A vote counts once per
`event_id`: the seen-marker is written last, under the bank's lock.
"""

from dataclasses import dataclass

import redis

from contracts.feedback import FeedbackEvent
from readmodel.store import Feedback, MemoryStore
from worker.errors import PoisonEvent
from worker.locks import Locks

VOTE_CAP = 3
NOT_USEFUL_CAP = 5
SEEN_TTL_S = 90 * 24 * 3600


@dataclass(frozen=True)
class FeedbackDeps:
    store: MemoryStore
    locks: Locks
    redis: redis.Redis


def counted(current: Feedback, vote: str) -> Feedback:
    if vote == "up":
        return Feedback(min(VOTE_CAP, current.votes_up + 1), current.votes_down, current.not_useful)
    if vote == "down":
        return Feedback(current.votes_up, min(VOTE_CAP, current.votes_down + 1), current.not_useful)
    return Feedback(
        current.votes_up, current.votes_down, min(NOT_USEFUL_CAP, current.not_useful + 1)
    )


def apply_feedback(event: FeedbackEvent, deps: FeedbackDeps) -> bool:
    """True when the vote was counted, False for a repeat of a counted event."""
    seen_key = f"sediment:feedback:seen:{event.bank_id}:{event.event_id}"
    with deps.locks.hold(f"bank:{event.bank_id}"):
        if deps.redis.exists(seen_key):
            return False
        found = deps.store.fetch(event.bank_id, [event.memory_id])
        if not found:
            raise PoisonEvent(f"no memory {event.memory_id} in bank {event.bank_id}")
        r = found[0].record
        now = Feedback(r.votes_up, r.votes_down, r.not_useful)
        deps.store.set_feedback(event.bank_id, r.id, counted(now, event.vote))
        deps.redis.set(seen_key, b"1", ex=SEEN_TTL_S)
    return True
