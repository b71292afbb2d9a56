"""Observations as they stood at `as_of`: nothing that occurred later may show.

The store holds each observation as it is now: the latest member's statement, every
member in `source_memory_ids`, `proof_count` counting them all. The time filter keeps
out an observation whose latest member occurred after `as_of`, but what it was then
still existed. Its as-of view:

- its members are those that had occurred by `as_of`; with fewer than two it was not
  an observation then (DESIGN section 3), and those members show as raw memories;
- its text, time, key, tags, metadata and state are those of the latest such member,
  as the observation stands for its latest member's statement now; `proof_count`,
  `source_memory_ids`, first and last times and `version` count only those members;
- it keeps the stored observation's id (the same observation, an earlier version),
  and is not re-derived: members that joined only through a later restatement are
  still counted together;
- it is found as the stored observation is, through its latest member's evidence: it
  takes the score of that member's candidate, and when the query did not find that
  member it is not a candidate either.

Only `as_of` needs this, and only observations met through a raw candidate's
`observation_id`, so it costs two batched fetches at most and none without `as_of`.
"""

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from contracts.memory import Observation
from readmodel.recall.candidate import Candidate
from readmodel.store import Record

Fetch = Callable[[Sequence[uuid.UUID]], list[Record]]


def time_order(m: Record) -> tuple[datetime, str]:
    """Event time, then event id: the order consolidation names the latest member by."""
    return (m.occurred_at, str(m.event_id or m.id))


def view_as_of(obs: Observation, members: Iterable[Record], as_of: datetime) -> Observation | None:
    """`obs` as it stood at `as_of`, from its members' records; None when fewer than two of
    its members had occurred by then."""
    wanted = set(obs.source_memory_ids)
    then = sorted((m for m in members if m.id in wanted and m.occurred_at <= as_of), key=time_order)
    if len(then) < 2:
        return None
    latest = then[-1]
    return obs.model_copy(
        update={
            "text": latest.text,
            "occurred_at": latest.occurred_at,
            "mentioned_at": latest.mentioned_at,
            "entities": sorted({e for m in then for e in m.entities}),
            "tags": list(latest.tags),
            "key": latest.key,
            "importance": max(m.importance for m in then),
            "metadata": dict(latest.metadata),
            "state": latest.state,
            "superseded_by": latest.superseded_by,
            "relation": latest.relation,
            "source_memory_ids": [m.id for m in then],
            "proof_count": len(then),
            "first_occurred_at": then[0].occurred_at,
            "last_occurred_at": latest.occurred_at,
            "version": len(then),
        }
    )


def _later(c: Candidate, as_of: datetime) -> bool:
    r = c.record
    return isinstance(r, Observation) and r.last_occurred_at > as_of


def _observations(fetch: Fetch, ids: set[uuid.UUID], as_of: datetime) -> list[Observation]:
    """Those of `ids` that have a member after `as_of` (the others the store returns as
    they were then, when the query finds them)."""
    if not ids:
        return []
    found = fetch(sorted(ids, key=str))
    return [o for o in found if isinstance(o, Observation) and o.last_occurred_at > as_of]


def _members(
    fetch: Fetch, observations: Sequence[Observation], known: Mapping[uuid.UUID, Record]
) -> dict[uuid.UUID, Record]:
    wanted = {m for o in observations for m in o.source_memory_ids}
    missing = sorted(wanted - set(known), key=str)
    found = {r.id: r for r in fetch(missing)} if missing else {}
    return {i: known[i] if i in known else found[i] for i in wanted if i in known or i in found}


def observations_as_of(
    candidates: list[Candidate], fetch: Fetch, as_of: datetime | None
) -> list[Candidate]:
    """With `as_of`, observations as they stood then (module docstring); without, as is."""
    if as_of is None:
        return candidates
    kept = [c for c in candidates if not _later(c, as_of)]
    present = {c.id for c in kept}
    raw = {c.id: c for c in kept if not isinstance(c.record, Observation)}
    wanted = {
        o for c in raw.values() if (o := c.record.observation_id) is not None and o not in present
    }
    observations = _observations(fetch, wanted, as_of)
    members = _members(fetch, observations, {i: c.record for i, c in raw.items()})
    views: list[Candidate] = []
    for obs in observations:
        view = view_as_of(obs, (members[m] for m in obs.source_memory_ids if m in members), as_of)
        latest = raw.get(view.source_memory_ids[-1]) if view is not None else None
        if view is not None and latest is not None:
            views.append(replace(latest, record=view))
    return kept + views
