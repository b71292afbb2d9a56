"""`release_free_memory` hands freed C-heap pages back to the system."""

import ctypes.util
import platform
from pathlib import Path

import pytest

from worker.heap import TrimPace, release_free_memory

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's",
)


def _anon_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon in /proc/self/status")


@glibc
def test_freed_blocks_below_the_heap_top_go_back_to_the_system() -> None:
    assert ctypes.util.find_library("c")
    # 4 KB blocks come from malloc's heap (too large for Python's small-object
    # allocator, too small for their own mapping); one kept at the end pins the top,
    # so freeing the rest leaves free pages the heap alone never returns.
    blocks = [bytearray(4000) for _ in range(20_000)]
    pinned = bytearray(4000)
    del blocks
    before = _anon_mb()
    assert release_free_memory()
    after = _anon_mb()
    assert before - after > 40, (before, after)
    del pinned


def test_is_harmless_with_nothing_to_release() -> None:
    release_free_memory()
    release_free_memory()


def test_trim_pace_lets_one_trim_through_per_interval() -> None:
    now = [0.0]
    pace = TrimPace(1.0, clock=lambda: now[0])
    assert pace.due()
    now[0] = 0.99
    assert not pace.due()
    now[0] = 1.0
    assert pace.due()
    assert not pace.due()
    now[0] = 5.0
    assert pace.due()
