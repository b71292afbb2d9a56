"""qdrant-client's failures in Sediment's terms: a server that is down, unreachable,
failing (5xx) or overloaded (408, 429) is `StoreUnavailable`, which the worker retries
and the API answers with 503; any other failure (a 4xx: the request was wrong, our
bug) passes through unchanged and stays an error."""

import functools
from collections.abc import Callable
from typing import Final, ParamSpec, TypeVar

import httpx
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from readmodel.unavailable import StoreUnavailable

P = ParamSpec("P")
R = TypeVar("R")
STORE: Final = "Qdrant"
_RETRYABLE_STATUS: Final = frozenset({408, 429})


def unavailable(exc: BaseException) -> bool:
    """The server is down, unreachable, failing (5xx) or overloaded (408, 429); a 4xx
    other than those is the request's fault and would fail again."""
    if isinstance(exc, UnexpectedResponse):
        status = exc.status_code
        return status is not None and (status >= 500 or status in _RETRYABLE_STATUS)
    return isinstance(exc, ResponseHandlingException | httpx.TransportError | ConnectionError)


def translated(method: Callable[P, R]) -> Callable[P, R]:
    """`method`, raising `StoreUnavailable` (naming the store and the client's exception
    class) for what `unavailable` says is the server's failure."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            if unavailable(exc):
                raise StoreUnavailable(f"{STORE}: {type(exc).__name__}: {exc}", STORE) from exc
            raise

    return call
