"""Current state: replace superseded candidates by the head of their supersession chain."""

import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace

from contracts.memory import State
from readmodel.recall.candidate import Candidate
from readmodel.store import Record

MAX_HOPS = 5
Fetch = Callable[[Sequence[uuid.UUID]], list[Record]]


def chain_heads(
    records: Sequence[Record], fetch: Fetch, max_hops: int = MAX_HOPS
) -> dict[uuid.UUID, Record]:
    """Map each superseded record's id to the newest state reachable in at most `max_hops`.

    Walks every chain at once, one batched fetch per hop, and only when some chain
    still has a hop to take; a cycle stops at the last record not yet visited.
    """
    position = {r.id: r for r in records if r.state is State.SUPERSEDED and r.superseded_by}
    visited = {rid: {rid} for rid in position}
    for _ in range(max_hops):
        wanted = {
            rid: r.superseded_by
            for rid, r in position.items()
            if r.superseded_by is not None and r.superseded_by not in visited[rid]
        }
        if not wanted:
            break
        found = {r.id: r for r in fetch(sorted({w for w in wanted.values() if w}, key=str))}
        for rid, target in wanted.items():
            if target in found:
                position[rid] = found[target]
                visited[rid].add(target)
    return position


def resolve_current(candidates: list[Candidate], fetch: Fetch) -> list[Candidate]:
    """Superseded candidates give their place (and score) to their chain head, once per head."""
    heads = chain_heads([c.record for c in candidates], fetch)
    out: dict[uuid.UUID, Candidate] = {}
    for c in candidates:
        head = heads.get(c.id)
        if head is None or head.id == c.id:
            chosen = c
        else:
            chosen = replace(c, record=head, state_replaces=c.id)
        prior = out.get(chosen.id)
        if prior is None or chosen.score > prior.score:
            out[chosen.id] = chosen
    return list(out.values())
