"""Recalls that wait for their `wait_for` events, bounded per caller and per bank.

A recall with `wait_for` may wait up to its `wait_timeout_s` (sediment/pending.py)
before it computes anything. It waits in the event loop, holding neither a thread nor
a recall slot (sediment/recall_gate.py), and takes a slot only once the wait is over:
a tenant who queues thousands of events and parks recalls behind them must not hold
the slots every other tenant's recall needs. Parked waiters still cost a poll of the
ledger each, so at most SEDIMENT_RECALL_WAITERS_PER_KEY wait at once per API key and
SEDIMENT_RECALL_WAITERS_PER_BANK per bank; past either bound the recall is refused
at once (`TooManyWaiters`: HTTP 429, an MCP tool error) with what to do instead.
"""

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


class TooManyWaiters(Exception):
    """A recall with `wait_for` past one of the bounds; the message says which and what
    to do."""


def too_many(bound: str, who: str, most: int, setting: str) -> str:
    return (
        f"too many recalls waiting for their wait_for events {bound} {who}: at most {most} "
        f"wait at once ({setting}); wait for one of them to answer, or recall without "
        "wait_for (the answer's pending_events names what is not consolidated yet) and "
        "poll GET /v1/banks/{bank_id}/status"
    )


@dataclass
class Waiters:
    """How many recalls wait now, per caller (the API key's name, `token`, `local`)
    and per bank. Thread-safe: HTTP and MCP recalls of one process share it."""

    per_key: int
    per_bank: int
    _by_key: Counter[str] = field(default_factory=Counter)
    _by_bank: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def refusal(self, caller: str, bank_id: str) -> str | None:
        """Why one more waiter of `caller` on `bank_id` is refused; None when it is not."""
        if self._by_key[caller] >= self.per_key:
            return too_many(
                "for API key", repr(caller), self.per_key, "SEDIMENT_RECALL_WAITERS_PER_KEY"
            )
        if self._by_bank[bank_id] >= self.per_bank:
            return too_many(
                "on bank", repr(bank_id), self.per_bank, "SEDIMENT_RECALL_WAITERS_PER_BANK"
            )
        return None

    @contextmanager
    def admit(self, caller: str, bank_id: str) -> Iterator[None]:
        """Counted as waiting while inside; `TooManyWaiters` when a bound is reached."""
        with self._lock:
            refused = self.refusal(caller, bank_id)
            if refused is not None:
                raise TooManyWaiters(refused)
            self._by_key[caller] += 1
            self._by_bank[bank_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._by_key[caller] -= 1
                self._by_bank[bank_id] -= 1
                self._by_key += Counter()  # drop the zeros
                self._by_bank += Counter()

    def waiting(self, caller: str | None = None, bank_id: str | None = None) -> int:
        """Recalls waiting now: of `caller`, on `bank_id`, or in all."""
        with self._lock:
            if caller is not None:
                return self._by_key[caller]
            if bank_id is not None:
                return self._by_bank[bank_id]
            return sum(self._by_bank.values())
