"""Forget endpoints: each publishes one `ForgetEvent` on the one retain path; the worker
removes the memories, leaves tombstones and re-derives what they touched (202). In
embedded mode the memories are gone before the response (`forgotten` counts them)."""

import uuid
from collections.abc import Sequence
from typing import Annotated, Final

import pydantic
from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi import Body as Payload
from fastapi.exceptions import RequestValidationError
from pydantic import ConfigDict, Field, StrictBool, model_validator
from pydantic.config import JsonDict

from contracts.base import AwareDatetime
from contracts.events import MAX_ENTITIES, MAX_TAGS, Label
from contracts.forget import MAX_FORGET_IDS, ForgetEvent, ForgetFilter
from contracts.memory import derive_memory_id
from sediment.api import examples
from sediment.api.auth import Deps, require_token
from sediment.api.models import Body, ErrorBody, ForgetAccepted
from sediment.api.routes import Bank, MemoryRef, memory_of
from sediment.forgetting import NotHeldError, forget_event, require_held
from sediment.memory_ids import parse_full

router = APIRouter(prefix="/v1/banks/{bank_id}", dependencies=[Depends(require_token)])


ONE_SELECTOR: Final[JsonDict] = {
    "oneOf": [
        {"required": ["memory_ids"], "properties": {"memory_ids": {"minItems": 1}}},
        {"required": ["event_ids"], "properties": {"event_ids": {"minItems": 1}}},
        {"required": ["filter"], "properties": {"filter": {"type": "object"}}},
        {"required": ["all_memories"], "properties": {"all_memories": {"const": True}}},
    ]
}
"""The body's rule in JSON Schema: exactly one of a non-empty `memory_ids`, a non-empty
`event_ids`, a `filter`, and `all_memories: true`, as `ForgetBody` checks it."""


class ForgetBody(Body):
    """Exactly one of `memory_ids` (not empty), `event_ids` (not empty: the memories
    those retains of the bank store), `filter`, `all_memories` (true)."""

    model_config = ConfigDict(json_schema_extra=ONE_SELECTOR)

    memory_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORGET_IDS)
    event_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_FORGET_IDS)
    filter: ForgetFilter | None = None
    all_memories: StrictBool = False

    @model_validator(mode="after")
    def _one_selector(self) -> "ForgetBody":
        chosen = [
            bool(self.memory_ids),
            bool(self.event_ids),
            self.filter is not None,
            self.all_memories,
        ]
        if sum(chosen) != 1:
            raise ValueError(
                "a forget needs exactly one selector: memory_ids, event_ids, filter, "
                "or all_memories=true"
            )
        return self


def _send(event: ForgetEvent, deps: Deps) -> ForgetAccepted:
    counted = deps.publisher.publish_forget([event])
    queued = deps.publisher.queued
    return ForgetAccepted(
        event_id=event.event_id, queued=queued, forgotten=None if queued else counted
    )


NO_CONDITION = (
    "give at least one condition: tag, entity, start, end or source_id "
    "(DELETE /v1/banks/{bank_id} forgets the whole bank)"
)


def _event(bank_id: str, where: str, **selector: object) -> ForgetEvent:
    """The event, or 422 naming each problem as a request's own validation does
    (`where`: "path", "query" or "body"), never pydantic's own text."""
    try:
        return forget_event(bank_id, **selector)  # type: ignore[arg-type]
    except pydantic.ValidationError as exc:
        errors = [{**e, "loc": (where, *e.get("loc", ()))} for e in exc.errors()]
        raise RequestValidationError(errors) from exc


@router.delete(
    "/memories/{memory_id}",
    status_code=202,
    summary="Forget one memory",
    responses={404: {"model": ErrorBody, "description": "no such memory in the bank"}},
)
def forget_memory(bank_id: Bank, memory_id: MemoryRef, deps: Deps) -> ForgetAccepted:
    """The full id, or the short id recall shows. 404 for an id the bank does not hold:
    nothing is published, no tombstone is left (a forget by filter, or of the whole
    bank, reaches memories still queued)."""
    full = parse_full(memory_id)
    found_id = full if full is not None else memory_of(deps, bank_id, memory_id)
    held_or_404(deps, bank_id, [found_id])
    return _send(_event(bank_id, "path", memory_ids=[found_id]), deps)


def held_or_404(deps: Deps, bank_id: str, memory_ids: Sequence[uuid.UUID]) -> None:
    """404, publishing nothing, unless the bank holds every one of `memory_ids`
    (`require_held`: the MCP tool and the CLI refuse in the same words)."""
    try:
        require_held(deps.store, bank_id, memory_ids)
    except NotHeldError as exc:
        raise HTTPException(404, str(exc)) from None


@router.delete("/memories", status_code=202, summary="Forget the memories matching a filter")
def forget_matching(
    bank_id: Bank,
    deps: Deps,
    tag: Annotated[list[Label] | None, Query(max_length=MAX_TAGS)] = None,
    entity: Annotated[list[Label] | None, Query(max_length=MAX_ENTITIES)] = None,
    start: Annotated[AwareDatetime | None, Query()] = None,
    end: Annotated[AwareDatetime | None, Query()] = None,
    source_id: Annotated[Label | None, Query()] = None,
) -> ForgetAccepted:
    """Any of the tags, any of the entities, `occurred_at` in [start, end], and
    `metadata.source_id`; at least one condition (forget a whole bank with DELETE
    /v1/banks/{bank_id})."""
    if not (tag or entity or start or end or source_id):
        raise RequestValidationError([{"loc": ("query",), "msg": NO_CONDITION, "type": "missing"}])
    event = _event(
        bank_id,
        "query",
        tags=tag or [],
        entities=entity or [],
        start=start,
        end=end,
        source_id=source_id,
    )
    return _send(event, deps)


@router.post(
    "/forget",
    status_code=202,
    summary="Forget by ids, a filter, or everything",
    responses={404: {"model": ErrorBody, "description": "an id the bank does not hold"}},
)
def forget_body(
    bank_id: Bank,
    body: Annotated[ForgetBody, Payload(openapi_examples=examples.FORGET)],
    deps: Deps,
) -> ForgetAccepted:
    """Exactly one selector. Memory ids, and event ids (the memories those retains of
    the bank store), must name memories the bank holds: otherwise 404, as for `DELETE
    .../memories/{id}`, and nothing is forgotten."""
    if body.memory_ids or body.event_ids:
        named = [derive_memory_id(bank_id, e) for e in body.event_ids] or body.memory_ids
        held_or_404(deps, bank_id, named)
    flt = body.filter
    event = _event(
        bank_id,
        "body",
        memory_ids=body.memory_ids,
        event_ids=body.event_ids,
        tags=flt.tags if flt else [],
        entities=flt.entities if flt else [],
        start=flt.start if flt else None,
        end=flt.end if flt else None,
        source_id=flt.source_id if flt else None,
        everything=body.all_memories,
    )
    return _send(event, deps)


@router.delete("", status_code=202, summary="Forget a whole bank")
def forget_bank(bank_id: Bank, deps: Deps) -> ForgetAccepted:
    return _send(_event(bank_id, "path", everything=True), deps)
