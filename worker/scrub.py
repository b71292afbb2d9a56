"""After a forget: no copy of a forgotten event's payload stays behind on the write side.

The redelivery ledger keeps each published retain's payload until a worker settles it,
and the dead-letter stream keeps rejected payloads as sent; both are scrubbed of the
forgotten events (a still-queued retain of one is skipped as forgotten when it arrives).
"""

import uuid
from collections.abc import Sequence

from worker.deadletters import DeadLetters, RedisDeadLetters
from worker.ledger import Kind, Ledger, event_key


def scrub(
    bank_id: str,
    event_ids: Sequence[uuid.UUID],
    ledger: Ledger | None,
    dead_letters: DeadLetters | None,
) -> int:
    """Settle the events' ledger entries and remove dead letters naming them (and the
    bank: another bank may use the same event id); returns how many were removed."""
    if not event_ids:
        return 0
    if ledger is not None:
        ledger.settle(Kind.RETAIN, [event_key(bank_id, e) for e in event_ids])
    if dead_letters is None:
        return 0
    wanted = [str(e) for e in event_ids]
    letters = dead_letters.list(limit=max(1, dead_letters.length()))
    doomed = [
        le.id
        for le in letters
        if le.id and bank_id in le.payload and any(w in le.payload for w in wanted)
    ]
    removed = dead_letters.remove(doomed)
    if removed and isinstance(dead_letters, RedisDeadLetters):
        dead_letters.compact()
    return removed
