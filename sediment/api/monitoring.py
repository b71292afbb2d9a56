"""Operator endpoints: `/v1/stats` (JSON), `/metrics` (Prometheus) and `/dashboard`.

Every figure is read from the metrics in Redis, so each API replica serves the same
numbers. Gauges are not sampled here: `sediment serve` and `sediment worker` sample
them on a timer (SEDIMENT_METRICS_SAMPLE_S), so a dashboard polling every few seconds
never makes the API count the store.

Who may read what: `/v1/stats` carries bank ids and timings, so it takes the bearer
token whenever one is set. `/metrics` is open by default, like `/healthz`, because a
Prometheus scrape usually carries no token and the text holds only aggregates (bank
ids appear as labels of the per-bank gauges); SEDIMENT_METRICS_PUBLIC=false puts it
behind the token (Prometheus then sends it with `authorization: {credentials: ...}`).
The dashboard page and its script hold no data: they load without a token and ask
for one when `/v1/stats` answers 401.
"""

import json
from pathlib import Path
from typing import Annotated, Final

from fastapi import APIRouter, Depends, FastAPI, Query
from fastapi.responses import FileResponse, Response
from fastapi.security import HTTPAuthorizationCredentials
from fastapi.staticfiles import StaticFiles
from prometheus_client import CONTENT_TYPE_LATEST

from contracts.base import BANK_ID_PATTERN
from sediment.api.auth import Deps, bearer, require_token
from sediment.api.deps import ApiDeps
from telemetry.prometheus import render_prometheus

STATIC: Final = Path(__file__).with_name("static")
MAX_SLOW: Final = 100
SLOW_SCAN: Final = 1000
JSON_FIELDS: Final = ("timings_ms", "sizes")
DASHBOARD_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
"""The page runs only its own script, talks only to this origin and cannot be framed:
a token kept in the tab's sessionStorage is then reachable by that script alone."""

Minutes = Annotated[int, Query(ge=1, le=1440, description="window in minutes")]
BankQuery = Annotated[
    str | None, Query(pattern=BANK_ID_PATTERN, description="one bank (default: all banks)")
]


def slow_calls(deps: ApiDeps, count: int, bank: str | None) -> list[dict[str, object]]:
    """The newest slow calls, newest first: operation, bank, duration, stage timings and
    sizes. The log never holds query or memory text, so neither can this."""
    if deps.recall_log is None or count == 0:
        return []
    entries = deps.recall_log.slow_calls(SLOW_SCAN if bank else count)
    out: list[dict[str, object]] = []
    for entry in reversed(entries):
        if bank is not None and entry.get("bank") != bank:
            continue
        call: dict[str, object] = dict(entry)
        call["duration_ms"] = float(entry.get("duration_ms", "0"))
        for name in JSON_FIELDS:
            call[name] = json.loads(entry.get(name) or "{}")
        out.append(call)
        if len(out) == count:
            break
    return out


def stats_json(deps: ApiDeps, minutes: int, bank: str | None, slow: int) -> str:
    """The snapshot `sediment stats --json` prints, plus the newest slow calls."""
    body = json.loads(deps.metrics.snapshot(minutes, bank).to_json())
    body["recent_slow_calls"] = slow_calls(deps, slow, bank)
    return json.dumps(body, sort_keys=True)


def require_metrics_token(
    deps: Deps,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    if not deps.metrics_public:
        require_token(deps, credentials)


ops = APIRouter(tags=["ops"])


@ops.get(
    "/v1/stats",
    dependencies=[Depends(require_token)],
    summary="Rates, latency percentiles, lag, queue depth, dead letters, slow calls",
    response_description="the `sediment stats --json` snapshot with `recent_slow_calls`",
)
def stats(
    deps: Deps,
    minutes: Minutes = 15,
    bank: BankQuery = None,
    slow: Annotated[int, Query(ge=0, le=MAX_SLOW, description="newest slow calls")] = 20,
) -> Response:
    """Counters are totals, per-minute rates and one value per minute; histograms add
    p50/p95/p99 over the window and per minute; gauges carry their sample time."""
    return Response(stats_json(deps, minutes, bank, slow), media_type="application/json")


@ops.get(
    "/metrics",
    dependencies=[Depends(require_metrics_token)],
    summary="Prometheus text format, aggregated from Redis (no token unless configured)",
    response_class=Response,
    openapi_extra={"security": [{}]},  # with the dependency's bearer: optional
)
def metrics(deps: Deps, minutes: Minutes = 5, bank: BankQuery = None) -> Response:
    snapshot = deps.metrics.snapshot(minutes, bank)
    return Response(render_prometheus(snapshot), media_type=CONTENT_TYPE_LATEST)


@ops.get("/dashboard", summary="Live dashboard page (polls /v1/stats)", response_class=FileResponse)
def dashboard() -> FileResponse:
    return FileResponse(STATIC / "dashboard.html", headers=DASHBOARD_HEADERS)


def install_ops(app: FastAPI) -> None:
    """The ops routes and the dashboard's script and stylesheet."""
    app.include_router(ops)
    app.mount("/dashboard/assets", StaticFiles(directory=STATIC), name="dashboard-assets")
