"""The kinds of failure a task can meet, sorted in one place."""

import pydantic
from celery.exceptions import SoftTimeLimitExceeded


class TransientError(Exception):
    """A dependency (store, Redis) is unavailable; retry with backoff, up to a cap."""


class PoisonEvent(Exception):
    """The message can never succeed as sent; it goes to the dead-letter stream with the reason."""


_TRANSIENT_NAMES = {
    "ConnectionError",
    "TimeoutError",
    "BusyLoadingError",
    "ResponseHandlingException",
    "ConnectError",
    "ReadTimeout",
    "WriteTimeout",
    "PoolTimeout",
    "RemoteProtocolError",
    "LockTimeout",
    "ConnectTimeout",
}
_RETRYABLE_STATUS = {408, 429}


def _status_says_transient(exc: BaseException) -> bool:
    """An HTTP answer from the store (qdrant-client's UnexpectedResponse carries
    `status_code`): a server error or overload passes; a 4xx is the request's fault."""
    if type(exc).__name__ != "UnexpectedResponse":
        return False
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status >= 500 or status in _RETRYABLE_STATUS)


def is_transient(exc: BaseException) -> bool:
    """Failures of Redis, the store or the network, and a task that ran past its soft
    time limit (a slow store), are worth retrying; anything else would fail again."""
    if isinstance(exc, TransientError | ConnectionError | TimeoutError | SoftTimeLimitExceeded):
        return True
    if isinstance(exc, PoisonEvent | pydantic.ValidationError):
        return False
    if _status_says_transient(exc):
        return True
    return any(cls.__name__ in _TRANSIENT_NAMES for cls in type(exc).__mro__)
