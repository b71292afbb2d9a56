"""Forget: remove memories for good and re-derive what they touched.

Under the bank's lock: tombstones first (so nothing brings the memories back, even if
this crashes half-way; a bank or filter forget also leaves a rule for retains accepted
before it and still in flight, and prunes the bank's rules no retain still owed can
need, worker/forget_rules.py), then the memories connected to the forgotten ones by an
edge (same observation, superseded by or superseding one, declaring one) are reset,
the forgotten memories and the observations of that neighbourhood deleted, and the
reset memories consolidated again in event-time order from their stored vectors, as a
rebuild does for a whole bank. By convergence the result
is the read model the retains of the remaining events alone would give
(tests/property/test_forget.py).

The store is told to purge before the delete (`MemoryStore.purge`), so that the
intent to drop the forgotten text from its files is durable before the text leaves
the index: a crash after the delete cannot leave a forget that no longer finds what
it has to purge.

A memory left unconsolidated by a crash (its done-marker unset) is consolidated again
by the next forget of its bank, so a redelivered forget repairs its own half-done work.
"""

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contracts.forget import ForgetEvent, Tombstone
from contracts.memory import Observation, State
from readmodel.store import DerivedPatch, Filter, Record, StoredPoint
from telemetry.metrics import count_events
from worker.consolidation.consolidator import Consolidator, consolidate_locked, prune_rules
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.consolidation.relations import memory_id, time_key
from worker.forget_rules import rule_of, selected


@dataclass(frozen=True)
class ForgetOutcome:
    """`forgotten`: memories removed; `recomputed`: memories consolidated again."""

    event_id: uuid.UUID
    bank_id: str
    forgotten_event_ids: tuple[uuid.UUID, ...]
    forgotten: int
    recomputed: int
    observations_removed: int


def _targets(event: ForgetEvent, raw: Sequence[StoredPoint]) -> list[StoredPoint]:
    if event.all_memories:
        return list(raw)
    if event.filter is not None:
        return [p for p in raw if selected(event.filter, p.record)]
    wanted = set(_named(event))
    return [p for p in raw if p.record.id in wanted]


def _named(event: ForgetEvent) -> dict[uuid.UUID, uuid.UUID | None]:
    """The memory ids a forget by ids names, with their event ids where it gives them."""
    named: dict[uuid.UUID, uuid.UUID | None] = dict.fromkeys(event.memory_ids)
    named |= {memory_id(event.bank_id, e): e for e in event.event_ids}
    return named


def _neighbours(record: Record, by_event: dict[uuid.UUID, uuid.UUID]) -> Iterable[uuid.UUID]:
    yield from (i for i in (record.superseded_by, record.observation_id) if i is not None)
    for declared in record.declared_supersedes:
        yield by_event.get(declared, declared)
    if isinstance(record, Observation):
        yield from record.source_memory_ids


def connected(start: Iterable[uuid.UUID], records: dict[uuid.UUID, Record]) -> set[uuid.UUID]:
    """Ids reachable from `start` over edges in either direction."""
    by_event = {r.event_id: r.id for r in records.values() if r.event_id is not None}
    graph: dict[uuid.UUID, set[uuid.UUID]] = {i: set() for i in records}
    for r in records.values():
        for other in _neighbours(r, by_event):
            if other in graph:
                graph[r.id].add(other)
                graph[other].add(r.id)
    seen = set(start)
    frontier = list(seen)
    while frontier:
        here = frontier.pop()
        for other in graph.get(here, ()):
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return seen


def _reset(point: StoredPoint) -> StoredPoint:
    record = point.record.model_copy(
        update={
            "state": State.CURRENT,
            "superseded_by": None,
            "current_until": None,
            "relation": None,
            "observation_id": None,
            "consolidated": False,
        }
    )
    return StoredPoint(record, point.dense, point.sparse, passages=point.passages)


def _tombstones(event: ForgetEvent, targets: Sequence[StoredPoint]) -> list[Tombstone]:
    found = {p.record.id: p.record.event_id for p in targets}
    found |= {i: e for i, e in _named(event).items() if e is not None}
    ids = list(dict.fromkeys([*event.memory_ids, *_named(event), *found]))
    return [
        Tombstone(
            bank_id=event.bank_id,
            memory_id=i,
            event_id=found.get(i),
            forget_event_id=event.event_id,
        )
        for i in ids
    ]


def forget(event: ForgetEvent, deps: Consolidator) -> ForgetOutcome:
    """Forget what `event` selects; safe to run again (tombstones are kept once)."""
    bank = event.bank_id
    with deps.locks.hold(f"bank:{bank}"):
        raw = list(deps.store.scroll(Filter(bank, kinds=RAW_KINDS), with_vectors=True))
        observations = [p.record for p in deps.store.scroll(Filter(bank, kinds=("observation",)))]
        targets = _targets(event, raw)
        rule = rule_of(event, deps.clock())
        if rule is not None:
            deps.tombstones.add_rule(rule)
            prune_rules(bank, deps.tombstones.rules(bank), deps)
        deps.tombstones.add(_tombstones(event, targets))
        records = {p.record.id: p.record for p in raw} | {o.id: o for o in observations}
        gone = {p.record.id for p in targets}
        pending = {p.record.id for p in raw if not p.record.consolidated}
        touched = connected(gone | pending, records)
        redo = [_reset(p) for p in raw if p.record.id in touched and p.record.id not in gone]
        dropped = [o.id for o in observations if o.id in touched]
        if redo:
            deps.store.set_derived(
                bank,
                [DerivedPatch(p.record.id, State.CURRENT, None, None, None, False) for p in redo],
            )
        if gone:
            deps.store.purge(bank)
        if gone or dropped:
            deps.store.delete(bank, sorted(gone | set(dropped), key=str))
        redo.sort(key=lambda p: time_key(p.record))
        consolidate_locked(bank, redo, deps)
    count_events(deps.metrics, "forgotten", [bank] * len(gone))
    events = tuple(p.record.event_id for p in targets if p.record.event_id is not None)
    return ForgetOutcome(event.event_id, bank, events, len(gone), len(redo), len(dropped))
