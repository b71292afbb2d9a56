"""What a failed call raises: one base class, one subclass per thing a caller can act on.

Each carries the HTTP status (None when the request never got an answer), the
server's stable error code and its message, and for validation every field it
named, so `str(exc)` says what to fix.
"""

from collections.abc import Sequence

import httpx
import pydantic

from sediment.api.models import ErrorBody, ErrorDetail


class SedimentError(Exception):
    def __init__(
        self,
        message: str,
        status: int | None = None,
        code: str | None = None,
        detail: Sequence[ErrorDetail] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.detail = list(detail)


class AuthError(SedimentError):
    """401 or 403: the token is missing, wrong, or not allowed to do this."""


class NotFound(SedimentError):
    """404: no such memory (or last recall) in this bank."""


class ValidationFailed(SedimentError):
    """The request was refused as given (400, 413, 422, or checked before sending):
    `detail` names each bad field."""


class Unavailable(SedimentError):
    """No answer, or 429/503, after every attempt the retry policy allows."""


def _body(response: httpx.Response) -> ErrorBody | None:
    try:
        return ErrorBody.model_validate(response.json())
    except (ValueError, pydantic.ValidationError):
        return None


def error_for(response: httpx.Response) -> SedimentError:
    """The exception for an error answer, with the server's own words when it sent them."""
    status = response.status_code
    body = _body(response)
    detail = (body.detail or []) if body else []
    message = (body.message if body else None) or "; ".join(
        f"{d.field}: {d.problem}" for d in detail
    )
    text = f"{status} {message or response.reason_phrase}"
    code = body.error if body else None
    kind: type[SedimentError] = SedimentError
    if status in (401, 403):
        kind = AuthError
    elif status == 404:
        kind = NotFound
    elif status in (400, 413, 422):
        kind = ValidationFailed
    elif status in (429, 503):
        kind = Unavailable
    return kind(text, status, code, detail)


def invalid_locally(what: str, exc: pydantic.ValidationError) -> ValidationFailed:
    detail = [
        ErrorDetail(field=".".join(str(p) for p in e["loc"]) or what, problem=e["msg"])
        for e in exc.errors()
    ]
    lines = "; ".join(f"{d.field}: {d.problem}" for d in detail)
    return ValidationFailed(f"invalid {what}: {lines}", None, "validation", detail)
