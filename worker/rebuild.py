"""Re-derive observations and edges of a bank from its stored raw memories.

Replays the raw memories through the same consolidation in event-time order,
reusing their stored vectors; by convergence the result equals the incremental one.
Text features and slot keys are computed again from each memory's text, so a rebuild
also brings memories stored by an earlier version (or under earlier rules) to the
current rules and index.
"""

from collections.abc import Callable

from contracts.memory import State
from readmodel.store import DerivedPatch, Filter, StoredPoint
from worker.consolidation.consolidator import Consolidator, consolidate_points
from worker.consolidation.features import stored_fields
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.consolidation.relations import time_key

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
    return StoredPoint(record, point.dense, point.sparse)


def rebuild_bank(
    bank_id: str, deps: Consolidator, progress: Callable[[int, int], None] | None = None
) -> int:
    """Returns the number of raw memories replayed."""
    with deps.locks.hold(f"bank:{bank_id}"):
        raw = [_reset(p) for p in deps.store.scroll(Filter(bank_id, kinds=RAW_KINDS), True)]
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
        consolidate_points(bank_id, raw[start : start + REBUILD_BATCH], deps)
        if progress is not None:
            progress(min(start + REBUILD_BATCH, len(raw)), len(raw))
    return len(raw)


def banks(deps: Consolidator) -> list[str]:
    """Every bank holding at least one memory."""
    return deps.store.banks()
