"""Failures worth retrying, raised by adapters in Sediment's own terms.

The worker decides retry or dead letter on these types alone; an adapter translates
its client library's exceptions (a connection refused, a 503, a 429) into them.
"""


class TransientError(Exception):
    """A dependency (store, Redis) is unavailable for now; retry with backoff, up to a cap."""


class StoreUnavailable(TransientError):
    """The store did not answer, or answered that it is failing or overloaded. `store`
    names it (`Qdrant`) for messages that tell a caller what to check."""

    def __init__(self, message: str, store: str = "the store") -> None:
        super().__init__(message)
        self.store = store
