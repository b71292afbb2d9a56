"""The bank-scoped endpoints. Every one takes the bank from the URL and reads or
writes only that bank: a memory of bank A cannot be seen or voted on through bank B.
A publish the broker does not take is 503 (sediment/api/problems.py)."""

import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Final

import anyio.to_thread
import pydantic
from fastapi import APIRouter, Depends, HTTPException, Path, Query, Response
from fastapi import Body as Payload
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator

from contracts.base import BANK_ID_PATTERN, require_bank_id
from contracts.events import RetainEvent, RetainItem, derive_event_id, with_expiry
from contracts.feedback import FeedbackEvent
from contracts.recall import RecallRequest, RecallResponse
from readmodel.store import Filter
from sediment.api import examples
from sediment.api.auth import Deps, require_token
from sediment.api.models import (
    BankStatus,
    ErrorBody,
    FeedbackAccepted,
    FeedbackBody,
    MarkAccepted,
    MarkBody,
    MemoryView,
    RetainAccepted,
    RetainBody,
    SessionKey,
)
from sediment.api.outcomes import outcomes
from sediment.api.views import memory_view
from sediment.memory_ids import MemoryIdError, resolve
from sediment.recall_defaults import surface_default
from sediment.retain import repeat_problem, repeats
from telemetry.recall_logs import LastRecall
from worker.consolidation.neighbourhood import RAW_KINDS

Bank = Annotated[
    str,
    Path(pattern=BANK_ID_PATTERN, description="bank identifier"),
    AfterValidator(require_bank_id),
]


router = APIRouter(prefix="/v1/banks/{bank_id}", dependencies=[Depends(require_token)])


def to_events(
    bank_id: str, items: Sequence[RetainItem], max_text_bytes: int, now: datetime
) -> list[RetainEvent]:
    """Every item as a `RetainEvent` of the bank, or one 422 listing every bad field and
    every item whose event id (given or derived) an earlier item has; a `ttl_s` becomes
    `expires_at`, counted from `now` (when the request is accepted)."""
    events: list[RetainEvent | None] = []
    errors: list[dict[str, object]] = []
    for i, item in enumerate(items):
        data = with_expiry(item.model_dump(exclude_unset=True), now)
        data["bank_id"] = bank_id
        if item.event_id is None:
            when = item.occurred_at.astimezone(UTC).isoformat()
            data["event_id"] = derive_event_id(bank_id, item.text, when)
        try:
            events.append(
                RetainEvent.model_validate(data, context={"max_text_bytes": max_text_bytes})
            )
        except pydantic.ValidationError as exc:
            events.append(None)
            errors += [{**e, "loc": ("body", "items", i, *e["loc"])} for e in exc.errors()]
    errors += _repeated(items, [e.event_id if e else None for e in events])
    if errors:
        raise RequestValidationError(errors)
    return [e for e in events if e is not None]


def _repeated(
    items: Sequence[RetainItem], ids: Sequence[uuid.UUID | None]
) -> list[dict[str, object]]:
    """A validation error for each item whose event id an earlier item has."""
    errors: list[dict[str, object]] = []
    for later, first in repeats(ids).items():
        event_id = ids[later]
        assert event_id is not None
        problem = repeat_problem(event_id, first, derived=items[later].event_id is None)
        errors.append(
            {"loc": ("body", "items", later, "event_id"), "msg": problem, "type": "value_error"}
        )
    return errors


def not_found(bank_id: str, what: str) -> HTTPException:
    return HTTPException(404, f"no {what} in bank {bank_id}")


@router.post(
    "/memories", status_code=202, summary="Retain memories", response_model_exclude_none=True
)
def retain(
    bank_id: Bank,
    body: Annotated[RetainBody, Payload(openapi_examples=examples.RETAIN)],
    deps: Deps,
) -> RetainAccepted:
    """Queue facts for consolidation; they become visible to recall once a worker is done.
    An item with `ttl_s` or `expires_at` is hidden from recall from that instant and
    forgotten by the next expiry sweep (SEDIMENT_EXPIRY_SWEEP_S)."""
    with deps.service.slow_calls.timed("api.retain", bank_id, {"items": len(body.items)}):
        events = to_events(bank_id, body.items, deps.max_text_bytes, datetime.now(UTC))
        deps.publisher.publish_retain(events)
    ids = [e.event_id for e in events]
    if deps.publisher.queued:
        return RetainAccepted(event_ids=ids)
    return RetainAccepted(
        event_ids=ids, status="consolidated", outcomes=outcomes(deps.store, bank_id, ids)
    )


