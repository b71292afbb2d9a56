"""Current state: replace superseded candidates by the head of their supersession chain.

`as_of` walks the same chains but only through states that existed at that time, so a
memory superseded later is what was current then, and is reported as current.
"""

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from contracts.memory import State
from readmodel.recall.candidate import Candidate, best_evidence, replace
from readmodel.store import Record, tagset_of

Fetch = Callable[[Sequence[uuid.UUID]], list[Record]]
Admit = Callable[[Record], bool]
Step = tuple[Record, Record]
"""A step a walk took: a state and the state that superseded it."""
Prefetch = Callable[[Sequence[Step]], list[Record]]
"""Given the last step of walks that go on, states that may follow (any records: a walk
still steps only along `superseded_by`, so what is read here only spares reads)."""


def _next(record: Record) -> uuid.UUID | None:
    return record.superseded_by if record.state is State.SUPERSEDED else None


def as_of_view(record: Record) -> Record:
    """The record as it stood before it was superseded: current, with no edge yet."""
    return record.model_copy(
        update={"state": State.CURRENT, "superseded_by": None, "relation": None}
    )


@dataclass
class _Walk:
    """One chain walk: where it stands, the newest live state it met (its start counts),
    and every state it stood on (a cycle ends it)."""

    position: Record
    shown: Record
    visited: set[uuid.UUID]
    done: bool = False
    prefetched: bool = False
    came_from: Record | None = None

    def advance(
        self,
        known: Mapping[uuid.UUID, Record],
        absent: set[uuid.UUID],
        as_of: datetime | None,
        live: "Admit",
    ) -> uuid.UUID | None:
        """Step along states already read, as far as they go; the id of the next state
        when it still has to be read, None once the walk has ended."""
        while True:
            target = _next(self.position)
            if target is None or target in self.visited or target in absent:
                self.done = True
                return None
            head = known.get(target)
            if head is None:
                return target
            if as_of is not None and head.occurred_at > as_of:
                cut = as_of_view(self.position)
                self.shown = cut if self.shown is self.position else self.shown
                self.position, self.done = cut, True
                return None
            self.came_from, self.position = self.position, head
            if live(head):
                self.shown = head
            self.visited.add(target)


KeyScope = tuple[str, str, str]


def _key_scope(record: Record) -> KeyScope | None:
    """A keyed record's key, tag set and kind: consolidation relates every two memories
    that share them, the newer replacing the older (worker/consolidation/relations.py)."""
    return None if record.key is None else (record.key, tagset_of(record.tags), record.kind)


def key_heads(records: Sequence[Record], live: Admit) -> dict[KeyScope, Record]:
    """The current state of each key among `records` (live, the only one of its key)."""
    found: dict[KeyScope, Record] = {}
    shared: set[KeyScope] = set()
    for r in records:
        scope = _key_scope(r)
        if scope is None or r.state is not State.CURRENT or not live(r):
            continue
        if scope in found:
            shared.add(scope)
        found[scope] = r
    return {scope: r for scope, r in found.items() if scope not in shared}


def chain_heads(
    records: Sequence[Record],
    fetch: Fetch,
    as_of: datetime | None = None,
    live: Admit = lambda r: True,
    prefetch: Prefetch | None = None,
) -> dict[uuid.UUID, Record]:
    """Map each superseded record's id to the newest state of its chain, however long
    (with `as_of`: the newest that had occurred by then, shown as it stood then).

    Walks every chain at once, with no limit on its length. A walk steps over every
    state already known (one of `records`, or read before; with `as_of`, read before),
    and one batched fetch reads the next unknown state of every walk still going: walks
    that meet (states of one chain found by one query) share their reads, and a chain
    costs one round per state past the last of `records` it holds. With `prefetch`, a
    walk that has taken a step and meets an unknown state first reads the states that
    may follow (the rest of its chain, in one call, found by what that step's two
    states share), so a long chain costs a read or two rather than a round per state.
    A walk ends at a state
    superseded by nothing, by a state the store no longer holds, or by one it has
    already stood on (a cycle stops at the last state not yet visited). A state that is
    not `live` (expired, not yet swept) is walked through but never shown: when the
    walk ends on one, the newest live state before it is shown as it stood before it
    was superseded, current, as it will be once the expired state is forgotten. With
    `as_of` every state is read as stored (`records` may be observations as they stood
    then).

    Without `as_of`, a keyed state whose key's current state is among `records` (the
    same tag set and kind, live, no older, the only one) has that state for its head,
    with no walk: consolidation relates every two memories of one key, the newer
    replacing the older, so a key's current state ends every chain through its states.
    """
    known = {r.id: r for r in records} if as_of is None else {}
    absent: set[uuid.UUID] = set()
    walks = {r.id: _Walk(r, r, {r.id}) for r in records if _next(r) is not None}
    if as_of is None:
        keyed = key_heads(records, live)
        for w in walks.values():
            scope = _key_scope(w.position)
            head = keyed.get(scope) if scope is not None else None
            if head is not None and head.occurred_at >= w.position.occurred_at:
                w.position = w.shown = head
                w.done = True
    going = [w for w in walks.values() if not w.done]
    while going:
        wanted = {t for w in going if (t := w.advance(known, absent, as_of, live)) is not None}
        going = [w for w in going if not w.done]
        if not wanted:
            break
        steps = [(w, w.came_from) for w in going if not w.prefetched]
        fresh = [(w, before) for w, before in steps if before is not None]
        if prefetch is not None and fresh:
            for w, _ in fresh:
                w.prefetched = True
            for r in prefetch([(before, w.position) for w, before in fresh]):
                known.setdefault(r.id, r)
            continue
        ids = sorted(wanted, key=str)
        known.update((r.id, r) for r in fetch(ids))
        absent.update(i for i in ids if i not in known)
    return {
        rid: w.shown if w.shown is w.position else as_of_view(w.shown) for rid, w in walks.items()
    }


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
    prefetch: Prefetch | None = None,
) -> Resolution:
    """Superseded candidates give their place to their chain head, once per head.

    A head never ranks below a state it replaced: it keeps the best of its own score
    (when the query found it too) and theirs, and when the best is theirs, `inherited`
    says so. A head the request's filters do not admit (another tag scope, kind or time
    range) is not returned, and neither is the superseded candidate it replaced.
    """
    records = [c.record for c in candidates]
    heads = chain_heads(records, fetch, as_of=as_of, live=live, prefetch=prefetch)
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
        # One head reached twice (found by the query itself, and in place of a state it
        # replaced) keeps the better score and the evidence of both: a superseded state
        # is searched by its words alone, so the head's meaning is known only from its
        # own find.
        if _better(prior, c):
            kept = replace(c, state_replaces=first or c.state_replaces)
            out[c.id] = kept if prior is None else best_evidence(kept, prior)
            if replaced is None:
                source.pop(c.id, None)
            else:
                source[c.id] = replaced
        elif prior is not None:
            out[c.id] = best_evidence(replace(prior, state_replaces=first or c.state_replaces), c)
    return Resolution(list(out.values()), source)
