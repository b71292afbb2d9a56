"""Forget rules: what a forget of a whole bank or by filter leaves for retains in flight.

A forget by ids leaves a tombstone per id, which an event arriving later cannot miss. A
forget of a bank or by filter selects what is stored when it runs; a retain accepted
before it but still queued (waiting for the bank's lock, or out a retry) would land
after it and stay. So such a forget also records a rule: its bank, its filter (None:
everything) and its acceptance time. A retain accepted at or before that time that the
filter selects is forgotten when it arrives (it gets a tombstone, like the memories the
forget removed); one accepted later is kept, as a retain made after a forget should be.
A retain whose every attempt failed is checked the same way before it is dead-lettered
(worker/tasks.py): one a rule covers is forgotten rather than kept, text and all, in the
dead-letter stream for a replay into the bank that forgot it.

A retain's acceptance time is the publish header Sediment's publish path writes (HTTP,
client, CLI, `worker.publish`), kept across every redelivery: a retry carries it along,
kombu's restore of an unacknowledged message puts the message back as it was, and the
ledger's sweeper republishes with the acceptance time it keeps (worker/ledger.py). A
retain published without it (a raw `send_task`) counts as accepted when a worker takes
it, so no rule holds it.

A rule is needed only while a retain accepted no later than it may still arrive. The
ledger knows, per bank, when the oldest retain it still owes was accepted; a rule older
than that (and than `RULE_MIN_AGE_S`) can match no retain to come, and is pruned when
the bank's rules are next read: by a retain batch, or by the next forget of the bank.
So a batch reads the rules of recent forgets only, however many forgets the bank has
seen. The minimum age covers a retain whose acceptance time was taken but whose ledger
entry is not yet written, and clocks that disagree by less than it; a retain published
outside the ledger with a hand-written header is covered only that long.

Embedded mode without a worker of its own (every command but `sediment serve`) has no
ledger and needs none: each retain is consolidated as it is published, in the process
that holds the store, and no queue outlives that process (`sediment serve` takes the
store only once the command has let it go, and accepts its retains after that). There
nothing is owed (`NothingOwed`), so a rule goes once it is `RULE_MIN_AGE_S` old.
"""

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from contracts.events import RetainEvent
from contracts.forget import ForgetEvent, ForgetFilter, ForgetRule, Tombstone
from contracts.memory import derive_memory_id
from readmodel.store import Record, StoredPoint

SOURCE_ID_KEY = "source_id"
RULE_MIN_AGE_S = 60.0
"""A rule younger than this is kept whatever the ledger says (see the module doc)."""


class Unsettled(Protocol):
    """What is still owed per bank: the redelivery ledger (worker/ledger.py)."""

    def oldest_accepted(self, bank_id: str) -> float | None:
        """Unix seconds at which the bank's oldest retain still owed was accepted;
        None when none is owed."""


class NothingOwed:
    """What a process with no queue owes: nothing (embedded mode without a worker of
    its own; see the module doc). A rule is then kept for `RULE_MIN_AGE_S` only."""

    def oldest_accepted(self, bank_id: str) -> float | None:
        return None


def selected(flt: ForgetFilter, record: Record) -> bool:
    """Whether a raw memory matches every condition of a forget filter."""
    source_id = record.metadata.get(SOURCE_ID_KEY)
    return matches(flt, record.tags, record.entities, record.occurred_at, source_id)


def matches(
    flt: ForgetFilter,
    tags: Sequence[str],
    entities: Sequence[str],
    occurred_at: datetime,
    source_id: object,
) -> bool:
    """Whether a memory with these fields matches every condition of a forget filter."""
    checks = (
        not flt.tags or bool(set(flt.tags) & set(tags)),
        not flt.entities or bool(set(flt.entities) & set(entities)),
        flt.start is None or occurred_at >= flt.start,
        flt.end is None or occurred_at <= flt.end,
        flt.source_id is None or source_id == flt.source_id,
    )
    return all(checks)


def rule_of(event: ForgetEvent, processed_at: datetime) -> ForgetRule | None:
    """The rule a bank or filter forget leaves; None for a forget by ids (tombstones
    cover those). Accepted when it was requested, or else when it is processed."""
    if not (event.all_memories or event.filter is not None):
        return None
    return ForgetRule(
        bank_id=event.bank_id,
        forget_event_id=event.event_id,
        filter=None if event.all_memories else event.filter,
        accepted_at=event.requested_at or processed_at,
    )


def ruled_out(
    points: Sequence[StoredPoint],
    rules: Sequence[ForgetRule],
    accepted: Mapping[uuid.UUID, datetime],
) -> list[Tombstone]:
    """Tombstones for the points a rule forgets: accepted (by memory id) no later than
    the rule, and selected by its filter. Points with no known acceptance time pass."""
    out = []
    for p in points:
        at = accepted.get(p.record.id)
        if at is None:
            continue
        rule = next((r for r in rules if at <= r.accepted_at and _covers(r, p.record)), None)
        if rule is not None:
            out.append(
                Tombstone(
                    bank_id=p.record.bank_id,
                    memory_id=p.record.id,
                    event_id=p.record.event_id,
                    forget_event_id=rule.forget_event_id,
                )
            )
    return out


def _covers(rule: ForgetRule, record: Record) -> bool:
    return rule.filter is None or selected(rule.filter, record)


def events_ruled_out(
    events: Sequence[RetainEvent], rules: Sequence[ForgetRule], accepted_at: datetime
) -> list[Tombstone]:
    """`ruled_out` for events never stored (given up on), all accepted at `accepted_at`."""
    out = []
    for e in events:
        rule = next(
            (r for r in rules if r.bank_id == e.bank_id and _selects(r, e, accepted_at)), None
        )
        if rule is not None:
            out.append(
                Tombstone(
                    bank_id=e.bank_id,
                    memory_id=derive_memory_id(e.bank_id, e.event_id),
                    event_id=e.event_id,
                    forget_event_id=rule.forget_event_id,
                )
            )
    return out


def _selects(rule: ForgetRule, event: RetainEvent, accepted_at: datetime) -> bool:
    if accepted_at > rule.accepted_at:
        return False
    flt = rule.filter
    source_id = event.metadata.get(SOURCE_ID_KEY)
    return flt is None or matches(flt, event.tags, event.entities, event.occurred_at, source_id)


def prunable(
    rules: Sequence[ForgetRule], oldest_unsettled: datetime | None, now: datetime
) -> list[ForgetRule]:
    """The rules no retain still to come can match: accepted before the oldest retain
    still owed (a rule covers retains accepted at or before its time), and older than
    `RULE_MIN_AGE_S`. With none owed, only the age counts."""
    bound = now - timedelta(seconds=RULE_MIN_AGE_S)
    if oldest_unsettled is not None:
        bound = min(bound, oldest_unsettled)
    return [r for r in rules if r.accepted_at < bound]
