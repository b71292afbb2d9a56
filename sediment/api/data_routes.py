"""A bank's audit stream and its export: both need the `admin` scope (sediment/api/auth.py)."""

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.responses import StreamingResponse
from pydantic import Field

from contracts.audit import AuditEntry
from sediment.api.auth import Deps, require_token
from sediment.api.models import Body, ErrorBody
from sediment.api.routes import Bank
from sediment.auditing import Auditor
from sediment.transfer import FORMAT, VERSION, Checksum, export_lines
from worker.tombstones import Tombstones

router = APIRouter(prefix="/v1/banks/{bank_id}", dependencies=[Depends(require_token)])
ADMIN: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorBody, "description": "the key lacks the admin scope or the bank"}
}
AUDIT_EXAMPLE = {
    "bank_id": "team-a",
    "entries": [
        {
            "schema_version": 1,
            "id": "1714554000123-0",
            "at": "2024-05-01T09:00:00.123000Z",
            "bank_id": "team-a",
            "actor": "team-a-agent",
            "action": "retain",
            "event_ids": ["9b2f8c1e-2d3a-5b4c-8d9e-0f1a2b3c4d5e"],
            "memory_ids": [],
            "counts": {"events": 1},
            "request_id": "3f2a9c0d5e6b4a1f8c7d2e9b0a1c3d4e",
        }
    ],
}


def _export_example() -> str:
    """A whole export of one memory and one tombstone, its trailer computed as an
    export computes it (so the example is one `sediment import` accepts)."""
    checksum = Checksum()
    rows: list[dict[str, object]] = [
        {
            "bank": "team-a",
            "exported_at": "2024-05-01T09:00:00+00:00",
            "format": FORMAT,
            "version": VERSION,
        },
        {
            "type": "retain",
            "event": {
                "bank_id": "team-a",
                "event_id": "9b2f8c1e-2d3a-5b4c-8d9e-0f1a2b3c4d5e",
                "key": "alice.city",
                "occurred_at": "2024-05-01T09:00:00Z",
                "text": "Alice lives in Seattle.",
            },
        },
        {
            "type": "tombstone",
            "tombstone": {
                "bank_id": "team-a",
                "event_id": None,
                "forget_event_id": "0b6f1c2e-7d4a-5c39-8e21-f0a6e3b9d417",
                "memory_id": "2c1d0e9f-8a7b-5c6d-9e0f-1a2b3c4d5e6f",
                "schema_version": 1,
            },
        },
    ]
    lines = [checksum.line(row) for row in rows]
    return "\n".join([*lines, json.dumps(checksum.trailer(), sort_keys=True)]) + "\n"


EXPORT_EXAMPLE = _export_example()


class AuditPage(Body):
    """The bank's latest audit entries, newest first."""

    bank_id: str
    entries: list[AuditEntry] = Field(default_factory=list)


def _auditor(auditor: Auditor | None) -> Auditor:
    if auditor is None:
        raise HTTPException(404, "this process keeps no audit stream")
    return auditor


@router.get(
    "/audit",
    summary="Who changed the bank's data (admin)",
    responses={**ADMIN, 200: {"content": {"application/json": {"example": AUDIT_EXAMPLE}}}},
)
def audit(
    bank_id: Bank,
    deps: Deps,
    limit: Annotated[int, Query(ge=1, le=10_000, description="newest entries to return")] = 100,
) -> AuditPage:
    """Retains, forgets, imports, expiries, votes and exports of the bank, newest first:
    when, who (the API key's name, `token`, `local`, `cli`, `mcp` or `worker`), which
    event and memory ids (at most 100 each) and counts; never memory text. It records
    requests as they were accepted: a queued forget is listed before the worker runs it."""
    entries = _auditor(deps.auditor).audit.read(bank_id, limit)
    return AuditPage(bank_id=bank_id, entries=entries)


def _streamed(
    lines: Iterator[str], auditor: Auditor, bank_id: str, counts: dict[str, int]
) -> Iterator[str]:
    for line in lines:
        yield line + "\n"
    auditor.record(bank_id, "export", counts=counts)


@router.get(
    "/export",
    summary="Export the bank as JSON lines (admin)",
    response_class=StreamingResponse,
    responses={
        **ADMIN,
        200: {
            "description": "a header line, one retain event per raw memory, one tombstone "
            "per forgotten memory, and a trailer with the count of each and the SHA-256 of "
            "the lines before it (the format `sediment import` reads). The memories and "
            "tombstones are read before the first byte is sent (Redis unreachable: 503); "
            "a stream that fails after that ends without its trailer, which an import "
            "refuses",
            "content": {"application/x-ndjson": {"example": EXPORT_EXAMPLE}},
        },
    },
)
def export(bank_id: Bank, deps: Deps) -> StreamingResponse:
    """What `sediment export --bank B` writes: the bank's raw events in event-time order,
    its tombstones and the trailer; `sediment import FILE` replays it into any
    deployment."""
    auditor = _auditor(deps.auditor)
    stones: Tombstones | None = deps.tombstones
    if stones is None:
        raise HTTPException(404, "this process keeps no tombstones to export")
    counts: dict[str, int] = {}
    lines = export_lines(deps.store, stones, bank_id, datetime.now(UTC), counts)
    return StreamingResponse(
        _streamed(lines, auditor, bank_id, counts),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{bank_id}.jsonl"'},
    )
