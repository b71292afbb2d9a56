"""Re-derive observations and edges of a bank from its stored raw memories.

Replays the raw memories through the same consolidation in event-time order,
reusing their stored vectors (a long memory stored without passage vectors, before
layout 7, gets them: `worker/consolidation/passages.py`); by convergence the result
equals the incremental one.
Text features and slot keys are computed again from each memory's text, so a rebuild
also brings memories stored by an earlier version (or under earlier rules) to the
current rules and index. A raw memory stored under an earlier version's id (layout 2
and before: from the event id alone) moves to its id from bank and event id, with the
bank's tombstones and the memory ids producers declared it supersedes; the new point is
written before the old one is deleted, so a rebuild cut short and run again loses
nothing. Last-access times of a moved memory start again.

A rebuild resets every derived field of a bank before it replays the raw memories, so
one cut short (killed, out of memory, the machine down) leaves the bank answering from
half-derived fields: old values marked current, with nothing wrong to see. So the store
records the rebuild before it starts (`MemoryStore.mark_rebuilding`, durably) and clears
the record only once every bank is done (`rebuild_banks`); a process that opens a store
with the record still there refuses to answer from it (`check_rebuild`) and names the
command that finishes the rebuild, which is the rebuild run again (it starts from the
raw memories, which it never deletes before their copy is written).
"""

import uuid
from collections.abc import Callable, Sequence

from contracts.forget import Tombstone
from contracts.memory import State
from readmodel.store import DerivedPatch, Filter, MemoryStore, Rebuilding, StoredPoint
from worker.consolidation.consolidator import Consolidator, consolidate_points
from worker.consolidation.features import stored_fields
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.consolidation.passages import with_passages
from worker.consolidation.relations import memory_id, time_key
from worker.tombstones import Tombstones

REBUILD_BATCH = 256


def _reset(point: StoredPoint) -> StoredPoint:
    record = point.record.model_copy(
        update={
            "state": State.CURRENT,
            "superseded_by": None,
            "current_until": None,
            "relation": None,
            "observation_id": None,
            "consolidated": False,
            **stored_fields(point.record.text, point.record.entities),
        }
    )
    return StoredPoint(record, point.dense, point.sparse, passages=point.passages)


def _rekeyed(bank_id: str, raw: Sequence[StoredPoint]) -> tuple[list[StoredPoint], list[uuid.UUID]]:
    """The raw memories to write under their ids from bank and event id (one point per
    id; with declared supersedes that named an old id renamed), and the old ids."""
    moved: dict[uuid.UUID, uuid.UUID] = {}
    by_id: dict[uuid.UUID, StoredPoint] = {}
    for p in raw:
        eid = p.record.event_id
        new = memory_id(bank_id, eid) if eid is not None else p.record.id
        if new != p.record.id:
            moved[p.record.id] = new
        record = p.record.model_copy(update={"id": new})
        by_id.setdefault(new, StoredPoint(record, p.dense, p.sparse, passages=p.passages))
    if not moved:
        return [], []
    out = []
    for new, p in by_id.items():
        declared = p.record.declared_supersedes
        if any(d in moved for d in declared):
            update = {"declared_supersedes": [moved.get(d, d) for d in declared]}
            record = p.record.model_copy(update=update)
            out.append(StoredPoint(record, p.dense, p.sparse, passages=p.passages))
        elif new in moved.values():
            out.append(p)
    return out, sorted(moved, key=str)


def _move_tombstones(bank_id: str, tombstones: Tombstones) -> None:
    """A tombstone of an event also names the memory's new id, so a redelivered retain
    of a forgotten event stays forgotten."""
    stones = tombstones.of_bank(bank_id)
    known = {t.memory_id for t in stones}
    extra = [
        Tombstone(
            bank_id=bank_id,
            memory_id=new,
            event_id=t.event_id,
            forget_event_id=t.forget_event_id,
        )
        for t in stones
        if t.event_id is not None and (new := memory_id(bank_id, t.event_id)) not in known
    ]
    tombstones.add(extra)


