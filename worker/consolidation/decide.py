"""`decide`: from a new memory and its neighbourhood to a plan of writes. Pure.

The derived state is a function of the set of raw memories: supersession picks,
for each memory, the earliest newer memory that supersedes it (a minimum, so
arrival order cannot matter); observations are the connected components of the
restatement graph (components only ever grow by union). Recomputing what the new
memory touches from the neighbourhood therefore converges to the same read model
for any delivery order, with any duplicates.
"""

import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from contracts.memory import Memory, Observation, State
from readmodel.store import DerivedPatch, StoredPoint, Vector
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import Link, LinkKind, observation_id, relate, time_key


@dataclass(frozen=True)
class Neighbourhood:
    """What the store knows around a new memory.

    `neighbours`: raw memories that may relate to `new` (similar, same key, or
    declared); `known`: every raw memory the plan may touch or compare (the
    neighbours, the members of their observations, their current superseders);
    `observations`: the observations those memories belong to.
    """

    new: StoredPoint
    neighbours: tuple[StoredPoint, ...]
    known: Mapping[uuid.UUID, StoredPoint]
    observations: Mapping[uuid.UUID, Observation]


@dataclass(frozen=True)
class ObservationWrite:
    record: Observation
    vectors_from: uuid.UUID


@dataclass(frozen=True)
class Plan:
    """Writes in order: observations, patches (the new memory's last: its done-marker), deletes."""

    observations: tuple[ObservationWrite, ...] = ()
    patches: tuple[DerivedPatch, ...] = ()
    delete_observations: tuple[uuid.UUID, ...] = ()
    links: tuple[Link, ...] = field(default=())


def similarity(a: StoredPoint, b: StoredPoint) -> float:
    """Cosine in float64. Symmetric bit for bit: the products of a dot product and of the
    two norms do not depend on operand order, and the sum runs over the same indices."""
    return cosines(a.dense, [b.dense])[0]


def cosines(vector: Vector, others: Sequence[Vector]) -> list[float]:
    """`similarity` of one vector with each of `others`, the new one's norm taken once.
    A pair at a time, as `np.linalg.norm` and `np.dot` compute it (the square root of a
    vector's dot product with itself): a matrix product may sum in another order, and
    the cosine of a pair must not depend on which of the two is new."""
    va = np.asarray(vector, dtype=np.float64)
    na = math.sqrt(va.dot(va))
    out = []
    for other in others:
        vb = np.asarray(other, dtype=np.float64)
        norm = na * math.sqrt(vb.dot(vb))
        out.append(float(va.dot(vb)) / norm if norm > 0 else 0.0)
    return out


def _patch_of(m: Memory) -> DerivedPatch:
    return DerivedPatch(
        m.id,
        m.state,
        m.superseded_by,
        m.relation,
        m.observation_id,
        m.consolidated,
        m.supersession_reason,
        m.current_until,
    )


def links_of(hood: Neighbourhood, policy: ConsolidationPolicy) -> list[Link]:
    """How the new memory relates to each neighbour, in id order (None: not at all)."""
    new = hood.new.record
    others = [
        n for n in sorted(hood.neighbours, key=lambda p: p.record.id.int) if n.record.id != new.id
    ]
    found = []
    for n, sim in zip(others, cosines(hood.new.dense, [n.dense for n in others]), strict=True):
        link = relate(new, n.record, sim, policy)
        if link is not None:
            found.append(link)
    return found


def _apply_supersessions(
    derived: dict[uuid.UUID, DerivedPatch], records: Mapping[uuid.UUID, Memory], links: list[Link]
) -> None:
    for link in (lk for lk in links if lk.kind is LinkKind.SUPERSEDE):
        current = derived[link.older].superseded_by
        keeps_earlier = (
            current is not None
            and current != link.newer
            and time_key(records[current]) <= time_key(records[link.newer])
        )
        if keeps_earlier:
            continue
        derived[link.older] = replace(
            derived[link.older],
            state=State.SUPERSEDED,
            superseded_by=link.newer,
            relation=link.relation,
            supersession_reason=link.reason,
            current_until=max(records[link.older].occurred_at, records[link.newer].occurred_at),
        )


