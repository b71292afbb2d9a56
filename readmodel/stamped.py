"""`Stamped`: a bounded map whose entries hold for one stamp of their key.

An entry is a value read for a key at some stamp (a point's version, a memory's text):
`get` returns it only for the same stamp, so an entry is never stale, only unused once
its key moves on, and needs no invalidation. The oldest entry goes first when the map
is full. Thread-safe: reads are single dict lookups; writes and evictions take a lock.
Recall's caches are built on it (`readmodel.stores.decoded`,
`readmodel.recall.passage_cache`).
"""

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
S = TypeVar("S")
V = TypeVar("V")


class Stamped(Generic[K, S, V]):
    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: dict[K, tuple[S, V]] = {}
        self._lock = threading.Lock()

    def get(self, key: K, stamp: S) -> V | None:
        entry = self._entries.get(key)
        return entry[1] if entry is not None and entry[0] == stamp else None

    def put(self, key: K, stamp: S, value: V) -> None:
        """Keep `value` as the key's at `stamp` (nothing with a size of 0 or less)."""
        if self._size <= 0:
            return
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = (stamp, value)
            while len(self._entries) > self._size:
                del self._entries[next(iter(self._entries))]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
