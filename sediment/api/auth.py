"""Who may call the API: the one check every entry point goes through (the `/v1` routes,
`/v1/stats`, `/metrics` when it is not public, and the MCP endpoint).

`SEDIMENT_API_TOKEN` opens everything (an admin key on every bank);
`SEDIMENT_API_KEYS_FILE` adds named keys, each limited to banks (fnmatch patterns) and
scopes (read, write, forget, admin). An unknown key is 401 (`known`); a known key
without the scope or bank a request needs is 403 naming what is missing (`ScopeGuard`).

FastAPI reads and decodes a request's JSON body before it solves the route's
dependencies, so a token check made only as a dependency would answer a malformed body
without a token with 422, telling an anonymous caller how the route parses. The
`RequireToken` middleware checks every `/v1/` request first; `TokenGuard` does the same
for a mounted app (/mcp); the route dependency `require_token` applies the same rule
(`authorized`) again and makes the OpenAPI document declare the bearer scheme.

A key limited to banks is limited everywhere: a bank in the URL is checked here
(`ScopeGuard`); `/v1/stats` and `/metrics` refuse another bank's figures and show a
bank-limited key only its banks' series (`bank_view`); the MCP tools check the bank of
each call against `current_key`, which `_as_caller` sets for the request.
`/dashboard`, `/browse` and their assets are static files holding no data: they need
no key.
"""

import hmac
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Final

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import SecretStr
from starlette.types import ASGIApp, Receive, Scope, Send

from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, current_key, key_of
from sediment.api.problems import error_response
from sediment.auditing import acting_as

PROTECTED_PREFIX: Final = "/v1/"
UNAUTHORIZED: Final = (
    "missing or wrong bearer token: send 'Authorization: Bearer <SEDIMENT_API_TOKEN>'"
)
CHALLENGE: Final = {"WWW-Authenticate": "Bearer"}

bearer = HTTPBearer(auto_error=False, description="SEDIMENT_API_TOKEN, when it is set")


def authorized(expected: SecretStr | None, given: str | None) -> bool:
    """No token configured: open. A token: constant-time compare. An empty token (the
    settings refuse one, but a hand-built `ApiDeps` may carry it) admits nobody, so a
    blank variable can never turn authentication off."""
    if expected is None:
        return True
    want = expected.get_secret_value().encode("utf-8")
    have = (given or "").encode("utf-8")
    return bool(want) and hmac.compare_digest(have, want)