def _component(
    hood: Neighbourhood, derived: Mapping[uuid.UUID, DerivedPatch], links: list[Link]
) -> tuple[set[uuid.UUID], set[uuid.UUID]]:
    """Members of the new memory's restatement component, and the observations it absorbs."""
    new_id = hood.new.record.id
    members, absorbed = {new_id}, set()
    for link in (lk for lk in links if lk.kind is LinkKind.MERGE):
        other = link.older if link.newer == new_id else link.newer
        obs_id = derived[other].observation_id
        if obs_id is not None and obs_id in hood.observations:
            absorbed.add(obs_id)
            members.update(hood.observations[obs_id].source_memory_ids)
        members.add(other)
    return members, absorbed


def build_observation(
    bank_id: str, members: Iterable[Memory], derived: Mapping[uuid.UUID, DerivedPatch]
) -> ObservationWrite:
    """An observation stands for its latest member's statement, in that member's state.
    It expires with its first member to expire: recall hides it from then until the
    expiry sweep re-derives it without that member, and shows its other members raw."""
    ordered = sorted(members, key=time_key)
    latest, state = ordered[-1], derived[ordered[-1].id]
    ids = [m.id for m in ordered]
    record = Observation(
        id=observation_id(bank_id, ids),
        bank_id=bank_id,
        text=latest.text,
        occurred_at=latest.occurred_at,
        mentioned_at=latest.mentioned_at,
        created_at=min(m.created_at for m in ordered),
        entities=sorted({e for m in ordered for e in m.entities}),
        tags=list(latest.tags),
        key=latest.key,
        importance=max(m.importance for m in ordered),
        metadata=dict(latest.metadata),
        state=state.state,
        superseded_by=state.superseded_by,
        relation=state.relation,
        supersession_reason=state.supersession_reason,
        current_until=state.current_until,
        consolidated=True,
        source_memory_ids=ids,
        proof_count=len(ids),
        first_occurred_at=ordered[0].occurred_at,
        last_occurred_at=latest.occurred_at,
        version=len(ids),
        expires_at=min((m.expires_at for m in ordered if m.expires_at), default=None),
    )
    return ObservationWrite(record, latest.id)


def decide(
    hood: Neighbourhood, policy: ConsolidationPolicy, links: Sequence[Link] | None = None
) -> Plan:
    """`links`: `links_of(hood, policy)` when the caller has it already."""
    new = hood.new.record
    records: dict[uuid.UUID, Memory] = {k: p.record for k, p in hood.known.items()}
    records[new.id] = new
    stored = {k: _patch_of(m) for k, m in records.items()}
    derived = dict(stored)
    derived[new.id] = DerivedPatch(new.id, State.CURRENT, None, None, None, False)
    links = list(links) if links is not None else links_of(hood, policy)
    _apply_supersessions(derived, records, links)
    members, absorbed = _component(hood, derived, links)
    writes: dict[uuid.UUID, ObservationWrite] = {}
    if len(members) >= 2:
        obs_id = observation_id(new.bank_id, list(members))
        absorbed.discard(obs_id)
        for m in members:
            derived[m] = replace(derived[m], observation_id=obs_id)
    touched = {lk.older for lk in links if lk.kind is LinkKind.SUPERSEDE}
    rebuild = {derived[m].observation_id for m in touched | members} - {None}
    for obs_id in sorted(o for o in rebuild if o is not None):
        group = [records[m] for m, d in derived.items() if d.observation_id == obs_id]
        if len(group) >= 2:
            writes[obs_id] = build_observation(new.bank_id, group, derived)
    derived[new.id] = replace(derived[new.id], consolidated=True)
    changed = [
        d
        for k, d in sorted(derived.items(), key=lambda kv: kv[0].int)
        if k != new.id and d != stored[k]
    ]
    return Plan(
        observations=tuple(writes[k] for k in sorted(writes)),
        patches=(*changed, derived[new.id]),
        delete_observations=tuple(sorted(absorbed - set(writes))),
        links=tuple(links),
    )
