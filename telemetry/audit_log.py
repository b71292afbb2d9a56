"""The per-bank audit stream: who changed which data, when (contracts/audit.py).

Layouts: a Redis stream `sediment:audit:{bank}` per bank, trimmed to about
SEDIMENT_AUDIT_MAXLEN entries (XADD MAXLEN ~); in embedded mode, where Redis is a
stand-in inside the process, one JSON-lines file in the data directory for every bank
(`audit.jsonl`, trimmed to that many entries in all), so `sediment audit` in a later
process reads what an earlier command wrote, as dead letters and tombstones do.
Entries hold ids and counts, never memory text.
"""

import threading
import time
from pathlib import Path
from typing import Protocol, cast

import redis

from contracts.audit import AuditEntry

AUDIT_KEY = "sediment:audit:{bank}"
FIELD = b"entry"


class AuditLog(Protocol):
    def append(self, entry: AuditEntry) -> str:
        """Add `entry`; returns its id."""

    def read(self, bank_id: str, limit: int = 100) -> list[AuditEntry]:
        """The bank's latest `limit` entries, newest first."""


class RedisAuditLog:
    def __init__(self, client: redis.Redis, maxlen: int) -> None:
        self._client = client
        self._maxlen = maxlen

    def append(self, entry: AuditEntry) -> str:
        key = AUDIT_KEY.format(bank=entry.bank_id)
        body = entry.model_dump_json(exclude={"id"}).encode("utf-8")
        added = self._client.xadd(key, {FIELD: body}, maxlen=self._maxlen, approximate=True)
        return added.decode() if isinstance(added, bytes) else str(added)

    def read(self, bank_id: str, limit: int = 100) -> list[AuditEntry]:
        key = AUDIT_KEY.format(bank=bank_id)
        rows = cast(
            list[tuple[bytes, dict[bytes, bytes]]], self._client.xrevrange(key, count=limit)
        )
        return [
            AuditEntry.model_validate_json(fields[FIELD]).model_copy(update={"id": i.decode()})
            for i, fields in rows
        ]


class FileAuditLog:
    """Appends a line per entry; once the file holds a tenth more than `maxlen` entries it
    is rewritten with the newest `maxlen` (the approximate trim of a Redis stream)."""

    def __init__(self, path: Path, maxlen: int) -> None:
        self._path = path
        self._maxlen = maxlen
        self._lock = threading.Lock()
        self._lines: int | None = None
        self._last = 0

    def _entries(self) -> list[AuditEntry]:
        if not self._path.exists():
            return []
        lines = self._path.read_text(encoding="utf-8").splitlines()
        return [AuditEntry.model_validate_json(line) for line in lines if line.strip()]

    def append(self, entry: AuditEntry) -> str:
        with self._lock:
            if self._lines is None:
                known = self._entries()
                self._lines = len(known)
                self._last = max((int(str(e.id).split("-")[0]) for e in known), default=0)
            self._last = max(self._last + 1, time.time_ns() // 1_000_000)
            entry_id = f"{self._last}-0"
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as f:
                f.write(entry.model_copy(update={"id": entry_id}).model_dump_json() + "\n")
            self._lines += 1
            if self._lines > self._maxlen + self._maxlen // 10:
                self._trim()
            return entry_id

    def _trim(self) -> None:
        kept = self._entries()[-self._maxlen :]
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text("".join(e.model_dump_json() + "\n" for e in kept), encoding="utf-8")
        tmp.replace(self._path)
        self._lines = len(kept)

    def read(self, bank_id: str, limit: int = 100) -> list[AuditEntry]:
        mine = [e for e in self._entries() if e.bank_id == bank_id]
        return mine[::-1][:limit]
