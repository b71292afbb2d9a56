"""The kinds of failure a task can meet, sorted in one place, by type."""

import pydantic
import redis
from celery.exceptions import SoftTimeLimitExceeded
from kombu.exceptions import OperationalError

from readmodel.unavailable import StoreUnavailable, TransientError

__all__ = ["PoisonEvent", "StoreUnavailable", "TransientError", "invalid", "is_transient"]


class PoisonEvent(Exception):
    """The message can never succeed as sent; it goes to the dead-letter stream with the reason."""


def invalid(exc: pydantic.ValidationError) -> PoisonEvent:
    """A message that failed validation, its reason on one line: each bad field and its
    problem (pydantic's own text spans lines and links its documentation)."""
    found = [
        f"{'.'.join(str(p) for p in e['loc']) or 'payload'}: "
        + str(e["msg"]).removeprefix("Value error, ")
        for e in exc.errors()
    ]
    return PoisonEvent("; ".join(found) or "invalid event")


_TRANSIENT = (
    TransientError,
    ConnectionError,
    TimeoutError,
    SoftTimeLimitExceeded,
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.BusyLoadingError,
    OperationalError,
)


def is_transient(exc: BaseException) -> bool:
    """Failures of Redis, the broker, the store (`StoreUnavailable`, raised by its adapter)
    or the network, and a task that ran past its soft time limit (a slow store), are
    worth retrying; anything else would fail again."""
    if isinstance(exc, PoisonEvent | pydantic.ValidationError):
        return False
    return isinstance(exc, _TRANSIENT)
