"""Current state: replace superseded candidates by the head of their supersession chain.

`as_of` walks the same chains but only through states that existed at that time, so a
memory superseded later is what was current then, and is reported as current.
"""

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from contracts.memory import State
from readmodel.recall.candidate import Candidate, replace
from readmodel.store import Record

MAX_HOPS = 5
Fetch = Callable[[Sequence[uuid.UUID]], list[Record]]
Admit = Callable[[Record], bool]


def _next(record: Record) -> uuid.UUID | None:
    return record.superseded_by if record.state is State.SUPERSEDED else None


def as_of_view(record: Record) -> Record:
    """The record as it stood before it was superseded: current, with no edge yet."""
    return record.model_copy(
        update={"state": State.CURRENT, "superseded_by": None, "relation": None}
    )


def chain_heads(
    records: Sequence[Record],
    fetch: Fetch,
    max_hops: int = MAX_HOPS,
    as_of: datetime | None = None,
    live: Admit = lambda r: True,
) -> dict[uuid.UUID, Record]:
    """Map each superseded record's id to the newest state reachable in at most `max_hops`
    (with `as_of`: the newest that had occurred by then, shown as it stood then).

    Walks every chain at once, one batched fetch per hop, and only when some chain still
    has a hop to take; a cycle stops at the last record not yet visited. A state that is
    not `live` (expired, not yet swept) is walked through but never shown: when the walk
    ends on one, the newest live state before it is shown as it stood before it was
    superseded, current, as it will be once the expired state is forgotten.
    """
    position = {r.id: r for r in records if _next(r) is not None}
    shown = dict(position)  # the newest live state met; the same object as position's
    # while the walk stands on a live state
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
            if head is not None and as_of is not None and head.occurred_at > as_of:
                cut = as_of_view(position[rid])
                shown[rid] = cut if shown[rid] is position[rid] else shown[rid]
                position[rid] = cut
                head = None
            if head is None:
                done.add(rid)
                continue
            position[rid] = head
            if live(head):
                shown[rid] = head
            visited[rid].add(target)
    return {rid: s if s is position[rid] else as_of_view(s) for rid, s in shown.items()}


@dataclass(frozen=True)
class Resolution:
    """Candidates after current-state resolution. `inherited` maps a head shown in place
    of a superseded candidate to the state whose score and components it carries (the
    head was not found by the query itself, or scored lower than what it replaced)."""

    candidates: list[Candidate]
    inherited: Mapping[uuid.UUID, uuid.UUID] = field(default_factory=dict)


def _better(prior: Candidate | None, c: Candidate) -> bool:
    return prior is None or c.score > prior.score


def resolve_current(
    candidates: list[Candidate],
    fetch: Fetch,
    admit: Admit = lambda r: True,
    as_of: datetime | None = None,
    live: Admit = lambda r: True,
) -> Resolution:
    """Superseded candidates give their place to their chain head, once per head.

    A head never ranks below a state it replaced: it keeps the best of its own score
    (when the query found it too) and theirs, and when the best is theirs, `inherited`
    says so. A head the request's filters do not admit (another tag scope, kind or time
    range) is not returned, and neither is the superseded candidate it replaced.
    """
    heads = chain_heads([c.record for c in candidates], fetch, as_of=as_of, live=live)
    out: dict[uuid.UUID, Candidate] = {}
    source: dict[uuid.UUID, uuid.UUID] = {}
    for c in candidates:
        head = heads.get(c.id)
        replaced: uuid.UUID | None = None
        if head is not None and head.id != c.id:
            if not admit(head):
                continue
            c, replaced = replace(c, record=head, state_replaces=c.id), c.id
        elif head is not None:
            c = replace(c, record=head)
        prior = out.get(c.id)
        first = prior.state_replaces if prior is not None else None
        if _better(prior, c):
            out[c.id] = replace(c, state_replaces=first or c.state_replaces)
            if replaced is None:
                source.pop(c.id, None)
            else:
                source[c.id] = replaced
        elif prior is not None and c.state_replaces and not first:
            out[c.id] = replace(prior, state_replaces=c.state_replaces)
    return Resolution(list(out.values()), source)
