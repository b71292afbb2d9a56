"""Feedback events: votes and "not useful" marks, persisted on the read model's records.

Counts are capped where they are stored (3 up, 3 down, 5 not-useful marks), so the
recall bias they feed stays bounded however many votes arrive. A vote counts once per
`event_id`: the seen-marker is written last, under the bank's lock.

A vote on a memory that a forget removed (it has a tombstone) is dropped and counted
(`feedback_dropped{reason="forgotten"}`, docs/metrics.md): a vote that raced a forget
is nothing to repair, so it stays out of the dead-letter stream. A vote on a memory the
bank never held is still a poison event.
"""

from dataclasses import dataclass, field
from enum import StrEnum

import redis

from contracts.feedback import FeedbackEvent
from readmodel.store import Feedback, MemoryStore
from telemetry.metrics import FEEDBACK_DROPPED, Metrics, NoopMetrics
from worker.errors import PoisonEvent
from worker.locks import Locks
from worker.tombstones import MemoryTombstones, Tombstones

VOTE_CAP = 3
NOT_USEFUL_CAP = 5
SEEN_TTL_S = 90 * 24 * 3600


@dataclass(frozen=True)
class FeedbackDeps:
    store: MemoryStore
    locks: Locks
    redis: redis.Redis
    tombstones: Tombstones = field(default_factory=MemoryTombstones)
    metrics: Metrics = field(default_factory=NoopMetrics)


class Tally(StrEnum):
    """What became of a vote."""

    COUNTED = "counted"
    REPEATED = "repeated"
    FORGOTTEN = "forgotten"


def counted(current: Feedback, vote: str) -> Feedback:
    if vote == "up":
        return Feedback(min(VOTE_CAP, current.votes_up + 1), current.votes_down, current.not_useful)
    if vote == "down":
        return Feedback(current.votes_up, min(VOTE_CAP, current.votes_down + 1), current.not_useful)
    return Feedback(
        current.votes_up, current.votes_down, min(NOT_USEFUL_CAP, current.not_useful + 1)
    )


def apply_feedback(event: FeedbackEvent, deps: FeedbackDeps) -> Tally:
    """Count the vote once; a repeat of a counted event is not counted again, a vote on
    a forgotten memory is dropped (and counted as such). Raises `PoisonEvent` for a
    memory the bank has never held."""
    bank = event.bank_id
    seen_key = f"sediment:feedback:seen:{bank}:{event.event_id}"
    with deps.locks.hold(f"bank:{bank}"):
        if deps.redis.exists(seen_key):
            return Tally.REPEATED
        found = deps.store.fetch(bank, [event.memory_id])
        if not found:
            if deps.tombstones.forgotten(bank, [event.memory_id]):
                deps.metrics.incr(FEEDBACK_DROPPED, 1, {"bank": bank, "reason": "forgotten"})
                return Tally.FORGOTTEN
            raise PoisonEvent(f"no memory {event.memory_id} in bank {bank}")
        r = found[0].record
        now = Feedback(r.votes_up, r.votes_down, r.not_useful)
        deps.store.set_feedback(bank, r.id, counted(now, event.vote))
        deps.redis.set(seen_key, b"1", ex=SEEN_TTL_S)
    return Tally.COUNTED
