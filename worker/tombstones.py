"""Tombstones: what is left of forgotten memories (ids, never text), per bank, and the
forget rules bank and filter forgets leave for retains in flight (worker/forget_rules.py).

Consolidation skips an event whose memory id has a tombstone, so a redelivered,
reordered or replayed retain (or an import) never brings a forgotten memory back.
Tombstones are kept for good; a rule only while a retain still owed may need it
(worker/forget_rules.py, `prunable`).
Kept beside the read model rather than in it: a tombstone has no vectors and no
content, and every read of the collection stays free of a kind to exclude.

Layouts: `sediment:tombstones:{bank}` hashes (memory id -> JSON) and
`sediment:forget-rules:{bank}` hashes (forget event id -> JSON) in Redis;
`tombstones.jsonl` and `forget-rules.jsonl` in the data directory in embedded mode.
"""

import json
import os
import threading
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

import redis

from contracts.forget import ForgetRule, Tombstone

TOMBSTONES_KEY = "sediment:tombstones:{bank}"
RULES_KEY = "sediment:forget-rules:{bank}"


class Tombstones(Protocol):
    def add(self, tombstones: Sequence[Tombstone]) -> None: ...

    def forgotten(self, bank_id: str, memory_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
        """The ids among `memory_ids` that have a tombstone in `bank_id`."""

    def of_bank(self, bank_id: str) -> list[Tombstone]:
        """Every tombstone of `bank_id`, by memory id."""

    def add_rule(self, rule: ForgetRule) -> None:
        """Keep a forget rule (once per forget event)."""

    def rules(self, bank_id: str) -> list[ForgetRule]:
        """The forget rules of `bank_id`, oldest first."""

    def drop_rules(self, bank_id: str, forget_event_ids: Sequence[uuid.UUID]) -> None:
        """Remove rules no retain can need any more (worker/forget_rules.py, `prunable`)."""


class MemoryTombstones:
    """In-process tombstones (tests, and a default that is never silently a no-op)."""

    def __init__(self) -> None:
        self._by_bank: dict[str, dict[uuid.UUID, Tombstone]] = {}
        self._rules: dict[str, dict[uuid.UUID, ForgetRule]] = {}
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

    def add_rule(self, rule: ForgetRule) -> None:
        with self._lock:
            self._rules.setdefault(rule.bank_id, {}).setdefault(rule.forget_event_id, rule)

    def rules(self, bank_id: str) -> list[ForgetRule]:
        return oldest_first(self._rules.get(bank_id, {}).values())

    def drop_rules(self, bank_id: str, forget_event_ids: Sequence[uuid.UUID]) -> None:
        with self._lock:
            known = self._rules.get(bank_id, {})
            for i in forget_event_ids:
                known.pop(i, None)


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

    def add_rule(self, rule: ForgetRule) -> None:
        key = RULES_KEY.format(bank=rule.bank_id)
        self._client.hsetnx(key, str(rule.forget_event_id), rule.model_dump_json())

    def rules(self, bank_id: str) -> list[ForgetRule]:
        raw = self._client.hgetall(RULES_KEY.format(bank=bank_id))
        return oldest_first(ForgetRule.model_validate_json(v) for v in raw.values())

    def drop_rules(self, bank_id: str, forget_event_ids: Sequence[uuid.UUID]) -> None:
        if forget_event_ids:
            self._client.hdel(RULES_KEY.format(bank=bank_id), *[str(i) for i in forget_event_ids])


class FileTombstones:
    """Embedded mode: JSON lines in the data directory, read again on every check so a
    later process (`sediment ingest` after `sediment forget`) sees them."""

    def __init__(self, path: Path, rules_path: Path | None = None) -> None:
        self._path = path
        self._rules_path = rules_path or path.with_name("forget-rules.jsonl")
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

    def add_rule(self, rule: ForgetRule) -> None:
        with self._lock:
            if any(r.forget_event_id == rule.forget_event_id for r in self._read_rules()):
                return
            self._rules_path.parent.mkdir(parents=True, exist_ok=True)
            with self._rules_path.open("a", encoding="utf-8") as f:
                f.write(rule.model_dump_json() + "\n")

    def rules(self, bank_id: str) -> list[ForgetRule]:
        return oldest_first(r for r in self._read_rules() if r.bank_id == bank_id)

    def drop_rules(self, bank_id: str, forget_event_ids: Sequence[uuid.UUID]) -> None:
        """Rewrites the file without them (a new file moved into place)."""
        doomed = set(forget_event_ids)
        if not doomed:
            return
        with self._lock:
            rules = self._read_rules()
            kept = [r for r in rules if not (r.bank_id == bank_id and r.forget_event_id in doomed)]
            if len(kept) == len(rules):
                return
            fresh = self._rules_path.with_name(self._rules_path.name + ".new")
            fresh.write_text("".join(r.model_dump_json() + "\n" for r in kept), encoding="utf-8")
            os.replace(fresh, self._rules_path)

    def _read_rules(self) -> list[ForgetRule]:
        if not self._rules_path.exists():
            return []
        lines = self._rules_path.read_text(encoding="utf-8").splitlines()
        return [ForgetRule.model_validate_json(line) for line in lines if line.strip()]


def oldest_first(rules: Iterable[ForgetRule]) -> list[ForgetRule]:
    return sorted(rules, key=lambda r: (r.accepted_at, str(r.forget_event_id)))
