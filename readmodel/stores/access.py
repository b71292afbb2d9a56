"""`AccessTimes`: the embedded store's last-access times, kept beside its points.

Recall sets `last_accessed_at` on what it returned (DESIGN stage 16). On the embedded
engine a payload write to a point of an indexed (HNSW) segment copies the point into
the appendable segment, which is searched by full scan, and Edge has no background
optimizer to index it again: every distinct point recall had ever returned stayed out
of the index until `sediment optimize` (floor p50 1.4 -> 4.4 ms at 100,000 memories
after 40,000 distinct points were recalled; docs/decisions/0038). So the store keeps
these times here instead, and folds them into the points when it optimizes (which
rebuilds the index anyway).

Durable in `<store>/access.sqlite` (SQLite, WAL, created on the first write), read from
a dict: a read of a record costs one dict lookup, nothing when no time is pending. The
dict holds an entry per distinct point recalled since the last fold, about 120 bytes
each. Times are whole microseconds since the epoch, so a time reads back exactly as it
was written. A bank's entries are only ever read for that bank's records.
"""

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, TypeVar

from readmodel.store import Hit, Record, StoredPoint

ACCESS_FILE: Final = "access.sqlite"
EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND: Final = timedelta(microseconds=1)
_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS access ("
    " bank_id TEXT NOT NULL, id BLOB NOT NULL, at INTEGER NOT NULL,"
    " PRIMARY KEY (bank_id, id)) WITHOUT ROWID"
)
_UPSERT: Final = (
    "INSERT INTO access (bank_id, id, at) VALUES (?, ?, ?)"
    " ON CONFLICT (bank_id, id) DO UPDATE SET at = max(at, excluded.at)"
)

Restampable = TypeVar("Restampable", Hit, StoredPoint)
Pending = dict[str, dict[int, int]]
"""bank -> point id (as `UUID.int`) -> last access, in microseconds since the epoch."""


def micros(at: datetime) -> int:
    return (at - EPOCH) // _MICROSECOND


def from_micros(value: int) -> datetime:
    return EPOCH + value * _MICROSECOND


class AccessTimes:
    """Thread-safe: recall's effects thread writes while requests and the worker read."""

    def __init__(self, root: Path) -> None:
        self._path = root / ACCESS_FILE
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._pending: Pending = {}
        if self._path.exists():
            rows = self._connect().execute("SELECT bank_id, id, at FROM access").fetchall()
            for bank_id, raw_id, at in rows:
                self._pending.setdefault(bank_id, {})[int.from_bytes(raw_id, "big")] = at

    def __len__(self) -> int:
        return sum(len(ids) for ids in self._pending.values())

    def of_bank(self, bank_id: str) -> Mapping[int, int] | None:
        """The bank's pending times, or None when it has none (the common case)."""
        return self._pending.get(bank_id)

    def record(self, bank_id: str, ids: Iterable[int], at: datetime) -> None:
        """Keep `at` for each id unless a later time is kept already."""
        value = micros(at)
        with self._lock:
            known = self._pending.setdefault(bank_id, {})
            rows = []
            for pid in ids:
                if known.get(pid, value - 1) < value:
                    known[pid] = value
                    rows.append((bank_id, pid.to_bytes(16, "big"), value))
            if rows:
                with self._connect() as db:
                    db.executemany(_UPSERT, rows)

    def forget(self, bank_id: str, ids: Iterable[int]) -> None:
        with self._lock:
            known = self._pending.get(bank_id)
            gone = [pid for pid in ids if known is not None and known.pop(pid, None) is not None]
            if gone:
                with self._connect() as db:
                    db.executemany(
                        "DELETE FROM access WHERE bank_id = ? AND id = ?",
                        [(bank_id, pid.to_bytes(16, "big")) for pid in gone],
                    )

    def snapshot(self) -> Pending:
        with self._lock:
            return {bank: dict(ids) for bank, ids in self._pending.items() if ids}

    def clear(self, folded: Pending) -> None:
        """Drop the entries of `folded` that no later `record` has raised since."""
        with self._lock:
            rows = []
            for bank_id, ids in folded.items():
                known = self._pending.get(bank_id, {})
                for pid, at in ids.items():
                    if known.get(pid) == at:
                        del known[pid]
                        rows.append((bank_id, pid.to_bytes(16, "big"), at))
            if rows:
                with self._connect() as db:
                    db.executemany(
                        "DELETE FROM access WHERE bank_id = ? AND id = ? AND at = ?", rows
                    )

    def close(self) -> None:
        """SQLite folds its write-ahead log into the file as the last connection closes;
        with `secure_delete`, what `forget` removed is then in neither."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self._path, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA secure_delete=ON")
            db.execute(_SCHEMA)
            self._db = db
        return self._db


def accessed(record: Record, times: Mapping[int, int]) -> Record:
    """`record` with its pending last access, where that is later than its own."""
    at = times.get(record.id.int)
    if at is None:
        return record
    own = record.last_accessed_at
    if own is not None and micros(own) >= at:
        return record
    return record.model_copy(update={"last_accessed_at": from_micros(at)})


def restamped(items: Iterable[Restampable], times: Mapping[int, int]) -> Iterator[Restampable]:
    """Hits or stored points, each with its record as `accessed` gives it."""
    for item in items:
        record = accessed(item.record, times)
        yield item if record is item.record else replace(item, record=record)
