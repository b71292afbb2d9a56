"""The memory browser: `/browse`, a page to pick a bank, search it, and read each result's
state, supersession chain, sources and reading.

The page and its assets hold no data: like the dashboard they load without a token and
ask for one when the API answers 401. Everything the page shows comes from `/v1/` routes
behind the API's token and keys: recall and a memory's view (sediment/api/routes.py),
plus the two read-only routes here, the banks the caller may read and a memory's
reading (`sediment inspect`'s "read as" lines, sediment/render.py `reading_lines`).
"""

from datetime import UTC, datetime
from typing import Final

from fastapi import APIRouter, Depends, FastAPI, HTTPException
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import Field

from readmodel.store import expired
from sediment.api.auth import CallerKey, Deps, require_token
from sediment.api.models import Body, ErrorBody
from sediment.api.monitoring import DASHBOARD_HEADERS, STATIC
from sediment.api.routes import Bank, MemoryRef, memory_of, not_found
from sediment.render import reading_lines

READ: Final = "read"


class BrowsableBanks(Body):
    """The banks holding memories that the caller's key may read, sorted."""

    banks: list[str]


class Reading(Body):
    """How a memory's text reads, in the words `sediment inspect` prints."""

    id: str
    lines: list[str] = Field(description="`read as: ...` per clause, and what it means for merging")


banks_router = APIRouter(
    prefix="/v1/browse", dependencies=[Depends(require_token)], tags=["browse"]
)
memory_router = APIRouter(
    prefix="/v1/banks/{bank_id}", dependencies=[Depends(require_token)], tags=["browse"]
)


@banks_router.get("/banks", summary="The banks the caller may read (for the memory browser)")
def browsable_banks(deps: Deps, key: CallerKey) -> BrowsableBanks:
    """Every bank holding memories for the token or an open API; for a key, the banks it
    opens, and 403 for a key without the `read` scope."""
    if key is not None and not key.grants(READ):
        raise HTTPException(
            403, f"API key {key.name!r} lacks the 'read' scope (it has {', '.join(key.scopes)})"
        )
    banks = deps.store.banks()
    return BrowsableBanks(banks=sorted(b for b in banks if key is None or key.opens(b)))


@memory_router.get(
    "/memories/{memory_id}/reading",
    summary="How a memory's text reads (as `sediment inspect`)",
    responses={404: {"model": ErrorBody, "description": "no such memory in the bank"}},
)
def memory_reading(bank_id: Bank, memory_id: MemoryRef, deps: Deps) -> Reading:
    found_id = memory_of(deps, bank_id, memory_id)
    found = deps.store.fetch(bank_id, [found_id])
    if not found or expired(found[0].record, datetime.now(UTC)):
        raise not_found(bank_id, f"memory {found_id}")
    return Reading(id=str(found_id), lines=reading_lines(found[0].record))


def install_browser(app: FastAPI) -> None:
    """The page, its assets and its two routes."""
    app.include_router(banks_router)
    app.include_router(memory_router)

    @app.get("/browse", summary="Memory browser page", response_class=FileResponse, tags=["ops"])
    def browse() -> FileResponse:
        return FileResponse(STATIC / "browser.html", headers=DASHBOARD_HEADERS)

    app.mount("/browse/assets", StaticFiles(directory=STATIC), name="browser-assets")
