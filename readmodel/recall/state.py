"""Current state: replace superseded candidates by the head of their supersession chain.

`as_of` walks the same chains but only through states that existed at that time, so a
memory superseded later is what was current then.
"""

import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from contracts.memory import State
from readmodel.recall.candidate import Candidate
from readmodel.store import Record

MAX_HOPS = 5
Fetch = Callable[[Sequence[uuid.UUID]], list[Record]]
Admit = Callable[[Record], bool]


def _next(record: Record) -> uuid.UUID | None:
    return record.superseded_by if record.state is State.SUPERSEDED else None


def chain_heads(
    records: Sequence[Record],
    fetch: Fetch,
    max_hops: int = MAX_HOPS,
    as_of: datetime | None = None,
) -> dict[uuid.UUID, Record]:
    """Map each superseded record's id to the newest state reachable in at most `max_hops`
    (with `as_of`: the newest that had occurred by then).

    Walks every chain at once, one batched fetch per hop, and only when some chain still
    has a hop to take; a cycle stops at the last record not yet visited.
    """
    position = {r.id: r for r in records if _next(r) is not None}
    visited = {rid: {rid} for rid in position}
    done: set[uuid.UUID] = set()
    for _ in range(max_hops):
        wanted = {
            rid: nxt
            for rid, r in position.items()
            if rid not in done and (nxt := _next(r)) is not None and nxt not in visited[rid]
        }
        if not wanted:
            break
        found = {r.id: r for r in fetch(sorted(set(wanted.values()), key=str))}
        for rid, target in wanted.items():
            head = found.get(target)
            if head is None or (as_of is not None and head.occurred_at > as_of):
                done.add(rid)
                continue
            position[rid] = head
            visited[rid].add(target)
    return position


def resolve_current(
    candidates: list[Candidate],
    fetch: Fetch,
    admit: Admit = lambda r: True,
    as_of: datetime | None = None,
) -> list[Candidate]:
    """Superseded candidates give their place (and score) to their chain head, once per head.

    A head the request's filters do not admit (another tag scope, kind or time range) is
    not returned, and neither is the superseded candidate it replaced.
    """
    heads = chain_heads([c.record for c in candidates], fetch, as_of=as_of)
    out: dict[uuid.UUID, Candidate] = {}
    for c in candidates:
        head = heads.get(c.id)
        if head is not None and head.id != c.id:
            if not admit(head):
                continue
            c = replace(c, record=head, state_replaces=c.id)
        prior = out.get(c.id)
        if prior is None or c.score > prior.score:
            keep = (
                c
                if prior is None
                else replace(c, state_replaces=prior.state_replaces or c.state_replaces)
            )
            out[c.id] = keep
        elif c.state_replaces and not prior.state_replaces:
            out[c.id] = replace(prior, state_replaces=c.state_replaces)
    return list(out.values())
