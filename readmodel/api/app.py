"""The HTTP API: FastAPI app factory. OpenAPI at /openapi.json, docs at /docs.

Middleware order (outermost first): request id (so even a 413 carries one and is
logged), then the body limit. Ops routes (/v1/stats, /metrics, /dashboard) are in
readmodel/api/ops.py.
"""

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from readmodel.api.deps import ApiDeps
from readmodel.api.errors import BodyLimit, install_error_handlers
from readmodel.api.models import ErrorBody, Health, Status
from readmodel.api.ops import install_ops
from readmodel.api.request_ids import RequestIds
from readmodel.api.routes import router

COMPONENTS = ("store", "redis", "broker")


def check(deps: ApiDeps, component: str) -> Status:
    """A component without a check, or whose check raises, is reported failed."""
    probe = deps.health.get(component)
    if probe is None:
        return "failed"
    try:
        return "ok" if probe() else "failed"
    except Exception:
        return "failed"


Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def create_app(deps: ApiDeps, lifespan: Lifespan | None = None) -> FastAPI:
    """`lifespan` lets the hosting process start and stop what runs beside the API."""
    app = FastAPI(
        lifespan=lifespan,
        title="Sediment",
        summary="Agent memory: retain, recall, feedback.",
        version="1",
        responses={
            401: {"model": ErrorBody, "description": "missing or wrong bearer token"},
            413: {"model": ErrorBody, "description": "body over SEDIMENT_API_MAX_BODY_BYTES"},
            422: {"model": ErrorBody, "description": "invalid fields, each named"},
        },
    )
    app.state.deps = deps
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=deps.max_body_bytes)
    app.add_middleware(RequestIds)
    app.include_router(router, responses={404: {"model": ErrorBody}})
    install_ops(app)

    @app.get(
        "/healthz",
        summary="Store, Redis and broker reachability (no token needed)",
        responses={503: {"model": Health, "description": "a component failed"}},
    )
    def healthz() -> JSONResponse:
        health = Health(**{c: check(deps, c) for c in COMPONENTS})
        ok = all(v == "ok" for v in health.model_dump().values())
        return JSONResponse(health.model_dump(), 200 if ok else 503)

    return app