def _moved_to_current_ids(bank_id: str, deps: Consolidator) -> list[StoredPoint]:
    """Layout 3's ids: the new points first (unconsolidated), then the old ones deleted;
    returns the bank's raw memories as they stand after, read once when none moves."""
    _move_tombstones(bank_id, deps.tombstones)
    raw = list(deps.store.scroll(Filter(bank_id, kinds=RAW_KINDS), True))
    points, old = _rekeyed(bank_id, raw)
    if not old:
        return raw
    deps.store.upsert([_reset(p) for p in points])
    deps.store.delete(bank_id, old)
    return list(deps.store.scroll(Filter(bank_id, kinds=RAW_KINDS), True))


def rebuild_bank(
    bank_id: str, deps: Consolidator, progress: Callable[[int, int], None] | None = None
) -> int:
    """Returns the number of raw memories replayed."""
    with deps.locks.hold(f"bank:{bank_id}"):
        raw = [_reset(p) for p in _moved_to_current_ids(bank_id, deps)]
        observations = [
            p.record.id for p in deps.store.scroll(Filter(bank_id, kinds=("observation",)))
        ]
        deps.store.delete(bank_id, observations)
        deps.store.set_derived(
            bank_id,
            [DerivedPatch(p.record.id, State.CURRENT, None, None, None, False) for p in raw],
        )
    raw.sort(key=lambda p: time_key(p.record))
    for start in range(0, len(raw), REBUILD_BATCH):
        batch = with_passages(deps.embedder, raw[start : start + REBUILD_BATCH])
        consolidate_points(bank_id, batch, deps)
        if progress is not None:
            progress(min(start + REBUILD_BATCH, len(raw)), len(raw))
    return len(raw)


def banks(deps: Consolidator) -> list[str]:
    """Every bank holding at least one memory."""
    return deps.store.banks()


class InterruptedRebuildError(RuntimeError):
    """The store records a rebuild that did not finish: its banks' derived fields are
    half written, so answers from them may be wrong."""

    def __init__(self, where: str, rebuilding: Rebuilding) -> None:
        self.rebuilding = rebuilding
        self.command = finishing_command(rebuilding)
        what = "every bank" if rebuilding.every_bank else "bank " + ", ".join(rebuilding.banks)
        super().__init__(
            f"a rebuild of {what} in the store at {where} was interrupted (or is still "
            "running), so the derived fields it was writing are half written and answers "
            f"could be wrong; run `{self.command}` to finish it, then start again"
        )


def finishing_command(rebuilding: Rebuilding) -> str:
    """The command that finishes `rebuilding`: the same rebuild, run again."""
    if rebuilding.every_bank or len(rebuilding.banks) != 1:
        return "sediment rebuild --all"
    return f"sediment rebuild --bank {rebuilding.banks[0]}"


def check_rebuild(store: MemoryStore, where: str) -> None:
    """Pass unless the store records a rebuild that has not finished."""
    found = store.rebuilding()
    if found is not None:
        raise InterruptedRebuildError(where, found)


def rebuild_banks(
    banks: Sequence[str] | None,
    deps: Consolidator,
    on_bank: Callable[[str], Callable[[int, int], None] | None] = lambda _: None,
    layout: int | None = None,
) -> int:
    """Rebuild `banks` (None: every bank, then record `layout` when given), recorded in
    the store from before the first change until after the last: see the module's
    docstring. Returns the number of raw memories replayed."""
    store = deps.store
    targets = list(banks) if banks is not None else store.banks()
    store.mark_rebuilding(Rebuilding(tuple(targets), every_bank=banks is None))
    total = sum(rebuild_bank(bank, deps, on_bank(bank)) for bank in targets)
    if banks is None and layout is not None:
        store.mark_layout(layout)
    store.mark_rebuilding(None)
    return total
