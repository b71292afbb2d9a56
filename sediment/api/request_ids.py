"""A request id on every HTTP request: bound in the logs, returned as `X-Request-ID`.

A caller's own `X-Request-ID` (letters, digits, `-_.:`, at most 64) is kept, so one id
follows a request across services; anything else is replaced by a fresh one rather
than copied into logs. One `request` line per request gives method, path, status and
duration; never the body or query string, which may quote what users said. Probe and
scrape paths log at DEBUG so they do not drown the rest.
"""

import re
import time
import uuid
from typing import Final

import structlog
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER: Final = "x-request-id"
VALID: Final = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
QUIET: Final = ("/healthz", "/metrics", "/dashboard/assets/")

log = structlog.get_logger("sediment.api")


def request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == HEADER.encode():
            given = bytes(value).decode("latin-1")
            if VALID.fullmatch(given):
                return given
    return uuid.uuid4().hex


class RequestIds:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)
        status = 500
        start = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message)[HEADER] = rid
            await send(message)

        with structlog.contextvars.bound_contextvars(request_id=rid):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                path: str = scope.get("path", "")
                quiet = path.startswith(QUIET)
                (log.debug if quiet else log.info)(
                    "request",
                    method=scope.get("method", ""),
                    path=path,
                    status=status,
                    duration_ms=round((time.perf_counter() - start) * 1000, 3),
                )
