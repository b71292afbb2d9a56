"""The intent to purge, on disk, for an embedded engine that purges when it closes.

A forget's text leaves an embedded engine's files only when the store rewrites them
(at close: see each adapter's `purge`). The marker file is written and synced before
the forget's delete, so a process killed before its close leaves it behind, and the
next open of the directory finishes the purge before anything reads the store.
"""

import os
from pathlib import Path
from typing import Final

PURGE_FILE: Final = "purge.pending"


class PendingPurge:
    """`purge.pending` in `root`: present from `record()` until `clear()`."""

    def __init__(self, root: Path) -> None:
        self._path = root / PURGE_FILE

    @property
    def pending(self) -> bool:
        return self._path.exists()

    def record(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("wb") as fh:
            fh.write(b"purge pending\n")
            fh.flush()
            os.fsync(fh.fileno())
        sync_dir(self._path.parent)

    def clear(self) -> None:
        self._path.unlink(missing_ok=True)
        sync_dir(self._path.parent)


def sync_dir(path: Path) -> None:
    """A rename, creation or removal in `path` is on disk once its directory is synced."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
