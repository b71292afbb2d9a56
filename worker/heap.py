"""Hands the C heap's free pages back to the system after a batch.

Consolidating a batch reads its neighbourhoods (a slot-key scroll of a large bank is
thousands of points with their vectors) and frees them when the batch is done. glibc
keeps freed small blocks in the process's heap, and only returns the heap's top, so a
worker's resident memory stays at the largest batch it has seen. `malloc_trim(0)`
releases every free page of the heap, wherever it lies. Elsewhere than glibc this does
nothing.
"""

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """True when the C library gave memory back (glibc only)."""
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
