"""Tombstones: what is left of forgotten memories (ids, never text), per bank.

Consolidation skips an event whose memory id has a tombstone, so a redelivered,
reordered or replayed retain (or an import) never brings a forgotten memory back.
Kept beside the read model rather than in it: a tombstone has no vectors and no
content, and every read of the collection stays free of a kind to exclude.

Layouts: `sediment:tombstones:{bank}` hashes (memory id -> JSON) in Redis;
`tombstones.jsonl` in the data directory in embedded mode.
"""

import json
import threading
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

import redis

from contracts.forget import Tombstone

TOMBSTONES_KEY = "sediment:tombstones:{bank}"


class Tombstones(Protocol):
    def add(self, tombstones: Sequence[Tombstone]) -> None: ...

    def forgotten(self, bank_id: str, memory_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
        """The ids among `memory_ids` that have a tombstone in `bank_id`."""

    def of_bank(self, bank_id: str) -> list[Tombstone]:
        """Every tombstone of `bank_id`, by memory id."""


class MemoryTombstones:
    """In-process tombstones (tests, and a default that is never silently a no-op)."""

    def __init__(self) -> None:
        self._by_bank: dict[str, dict[uuid.UUID, Tombstone]] = {}
        self._lock = threading.Lock()

    def add(self, tombstones: Sequence[Tombstone]) -> None:
        with self._lock:
            for t in tombstones:
                self._by_bank.setdefault(t.bank_id, {}).setdefault(t.memory_id, t)

    def forgotten(self, bank_id: str, memory_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
        known = self._by_bank.get(bank_id, {})
        return {i for i in memory_ids if i in known}

    def of_bank(self, bank_id: str) -> list[Tombstone]:
        known = self._by_bank.get(bank_id, {})
        return [known[k] for k in sorted(known, key=str)]


class RedisTombstones:
    """One hash per bank; HSETNX keeps the first tombstone of a memory."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client

    def add(self, tombstones: Sequence[Tombstone]) -> None:
        if not tombstones:
            return
        with self._client.pipeline(transaction=True) as pipe:
            for t in tombstones:
                key = TOMBSTONES_KEY.format(bank=t.bank_id)
                pipe.hsetnx(key, str(t.memory_id), t.model_dump_json())
            pipe.execute()

    def forgotten(self, bank_id: str, memory_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return set()
        key = TOMBSTONES_KEY.format(bank=bank_id)
        found = self._client.hmget(key, [str(i) for i in ids])
        return {i for i, v in zip(ids, found, strict=True) if v is not None}

    def of_bank(self, bank_id: str) -> list[Tombstone]:
        raw = self._client.hgetall(TOMBSTONES_KEY.format(bank=bank_id))
        stones = [Tombstone.model_validate_json(v) for v in raw.values()]
        return sorted(stones, key=lambda t: str(t.memory_id))


class FileTombstones:
    """Embedded mode: JSON lines in the data directory, read again on every check so a
    later process (`sediment ingest` after `sediment forget`) sees them."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[tuple[str, uuid.UUID], Tombstone]:
        if not self._path.exists():
            return {}
        out: dict[tuple[str, uuid.UUID], Tombstone] = {}
        for line in self._path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                t = Tombstone.model_validate(json.loads(line))
                out.setdefault((t.bank_id, t.memory_id), t)
        return out

    def add(self, tombstones: Sequence[Tombstone]) -> None:
        with self._lock:
            known = self._read()
            new = [t for t in tombstones if (t.bank_id, t.memory_id) not in known]
            if not new:
                return
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as f:
                f.writelines(t.model_dump_json() + "\n" for t in new)

    def forgotten(self, bank_id: str, memory_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
        known = self._read()
        return {i for i in memory_ids if (bank_id, i) in known}

    def of_bank(self, bank_id: str) -> list[Tombstone]:
        stones = [t for (bank, _), t in self._read().items() if bank == bank_id]
        return sorted(stones, key=lambda t: str(t.memory_id))
