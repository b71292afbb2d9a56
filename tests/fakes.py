"""Fakes that honour the ports' contracts, for fast tests."""

from collections.abc import Iterator
from contextlib import contextmanager


class NoLocks:
    """One process, one thread: nothing to exclude."""

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        yield
