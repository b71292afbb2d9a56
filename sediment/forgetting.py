"""Forgetting from Python: build a `ForgetEvent` and hand it to the one retain path.

    from sediment.bootstrap import bootstrap
    from sediment.forgetting import forget

    rt = bootstrap()
    forget(rt.publisher, "team-a", source_id="crm-export-7")

The event id is derived from the bank, the selector and the time of the request, so a
retried publish of the same request is one event; a forget is safe to run twice anyway.
"""

import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from contracts.forget import ForgetEvent, ForgetFilter
from sediment.retain import Publisher

if TYPE_CHECKING:
    from readmodel.store import MemoryStore

FORGET_NAMESPACE = uuid.UUID("0b6f1c2e-7d4a-5c39-8e21-f0a6e3b9d417")


def forget_event(
    bank_id: str,
    *,
    memory_ids: Sequence[uuid.UUID] = (),
    event_ids: Sequence[uuid.UUID] = (),
    tags: Sequence[str] = (),
    entities: Sequence[str] = (),
    start: datetime | None = None,
    end: datetime | None = None,
    source_id: str | None = None,
    everything: bool = False,
    now: datetime | None = None,
) -> ForgetEvent:
    """Exactly one selector: memory ids, event ids, a filter (any of tags, entities,
    start, end, source_id), or `everything`; pydantic's ValueError names what is wrong otherwise."""
    given_filter = bool(tags or entities or start or end or source_id)
    flt = (
        ForgetFilter(
            tags=list(tags), entities=list(entities), start=start, end=end, source_id=source_id
        )
        if given_filter
        else None
    )
    at = (now or datetime.now(UTC)).astimezone(UTC)
    selector = {
        "ids": sorted(str(i) for i in memory_ids),
        "event_ids": sorted(str(i) for i in event_ids),
        "filter": flt.model_dump(mode="json") if flt else None,
        "all": everything,
    }
    seed = json.dumps([bank_id, selector, at.isoformat()], sort_keys=True)
    return ForgetEvent(
        event_id=uuid.uuid5(FORGET_NAMESPACE, seed),
        bank_id=bank_id,
        memory_ids=list(memory_ids),
        event_ids=list(event_ids),
        filter=flt,
        all_memories=everything,
        requested_at=at,
    )


def forget(publisher: Publisher, bank_id: str, **selector: object) -> int:
    """Forget through `publisher`: inline, the number of memories forgotten; queued,
    the number of events published (the worker forgets them shortly)."""
    event = forget_event(bank_id, **selector)  # type: ignore[arg-type]
    return publisher.publish_forget([event])


class NotHeldError(ValueError):
    """A forget by ids naming a memory its bank does not hold: nothing is forgotten.
    Every surface says it in these words (HTTP's 404, the MCP tool's error, the CLI)."""


def unknown_memory(bank_id: str, memory_id: uuid.UUID, more: int = 0) -> str:
    """Why a forget naming a memory the bank does not hold was refused, whether or not
    some other bank holds that id: only the request's bank is looked at."""
    others = f" (and {more} more of the ids given)" if more else ""
    return (
        f"no memory {memory_id} in bank {bank_id}{others}: nothing was forgotten. Check the "
        "ids and the bank; a memory still being consolidated is not there yet (forget by "
        "filter, or once recall shows it)"
    )


def require_held(store: "MemoryStore", bank_id: str, memory_ids: Sequence[uuid.UUID]) -> None:
    """`NotHeldError` unless the bank holds every one of `memory_ids`: a forget by ids
    is published only for memories there are to forget, so an id of another bank or a
    mistyped one is an error rather than a forget of nothing."""
    if not memory_ids:
        return
    held = {p.record.id for p in store.fetch(bank_id, list(memory_ids))}
    missing = [m for m in dict.fromkeys(memory_ids) if m not in held]
    if missing:
        raise NotHeldError(unknown_memory(bank_id, missing[0], len(missing) - 1))
