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
"""

import hmac
import re
from collections.abc import Sequence
from typing import Annotated, Final

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import SecretStr
from starlette.types import ASGIApp, Receive, Scope, Send

from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, key_of
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
    the changes it makes (sediment/auditing.py)."""
    deps: ApiDeps = scope["app"].state.deps
    name = caller(deps.api_token, deps.api_keys, _header_token(scope))
    if name is None:
        await error_response(401, UNAUTHORIZED, CHALLENGE)(scope, receive, send)
        return
    with acting_as(name):
        await app(scope, receive, send)


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
_ADMIN_PATHS = ("/v1/stats", "/metrics", "/dashboard", "/mcp")


def required(method: str, path: str) -> tuple[str, str | None] | None:
    """The scope (and bank) a request needs; None for what needs no key."""
    match = _BANK_PATH.match(path)
    if match is None:
        return ("admin", None) if path.startswith(_ADMIN_PATHS) else None
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
    if not key.opens(bank):
        return f"API key {key.name!r} does not open bank {bank!r} (banks: {', '.join(key.banks)})"
    return None


class ScopeGuard:
    """403 for a known key without the scope or bank a request needs. Unknown keys pass
    through to the routes' 401 (`known`); the token is an admin key on every bank."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            keys = scope["app"].state.deps.api_keys
            need = required(scope["method"], scope["path"]) if keys else None
            header = next(
                (bytes(v).decode("latin-1") for k, v in scope["headers"] if k == b"authorization"),
                None,
            )
            key = key_of(keys, bearer_credentials(header)) if need else None
            message = denied(key, *need) if key is not None and need is not None else None
            if message is not None:
                await error_response(403, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)
