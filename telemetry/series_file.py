"""Embedded mode's metrics kept between processes: the in-process Redis stand-in's
`sediment:metrics:*` keys written to a file in the data directory when a process that
owns the store closes it, and read back by the next process that opens it.

Embedded mode has no Redis server: each process counts into its own stand-in, which
dies with it. Without this file, `sediment stats` after a `sediment ingest` of 3,000
events saw none of them. The store's owner lock orders the writers (one process at a
time owns the store), so the file is read after the last owner wrote it. Each key keeps
what is left of its time to live; what expired meanwhile is not read back. A key the
reading process has written already is kept as it is (its own counts are newer).
"""

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import redis
import structlog

PREFIX: Final = "sediment:metrics:"
SKIPPED: Final = (PREFIX + "owed:",)
"""Counts owed once (`expect`) are settled within one process: not carried over."""
VERSION: Final = 1

log = structlog.get_logger("telemetry.series_file")


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def dump(client: redis.Redis, now: Callable[[], float] = time.time) -> dict[str, Any]:
    keys: dict[str, Any] = {}
    for raw in client.scan_iter(match=PREFIX + "*", count=1000):
        key = _text(raw)
        if key.startswith(SKIPPED):
            continue
        kind = _text(client.type(key))
        ttl_ms = int(client.pttl(key))
        value: Any
        if kind == "string":
            value = _text(client.get(key) or b"")
        elif kind == "hash":
            value = {_text(k): _text(v) for k, v in client.hgetall(key).items()}
        elif kind == "set":
            value = sorted(_text(m) for m in client.smembers(key))
        else:
            continue
        keys[key] = {"type": kind, "value": value, "ttl_ms": ttl_ms if ttl_ms > 0 else None}
    return {"version": VERSION, "saved_at": now(), "keys": keys}


def load(client: redis.Redis, data: dict[str, Any], now: Callable[[], float] = time.time) -> int:
    """The keys of a `dump` not expired since and not present here; how many."""
    if data.get("version") != VERSION:
        return 0
    elapsed_ms = max(0, int((now() - float(data.get("saved_at", 0))) * 1000))
    loaded = 0
    for key, entry in dict(data.get("keys", {})).items():
        ttl = entry.get("ttl_ms")
        left = None if ttl is None else int(ttl) - elapsed_ms
        if (left is not None and left <= 0) or client.exists(key):
            continue
        kind, value = entry.get("type"), entry.get("value")
        if kind == "string":
            client.set(key, value)
        elif kind == "hash" and value:
            client.hset(key, mapping=value)
        elif kind == "set" and value:
            client.sadd(key, *value)
        else:
            continue
        if left is not None:
            client.pexpire(key, left)
        loaded += 1
    return loaded


def save_file(client: redis.Redis, path: Path) -> None:
    """Written whole to a temporary file, then renamed: a reader sees one or the other."""
    try:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(dump(client)), encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, redis.RedisError) as exc:
        log.warning("metrics_not_saved", path=str(path), error=str(exc))


def load_file(client: redis.Redis, path: Path) -> int:
    """0 when there is no file, or it cannot be read (metrics never stop a command)."""
    try:
        return load(client, json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return 0
    except (OSError, ValueError, TypeError, AttributeError, redis.RedisError) as exc:
        log.warning("metrics_not_loaded", path=str(path), error=str(exc))
        return 0
