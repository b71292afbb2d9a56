"""When a call is tried again, and after how long.

Every call the clients make is safe to repeat: retains and votes carry event ids fixed
before the first attempt (the server counts an event once), and a recall only reads.
So a call is retried on any transport error (no connection, a timeout, a dropped
answer) and on 429 and 503, waiting what the server's `Retry-After` asks or else an
exponential backoff, up to `attempts` tries in all.
"""

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

RETRY_STATUSES: Final = frozenset({429, 503})


@dataclass(frozen=True)
class Retry:
    """`attempts`: tries in all (1: no retry). The n-th retry waits `backoff_s * 2**(n-1)`,
    give or take `jitter` (a fraction, so clients that failed together do not retry
    together), or the server's `Retry-After`; never more than `max_delay_s`."""

    attempts: int = 4
    backoff_s: float = 0.5
    max_delay_s: float = 30.0
    jitter: float = 0.1

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("Retry.attempts must be at least 1 (1 means no retry)")
        if self.backoff_s < 0 or self.max_delay_s < 0 or not 0 <= self.jitter <= 1:
            raise ValueError("Retry delays must be >= 0 and jitter within 0..1")

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds before retry number `retry` (1 for the first)."""
        if retry_after is not None:
            return min(self.max_delay_s, max(0.0, retry_after))
        base = self.backoff_s * 2.0 ** (retry - 1)
        spread = base * self.jitter * (2 * random.random() - 1)
        return min(self.max_delay_s, max(0.0, base + spread))

    def after(
        self, attempt: int, status: int | None, retry_after_header: str | None
    ) -> float | None:
        """Seconds to wait before trying again after `attempt` (1 for the first) ended
        in `status` (None: no answer); None when the call is done, or out of attempts."""
        if attempt >= self.attempts or (status is not None and status not in RETRY_STATUSES):
            return None
        return self.delay(attempt, retry_after(retry_after_header))


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: a number of seconds or an HTTP date; None if absent
    or unreadable (the backoff applies then)."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
