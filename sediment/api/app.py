"""The HTTP API: FastAPI app factory. OpenAPI at /openapi.json, docs at /docs.

Middleware order (outermost first): request id (so even a 413 carries one and is
logged), then the bearer token (a `/v1/` request without a known token or key gets 401
before its body is read), then the key's scope and bank (403), then the body limit and
encoding check (413, 400). Ops routes (/v1/stats, /metrics, /dashboard) are in
sediment/api/monitoring.py, the memory browser (/browse) in sediment/api/browser.py.
The MCP endpoint, when the process hosts one, is mounted at /mcp behind the same check
(sediment/api/auth.py), POST only (`PostOnly`).
"""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Protocol

import anyio
import structlog
from anyio.abc import TaskGroup
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from sediment.api.auth import RequireToken, ScopeGuard, TokenGuard
from sediment.api.banks import router as banks_router
from sediment.api.browser import install_browser
from sediment.api.data_routes import router as data_router
from sediment.api.deps import ApiDeps
from sediment.api.forget_routes import router as forget_router
from sediment.api.models import ErrorBody, Health, Status
from sediment.api.monitoring import install_ops
from sediment.api.problems import (
    RETRY_AFTER_S,
    BodyLimit,
    error_response,
    install_error_handlers,
)
from sediment.api.request_ids import RequestIds
from sediment.api.routes import router

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


class Endpoint(Protocol):
    """An ASGI app served beside the API (the MCP endpoint), and what must run while
    it is served."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...

    def running(self) -> AbstractAsyncContextManager[None]: ...


log = structlog.get_logger("sediment.api")


class LazyEndpoint:
    """An `Endpoint` built on its first request, not at start: the MCP SDK's imports are
    about 25 MB of a `sediment serve`'s resident memory, which a server nobody asks over
    MCP need not hold. The built endpoint's `running()` is entered in a task of this
    endpoint's own task group (a cancel scope must be left by the task that entered it)
    and left when the app's lifespan ends. Build once; a failed build or start answers
    that request with an error and is tried again on the next."""

    def __init__(self, build: Callable[[], Endpoint]) -> None:
        self._build = build
        self._built: Endpoint | None = None
        self._group: TaskGroup | None = None
        self._stop = anyio.Event()
        self._lock = anyio.Lock()

    @property
    def built(self) -> bool:
        return self._built is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = await self._started()
        await endpoint(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self._stop = anyio.Event()
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                self._stop.set()

    async def _started(self) -> Endpoint:
        async with self._lock:
            if self._built is not None:
                return self._built
            if self._group is None:
                raise RuntimeError("the endpoint is served only while the app runs")
            endpoint = self._build()
            started = anyio.Event()
            self._group.start_soon(self._serve, endpoint, started)
            await started.wait()
            if self._built is None:
                raise RuntimeError("the endpoint failed to start (see the log)")
            return self._built

    async def _serve(self, endpoint: Endpoint, started: anyio.Event) -> None:
        try:
            async with endpoint.running():
                self._built = endpoint
                started.set()
                await self._stop.wait()
        except Exception as exc:
            log.error("endpoint_failed", error_class=type(exc).__name__, error=str(exc))
        finally:
            self._built = None
            started.set()


NO_STREAM = (
    "/mcp takes POST only: this server is stateless and answers every request in its "
    "response, so it opens no server-to-client stream (GET) and keeps no session (DELETE)"
)


class PostOnly:
    """405 with `Allow: POST` for anything but a POST, before the endpoint is built.
    The MCP spec lets a server without a server-to-client stream answer GET so; the
    SDK's stateless transport would instead hold a GET open with nothing ever to send
    on it, one idle connection per caller."""

    def __init__(self, app: Endpoint) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] != "POST":
            await error_response(405, NO_STREAM, {"Allow": "POST"})(scope, receive, send)
            return
        await self.app(scope, receive, send)


def with_endpoint(lifespan: Lifespan | None, endpoint: Endpoint) -> Lifespan:
    @asynccontextmanager
    async def both(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if lifespan is not None:
                await stack.enter_async_context(lifespan(app))
            await stack.enter_async_context(endpoint.running())
            yield

    return both


def create_app(
    deps: ApiDeps, lifespan: Lifespan | None = None, mcp: Endpoint | None = None
) -> FastAPI:
    """`lifespan` lets the hosting process start and stop what runs beside the API;
    `mcp` is served at /mcp, behind the API's token."""
    app = FastAPI(
        lifespan=lifespan if mcp is None else with_endpoint(lifespan, mcp),
        title="Sediment",
        summary="Agent memory: retain, recall, feedback, forget, export, audit.",
        version="1",
        responses={
            400: {"model": ErrorBody, "description": "request body is not valid UTF-8"},
            401: {"model": ErrorBody, "description": "missing or wrong bearer token"},
            413: {"model": ErrorBody, "description": "body over SEDIMENT_API_MAX_BODY_BYTES"},
            422: {"model": ErrorBody, "description": "invalid fields, each named"},
            503: {
                "model": ErrorBody,
                "description": (
                    "Redis, the broker or the store unreachable; retry after `Retry-After` s"
                ),
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            },
        },
    )
    app.state.deps = deps
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=deps.max_body_bytes)
    app.add_middleware(ScopeGuard)
    app.add_middleware(RequireToken)
    app.add_middleware(RequestIds)
    app.include_router(banks_router)
    app.include_router(router, responses={404: {"model": ErrorBody}})
    app.include_router(forget_router)
    app.include_router(data_router)
    install_ops(app)
    install_browser(app)
    if mcp is not None:
        app.router.routes.append(Route("/mcp", TokenGuard(PostOnly(mcp)), include_in_schema=False))

    @app.get(
        "/healthz",
        summary="Store, Redis and broker reachability (no token needed)",
        responses={503: {"model": Health, "description": "a component failed"}},
    )
    def healthz() -> JSONResponse:
        health = Health(**{c: check(deps, c) for c in COMPONENTS})
        if all(v == "ok" for v in health.model_dump().values()):
            return JSONResponse(health.model_dump())
        return JSONResponse(health.model_dump(), 503, {"Retry-After": str(RETRY_AFTER_S)})

    return app
