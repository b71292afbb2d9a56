"""After a forget: Redis's append-only file is rewritten, so it keeps no command that
carried a forgotten event's text.

By the time a forget is handled no live key holds the text: the retain message was
acknowledged when it was consolidated (its body and `argsrepr` left the queue), the
ledger entry is settled and the dead letters naming the event are removed
(worker/scrub.py). The AOF still holds the commands that wrote them until Redis
rewrites it from the live dataset: BGREWRITEAOF, which Redis runs in a forked child,
so the forget never waits for it. A retain of a forgotten event that was still queued
when the forget ran is skipped when it arrives, and owes a rewrite as well.

Coalesced across every process sharing the Redis: at most one rewrite per
`interval_s` (a gate key set NX with that expiry). A forget inside the interval leaves
the rewrite owed (a key), and the sweep of any consuming process starts it once the
gate has expired, so the text is out of the AOF within about the interval (plus the
rewrite's own time) of the forget.
"""

from dataclasses import dataclass
from typing import Final

import redis
import structlog

log = structlog.get_logger("sediment.aof_rewrite")

OWED_KEY: Final = "sediment:aof_rewrite:owed"
GATE_KEY: Final = "sediment:aof_rewrite:gate"
SWEEP_EVERY_S: Final = 5.0
"""How often a consuming process looks for an owed rewrite (one EXISTS), at most."""


@dataclass(frozen=True)
class AofRewrites:
    client: redis.Redis
    interval_s: int

    def owe(self, start: bool = True) -> bool:
        """A forget was handled: a rewrite is owed, and started now (`start`) unless one
        started within the interval. A retain skipped as forgotten owes one too, left
        to the sweep (`start=False`): its message is acknowledged after this returns,
        and a rewrite forked before would keep it. Never raises: a forget is done
        whether or not Redis rewrites now (what is owed stays owed)."""
        try:
            self.client.set(OWED_KEY, "1")
            return self.run_owed() if start else False
        except redis.RedisError as exc:
            log.warning("aof_rewrite_failed", error=type(exc).__name__, message=str(exc)[:300])
            return False

    def run_owed(self) -> bool:
        """Start the owed rewrite if the interval since the last one has passed; True
        when one was started. The owed mark is removed before the rewrite forks, so a
        forget handled meanwhile owes the next one."""
        if not self.client.exists(OWED_KEY):
            return False
        if not self.client.set(GATE_KEY, "1", nx=True, ex=self.interval_s):
            return False
        self.client.delete(OWED_KEY)
        if not aof_enabled(self.client):
            return False
        try:
            self.client.bgrewriteaof()
        except redis.ResponseError as exc:
            # One already running may have forked before the forget; a renamed command
            # says so every interval rather than once.
            self.client.set(OWED_KEY, "1")
            log.warning(
                "aof_rewrite_refused",
                message=str(exc)[:300],
                hint="forgotten text stays in the AOF until Redis rewrites it",
            )
            return False
        log.info("aof_rewrite_started")
        return True

    def sweep_every_s(self) -> float:
        return min(float(self.interval_s), SWEEP_EVERY_S)


def aof_enabled(client: redis.Redis) -> bool:
    """Whether Redis appends to an AOF at all (none: nothing to rewrite)."""
    persistence = client.info("persistence")
    return bool(int(persistence.get("aof_enabled", 0)))
