"""Every error as JSON that names what was wrong: validation problems per field, and
a code with a message for everything else (401, 404, 413, 503, ...).

Redis, the broker or the store unreachable is 503 with `Retry-After`, from one handler,
whichever route found out: the request may be sent again as it was (events carry their
ids). The MCP server says the same in its tool errors (`unavailable_message`)."""

import re
from collections.abc import Sequence
from typing import Any, Final

import redis
import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from readmodel.unavailable import StoreUnavailable
from sediment.api.models import ErrorBody, ErrorDetail
from sediment.recall_waits import TooManyWaiters
from sediment.retain import PublishError
from worker.rebuild import InterruptedRebuildError

log = structlog.get_logger("sediment.api")

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    503: "unavailable",
}
HTTP_METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"})
RETRY_AFTER_S: Final = 2
"""What a 503 asks a client to wait: Redis restarting or failing over takes seconds."""
UNAVAILABLE: Final = (redis.ConnectionError, redis.TimeoutError, PublishError, StoreUnavailable)
"""Failures that are the deployment's, not the request's: 503, never 500."""
BANK_FROM_URL = "bank_id comes from the URL (/v1/banks/{bank_id}/...); remove it from the item"


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = ErrorBody(error=CODES.get(status, "error"), message=message)
    return JSONResponse(body.model_dump(exclude_none=True), status, headers=headers)


def problems(errors: Sequence[Any]) -> list[ErrorDetail]:
    """FastAPI/pydantic error dicts as (dotted field, problem) pairs, the bank rule named."""
    out: list[ErrorDetail] = []
    for e in errors:
        loc = [str(p) for p in e.get("loc", ())]
        problem = str(e.get("msg", "invalid"))
        if e.get("type") == "extra_forbidden" and loc[-1:] == ["bank_id"]:
            problem = BANK_FROM_URL
        elif problem.startswith("Value error, "):
            problem = problem.removeprefix("Value error, ")
        out.append(ErrorDetail(field=".".join(loc) or "body", problem=problem))
    return out


async def _validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    body = ErrorBody(error="validation", detail=problems(exc.errors()))
    return JSONResponse(body.model_dump(exclude_none=True), 422)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = ", ".join(allowed_methods(request, headers.get("Allow")))
    return error_response(exc.status_code, str(exc.detail), headers)


def allowed_methods(request: Request, given: str | None) -> list[str]:
    """Every method the OpenAPI document gives the request's path, with those Starlette
    named (`given`): Starlette names only the methods of the first route whose path
    matches, and one path may have routes in two routers (POST and DELETE
    /v1/banks/{bank_id}/memories)."""
    found = {m.strip() for m in (given or "").split(",") if m.strip()}
    path = request.url.path
    for template, operations in request.app.openapi().get("paths", {}).items():
        parts = re.split(r"(\{[^/{}]+\})", template)
        pattern = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
        if re.fullmatch(pattern, path):
            found.update(m.upper() for m in operations if m.upper() in HTTP_METHODS)
    return sorted(found)


def unavailable(message: str) -> JSONResponse:
    return error_response(503, message, {"Retry-After": str(RETRY_AFTER_S)})


def unavailable_message(exc: BaseException) -> str:
    """What did not answer (an `UNAVAILABLE` failure), that the same call may be sent
    again, and what to check if it keeps failing; the exception's class, never its
    text (a client library's may quote what was sent)."""
    if isinstance(exc, PublishError):
        return f"the broker did not take the events ({exc}); retry"
    if isinstance(exc, StoreUnavailable):
        cause = type(exc.__cause__ or exc).__name__
        return (
            f"the store ({exc.store}) is unavailable ({cause}); retry in {RETRY_AFTER_S} s, "
            "and if it persists check SEDIMENT_QDRANT_URL and the store's server"
        )
    return (
        f"Redis is unreachable ({type(exc).__name__}); retry in {RETRY_AFTER_S} s, and if "
        "it persists check SEDIMENT_REDIS_URL and the Redis server"
    )


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    log.warning(
        "api_unavailable",
        path=request.url.path,
        error_class=type(exc).__name__,
        cause_class=type(exc.__cause__).__name__ if exc.__cause__ else None,
    )
    hint = "" if isinstance(exc, PublishError) else " (GET /healthz)"
    return unavailable(unavailable_message(exc) + hint)


async def _too_many_waiting(_: Request, exc: Exception) -> JSONResponse:
    return error_response(429, str(exc), {"Retry-After": str(RETRY_AFTER_S)})


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error("api_error", path=request.url.path, error_class=type(exc).__name__)
    return error_response(500, "internal error; the server log has the error class")


async def _rebuild_cut_short(request: Request, exc: Exception) -> JSONResponse:
    """The store records a rebuild that has not finished (worker/rebuild.py): its
    answers may be wrong until the command the message names has run."""
    log.error("api_store_rebuilding", path=request.url.path)
    return unavailable(str(exc))


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(TooManyWaiters, _too_many_waiting)
    app.add_exception_handler(InterruptedRebuildError, _rebuild_cut_short)
    for unreachable in UNAVAILABLE:
        app.add_exception_handler(unreachable, _unavailable)
    app.add_exception_handler(Exception, _unexpected)


class BodyLimit:
    """Refuses bodies over `max_bytes` with 413 before any handler reads them, whether
    the client declared a Content-Length or streamed the body in chunks; and bodies that
    are not UTF-8 with 400 saying where (JSON is UTF-8; FastAPI would answer an
    undocumented "There was an error parsing the body")."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._declared(scope) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        problem = not_utf8(bytes(body))
        if problem is not None:
            await error_response(400, problem)(scope, receive, send)
            return
        await self.app(scope, _replay(bytes(body), receive), send)

    @staticmethod
    def _declared(scope: Scope) -> int:
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"request body is over {self.max_bytes} bytes (SEDIMENT_API_MAX_BODY_BYTES)"
        await error_response(413, message, {"Connection": "close"})(scope, receive, send)


def not_utf8(body: bytes) -> str | None:
    """What is wrong with a body that does not decode as UTF-8, or None."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (
            f"request body is not valid UTF-8: byte 0x{body[exc.start]:02x} at offset "
            f"{exc.start} cannot be decoded; send JSON encoded as UTF-8"
        )
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    delivered = False

    async def replayed() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
