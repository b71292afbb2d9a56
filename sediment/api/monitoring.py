"""Operator endpoints: `/v1/stats` (JSON), `/metrics` (Prometheus) and `/dashboard`.

Every figure is read from the metrics in Redis, so each API replica serves the same
numbers. Gauges are not sampled here: `sediment serve` and `sediment worker` sample
them on a timer (SEDIMENT_METRICS_SAMPLE_S), so a dashboard polling every few seconds
never makes the API count the store.

Who may read what: `/v1/stats` carries bank ids and timings, so it takes the bearer
token whenever one is set, or a key with the `metrics` (or `admin`) scope. `/metrics`
follows SEDIMENT_METRICS_PUBLIC: when it is unset, `/metrics` is open exactly while the
API is (neither a token nor keys configured) and otherwise needs what `/v1/stats`
needs; `true` opens it to anyone (a Prometheus scrape without a token; the header is
then not read), `false` always puts it behind the token or a key. A key limited to
some banks sees only their figures in both: another bank is 403, and without `bank=`
the series of its banks only (sediment/api/auth.py `bank_view`). The dashboard page
and its script hold no data: they load without a token (a browser's navigation sends
none) and ask for one when `/v1/stats` answers 401.
"""

import json
from pathlib import Path
from typing import Annotated, Final

from fastapi import APIRouter, Depends, FastAPI, Query
from fastapi.responses import FileResponse, Response
from fastapi.security import HTTPAuthorizationCredentials
from fastapi.staticfiles import StaticFiles
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import AfterValidator

from contracts.base import BANK_ID_PATTERN, require_bank_id_or_none
from sediment.api.auth import CallerKey, Deps, bank_view, bearer, require_token
from sediment.api.deps import ApiDeps
from telemetry.metrics import BankFilter
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
    str | None,
    Query(pattern=BANK_ID_PATTERN, description="one bank (default: all banks)"),
    AfterValidator(require_bank_id_or_none),
]


def slow_calls(
    deps: ApiDeps, count: int, bank: str | None, among: BankFilter | None = None
) -> list[dict[str, object]]:
    """The newest slow calls, newest first: operation, bank, duration, stage timings and
    sizes, of `bank` (None: any) among the banks `among` admits (None: any). The log
    never holds query or memory text, so neither can this."""
    if deps.recall_log is None or count == 0:
        return []
    narrowed = bank is not None or among is not None
    entries = deps.recall_log.slow_calls(SLOW_SCAN if narrowed else count)
    out: list[dict[str, object]] = []
    for entry in reversed(entries):
        found = entry.get("bank")
        if bank is not None and found != bank:
            continue
        if among is not None and not (found and among(found)):
            continue
        call: dict[str, object] = dict(entry)
        call["duration_ms"] = float(entry.get("duration_ms", "0"))
        for name in JSON_FIELDS:
            call[name] = json.loads(entry.get(name) or "{}")
        out.append(call)
        if len(out) == count:
            break
    return out


def stats_json(
    deps: ApiDeps, minutes: int, bank: str | None, slow: int, among: BankFilter | None = None
) -> str:
    """The snapshot `sediment stats --json` prints, plus the newest slow calls."""
    body = json.loads(deps.metrics.snapshot(minutes, bank, among).to_json())
    body["recent_slow_calls"] = slow_calls(deps, slow, bank, among)
    return json.dumps(body, sort_keys=True)


def require_metrics_token(
    deps: Deps,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    if not deps.metrics_open:
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
    key: CallerKey,
    minutes: Minutes = 15,
    bank: BankQuery = None,
    slow: Annotated[int, Query(ge=0, le=MAX_SLOW, description="newest slow calls")] = 20,
) -> Response:
    """Counters are totals, per-minute rates and one value per minute; histograms add
    p50/p95/p99 over the window and per minute; gauges carry their sample time. A key
    limited to some banks sees only theirs (another bank is 403)."""
    among = bank_view(key, bank)
    return Response(stats_json(deps, minutes, bank, slow, among), media_type="application/json")


@ops.get(
    "/metrics",
    dependencies=[Depends(require_metrics_token)],
    summary="Prometheus text format, aggregated from Redis (no token while the API is open)",
    response_class=Response,
    openapi_extra={"security": [{}]},  # with the dependency's bearer: optional
)
def metrics(deps: Deps, key: CallerKey, minutes: Minutes = 5, bank: BankQuery = None) -> Response:
    """What `/v1/stats` shows, for Prometheus; public or behind a key as
    SEDIMENT_METRICS_PUBLIC says (the module docstring)."""
    among = None if deps.metrics_open else bank_view(key, bank)
    snapshot = deps.metrics.snapshot(minutes, bank, among)
    return Response(render_prometheus(snapshot), media_type=CONTENT_TYPE_LATEST)


@ops.get("/dashboard", summary="Live dashboard page (polls /v1/stats)", response_class=FileResponse)
def dashboard() -> FileResponse:
    return FileResponse(STATIC / "dashboard.html", headers=DASHBOARD_HEADERS)


def install_ops(app: FastAPI) -> None:
    """The ops routes and the dashboard's script and stylesheet."""
    app.include_router(ops)
    app.mount("/dashboard/assets", StaticFiles(directory=STATIC), name="dashboard-assets")