def bearer_credentials(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, as FastAPI's HTTPBearer
    reads it (scheme case-insensitive); None for anything else."""
    scheme, _, token = (header or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def get_deps(request: Request) -> ApiDeps:
    deps: ApiDeps = request.app.state.deps
    return deps


Deps = Annotated[ApiDeps, Depends(get_deps)]


def require_token(
    deps: Deps,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    given = credentials.credentials if credentials else None
    if not known(deps.api_token, deps.api_keys, given):
        raise HTTPException(401, UNAUTHORIZED, headers=CHALLENGE)


def _header_token(scope: Scope) -> str | None:
    header = next(
        (bytes(v).decode("latin-1") for k, v in scope.get("headers", ()) if k == b"authorization"),
        None,
    )
    return bearer_credentials(header)


async def _as_caller(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """401 for an unknown caller; otherwise `app` runs with the caller as the actor of
    the changes it makes (sediment/auditing.py) and its key as `current_key`."""
    deps: ApiDeps = scope["app"].state.deps
    given = _header_token(scope)
    name = caller(deps.api_token, deps.api_keys, given)
    if name is None:
        await error_response(401, UNAUTHORIZED, CHALLENGE)(scope, receive, send)
        return
    key = None if name in (OPEN_CALLER, TOKEN_CALLER) else key_of(deps.api_keys, given)
    token = current_key.set(key)
    try:
        with acting_as(name):
            await app(scope, receive, send)
    finally:
        current_key.reset(token)


class RequireToken:
    """401 for a `/v1/` request without the token, before the body is read or parsed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(PROTECTED_PREFIX):
            await _as_caller(self.app, scope, receive, send)
            return
        await self.app(scope, receive, send)


class TokenGuard:
    """An ASGI app behind the API's token (the mounted MCP endpoint), answering 401
    exactly as the routes do."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await _as_caller(self.app, scope, receive, send)
            return
        await self.app(scope, receive, send)


OPEN_CALLER: Final = "local"
TOKEN_CALLER: Final = "token"


def caller(expected: SecretStr | None, keys: Sequence[ApiKey], given: str | None) -> str | None:
    """Who is calling, as the audit names them: the key's name, `token` for
    SEDIMENT_API_TOKEN, `local` when neither a token nor keys are configured (the API
    is open); None for an unknown caller (401)."""
    if expected is None and not keys:
        return OPEN_CALLER
    if expected is not None and authorized(expected, given):
        return TOKEN_CALLER
    key = key_of(keys, given)
    return None if key is None else key.name


def known(expected: SecretStr | None, keys: Sequence[ApiKey], given: str | None) -> bool:
    """401's rule: with neither a token nor keys configured the API is open; else the
    token (an admin key on all banks) or one of the keys must be sent."""
    return caller(expected, keys, given) is not None


_BANK_PATH = re.compile(r"^/v1/banks/([^/]+)(/.*)?$")
_METRICS_PATHS = ("/v1/stats", "/metrics")


def required(method: str, path: str) -> tuple[str, str | None] | None:
    """The scope (and bank) a request needs; None for what needs no key. The bank of
    `/v1/stats` and `/metrics` is a query parameter, checked by `bank_view`. `/mcp`
    needs a known key (401 otherwise) and no scope of its own: each tool needs its
    scope and each call's bank is checked against `current_key` (sediment/mcp_server.py,
    sediment/mcp_tools/tools.py), so a key for one bank's reads serves an agent."""
    match = _BANK_PATH.match(path)
    if match is None:
        if path.startswith(_METRICS_PATHS):
            return ("metrics", None)
        return None
    bank, rest = match.group(1), match.group(2) or ""
    if method == "DELETE" or rest == "/forget":
        return ("forget", bank)
    if rest in ("/export", "/audit"):
        return ("admin", bank)
    if method == "GET" or rest == "/recall":
        return ("read", bank)
    return ("write", bank)


def denied(key: ApiKey, scope: str, bank: str | None) -> str | None:
    """The 403 message, naming what is missing; None when the key may."""
    if not key.grants(scope):
        return f"API key {key.name!r} lacks the {scope!r} scope (it has {', '.join(key.scopes)})"
    if bank is not None and not key.opens(bank):
        return key.refusal(bank)
    return None


def bank_view(key: ApiKey | None, bank: str | None) -> Callable[[str], bool] | None:
    """Which banks' figures a request for `bank` (None: all banks) may see: 403 for a
    bank the key does not open; for a key limited to some banks, only those (a filter
    over bank ids); None for the token, an open API and a key on `*`: every bank."""
    if key is None:
        return None
    if bank is not None and not key.opens(bank):
        raise HTTPException(403, key.refusal(bank))
    return None if key.every_bank else key.opens


def caller_key(
    deps: Deps,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> ApiKey | None:
    """The request's key (None for the token or an open API); a route dependency after
    `require_token`, for routes outside `/v1/` too (`/metrics`)."""
    given = credentials.credentials if credentials else None
    if deps.api_token is not None and authorized(deps.api_token, given):
        return None
    return key_of(deps.api_keys, given)


CallerKey = Annotated[ApiKey | None, Depends(caller_key)]


class ScopeGuard:
    """403 for a known key without the scope or bank a request needs. Unknown keys pass
    through to the routes' 401 (`known`); the token is an admin key on every bank. A
    public `/metrics` (`ApiDeps.metrics_open`) reads no key, so none is refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            deps: ApiDeps = scope["app"].state.deps
            path = str(scope["path"])
            public = path.startswith("/metrics") and deps.metrics_open
            need = None if public or not deps.api_keys else required(scope["method"], path)
            key = key_of(deps.api_keys, _header_token(scope)) if need else None
            message = denied(key, *need) if key is not None and need is not None else None
            if message is not None:
                await error_response(403, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)
