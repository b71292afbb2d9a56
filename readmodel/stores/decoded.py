"""`DecodedRecords`: records already decoded from their payloads, by point id and version.

Decoding a payload (`from_payload`, `stored_stats`) was most of recall's time in the
store: about 20 us a hit, some 100 hits a recall, and mostly the same points recall
after recall. The engine gives every point a version that each write to it raises (an
upsert, a payload update, a delete and re-insert), so a record decoded at one version
is that version's record for as long as the point keeps it: an entry is never stale,
only unused once the point moves on, and needs no invalidation. (A record read by id
after a search reported its version may be of a later version, as a read by id after
a search always could be; a search reporting the later version misses it.)

Versions count the operations of one shard; a shard rebuilt by copying (a purge's
compaction) numbers them afresh, so an adapter clears its entries when it closes the
shard they came from. Records are immutable, so one decoded record is shared by every
hit that reads it.
"""

import threading
import uuid
from typing import Final

from readmodel.store import Record, TextStats

DEFAULT_SIZE: Final = 2048
"""Entries kept; the oldest entry goes first. An entry holds about 7 KB for a LoCoMo turn
and 17 KB for a BEAM memory (its record and text stems, measured), so 14 to 36 MB at
most. Recall's hit rate on the LoCoMo dev questions is 0.94 at 1024 to 2048 entries
and 0.97 at 8192; on BEAM dev 0.88 from 512 up (a bank's hot set is small)."""

Decoded = tuple[Record, TextStats | None]


class DecodedRecords:
    """Thread-safe: reads are single dict lookups; writes and evictions take a lock."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._entries: dict[uuid.UUID, tuple[int, Decoded]] = {}
        self._lock = threading.Lock()

    def get(self, point_id: uuid.UUID, version: int) -> Decoded | None:
        entry = self._entries.get(point_id)
        return entry[1] if entry is not None and entry[0] == version else None

    def put(self, point_id: uuid.UUID, version: int, decoded: Decoded) -> None:
        """Keep `decoded` as the point's record at `version`; its text stats with it."""
        if self._size <= 0:
            return
        with self._lock:
            self._entries.pop(point_id, None)
            self._entries[point_id] = (version, decoded)
            while len(self._entries) > self._size:
                del self._entries[next(iter(self._entries))]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
