"""Fakes that honour the ports' contracts, for fast tests."""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from telemetry.metrics import BankFilter, Defer, Labels, Metrics, MetricsSnapshot


class NoLocks:
    """One process, one thread: nothing to exclude."""

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        yield


class MetricsKilledAfterStore:
    """The metrics of a delivery killed after its done-markers were written and before
    its task's metrics were sent: `expect` reached Redis (it is sent at once), nothing
    else did."""

    def __init__(self, inner: Metrics) -> None:
        self.inner = inner

    def expect(self, tokens: Sequence[str]) -> bool:
        return self.inner.expect(tokens)

    def incr(self, name: str, n: int = 1, labels: Labels | None = None) -> None:
        return None

    def observe(self, name: str, value_ms: float, labels: Labels | None = None) -> None:
        return None

    def gauge(self, name: str, value: float, labels: Labels | None = None) -> None:
        return None

    def incr_once(
        self, name: str, token: str, first: Labels, again: Labels, force: bool = False
    ) -> None:
        return None

    @contextmanager
    def batch(self, defer: Defer | None = None) -> Iterator[None]:
        yield

    def snapshot(
        self, minutes: int, bank: str | None = None, among: BankFilter | None = None
    ) -> MetricsSnapshot:
        return self.inner.snapshot(minutes, bank, among)
