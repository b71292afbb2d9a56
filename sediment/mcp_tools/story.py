"""A memory's story in words, as `inspect` tells it to an agent: what it says, where it
came from, what it replaced and what replaced it, and why. The structured content has
the same facts by field; internals (features, slot keys) only with `raw`."""

from contracts.memory import Observation, Relation
from sediment.api.models import MemoryView, RecordSummary
from sediment.memory_ids import short


def _replaced(relation: Relation | None) -> str:
    if relation == Relation.INVALIDATED_BY:
        return "invalidated (no longer true) by"
    return "replaced by the newer state"


def _summary(r: RecordSummary) -> str:
    return f"{short(r.id)} {r.occurred_at.date().isoformat()} {r.text}"


def story(view: MemoryView) -> str:
    m = view.memory
    state = "current" if m.superseded_by is None else "superseded"
    lines = [f"{short(m.id)} {m.occurred_at.date().isoformat()} {m.kind}, {state}: {m.text}"]
    if m.key:
        lines.append(f"key: {m.key}")
    if isinstance(m, Observation):
        lines.append(f"an observation drawn from {m.proof_count} statements:")
        lines += [f"  source {_summary(s)}" for s in view.sources]
    elif m.observation_id is not None:
        lines.append(f"merged into observation {short(m.observation_id)}")
    if view.edges.superseded_by is not None:
        lines.append(f"{_replaced(view.edges.relation)} {short(view.edges.superseded_by)}")
    if m.supersession_reason:
        lines.append(f"why: {m.supersession_reason}")
    for older in view.edges.supersedes:
        lines.append(f"replaces {_summary(older)}")
        if older.supersession_reason:
            lines.append(f"  why: {older.supersession_reason}")
    lines += [f"newer state {_summary(h)}" for h in view.history]
    return "\n".join(lines)