@router.post(
    "/recall",
    summary="Recall memories",
    response_model=RecallResponse,
    responses={
        429: {
            "model": ErrorBody,
            "description": (
                "too many recalls waiting for their wait_for events, of the key or on the "
                "bank (SEDIMENT_RECALL_WAITERS_PER_KEY, SEDIMENT_RECALL_WAITERS_PER_BANK)"
            ),
        }
    },
)
async def recall(
    bank_id: Bank,
    request: Annotated[RecallRequest, Payload(openapi_examples=examples.RECALL)],
    deps: Deps,
) -> Response:
    """Hybrid ranking with current state and prefer-observations (on by default).
    Results without topical evidence (no word of the query, none of its dates, meaning
    below the semantic floor) are left out unless `all` is true or `min_score` is set;
    `without_evidence` says how many. The `Server-Timing` header gives the recall's own
    time (`recall;dur=` in ms), so a client can tell it from the time the request spent
    around it (waiting for `wait_for` events, or for a recall slot). Too many recalls
    waiting for their `wait_for` events, of the caller or on the bank, is 429."""
    # The response is a RecallResponse already: written to JSON once, not validated
    # again on the way out (about a third of a millisecond per recall). No nulls and
    # no deprecated `timings_ms` (`RecallResponse.wire`): what `recall --json` prints.
    asked = surface_default(request)
    await deps.await_events(bank_id, asked)
    async with deps.recall_turn():
        start = time.perf_counter()
        response = await anyio.to_thread.run_sync(deps.recall_now, bank_id, asked)
        took_ms = (time.perf_counter() - start) * 1000
    headers = {"Server-Timing": f"recall;dur={took_ms:.3f}"}
    if "state_mode" in request.model_fields_set:
        headers |= DEPRECATED_STATE_MODE
    return Response(response.wire(), media_type="application/json", headers=headers)


DEPRECATED_STATE_MODE: Final = {
    "Deprecation": "true",
    "Warning": '299 - "state_mode is deprecated: send history (true or false) instead"',
}
"""`state_mode` was the HTTP API's own name for what MCP, the client and the CLI call
`history`; it is still read for one release, and the answer says so (RFC 9745's
`Deprecation`, and a `Warning` a person reads)."""


@router.post("/feedback", status_code=202, summary="Vote on a memory")
def feedback(bank_id: Bank, body: FeedbackBody, deps: Deps) -> FeedbackAccepted:
    with deps.service.slow_calls.timed("api.feedback", bank_id):
        if not deps.store.fetch(bank_id, [body.memory_id]):
            raise not_found(bank_id, f"memory {body.memory_id}")
    event = FeedbackEvent(
        event_id=body.event_id or uuid.uuid4(),
        bank_id=bank_id,
        memory_id=body.memory_id,
        vote=body.vote,
        occurred_at=datetime.now(UTC),
        session_key=body.session_key,
    )
    deps.publisher.publish_feedback([event])
    return FeedbackAccepted(event_id=event.event_id)


@router.post("/feedback/last-recall", status_code=202, summary="Mark the last recall")
def mark_last_recall(bank_id: Bank, body: MarkBody, deps: Deps) -> MarkAccepted:
    """Mark every result of the session's last recall that is not in `useful_ids` as not
    useful. Nothing is marked when `useful_ids` is empty or names none of those results."""
    if not body.useful_ids:
        return MarkAccepted(useful=0, marked_not_useful=0, event_ids=[])
    snapshot = deps.service.last_recall(bank_id, body.session_key)
    if snapshot is None:
        raise not_found(bank_id, f"last recall for session {body.session_key!r}")
    events = deps.service.mark_last_recall(bank_id, body.session_key, body.useful_ids)
    deps.publisher.publish_feedback(events)
    shown = {r.id for r in snapshot.results}
    return MarkAccepted(
        useful=len(shown & set(body.useful_ids)),
        marked_not_useful=len(events),
        event_ids=[e.event_id for e in events],
    )


MemoryRef = Annotated[
    str,
    Path(
        min_length=4,
        max_length=36,
        pattern=r"^[0-9a-fA-F]{4}[0-9a-fA-F-]{0,32}$",
        description="the memory's id, or the short id recall shows (a prefix of it)",
    ),
]


def memory_of(deps: Deps, bank_id: str, memory_id: str) -> uuid.UUID:
    """The memory a full or short id names in the bank: 422 for what is not an id, 404
    when none has it, 409 when several do (listed)."""
    try:
        return resolve(deps.store, bank_id, memory_id)
    except MemoryIdError as exc:
        raise HTTPException(exc.status, str(exc)) from None


@router.get("/memories/{memory_id}", summary="A memory with provenance, edges and history")
def get_memory(bank_id: Bank, memory_id: MemoryRef, deps: Deps) -> MemoryView:
    found_id = memory_of(deps, bank_id, memory_id)
    with deps.service.slow_calls.timed("api.get_memory", bank_id):
        view = memory_view(deps.store, bank_id, found_id)
    if view is None:
        raise not_found(bank_id, f"memory {found_id}")
    return view


@router.get("/status", summary="The bank's watermark: what is consolidated, what is pending")
def bank_status(bank_id: Bank, deps: Deps) -> BankStatus:
    """Read-your-writes: a recall reflects every event accepted before
    `consolidated_through`; recall's `wait_for` waits for given events."""
    oldest = deps.pending.oldest(bank_id)
    return BankStatus(
        bank_id=bank_id,
        pending=deps.pending.count(bank_id),
        consolidated_through=oldest or datetime.now(UTC),
        oldest_pending_at=oldest,
        memories=deps.store.count(Filter(bank_id, kinds=RAW_KINDS)),
        observations=deps.store.count(Filter(bank_id, kinds=("observation",))),
    )


@router.get("/last-recall", summary="The session's last recall (ids and scores, no text)")
def get_last_recall(
    bank_id: Bank, session_key: Annotated[SessionKey, Query()], deps: Deps
) -> LastRecall:
    snapshot = deps.service.last_recall(bank_id, session_key)
    if snapshot is None:
        raise not_found(bank_id, f"last recall for session {session_key!r}")
    return snapshot
