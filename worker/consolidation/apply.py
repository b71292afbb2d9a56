"""`apply`: the only place a plan touches the store."""

from readmodel.store import MemoryStore, StoredPoint
from worker.consolidation.decide import Plan


def apply(plan: Plan, store: MemoryStore, bank_id: str) -> None:
    """Observations, then patches of other memories, then deletes; the new memory's patch,
    its done-marker, last.

    Every write is an overwrite of deterministic content, so a crash at any point is
    repaired by processing the same event again.
    """
    if plan.observations:
        sources = store.fetch(bank_id, [w.vectors_from for w in plan.observations], True)
        vectors = {p.record.id: p for p in sources}
        points = [
            StoredPoint(w.record, vectors[w.vectors_from].dense, vectors[w.vectors_from].sparse)
            for w in plan.observations
        ]
        store.upsert(points)
    *others, done_marker = plan.patches
    if others:
        store.set_derived(bank_id, others)
    if plan.delete_observations:
        store.delete(bank_id, list(plan.delete_observations))
    store.set_derived(bank_id, [done_marker])
