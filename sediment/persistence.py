"""Redis must keep what it holds across a restart: queued events, the redelivery ledger
and what the API has answered 202 for all live there. `sediment serve` and `sediment
worker` check it at start (standalone and distributed modes) and refuse to run on a
Redis without append-only persistence unless SEDIMENT_ALLOW_VOLATILE_REDIS=true.

Measured (issue 15): a Redis restarted without persistence lost 935 of a 1,500-event
backlog and 296 of 800 accepted events; with `appendonly yes` it kept 2,299 of 2,299.
RDB snapshots alone (`save`) are not enough: what arrived since the last snapshot is
lost. A managed Redis that refuses `CONFIG GET` cannot be checked: a warning, and the
process starts.
"""

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit, urlunsplit

import redis
import structlog

log = structlog.get_logger("sediment.persistence")

HOW: Final = (
    "enable AOF persistence on that Redis (`appendonly yes` in redis.conf, or "
    "`redis-server --appendonly yes`, or `CONFIG SET appendonly yes` then `CONFIG REWRITE`), "
    "or, for tests and throwaway setups only, set SEDIMENT_ALLOW_VOLATILE_REDIS=true"
)


@dataclass(frozen=True)
class Persistence:
    """What `CONFIG GET` says; None when Redis would not say."""

    appendonly: bool | None
    save: str | None

    @property
    def durable(self) -> bool:
        return self.appendonly is True


def read_persistence(client: redis.Redis) -> Persistence:
    try:
        aof = client.config_get("appendonly")
        save = client.config_get("save")
    except redis.exceptions.ResponseError:
        return Persistence(None, None)
    appendonly = _text(aof.get("appendonly"))
    snapshots = _text(save.get("save"))
    return Persistence(None if appendonly is None else appendonly == "yes", snapshots)


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode()
    return value if isinstance(value, str) else None


def redacted(url: str) -> str:
    """The URL without its password, fit for a message."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + host))


def refusal(client: redis.Redis, url: str, allow_volatile: bool) -> str | None:
    """Why this process must not start on this Redis, or None (with a warning logged
    when persistence cannot be checked or is waived)."""
    url = redacted(url)
    try:
        found = read_persistence(client)
    except redis.exceptions.ConnectionError as exc:
        log.warning("persistence_unchecked", reason=f"Redis unreachable: {exc}"[:300])
        return None
    if found.appendonly is None:
        log.warning(
            "persistence_unchecked",
            reason="CONFIG GET is not permitted (a managed Redis?); make sure it keeps data "
            "across restarts (AOF), or queued and accepted events may be lost",
        )
        return None
    if found.durable:
        return None
    if allow_volatile:
        log.warning("volatile_redis", reason="SEDIMENT_ALLOW_VOLATILE_REDIS=true", url=url)
        return None
    snapshots = (
        f"its RDB snapshots (save {found.save!r}) lose everything since the last one"
        if found.save
        else "it has no persistence at all"
    )
    return (
        f"Redis at {url} runs without append-only persistence (appendonly no), and "
        f"{snapshots}: a restart would lose queued events, the redelivery ledger and events "
        f"the API has already accepted. To fix: {HOW}."
    )
