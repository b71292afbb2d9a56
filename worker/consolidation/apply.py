"""`apply`: the only place a plan touches the store."""

from collections.abc import Sequence

from contracts.memory import Observation
from readmodel.store import Record, StoredPoint
from worker.consolidation.batch import ConsolidationStore
from worker.consolidation.decide import ObservationWrite, Plan
from worker.feedback_handler import NOT_USEFUL_CAP, VOTE_CAP


def carry_usage(new: Observation, previous: Sequence[Record]) -> Observation:
    """Votes and last access survive an observation's rewrite: kept from the same id,
    or summed (capped) over the observations it absorbed."""
    if not previous:
        return new
    last = [r.last_accessed_at for r in previous if r.last_accessed_at is not None]
    return new.model_copy(
        update={
            "votes_up": min(VOTE_CAP, sum(r.votes_up for r in previous)),
            "votes_down": min(VOTE_CAP, sum(r.votes_down for r in previous)),
            "not_useful": min(NOT_USEFUL_CAP, sum(r.not_useful for r in previous)),
            "last_accessed_at": max(last) if last else None,
        }
    )


def _observation_points(
    writes: Sequence[ObservationWrite],
    absorbed: Sequence[Record],
    store: ConsolidationStore,
    bank: str,
) -> list[StoredPoint]:
    sources = {p.record.id: p for p in store.fetch(bank, [w.vectors_from for w in writes], True)}
    existing = {p.record.id: p.record for p in store.fetch(bank, [w.record.id for w in writes])}
    points = []
    for w in writes:
        same = existing.get(w.record.id)
        record = carry_usage(w.record, [same] if same is not None else absorbed)
        source = sources[w.vectors_from]
        # An observation saying its source's text has its passages too.
        rows = source.passages if record.text == source.record.text else None
        points.append(StoredPoint(record, source.dense, source.sparse, passages=rows))
    return points


def apply(plan: Plan, store: ConsolidationStore, bank_id: str) -> None:
    """Observations, then patches of other memories, then deletes; the new memory's patch,
    its done-marker, last.

    Every write is an overwrite of deterministic content, so a crash at any point is
    repaired by processing the same event again.
    """
    if plan.observations:
        absorbed = [p.record for p in store.fetch(bank_id, list(plan.delete_observations))]
        store.upsert(_observation_points(plan.observations, absorbed, store, bank_id))
    *others, done_marker = plan.patches
    if others:
        store.set_derived(bank_id, others)
    if plan.delete_observations:
        store.delete(bank_id, list(plan.delete_observations))
    store.set_derived(bank_id, [done_marker])
