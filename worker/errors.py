"""The two kinds of failure a task can meet, sorted in one place."""

import pydantic


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
    "LockTimeout",
    "ConnectTimeout",
}


def is_transient(exc: BaseException) -> bool:
    """Connection-level failures of Redis, Qdrant or the network are worth retrying."""
    if isinstance(exc, TransientError | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, PoisonEvent | pydantic.ValidationError):
        return False
    return any(cls.__name__ in _TRANSIENT_NAMES for cls in type(exc).__mro__)
